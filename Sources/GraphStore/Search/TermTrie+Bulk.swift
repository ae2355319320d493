// TermTrie+Bulk.swift — building a dictionary in one pass (CREATE FULLTEXT INDEX over existing
// nodes, snapshot load): each term's slot is found or made as entities are read in ascending
// id order, (slot, id) pairs are kept flat, and every postings array is made once at the end
// by a counting sort, instead of appending to one of 130,000 arrays per word (a cache miss on
// its header each time).

/// Collects one trie's postings for a bulk build. Entities must come in ascending id order.
struct TermTrieBulkLoad {
    var pairs: [UInt64] = []   // slot << 32 | id

    /// Adds `id` under `term` (its slot made if new); the postings arrive in `finish`.
    mutating func add(_ term: [UInt32], _ id: UInt32, to trie: inout TermTrie) {
        guard !term.isEmpty else { return }
        let slot = trie.slotCreating(term)
        if trie.keepsForward {
            let own = trie.forwardRange(id)
            if own.contains(where: { trie.forwardSlots[$0] == UInt32(slot) }) { return }
            trie.appendForward(id, UInt32(slot))
        }
        pairs.append(UInt64(slot) << 32 | UInt64(id))
    }

    /// Makes the postings: ids ascending per slot (the order they came), duplicates dropped.
    func finish(into trie: inout TermTrie) {
        let slots = trie.slotCount
        var counts = [Int](repeating: 0, count: slots + 1)
        for p in pairs { counts[Int(p >> 32) + 1] += 1 }
        for s in 0..<slots { counts[s + 1] += counts[s] }
        var sorted = [UInt32](repeating: 0, count: pairs.count)
        var next = counts
        for p in pairs {
            let s = Int(p >> 32)
            sorted[next[s]] = UInt32(truncatingIfNeeded: p)
            next[s] += 1
        }
        for s in 0..<slots where counts[s + 1] > counts[s] {
            var list = Array(sorted[counts[s]..<counts[s + 1]])
            var out = 1
            for i in 1..<max(1, list.count) where list[i] != list[out - 1] { list[out] = list[i]; out += 1 }
            list.removeLast(list.count - out)
            trie.mergeBulkPostings(slot: s, list)
        }
    }
}

extension TermTrie {
    var slotCount: Int { postings.count }
}
