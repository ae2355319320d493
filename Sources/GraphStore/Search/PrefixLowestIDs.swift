// PrefixLowestIDs.swift — the lowest user ids under each trie node that heads many words: what a
// typed prefix of one to three letters answers outside the viewer's circle (the contract orders a
// tier by id after typos and wholeness). "m" heads 3,500 words held by 140,000 users; finding
// their 10 lowest ids means reading every one of those words' postings, hundreds of µs, while
// the first ids of this list are the answer. Kept exact through inserts (an id lower than the
// list's last enters it) and removals (a list that loses an id is made again from its subtree).

/// Per trie node with at least `minimumTerms` words below it, the lowest `capacity` ids holding
/// any of them (all of them when fewer), ascending.
struct PrefixLowestIDs: Sendable, Equatable {
    static let capacity = 32
    static let minimumTerms = 128

    private var rows: [Int32: Int32] = [:]
    private var ids: [UInt32] = []
    private var counts: [UInt8] = []

    var isEmpty: Bool { rows.isEmpty }
    var byteCount: Int { rows.capacity * 16 + ids.capacity * 4 + counts.capacity }

    /// The list of `node`, if it keeps one, and whether it holds every id under the node.
    @inline(__always) func lowest(_ node: Int32) -> (ids: ArraySlice<UInt32>, complete: Bool)? {
        guard let row = rows[node] else { return nil }
        let start = Int(row) * Self.capacity, count = Int(counts[Int(row)])
        return (ids[start..<start + count], count < Self.capacity)
    }

    @inline(__always) func keeps(_ node: Int32) -> Bool { rows[node] != nil }

    /// Sets `node`'s list (ascending, at most `capacity`).
    mutating func set(_ node: Int32, _ list: [UInt32]) {
        let row: Int
        if let r = rows[node] { row = Int(r) } else {
            row = counts.count
            rows[node] = Int32(row)
            counts.append(0)
            ids.append(contentsOf: repeatElement(0, count: Self.capacity))
        }
        let n = min(list.count, Self.capacity)
        for i in 0..<n { ids[row * Self.capacity + i] = list[i] }
        counts[row] = UInt8(n)
    }

    /// `id` now holds a word under `node`: it enters the list if it is among the lowest.
    mutating func insert(_ id: UInt32, at node: Int32) {
        guard let r = rows[node] else { return }
        let start = Int(r) * Self.capacity
        var count = Int(counts[Int(r)])
        var at = count
        while at > 0 && ids[start + at - 1] > id { at -= 1 }
        if at > 0 && ids[start + at - 1] == id { return }
        if at == Self.capacity { return }
        if count == Self.capacity { count -= 1 }
        var i = count
        while i > at { ids[start + i] = ids[start + i - 1]; i -= 1 }
        ids[start + at] = id
        counts[Int(r)] = UInt8(count + 1)
    }

    /// Whether `node`'s list holds `id` (a removal then remakes it).
    func contains(_ id: UInt32, at node: Int32) -> Bool {
        guard let (list, _) = lowest(node) else { return false }
        return list.contains(id)
    }

}

extension TermTrie {
    /// The lowest `PrefixLowestIDs.capacity` ids holding a word at or below `node`, ascending.
    func lowestIDs(under node: Int32) -> [UInt32] {
        var top: [UInt32] = []
        let cap = PrefixLowestIDs.capacity
        func take(_ slot: Int) {
            for id in postings[slot] {
                if top.count == cap, id >= top[cap - 1] { break }
                var at = top.count
                while at > 0 && top[at - 1] > id { at -= 1 }
                if at > 0 && top[at - 1] == id { continue }
                top.insert(id, at: at)
                if top.count > cap { top.removeLast() }
            }
        }
        let s = nodes[Int(node)].slot
        if s >= 0 { take(Int(s)) }
        forEachTermBelow(node, take)
        return top
    }

    /// Lists for every node heading at least `minimumTerms` words (after a bulk build or when the
    /// entry points are refiled): word counts bottom-up in one pass, then each list from its
    /// subtree.
    func makePrefixLowestIDs() -> PrefixLowestIDs {
        // Post-order without recursion: (node, children done).
        var termsBelow = [Int32](repeating: 0, count: nodes.count)
        var stack: [(Int32, Bool)] = [(0, false)]
        while let (node, done) = stack.popLast() {
            if done {
                var total: Int32 = hasPostings(nodes[Int(node)].slot) ? 1 : 0
                var c = nodes[Int(node)].firstChild
                while c >= 0 { total += termsBelow[Int(c)]; c = nodes[Int(c)].nextSibling }
                termsBelow[Int(node)] = total
                continue
            }
            stack.append((node, true))
            var c = nodes[Int(node)].firstChild
            while c >= 0 { stack.append((c, false)); c = nodes[Int(c)].nextSibling }
        }
        var lists = PrefixLowestIDs()
        for node in 1..<nodes.count where termsBelow[node] >= PrefixLowestIDs.minimumTerms {
            lists.set(Int32(node), lowestIDs(under: Int32(node)))
        }
        return lists
    }
}
