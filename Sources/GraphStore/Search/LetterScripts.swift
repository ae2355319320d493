// LetterScripts.swift — which scripts a set of letters uses, in 8 bits, so a fuzzy walk of the
// dictionary skips a subtree that shares no script with the query: a term within k typos of an
// m-letter query (m > k) aligns at least m − k of its letters with equal query letters, so a
// subtree whose letters are all in scripts the query lacks (every Han, Hangul or Cyrillic
// branch under a Latin query) cannot hold a match. Names put thousands of letters at the top
// of the trie (a Han or Hangul surname each), which every walk with typos visited otherwise.

/// Script bits of letters (folded Unicode scalars), a bit a block.
enum LetterScripts {
    /// The bit of one letter: ASCII, other Latin and IPA, Greek, Cyrillic, kana and CJK
    /// punctuation, Han, Hangul, anything else.
    @inline(__always) static func of(_ letter: UInt32) -> UInt32 {
        switch letter {
        case 0..<0x80: return 1
        case 0x80..<0x370: return 2
        case 0x370..<0x400: return 4
        case 0x400..<0x530: return 8
        case 0x1100..<0x1200, 0x3130..<0x3190, 0xA960..<0xA980, 0xAC00..<0xD7B0: return 0x40
        case 0x3000..<0x3130, 0x3190..<0x3400, 0xFF00..<0xFFF0: return 0x10
        case 0x3400..<0xA000, 0xF900..<0xFB00, 0x20000..<0x40000: return 0x20
        default: return 0x80
        }
    }

    /// The bits of every letter of `word`.
    @inline(__always) static func of(_ word: [UInt32]) -> UInt32 {
        var bits: UInt32 = 0
        for letter in word { bits |= of(letter) }
        return bits
    }
}
