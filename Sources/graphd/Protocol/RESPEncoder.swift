// RESPEncoder.swift — writes RESP2 replies straight into a byte buffer.
// Last stage before the socket: command handlers and the result-set formatter append
// to one `[UInt8]`, which the connection sends as is. No Foundation `Data`, no
// intermediate reply tree on the hot path.

/// An append-only RESP2 reply writer.
struct RESPEncoder: Sendable {
    /// The encoded bytes so far.
    private(set) var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
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
        bytes.append(UInt8(ascii: ":"))
        appendDecimal(value)
        appendCRLF()
    }

    /// `$len\r\nbytes\r\n`.
    mutating func bulkString<C: Collection>(_ payload: C) where C.Element == UInt8 {
        bytes.append(UInt8(ascii: "$"))
        appendDecimal(Int64(payload.count))
        appendCRLF()
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

    /// `*count\r\n`; the caller then writes `count` values.
    mutating func arrayHeader(_ count: Int) {
        bytes.append(UInt8(ascii: "*"))
        appendDecimal(Int64(count))
        appendCRLF()
    }

    /// Appends a whole reply value.
    mutating func write(_ value: RESPValue) {
        switch value {
        case .simpleString(let s): simpleString(s)
        case .error(let e): error(e)
        case .integer(let n): integer(n)
        case .bulkString(let b): bulkString(b)
        case .null: nullBulkString()
        case .array(let items):
            arrayHeader(items.count)
            for item in items { write(item) }
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

    /// Decimal digits without going through `String`.
    private mutating func appendDecimal(_ value: Int64) {
        if value == 0 { bytes.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while magnitude > 0 {
                d[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(d[i]) }
        }
    }
}
