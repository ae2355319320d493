// RESPEncoder.swift — writes RESP2 or RESP3 replies straight into a byte buffer.
// Last stage before the socket: command handlers and the result-set formatter append
// to one `[UInt8]`, which the connection sends as is. No Foundation `Data`, no
// intermediate reply tree on the hot path.

/// An append-only reply writer for the connection's protocol version.
///
/// The version-aware writers (`null`, `mapHeader`, `boolean`, `verbatimText`) choose the
/// RESP3 type when the connection said `HELLO 3` and the RESP2 equivalent otherwise, so
/// handlers write one reply and both dialects come out right.
struct RESPEncoder: Sendable {
    /// The encoded bytes so far.
    private(set) var bytes: [UInt8]
    /// The dialect to write.
    var protocolVersion: ProtocolVersion

    init(capacity: Int = 64, protocolVersion: ProtocolVersion = .resp2) {
        bytes = []
        bytes.reserveCapacity(capacity)
        self.protocolVersion = protocolVersion
    }

    /// Room for `count` more bytes: a writer that can estimate its reply grows the buffer once
    /// instead of doubling its way up from 64 bytes, copying everything so far each time.
    mutating func reserveCapacity(adding count: Int) {
        bytes.reserveCapacity(bytes.count + count)
    }

    /// `+text\r\n`. The text must not contain CR or LF; they are replaced by spaces.
    mutating func simpleString(_ text: String) {
        bytes.append(UInt8(ascii: "+"))
        appendLine(text)
    }

    /// `-message\r\n`. `message` starts with its own code (`ERR …`) when it has one;
    /// FalkorDB's query errors carry none. CR and LF are replaced by spaces, as Redis does.
    mutating func error(_ message: String) {
        bytes.append(UInt8(ascii: "-"))
        appendLine(message)
    }

    /// `:n\r\n`.
    mutating func integer(_ value: Int64) {
        appendHeader(UInt8(ascii: ":"), value)
    }

    /// `$len\r\nbytes\r\n`.
    mutating func bulkString<C: Collection>(_ payload: C) where C.Element == UInt8 {
        appendHeader(UInt8(ascii: "$"), Int64(payload.count))
        bytes.append(contentsOf: payload)
        appendCRLF()
    }

    /// `$len\r\ntext\r\n`.
    mutating func bulkString(_ text: String) {
        bulkString(text.utf8)
    }

    /// `$-1\r\n`, RESP2's null.
    mutating func nullBulkString() {
        bytes.append(contentsOf: [UInt8(ascii: "$"), UInt8(ascii: "-"), UInt8(ascii: "1"), 0x0d, 0x0a])
    }

    /// RESP3 `_\r\n`, RESP2 `$-1\r\n`.
    mutating func null() {
        if protocolVersion == .resp3 {
            bytes.append(contentsOf: [UInt8(ascii: "_"), 0x0d, 0x0a])
        } else {
            nullBulkString()
        }
    }

    /// RESP3 `%count\r\n`; RESP2 a flat array of `2 × count` (key, value, …), as Redis
    /// sends maps to RESP2 clients. The caller then writes `count` key/value pairs.
    mutating func mapHeader(_ count: Int) {
        if protocolVersion == .resp3 {
            appendHeader(UInt8(ascii: "%"), Int64(count))
        } else {
            arrayHeader(count * 2)
        }
    }

    /// RESP3 `#t` / `#f`; RESP2 `:1` / `:0` (FalkorDB's GRAPH.CONFIG booleans).
    mutating func boolean(_ value: Bool) {
        if protocolVersion == .resp3 {
            bytes.append(contentsOf: [UInt8(ascii: "#"), UInt8(ascii: value ? "t" : "f"), 0x0d, 0x0a])
        } else {
            integer(value ? 1 : 0)
        }
    }

    /// Text for a person (INFO): RESP3 verbatim string `=len\r\ntxt:…`; RESP2 bulk string.
    mutating func verbatimText(_ text: String) {
        guard protocolVersion == .resp3 else { bulkString(text); return }
        appendHeader(UInt8(ascii: "="), Int64(text.utf8.count + 4))
        bytes.append(contentsOf: "txt:".utf8)
        bytes.append(contentsOf: text.utf8)
        appendCRLF()
    }

    /// `*count\r\n`; the caller then writes `count` values.
    mutating func arrayHeader(_ count: Int) {
        appendHeader(UInt8(ascii: "*"), Int64(count))
    }

    /// RESP3 `>count\r\n` (a push: Pub/Sub frames); RESP2 an array header, as Redis sends them.
    mutating func pushHeader(_ count: Int) {
        appendHeader(UInt8(ascii: protocolVersion == .resp3 ? ">" : "*"), Int64(count))
    }

    /// Runs `body` with a pointer to `maximum` uninitialised bytes after the reply's end; the
    /// first n of them, n being what `body` returns, become part of the reply
    /// (`RESPBatchWriter` writes through it).
    mutating func appendUninitialized(atMost maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        guard maximum > 0 else { return }
        bytes.append(addingCapacity: maximum) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                let written = body(buffer.baseAddress!)
                precondition(written >= 0 && written <= buffer.count, "RESPEncoder: wrote past the bytes reserved")
                initialized = written
            }
        }
    }

    /// Appends bytes already encoded in this encoder's dialect.
    mutating func appendRaw<C: Collection>(_ encoded: C) where C.Element == UInt8 {
        bytes.append(contentsOf: encoded)
    }

    /// Appends a whole reply value.
    mutating func write(_ value: RESPValue) {
        switch value {
        case .simpleString(let s): simpleString(s)
        case .error(let e): error(e)
        case .integer(let n): integer(n)
        case .bulkString(let b): bulkString(b)
        case .null: null()
        case .array(let items):
            arrayHeader(items.count)
            for item in items { write(item) }
        case .map(let entries):
            mapHeader(entries.count)
            for (key, value) in entries {
                write(key)
                write(value)
            }
        case .boolean(let b): boolean(b)
        }
    }

    // MARK: Helpers

    private mutating func appendLine(_ text: String) {
        for b in text.utf8 { bytes.append(b == 0x0d || b == 0x0a ? UInt8(ascii: " ") : b) }
        appendCRLF()
    }

    @inline(__always)
    private mutating func appendCRLF() {
        bytes.append(0x0d)
        bytes.append(0x0a)
    }

    /// `prefix`, `value` in decimal, CRLF (`:42\r\n`, `*3\r\n`): the digits are written back to
    /// front into a stack buffer and the whole line appended at once. A result set is mostly
    /// such lines (two or three a value), and a digit-by-digit append checked the array's
    /// capacity and uniqueness for every byte.
    @inline(__always)
    private mutating func appendHeader(_ prefix: UInt8, _ value: Int64) {
        // 1 prefix + 1 sign + 20 digits + CRLF.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { line in
            var i = 24
            line[i - 1] = 0x0a
            line[i - 2] = 0x0d
            i -= 2
            var magnitude = value.magnitude
            repeat {
                i -= 1
                line[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                i -= 1
                line[i] = UInt8(ascii: "-")
            }
            i -= 1
            line[i] = prefix
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[i...]))
        }
    }
}
