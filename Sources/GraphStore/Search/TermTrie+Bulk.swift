// TermTrie+Bulk.swift — building a dictionary in one pass (CREATE FULLTEXT INDEX over existing
// nodes, snapshot load): each term's slot is found or made as entities are read in ascending
// id order, (slot, id) pairs are kept flat, and every postings array is made once at the end
// by a counting sort, instead of appending to one of 130,000 arrays per word (a cache miss on
// its header each time). A term seen before (most are: a million names hold 130,000 distinct
// words) is found by its hash rather than by a walk down the trie, a sibling scan a letter.

/// Collects one trie's postings for a bulk build. Entities must come in ascending id order.
struct TermTrieBulkLoad {
    var pairs: [UInt64] = []   // slot << 32 | id
    /// Slots by term hash, open addressing (-1: empty), each entry's hash and where its term's
    /// letters are in `letters` (start << 16 | length: a term is compared, not trusted to its hash).
    private var slotsByHash = [Int32](repeating: -1, count: 1 << 12)
    private var hashes = [UInt64](repeating: 0, count: 1 << 12)
    private var spans = [UInt64](repeating: 0, count: 1 << 12)
    private var letters: [UInt32] = []
    private var filled = 0

    /// Adds `id` under `term` (its slot made if new); the postings arrive in `finish`.
    mutating func add(_ term: [UInt32], _ id: UInt32, to trie: inout TermTrie) {
        guard !term.isEmpty else { return }
        let slot = self.slot(term, in: &trie)
        if trie.keepsForward {
            let own = trie.forwardRange(id)
            if own.contains(where: { trie.forwardSlots[$0] == UInt32(slot) }) { return }
            trie.appendForward(id, UInt32(slot))
        }
        pairs.append(UInt64(slot) << 32 | UInt64(id))
    }

    /// The slot of `term`, from the hash table or made by the trie.
    private mutating func slot(_ term: [UInt32], in trie: inout TermTrie) -> Int {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for letter in term { h = (h ^ UInt64(letter)) &* 0xFF51_AFD7_ED55_8CCD; h ^= h >> 32 }
        let mask = slotsByHash.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while slotsByHash[i] >= 0 {
            let s = Int(slotsByHash[i])
            if hashes[i] == h {
                let start = Int(spans[i] >> 16)
                if letters[start..<start + Int(spans[i] & 0xFFFF)].elementsEqual(term) { return s }
            }
            i = (i + 1) & mask
        }
        let s = trie.slotCreating(term, bulk: true)
        guard term.count <= 0xFFFF else { return s }   // not kept: found by the trie each time
        slotsByHash[i] = Int32(s)
        hashes[i] = h
        spans[i] = UInt64(letters.count) << 16 | UInt64(term.count)
        letters.append(contentsOf: term)
        filled += 1
        if filled * 2 > slotsByHash.count { grow() }
        return s
    }

    private mutating func grow() {
        let oldSlots = slotsByHash, oldHashes = hashes, oldSpans = spans
        slotsByHash = [Int32](repeating: -1, count: oldSlots.count * 2)
        hashes = [UInt64](repeating: 0, count: oldSlots.count * 2)
        spans = [UInt64](repeating: 0, count: oldSlots.count * 2)
        let mask = slotsByHash.count - 1
        for j in oldSlots.indices where oldSlots[j] >= 0 {
            var i = Int(truncatingIfNeeded: oldHashes[j]) & mask
            while slotsByHash[i] >= 0 { i = (i + 1) & mask }
            slotsByHash[i] = oldSlots[j]
            hashes[i] = oldHashes[j]
            spans[i] = oldSpans[j]
        }
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
        trie.trimCapacity()
        trie.layOutBreadthFirst()
    }
}

extension TermTrie {
    var slotCount: Int { postings.count }

    /// Renumbers the nodes breadth first, so each node's children are side by side in memory.
    /// A fuzzy walk reads every child of the nodes it visits: with the insertion order of a
    /// build, each child was a cache miss (siblings made by different names far apart), and
    /// the walks with typos spent most of their time there. Later inserts append as before.
    mutating func layOutBreadthFirst() {
        var order: [Int32] = [0]   // old index by new index
        order.reserveCapacity(nodes.count)
        var head = 0
        while head < order.count {
            var c = nodes[Int(order[head])].firstChild
            while c >= 0 { order.append(c); c = nodes[Int(c)].nextSibling }
            head += 1
        }
        var newIndex = [Int32](repeating: -1, count: nodes.count)
        for (new, old) in order.enumerated() { newIndex[Int(old)] = Int32(new) }
        var laidOut: [Node] = []
        laidOut.reserveCapacity(nodes.count)
        for old in order {
            var n = nodes[Int(old)]
            if n.firstChild >= 0 { n.firstChild = newIndex[Int(n.firstChild)] }
            if n.nextSibling >= 0 { n.nextSibling = newIndex[Int(n.nextSibling)] }
            laidOut.append(n)
        }
        replaceNodes(laidOut)
    }
}
