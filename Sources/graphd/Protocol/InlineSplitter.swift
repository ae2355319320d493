// InlineSplitter.swift — splits an inline request line (what a person types at `nc`) into
// arguments with exactly the rules of Redis's `sdssplitargs` (src/sds.c), so that a line
// means the same thing to graphd as to Redis: quotes, escapes and all.

/// Redis's `sdssplitargs`, on bytes.
///
/// - Separators are C `isspace` bytes; runs of them count as one.
/// - `"…"` understands `\xHH`, `\n \r \t \b \a` and `\<c>` → `c`.
/// - `'…'` understands only `\'`.
/// - A closing quote must be followed by whitespace or the end of the line.
/// - A quote in the middle of a bare token starts quoting: `ab"c d"` → `abc d`.
/// - A NUL byte ends the line, as it ends the C string Redis works on.
enum InlineSplitter {
    /// The arguments of `line`, or nil when quotes are unbalanced (Redis then replies
    /// `unbalanced quotes in request` and closes the connection).
    static func split<C: Collection>(_ line: C) -> [[UInt8]]? where C.Element == UInt8 {
        // Work on a NUL-terminated copy: the algorithm peeks one byte ahead, as the C does.
        var bytes = [UInt8]()
        bytes.reserveCapacity(line.count + 2)
        for b in line { if b == 0 { break }; bytes.append(b) }
        bytes.append(0)
        bytes.append(0)

        var args: [[UInt8]] = []
        var p = 0
        while true {
            while bytes[p] != 0 && isSpace(bytes[p]) { p += 1 }
            if bytes[p] == 0 { return args }

            var inDoubleQuotes = false
            var inSingleQuotes = false
            var done = false
            var current: [UInt8] = []
            while !done {
                let c = bytes[p]
                if inDoubleQuotes {
                    if c == UInt8(ascii: "\\") && bytes[p + 1] == UInt8(ascii: "x")
                        && p + 3 < bytes.count && hexValue(bytes[p + 2]) != nil && hexValue(bytes[p + 3]) != nil {
                        // Both hex digits were checked just above.
                        current.append(hexValue(bytes[p + 2])! << 4 | hexValue(bytes[p + 3])!)
                        p += 3
                    } else if c == UInt8(ascii: "\\") && bytes[p + 1] != 0 {
                        p += 1
                        switch bytes[p] {
                        case UInt8(ascii: "n"): current.append(0x0a)
                        case UInt8(ascii: "r"): current.append(0x0d)
                        case UInt8(ascii: "t"): current.append(0x09)
                        case UInt8(ascii: "b"): current.append(0x08)
                        case UInt8(ascii: "a"): current.append(0x07)
                        default: current.append(bytes[p])
                        }
                    } else if c == UInt8(ascii: "\"") {
                        if bytes[p + 1] != 0 && !isSpace(bytes[p + 1]) { return nil }
                        done = true
                    } else if c == 0 {
                        return nil
                    } else {
                        current.append(c)
                    }
                } else if inSingleQuotes {
                    if c == UInt8(ascii: "\\") && bytes[p + 1] == UInt8(ascii: "'") {
                        p += 1
                        current.append(UInt8(ascii: "'"))
                    } else if c == UInt8(ascii: "'") {
                        if bytes[p + 1] != 0 && !isSpace(bytes[p + 1]) { return nil }
                        done = true
                    } else if c == 0 {
                        return nil
                    } else {
                        current.append(c)
                    }
                } else {
                    switch c {
                    case UInt8(ascii: " "), 0x0a, 0x0d, 0x09, 0: done = true
                    case UInt8(ascii: "\""): inDoubleQuotes = true
                    case UInt8(ascii: "'"): inSingleQuotes = true
                    default: current.append(c)
                    }
                }
                if bytes[p] != 0 { p += 1 }
            }
            args.append(current)
        }
    }

    /// C `isspace` in the C locale.
    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || (b >= 0x09 && b <= 0x0d)
    }

    @inline(__always)
    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
