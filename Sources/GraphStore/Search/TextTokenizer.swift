// TextTokenizer.swift — how FalkorDB's full-text procedures read text: RediSearch's default
// tokenizer splits on whitespace and punctuation and lower-cases, keeping accents (so "José"
// is the term "josé"). Used for documents and for the words of a RediSearch or Lucene query.

/// RediSearch-style tokenizing for `db.idx.fulltext.*` (docs/cypher.md).
public enum TextTokenizer {
    /// RediSearch's separators (`toksep.h`): whitespace and ASCII punctuation but `_`.
    @inline(__always) static func isSeparator(_ v: UInt32) -> Bool {
        if v < 0x80 {
            if v <= 0x20 || v == 0x7F { return true }
            let c = UInt8(v)
            return (c >= 0x21 && c <= 0x2F && c != 0x5F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60 && c != 0x5F)
                || (c >= 0x7B && c <= 0x7E)
        }
        return NameFolding.isWhitespace(v)
    }

    /// The terms of `text` in order, each lower-cased, as scalar arrays.
    public static func terms(_ text: String) -> [[UInt32]] {
        var terms = FoldedWords()
        self.terms(text, into: &terms)
        return terms.arrays
    }

    /// `terms(text)` into `terms` (emptied first).
    static func terms(_ text: String, into terms: inout FoldedWords) {
        terms.removeAll()
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                if isSeparator(v) { terms.endWord() } else { terms.append(v >= 0x41 && v <= 0x5A ? v + 32 : v) }
            } else if let lower = LowercaseTable.shared.range(of: v) {
                // An empty mapping is whitespace, the only separator above ASCII.
                if lower.isEmpty { terms.endWord() }
                else { for i in lower { terms.append(LowercaseTable.shared.pool[i]) } }
            } else if isSeparator(v) {
                terms.endWord()
            } else {
                appendLowercased(scalar, to: &terms.scratch)
                for l in terms.scratch { terms.append(l) }
                terms.scratch.removeAll(keepingCapacity: true)
            }
        }
        terms.endWord()
    }

    @inline(__always) static func appendLowercased(_ scalar: Unicode.Scalar, to term: inout [UInt32]) {
        let v = scalar.value
        if v < 0x80 {
            term.append(v >= 0x41 && v <= 0x5A ? v + 32 : v)
        } else if scalar.properties.changesWhenLowercased {
            for l in scalar.properties.lowercaseMapping.unicodeScalars { term.append(l.value) }
        } else {
            term.append(v)
        }
    }

    /// One query word lower-cased (no splitting: the caller has split it).
    static func lowercased(_ word: Substring) -> [UInt32] {
        var term: [UInt32] = []
        for scalar in word.unicodeScalars { appendLowercased(scalar, to: &term) }
        return term
    }
}

/// The lower-case mapping of every scalar from U+0080 to U+30FF (an empty mapping: whitespace,
/// a separator), made once: a property lookup a letter was a tenth of a bulk build's terms.
struct LowercaseTable: Sendable {
    static let shared = LowercaseTable()
    static let first: UInt32 = 0x80, end: UInt32 = 0x3100
    /// Start of each scalar's mapping in `pool`, one past the last at the end.
    let starts: [UInt32]
    let pool: [UInt32]

    init() {
        var starts: [UInt32] = []
        var pool: [UInt32] = []
        starts.reserveCapacity(Int(Self.end - Self.first) + 1)
        for v in Self.first..<Self.end {
            starts.append(UInt32(pool.count))
            if TextTokenizer.isSeparator(v) { continue }
            if let scalar = Unicode.Scalar(v) {
                var mapped: [UInt32] = []
                TextTokenizer.appendLowercased(scalar, to: &mapped)
                pool.append(contentsOf: mapped)
            }
        }
        starts.append(UInt32(pool.count))
        self.starts = starts
        self.pool = pool
    }

    @inline(__always) func range(of v: UInt32) -> Range<Int>? {
        guard v >= Self.first && v < Self.end else { return nil }
        let i = Int(v - Self.first)
        return Int(starts[i])..<Int(starts[i + 1])
    }
}
