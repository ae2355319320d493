// HolderFilter.swift — the users holding any of a query word's matched words, as one bit a
// user: a search driven by another word tests each of its users here before looking up their
// own words, since most of a common first name's holders lack the other word (of 4,000
// Alexandres, a handful are also Brit-something). A bit test against a memory read or two per
// rejected user.

/// A set of user ids as bits, made from a word's match table.
struct HolderFilter {
    private var bits: [UInt64]

    init(_ trie: TermTrie, _ table: WordMatchTable, idLimit: Int) {
        bits = [UInt64](repeating: 0, count: idLimit / 64 + 1)
        bits.withUnsafeMutableBufferPointer { b in
            for slot in table.slots {
                for id in trie.postings(slot: slot) where Int(id) < idLimit { b[Int(id) >> 6] |= 1 << UInt64(id & 63) }
            }
        }
    }

    @inline(__always) func contains(_ id: UInt32) -> Bool {
        let word = Int(id) >> 6
        return word < bits.count && bits[word] >> UInt64(id & 63) & 1 != 0
    }
}
