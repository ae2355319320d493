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
        return Unicode.Scalar(v)?.properties.isWhitespace ?? true
    }

    /// The terms of `text` in order, each lower-cased, as scalar arrays.
    public static func terms(_ text: String) -> [[UInt32]] {
        var result: [[UInt32]] = []
        var term: [UInt32] = []
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if isSeparator(v) {
                if !term.isEmpty { result.append(term); term.removeAll(keepingCapacity: true) }
                continue
            }
            appendLowercased(scalar, to: &term)
        }
        if !term.isEmpty { result.append(term) }
        return result
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
