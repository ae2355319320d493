// ImportCSVReader.swift — a fast CSV reader over a whole file's bytes (RFC 4180: quoted
// fields with "" for a quote and line breaks inside quotes, CRLF or LF). A record is a list
// of byte ranges into the buffer, so reading allocates nothing per field; only quoted fields
// are unescaped when their text is asked for.

/// One field of a record: a byte range, and whether it was quoted.
public struct ImportField: Sendable {
    public var start: Int
    public var end: Int
    /// Quoted fields may hold `""` pairs that stand for one quote.
    public var quoted: Bool
    public var isEmpty: Bool { start == end }
}

/// Reads records one at a time from CSV bytes.
public struct ImportCSVReader {
    public let bytes: [UInt8]
    public let delimiter: UInt8
    /// The offset of the next unread byte.
    public private(set) var position = 0
    /// The 1-based line on which the record last returned started.
    public private(set) var recordLine = 0
    private var nextLine = 1

    public init(bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ",")) {
        self.bytes = bytes
        self.delimiter = delimiter
        // A UTF-8 byte order mark is not part of the first field.
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { position = 3 }
    }

    /// Reads the next record into `fields` (cleared first). Returns false at the end of input.
    /// Blank lines are skipped. Throws on a quote left open at the end of the file.
    public mutating func next(into fields: inout [ImportField], file: String) throws(ImportError) -> Bool {
        fields.removeAll(keepingCapacity: true)
        let count = bytes.count
        // Skip blank lines.
        while position < count && (bytes[position] == 10 || bytes[position] == 13) {
            if bytes[position] == 10 { nextLine += 1 }
            position += 1
        }
        if position >= count { return false }
        recordLine = nextLine
        return try bytes.withUnsafeBufferPointer { (buffer) throws(ImportError) -> Bool in
            var p = position
            while true {
                if p < count && buffer[p] == UInt8(ascii: "\"") {
                    // Quoted field: up to the closing quote not followed by another quote.
                    let start = p + 1
                    p += 1
                    while true {
                        if p >= count {
                            throw ImportError(file: file, line: recordLine, reason: "a quoted field is not closed before the end of the file")
                        }
                        let b = buffer[p]
                        if b == UInt8(ascii: "\"") {
                            if p + 1 < count && buffer[p + 1] == UInt8(ascii: "\"") { p += 2; continue }
                            break
                        }
                        if b == 10 { nextLine += 1 }
                        p += 1
                    }
                    fields.append(ImportField(start: start, end: p, quoted: true))
                    p += 1  // the closing quote
                    if p < count && buffer[p] != delimiter && buffer[p] != 10 && buffer[p] != 13 {
                        throw ImportError(file: file, line: recordLine, reason: "unexpected text after a closing quote in field \(fields.count)")
                    }
                } else {
                    let start = p
                    while p < count {
                        let b = buffer[p]
                        if b == delimiter || b == 10 || b == 13 { break }
                        p += 1
                    }
                    fields.append(ImportField(start: start, end: p, quoted: false))
                }
                if p < count && buffer[p] == delimiter {
                    p += 1
                    continue
                }
                // End of record: CRLF, LF, CR or end of input.
                if p < count && buffer[p] == 13 { p += 1 }
                if p < count && buffer[p] == 10 { p += 1 }
                nextLine += 1
                position = p
                return true
            }
        }
    }

    /// Fast path for the commonest relationship row, `123,456` (two unquoted decimal
    /// integers): reads it and returns them, or returns nil without reading anything when
    /// the next record is not of that shape, so the caller falls back to `next(into:)`.
    public mutating func nextIntegerPair() -> (Int64, Int64)? {
        let count = bytes.count
        var p = position
        guard p < count, bytes[p] != 10, bytes[p] != 13 else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> (Int64, Int64)? in
            func integer(_ p: inout Int, until terminator: (UInt8) -> Bool) -> Int64? {
                var value: Int64 = 0
                var digits = 0
                while p < count, !terminator(buffer[p]) {
                    let digit = buffer[p] &- 48
                    guard digit < 10, digits < 18 else { return nil }
                    value = value * 10 + Int64(digit)
                    digits += 1
                    p += 1
                }
                return digits > 0 ? value : nil
            }
            let delimiter = self.delimiter
            guard let a = integer(&p, until: { $0 == delimiter }), p < count else { return nil }
            p += 1
            guard let b = integer(&p, until: { $0 == 10 || $0 == 13 }) else { return nil }
            if p < count && buffer[p] == 13 { p += 1 }
            if p < count && buffer[p] == 10 { p += 1 }
            recordLine = nextLine
            nextLine += 1
            position = p
            return (a, b)
        }
    }

    /// The text of `field`, with `""` turned into `"` in quoted fields.
    public func string(_ field: ImportField) -> String {
        let text = String(decoding: bytes[field.start..<field.end], as: UTF8.self)
        return field.quoted ? text.replacingQuotePairs() : text
    }

    /// The field as an integer, or nil when it is not one (fast path for ids).
    public func integer(_ field: ImportField) -> Int64? {
        ImportNumber.integer(bytes, field.start, field.end)
    }
}

extension String {
    fileprivate func replacingQuotePairs() -> String {
        guard contains("\"\"") else { return self }
        var out = ""
        var previousQuote = false
        for c in self {
            if c == "\"" && previousQuote { previousQuote = false; continue }
            previousQuote = c == "\""
            out.append(c)
        }
        return out
    }
}

/// Number parsing on raw bytes, without making a String first.
public enum ImportNumber {
    /// A decimal integer with an optional sign and surrounding spaces; nil otherwise or on overflow.
    @inlinable
    public static func integer(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int64? {
        var s = start, e = end
        while s < e && bytes[s] == 32 { s += 1 }
        while e > s && bytes[e - 1] == 32 { e -= 1 }
        guard s < e else { return nil }
        var negative = false
        if bytes[s] == UInt8(ascii: "-") || bytes[s] == UInt8(ascii: "+") {
            negative = bytes[s] == UInt8(ascii: "-")
            s += 1
            guard s < e else { return nil }
        }
        var value: Int64 = 0
        while s < e {
            let digit = bytes[s] &- 48
            guard digit < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(digit))
            if o1 || o2 { return nil }
            value = sum
            s += 1
        }
        return negative ? -value : value
    }
}
