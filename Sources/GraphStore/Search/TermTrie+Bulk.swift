// TermTrie+Bulk.swift — building a dictionary in one pass (CREATE FULLTEXT INDEX over existing
// nodes, snapshot load): each term is given its slot by a hash table as entities are read in
// ascending id order, (slot, id) pairs are kept flat, and at the end the trie is made from the
// distinct terms in sorted order (each term shares its path with the one before: no sibling
// list is scanned) and the postings pool by a counting sort, instead of a walk down the trie a
// word and an append to one of 130,000 arrays (a cache miss on its header each time).

/// Collects one trie's terms and postings for a bulk build into an empty trie. Entities must
/// come in ascending id order.
struct TermTrieBulkLoad {
    var pairs: [UInt64] = []   // slot << 32 | id
    /// Slots by term hash, open addressing (-1: empty), each entry's hash; a term is compared,
    /// not trusted to its hash.
    private var slotsByHash = [Int32](repeating: -1, count: 1 << 12)
    private var hashes = [UInt64](repeating: 0, count: 1 << 12)
    /// Per slot, where its term's letters are in `letters`: start << 32 | length.
    private var spans: [UInt64] = []
    private var letters: [UInt32] = []

    /// Adds `id` under `term` (its slot made if new); the trie is made in `finish`.
    mutating func add(_ term: UnsafeBufferPointer<UInt32>, _ id: UInt32, to trie: inout TermTrie) {
        guard !term.isEmpty else { return }
        let slot = self.slot(term)
        if trie.keepsForward {
            let own = trie.forwardRange(id)
            if own.contains(where: { trie.forwardSlots[$0] == UInt32(slot) }) { return }
            trie.appendForward(id, UInt32(slot))
        }
        pairs.append(UInt64(slot) << 32 | UInt64(id))
    }

    /// The slot of `term`, from the hash table or made next.
    private mutating func slot(_ term: UnsafeBufferPointer<UInt32>) -> Int {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for letter in term { h = (h ^ UInt64(letter)) &* 0xFF51_AFD7_ED55_8CCD; h ^= h >> 32 }
        let mask = slotsByHash.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while slotsByHash[i] >= 0 {
            let s = Int(slotsByHash[i])
            if hashes[i] == h && termEquals(s, term) { return s }
            i = (i + 1) & mask
        }
        let s = spans.count
        slotsByHash[i] = Int32(s)
        hashes[i] = h
        spans.append(UInt64(letters.count) << 32 | UInt64(term.count))
        letters.append(contentsOf: term)
        if spans.count * 2 > slotsByHash.count { grow() }
        return s
    }

    @inline(__always) private func termRange(_ slot: Int) -> Range<Int> {
        let start = Int(spans[slot] >> 32)
        return start..<start + Int(spans[slot] & 0xFFFF_FFFF)
    }

    private func termEquals(_ slot: Int, _ term: UnsafeBufferPointer<UInt32>) -> Bool {
        let r = termRange(slot)
        guard r.count == term.count else { return false }
        for j in 0..<term.count where letters[r.lowerBound + j] != term[j] { return false }
        return true
    }

    private mutating func grow() {
        let oldSlots = slotsByHash, oldHashes = hashes
        slotsByHash = [Int32](repeating: -1, count: oldSlots.count * 2)
        hashes = [UInt64](repeating: 0, count: oldSlots.count * 2)
        let mask = slotsByHash.count - 1
        for j in oldSlots.indices where oldSlots[j] >= 0 {
            var i = Int(truncatingIfNeeded: oldHashes[j]) & mask
            while slotsByHash[i] >= 0 { i = (i + 1) & mask }
            slotsByHash[i] = oldSlots[j]
            hashes[i] = oldHashes[j]
        }
    }

    /// Makes the trie and its postings: ids ascending per slot (the order they came),
    /// duplicates dropped.
    func finish(into trie: inout TermTrie) {
        let slots = spans.count
        var ends = [Int](repeating: 0, count: slots)
        for p in pairs { ends[Int(p >> 32)] += 1 }
        var next = [Int](repeating: 0, count: slots)
        var total = 0
        for s in 0..<slots { next[s] = total; total += ends[s] }
        var grouped = [UInt32](repeating: 0, count: pairs.count)
        for p in pairs {
            let s = Int(p >> 32)
            grouped[next[s]] = UInt32(truncatingIfNeeded: p)
            next[s] += 1
        }
        // Each slot's ids came ascending: repeats (a term twice in one text) are neighbours.
        var out = 0, read = 0
        for s in 0..<slots {
            let end = read + ends[s]
            var last: UInt32? = nil
            while read < end {
                let id = grouped[read]
                if id != last { grouped[out] = id; out += 1; last = id }
                read += 1
            }
            ends[s] = out
        }
        grouped.removeLast(grouped.count - out)
        let nodes = makeNodes()
        var slotTerms: [UInt64] = []
        if trie.keepsForward {
            slotTerms.reserveCapacity(slots)
            for span in spans { slotTerms.append((span >> 32) << 16 | min(span & 0xFFFF_FFFF, 0xFFFF)) }
        }
        trie.installBulk(nodes: nodes, postings: PostingsPool(grouped: grouped, ends: ends),
                         slotTerms: slotTerms, termLetters: trie.keepsForward ? letters : [])
        trie.trimCapacity()
        trie.layOutBreadthFirst()
    }

    /// The trie's nodes from the distinct terms sorted: a term's path is the previous term's up
    /// to their common prefix, then new nodes, each the last child of its parent.
    private func makeNodes() -> [TermTrie.Node] {
        var order = Array(0..<spans.count)
        letters.withUnsafeBufferPointer { l in
            order.sort { a, b in
                let ra = termRange(a), rb = termRange(b)
                let n = min(ra.count, rb.count)
                for j in 0..<n where l[ra.lowerBound + j] != l[rb.lowerBound + j] {
                    return l[ra.lowerBound + j] < l[rb.lowerBound + j]
                }
                return ra.count < rb.count
            }
        }
        var nodes = [TermTrie.Node(scalar: 0)]
        nodes.reserveCapacity(letters.count / 2)
        // The path of the previous term (path[0] the root) and each path node's last child.
        var path: [Int32] = [0]
        var lastChild: [Int32] = [-1]
        var previous: Range<Int> = 0..<0
        for slot in order {
            let r = termRange(slot)
            var common = 0
            while common < min(r.count, previous.count) && letters[r.lowerBound + common] == letters[previous.lowerBound + common] {
                common += 1
            }
            path.removeLast(path.count - 1 - common)
            lastChild.removeLast(lastChild.count - 1 - common)
            for j in common..<r.count {
                let new = Int32(nodes.count)
                nodes.append(TermTrie.Node(scalar: letters[r.lowerBound + j]))
                let parent = Int(path[path.count - 1])
                if lastChild[lastChild.count - 1] >= 0 {
                    nodes[Int(lastChild[lastChild.count - 1])].nextSibling = new
                } else {
                    nodes[parent].firstChild = new
                }
                lastChild[lastChild.count - 1] = new
                path.append(new)
                lastChild.append(-1)
            }
            var scripts: UInt32 = 0
            for j in r { scripts |= LetterScripts.of(letters[j]) }
            for node in path { nodes[Int(node)].scalar |= scripts << 24 }
            nodes[Int(path[path.count - 1])].slot = Int32(slot)
            previous = r
        }
        return nodes
    }
}

extension TermTrie {
    var slotCount: Int { postings.slotCount }

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
