// NameFolding.swift — how people search reads a name or a query: Unicode NFKD, combining marks
// dropped, case-folded, and the letters NFKD leaves alone folded by hand (ł→l, ø→o, æ→ae, đ→d,
// ı→i, ß→ss), so "Łukasz Østergård" is found by typing "lukasz ostergard". Words split on
// whitespace; a word with an apostrophe or hyphen also counts as its joined form and as each
// piece (O'Brien-Smith: obriensmith, o, brien, smith); a name with CJK letters also counts as
// a whole without its spaces, since such names are typed without them.

import Foundation

/// Folds names and queries for `social.searchPeople` (docs/social.md has the contract).
/// Scalars below U+3100 and the half/full-width forms are folded through a table made once;
/// ASCII takes a direct path, since most names are ASCII.
public enum NameFolding {
    /// The folded scalars of `text` (no splitting), appended to `output`.
    public static func fold(_ text: Substring.UnicodeScalarView, into output: inout [UInt32]) {
        for scalar in text { foldScalar(scalar.value, into: &output) }
    }

    /// The folded form of `text` as a String (tests and error messages).
    public static func folded(_ text: String) -> String {
        var out: [UInt32] = []
        fold(Substring(text).unicodeScalars, into: &out)
        return string(out)
    }

    /// The words a name is found by, folded: each whitespace-separated word, plus the joined
    /// form and the pieces of one with apostrophes or hyphens, plus the whole name without
    /// spaces when it has CJK letters. Duplicates are removed; empty words never appear.
    public static func nameWords(_ name: String) -> [[UInt32]] {
        var words = FoldedWords()
        nameWords(name, into: &words)
        return words.arrays
    }

    /// `nameWords(name)` into `words` (emptied first), in the same order.
    static func nameWords(_ name: String, into words: inout FoldedWords) {
        words.removeAll()
        var hasCJK = false
        var wordCount = 0
        var inWord = false
        var split = false
        var pieceStart = 0
        // Ends a whitespace-separated word: its last piece (when it had joiners), then its
        // joined form, both folded in the scratch buffer.
        func endWord(_ words: inout FoldedWords) {
            if split { words.keepDistinct(scratchFrom: pieceStart) }
            words.keepDistinct(scratchFrom: 0)
        }
        for scalar in name.unicodeScalars {
            let v = scalar.value
            if isSpace(scalar) {
                if inWord { endWord(&words); inWord = false }
                continue
            }
            if !inWord {
                inWord = true
                wordCount += 1
                split = false
                pieceStart = 0
                words.scratch.removeAll(keepingCapacity: true)
            }
            if isJoiner(v) {
                split = true
                words.keepDistinct(scratchFrom: pieceStart)
                pieceStart = words.scratch.count
                continue
            }
            if v >= 0x1100 && isCJK(v) { hasCJK = true }
            foldScalar(v, into: &words.scratch)
        }
        if inWord { endWord(&words) }
        if hasCJK && wordCount > 1 {
            words.scratch.removeAll(keepingCapacity: true)
            for scalar in name.unicodeScalars where !isSpace(scalar) && !isJoiner(scalar.value) {
                foldScalar(scalar.value, into: &words.scratch)
            }
            words.keepDistinct(scratchFrom: 0)
        }
    }

    /// The words of a query, folded: split on whitespace, apostrophes and hyphens removed (a
    /// query word matches the joined form); words that fold to nothing are dropped.
    public static func queryWords(_ query: String) -> [[UInt32]] {
        var words: [[UInt32]] = []
        for word in query.unicodeScalars.split(whereSeparator: isSpace) {
            var folded: [UInt32] = []
            for scalar in word where !isJoiner(scalar.value) { foldScalar(scalar.value, into: &folded) }
            if !folded.isEmpty { words.append(folded) }
        }
        return words
    }

    /// Whitespace (Unicode's White_Space property), without a property lookup: the set is
    /// fixed by Unicode's stability policy, and a lookup a letter was a tenth of a bulk build.
    @inline(__always) static func isSpace(_ s: Unicode.Scalar) -> Bool { isWhitespace(s.value) }

    @inline(__always) static func isWhitespace(_ v: UInt32) -> Bool {
        if v < 0x80 { return v == 0x20 || (v >= 0x09 && v <= 0x0D) }
        if v < 0x1680 { return v == 0x85 || v == 0xA0 }
        return v == 0x1680 || (v >= 0x2000 && v <= 0x200A) || v == 0x2028 || v == 0x2029 || v == 0x202F
            || v == 0x205F || v == 0x3000
    }

