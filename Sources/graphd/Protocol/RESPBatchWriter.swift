// RESPBatchWriter.swift — writes many small RESP values into room reserved once in a reply.
//
// A result set is mostly short lines (`*1\r\n`, `:60074\r\n`): a friend list of 372 rows is 744
// of them. Appending each line to the reply's array checks its capacity and uniqueness and
// copies a few bytes through memmove, and that took a quarter of the server's time for such a
// reply. A batch reserves an upper bound of its bytes once (`RESPEncoder.writeBatch`) and then
// writes through a pointer, with no check per value.

/// A writer over reserved, uninitialised bytes at the end of a reply. Each method's bound (the
/// most bytes it may write) is given beside it; a batch must reserve the sum of its values'.
struct RESPBatchWriter {
    /// The most bytes `header` writes: prefix, sign, 19 digits, CRLF.
    static let headerBound = 24
    /// The most bytes `null` writes (RESP2's `$-1\r\n`).
    static let nullBound = 5

    private let base: UnsafeMutablePointer<UInt8>
    /// Bytes written so far.
    private(set) var count: Int
    private let capacity: Int
    let protocolVersion: ProtocolVersion

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int, protocolVersion: ProtocolVersion) {
        self.base = base
        self.count = 0
        self.capacity = capacity
        self.protocolVersion = protocolVersion
    }

    /// `prefix`, `value` in decimal, CRLF: `*3\r\n`, `:42\r\n`. At most `headerBound` bytes.
    @inline(__always)
    mutating func header(_ prefix: UInt8, _ value: Int64) {
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude
        while rest >= 10 {
            rest /= 10
            digits &+= 1
        }
        let sign = value < 0 ? 1 : 0
        let length = 3 &+ sign &+ digits
        precondition(count &+ length <= capacity, "RESPBatchWriter: a batch wrote past its bound")
        let line = base + count
        line[0] = prefix
        line[1] = UInt8(ascii: "-")  // overwritten by a digit when not negative
        var i = length &- 2
        line[i] = 0x0d
        line[i &+ 1] = 0x0a
        repeat {
            i &-= 1
            line[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while i > 1 &+ sign
        count &+= length
    }

    /// `*count\r\n`.
    @inline(__always)
    mutating func arrayHeader(_ count: Int) {
        header(UInt8(ascii: "*"), Int64(count))
    }

    /// `:value\r\n`.
    @inline(__always)
    mutating func integer(_ value: Int64) {
        header(UInt8(ascii: ":"), value)
    }

    /// RESP3 `_\r\n`, RESP2 `$-1\r\n`. At most `nullBound` bytes.
    @inline(__always)
    mutating func null() {
        precondition(count &+ Self.nullBound <= capacity, "RESPBatchWriter: a batch wrote past its bound")
        let line = base + count
        if protocolVersion == .resp3 {
            line[0] = UInt8(ascii: "_")
            line[1] = 0x0d
            line[2] = 0x0a
            count &+= 3
        } else {
            line[0] = UInt8(ascii: "$")
            line[1] = UInt8(ascii: "-")
            line[2] = UInt8(ascii: "1")
            line[3] = 0x0d
            line[4] = 0x0a
            count &+= 5
        }
    }

    /// `$len\r\ntext\r\n`: at most `bulkStringBound(text)` bytes.
    @inline(__always)
    mutating func bulkString(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            header(UInt8(ascii: "$"), Int64(utf8.count))
            precondition(count &+ utf8.count &+ 2 <= capacity, "RESPBatchWriter: a batch wrote past its bound")
            if let source = utf8.baseAddress { (base + count).update(from: source, count: utf8.count) }
            count &+= utf8.count
            base[count] = 0x0d
            base[count &+ 1] = 0x0a
            count &+= 2
        }
    }

    /// The most bytes `bulkString(text)` writes.
    @inline(__always)
    static func bulkStringBound(_ text: String) -> Int {
        headerBound &+ text.utf8.count &+ 2
    }
}

extension RESPEncoder {
    /// Runs `body` with a writer over `bound` bytes reserved at the end of the reply, and keeps
    /// the bytes it wrote. `bound` must cover everything `body` writes (the writer stops the
    /// process rather than write past it): the sum of each value's bound.
    mutating func writeBatch(bound: Int, _ body: (inout RESPBatchWriter) -> Void) {
        let version = protocolVersion
        appendUninitialized(atMost: bound) { base in
            var writer = RESPBatchWriter(base: base, capacity: bound, protocolVersion: version)
            body(&writer)
            return writer.count
        }
    }
}
