// GlobPattern.swift — Redis's glob matching (util.c stringmatchlen) for PSUBSCRIBE patterns and
// PUBSUB CHANNELS: `*` any run, `?` one byte, `[abc]`, `[^abc]`, `[a-z]`, and `\` quoting the
// next byte. Byte-wise, case-sensitive, as Redis matches channel names.

/// A glob pattern over bytes.
struct GlobPattern: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether `text` matches the whole pattern.
    func matches(_ text: [UInt8]) -> Bool {
        var steps = 0
        return Self.match(bytes[...], text[...], steps: &steps)
    }

    /// Backtracking match; `steps` bounds the work (Redis stops a pathological pattern the
    /// same way, treating it as no match).
    private static func match(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>, steps: inout Int) -> Bool {
        var p = pattern.startIndex, t = text.startIndex
        while p < pattern.endIndex {
            steps += 1
            if steps > 100_000 { return false }
            switch pattern[p] {
            case UInt8(ascii: "*"):
                while p + 1 < pattern.endIndex, pattern[p + 1] == UInt8(ascii: "*") { p += 1 }
                if p + 1 == pattern.endIndex { return true }
                var start = t
                while start <= text.endIndex {
                    if match(pattern[(p + 1)...], text[start...], steps: &steps) { return true }
                    if start == text.endIndex || steps > 100_000 { return false }
                    start += 1
                }
                return false
            case UInt8(ascii: "?"):
                guard t < text.endIndex else { return false }
                t += 1
            case UInt8(ascii: "["):
                guard t < text.endIndex else { return false }
                p += 1
                let negated = p < pattern.endIndex && pattern[p] == UInt8(ascii: "^")
                if negated { p += 1 }
                var matched = false
                while p < pattern.endIndex, pattern[p] != UInt8(ascii: "]") {
                    if pattern[p] == UInt8(ascii: "\\"), p + 1 < pattern.endIndex {
                        p += 1
                        if pattern[p] == text[t] { matched = true }
                    } else if p + 2 < pattern.endIndex, pattern[p + 1] == UInt8(ascii: "-") {
                        let (low, high) = (min(pattern[p], pattern[p + 2]), max(pattern[p], pattern[p + 2]))
                        if low <= text[t] && text[t] <= high { matched = true }
                        p += 2
                    } else if pattern[p] == text[t] {
                        matched = true
                    }
                    p += 1
                }
                // An unclosed `[` ends the pattern, as in Redis.
                if p == pattern.endIndex { p -= 1 }
                if negated { matched.toggle() }
                guard matched else { return false }
                t += 1
            case UInt8(ascii: "\\") where p + 1 < pattern.endIndex:
                p += 1
                guard t < text.endIndex, pattern[p] == text[t] else { return false }
                t += 1
            default:
                guard t < text.endIndex, pattern[p] == text[t] else { return false }
                t += 1
            }
            p += 1
        }
        return t == text.endIndex
    }
}