    /// Apostrophes and hyphens that join the parts of a name (O'Brien, Smith-Jones).
    @inline(__always) static func isJoiner(_ v: UInt32) -> Bool {
        v == 0x27 || v == 0x2D || v == 0x2019 || v == 0x2018 || v == 0x02BC || v == 0x2010 || v == 0x2011
    }

    /// Han, kana and Hangul: scripts written without spaces between a name's parts.
    @inline(__always) static func isCJK(_ v: UInt32) -> Bool {
        (0x3040...0x30FF).contains(v) || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0x1100...0x11FF).contains(v) || (0xF900...0xFAFF).contains(v)
            || (0x20000...0x2FFFF).contains(v)
    }

    /// The text of folded scalars (queries and words printed back).
    public static func string(_ scalars: [UInt32]) -> String {
        var s = String.UnicodeScalarView()
        for v in scalars { if let u = Unicode.Scalar(v) { s.append(u) } }
        return String(s)
    }

    /// Appends the folding of one scalar.
    @inline(__always) static func foldScalar(_ v: UInt32, into output: inout [UInt32]) {
        if v < 0x80 {
            output.append(v >= 0x41 && v <= 0x5A ? v + 32 : v)
            return
        }
        if v >= 0xAC00 && v <= 0xD7A3 {  // Hangul syllables: NFKD is arithmetic (Unicode §3.12)
            let s = v - 0xAC00
            output.append(0x1100 + s / 588)
            output.append(0x1161 + (s % 588) / 28)
            if s % 28 != 0 { output.append(0x11A7 + s % 28) }
            return
        }
        if (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0x20000...0x2A6DF).contains(v) {
            output.append(v)  // unified ideographs: no decomposition, no case
            return
        }
        if let range = FoldingTable.shared.range(of: v) {
            output.append(contentsOf: FoldingTable.shared.pool[range])
            return
        }
        FoldingTable.foldSlowly(v, into: &output)
    }
}

/// The folding of every scalar below U+3100 and of U+FF00…U+FFEF, made once through Foundation.
struct FoldingTable: Sendable {
    static let shared = FoldingTable()
    /// Start of each scalar's folding in `pool` (entries for `low` then `high`), one past the last at the end.
    let starts: [UInt32]
    let pool: [UInt32]
    static let low: ClosedRange<UInt32> = 0...0x30FF
    static let high: ClosedRange<UInt32> = 0xFF00...0xFFEF

    init() {
        var starts: [UInt32] = []
        var pool: [UInt32] = []
        starts.reserveCapacity(Self.low.count + Self.high.count + 1)
        for range in [Self.low, Self.high] {
            for v in range {
                starts.append(UInt32(pool.count))
                Self.foldSlowly(v, into: &pool)
            }
        }
        starts.append(UInt32(pool.count))
        self.starts = starts
        self.pool = pool
    }

    @inline(__always) func range(of v: UInt32) -> Range<Int>? {
        let i: Int
        if v <= Self.low.upperBound { i = Int(v) }
        else if Self.high.contains(v) { i = Self.low.count + Int(v - Self.high.lowerBound) }
        else { return nil }
        return Int(starts[i])..<Int(starts[i + 1])
    }

    /// NFKD, drop scalars with a non-zero canonical combining class, lower-case (dropping marks
    /// lower-casing brings, as İ's dot), then the hand table.
    static func foldSlowly(_ v: UInt32, into output: inout [UInt32]) {
        guard let scalar = Unicode.Scalar(v) else { return }
        if scalar.properties.generalCategory == .surrogate { return }
        let decomposed = String(Character(scalar)).decomposedStringWithCompatibilityMapping
        for d in decomposed.unicodeScalars where d.properties.canonicalCombiningClass.rawValue == 0 {
            for l in d.properties.lowercaseMapping.unicodeScalars where l.properties.canonicalCombiningClass.rawValue == 0 {
                switch l.value {
                case 0x142: output.append(0x6C)                     // ł → l
                case 0xF8: output.append(0x6F)                      // ø → o
                case 0xE6: output.append(0x61); output.append(0x65) // æ → ae
                case 0x111: output.append(0x64)                     // đ → d
                case 0x131: output.append(0x69)                     // ı → i
                case 0xDF: output.append(0x73); output.append(0x73) // ß → ss (case folding)
                case 0x3C2: output.append(0x3C3)                    // ς → σ (case folding)
                default: output.append(l.value)
                }
            }
        }
    }
}
