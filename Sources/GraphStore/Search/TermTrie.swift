// TermTrie.swift — the word dictionary of a full-text index: a trie of terms (Unicode scalars)
// in one contiguous node array, each term's postings a sorted span of entity ids in one pool
// (PostingsPool.swift). A prefix is a subtree; a fuzzy match is a walk that carries one
// edit-distance row per depth and prunes a branch as soon as the row's minimum exceeds the
// budget (a Levenshtein automaton run on the trie: exact, mutable in place, and bounded by the
// query's neighbourhood in the dictionary rather than by its size). The row is held as bits for queries of up to 60 letters
// (TermTrie+BitParallelWalk.swift); this file's row of cells serves longer ones.

/// A mutable trie of terms with sorted postings. Terms whose postings empty stay as nodes (a
/// later insert reuses them; a restart rebuilds compactly).
public struct TermTrie: Sendable, Equatable {
    /// 16 bytes a node: its letter with the scripts below it (`LetterScripts`, in the bits above a
    /// Unicode scalar), its first child and next sibling (-1: none), and the slot of its postings
    /// when a term ends here (-1: none).
    struct Node: Sendable, Equatable {
        var scalar: UInt32
        var firstChild: Int32 = -1
        var nextSibling: Int32 = -1
        var slot: Int32 = -1

        /// The node's letter.
        @inline(__always) var letter: UInt32 { scalar & 0xFF_FFFF }
        /// The scripts of the letters of this node and every node below it (never cleared by a
        /// remove: a stale bit only costs a visit).
        @inline(__always) var scripts: UInt32 { scalar >> 24 }
    }

    private(set) var nodes: [Node] = [Node(scalar: 0)]
    /// Postings by slot: ascending entity ids.
    private(set) var postings = PostingsPool()
    /// The root's children by letter: names in many scripts give the root thousands of children
    /// (every Han surname), too many to scan per insert.
    private var rootChildren: [UInt32: Int32] = [:]
    /// Per slot, where its term's letters are in `termLetters`: start << 16 | length. Kept with
    /// `keepsForward` only (people search reads a user's words; RediSearch's terms never are).
    private(set) var slotTerms: [UInt64] = []
    private(set) var termLetters: [UInt32] = []
    /// With `keepsForward`, each entity's slots (its words): per entity id start << 24 | count
    /// into `forwardSlots` (count 0: none). A list at the pool's end grows in place; one that
    /// must grow elsewhere moves to the end (the old room is left: a restart compacts it).
    /// People search verifies a candidate against the query with these, without the postings.
    let keepsForward: Bool
    private(set) var forward: [UInt64] = []
    private(set) var forwardSlots: [UInt32] = []
    /// With `keepsForward`, where fuzzy walks start below the root (FuzzyEntryPoints.swift).
    private(set) var entryPoints = FuzzyEntryPoints()
    /// With `keepsForward`, the lowest ids under nodes heading many words (PrefixLowestIDs.swift).
    private(set) var prefixLowest = PrefixLowestIDs()

    /// `keepsForward`: also keep each entity's words (people search needs them).
    public init(keepsForward: Bool = false) { self.keepsForward = keepsForward }

    /// Distinct terms with at least one entity.
    public var termCount: Int { (0..<postings.slotCount).reduce(0) { $0 + (postings.isEmpty($1) ? 0 : 1) } }

    /// Approximate heap bytes.
    public var byteCount: Int { byteParts.reduce(0) { $0 + $1.bytes } }

    /// Approximate heap bytes by part (graphd-bench search prints them).
    public var byteParts: [(part: String, bytes: Int)] {
        [("nodes", nodes.capacity * MemoryLayout<Node>.stride), ("postings", postings.byteCount),
         ("root table", rootChildren.capacity * 16), ("term letters", slotTerms.capacity * 8 + termLetters.capacity * 4),
         ("entity words", forward.capacity * 8 + forwardSlots.capacity * 4), ("walk entry points", entryPoints.byteCount),
         ("prefix lowest ids", prefixLowest.byteCount)]
    }

    // MARK: writes

    /// Adds `id` to the postings of `term` (no-op if present).
    public mutating func insert(_ term: [UInt32], _ id: UInt32) {
        guard !term.isEmpty else { return }
        let slot = slotCreating(term)
        guard postings.insert(id, slot: slot) else { return }
        if keepsForward {
            addForward(id, UInt32(slot))
            if !prefixLowest.isEmpty {
                for node in pathNodes(term) { prefixLowest.insert(id, at: node) }
            }
        }
    }

    /// The slot of `term`, made (with its path) if new. `bulk`: a bulk build, which files the
    /// entry points once at its end.
    mutating func slotCreating(_ term: [UInt32], bulk: Bool = false) -> Int {
        var node: Int32 = 0
        let scripts = LetterScripts.of(term) << 24
        nodes[0].scalar |= scripts
        var newEntries: [(Int32, Int)] = []   // entry-depth nodes made here, with their depth
        for (depth, letter) in term.enumerated() {
            let made = nodes.count
            node = child(of: node, letter, create: true, atRoot: depth == 0)
            nodes[Int(node)].scalar |= scripts
            if keepsForward && !bulk && Int(node) == made && FuzzyEntryPoints.isEntryDepth(depth + 1) {
                newEntries.append((node, depth + 1))
            }
        }
        if nodes[Int(node)].slot < 0 {
            nodes[Int(node)].slot = Int32(postings.slotCount)
            postings.appendSlot()
            if keepsForward {
                slotTerms.append(UInt64(termLetters.count) << 16 | UInt64(min(term.count, 0xFFFF)))
                termLetters.append(contentsOf: term.prefix(0xFFFF))
            }
        }
        let slot = Int(nodes[Int(node)].slot)
        if !newEntries.isEmpty {
            for (entry, depth) in newEntries { entryPoints.add(node: entry, depth: depth, slot: slot) }
            if entryPoints.needsRebuild {
                var points = entryPoints
                points.rebuild(self)
                entryPoints = points
                prefixLowest = makePrefixLowestIDs()
            }
        }
        return slot
    }

    /// Puts a renumbering of the same nodes in place (a bulk build's layout), the root first.
    mutating func replaceNodes(_ laidOut: [Node]) {
        nodes = laidOut
        rootChildren.removeAll(keepingCapacity: true)
        var c = nodes[0].firstChild
        while c >= 0 { rootChildren[nodes[Int(c)].letter] = c; c = nodes[Int(c)].nextSibling }
        if keepsForward { fileEntryPoints() }
    }

    /// Makes the entry points from the nodes at their depths (after a renumbering).
    mutating func fileEntryPoints() {
        var points = FuzzyEntryPoints()
        func visit(_ node: Int32, _ depth: Int) {
            var c = nodes[Int(node)].firstChild
            while c >= 0 {
                if FuzzyEntryPoints.isEntryDepth(depth + 1) {
                    // A term below it: every node was made for one, and its letters stay.
                    var below = c
                    while nodes[Int(below)].slot < 0 { below = nodes[Int(below)].firstChild }
                    points.add(node: c, depth: depth + 1, slot: Int(nodes[Int(below)].slot))
                }
                if depth + 1 < FuzzyEntryPoints.maxLength { visit(c, depth + 1) }
                c = nodes[Int(c)].nextSibling
            }
        }
        visit(0, 0)
        points.rebuild(self)
        entryPoints = points
        prefixLowest = makePrefixLowestIDs()
    }

    /// The nodes on `term`'s path, root excluded (it must exist).
    private func pathNodes(_ term: [UInt32]) -> [Int32] {
        var path: [Int32] = []
        guard let first = term.first, var node = rootChildren[first] else { return [] }
        path.append(node)
        for letter in term.dropFirst() {
            var c = nodes[Int(node)].firstChild
            while c >= 0 && nodes[Int(c)].letter != letter { c = nodes[Int(c)].nextSibling }
            if c < 0 { break }
            node = c
            path.append(node)
        }
        return path
    }

    /// Gives back the room that arrays grown an element at a time keep beyond their counts (up
    /// to as much again), once a bulk build has made them.
    mutating func trimCapacity() {
        postings.trimCapacity()
        slotTerms = Array(slotTerms[...])
        termLetters = Array(termLetters[...])
        forward = Array(forward[...])
        forwardSlots = Array(forwardSlots[...])
    }

    /// Adds a slot to an entity's words (bulk builds; `insert` does it itself).
    mutating func appendForward(_ id: UInt32, _ slot: UInt32) { addForward(id, slot) }

    /// Puts a bulk build's dictionary in place of an empty one: its nodes (slots set), postings
    /// and, with `keepsForward`, each slot's letters (see `slotTerms`).
    mutating func installBulk(nodes: [Node], postings: PostingsPool, slotTerms: [UInt64], termLetters: [UInt32]) {
        precondition(self.postings.slotCount == 0, "a bulk build into a dictionary with terms")
        self.nodes = nodes
        self.postings = postings
        if keepsForward {
            self.slotTerms = slotTerms
            self.termLetters = termLetters
        }
    }

    private mutating func addForward(_ id: UInt32, _ slot: UInt32) {
        let i = Int(id)
        if forward.count <= i { forward.append(contentsOf: repeatElement(0, count: i + 1 - forward.count)) }
        let start = Int(forward[i] >> 24), count = Int(forward[i] & 0xFF_FFFF)
        if count == 0 || start + count == forwardSlots.count {
            let newStart = count == 0 ? forwardSlots.count : start
            forwardSlots.append(slot)
            forward[i] = UInt64(newStart) << 24 | UInt64(count + 1)
        } else {
            let newStart = forwardSlots.count
            forwardSlots.append(contentsOf: forwardSlots[start..<start + count])
            forwardSlots.append(slot)
            forward[i] = UInt64(newStart) << 24 | UInt64(count + 1)
        }
    }

    private mutating func removeForward(_ id: UInt32, _ slot: UInt32) {
        let i = Int(id)
        guard i < forward.count else { return }
        let start = Int(forward[i] >> 24), count = Int(forward[i] & 0xFF_FFFF)
        for p in start..<start + count where forwardSlots[p] == slot {
            forwardSlots[p] = forwardSlots[start + count - 1]
            forward[i] = count == 1 ? 0 : UInt64(start) << 24 | UInt64(count - 1)
            return
        }
    }

    /// The slots (words) of entity `id` (needs `keepsForward`).
    @inline(__always) func forwardRange(_ id: UInt32) -> Range<Int> {
        let i = Int(id)
        guard i < forward.count else { return 0..<0 }
        let start = Int(forward[i] >> 24)
        return start..<start + Int(forward[i] & 0xFF_FFFF)
    }

    /// The letters of the term at `slot`.
    @inline(__always) func termRange(_ slot: Int) -> Range<Int> {
        let start = Int(slotTerms[slot] >> 16)
        return start..<start + Int(slotTerms[slot] & 0xFFFF)
    }

    /// Removes `id` from the postings of `term` (no-op if absent).
    public mutating func remove(_ term: [UInt32], _ id: UInt32) {
        guard let slot = slot(of: term) else { return }
        if postings.remove(id, slot: slot) {
            if keepsForward {
                removeForward(id, UInt32(slot))
                // The id may still be under a node by another word: a list holding it is remade.
                if !prefixLowest.isEmpty {
                    for node in pathNodes(term) where prefixLowest.contains(id, at: node) {
                        prefixLowest.set(node, lowestIDs(under: node))
                    }
                }
            }
        }
    }

    private mutating func child(of node: Int32, _ letter: UInt32, create: Bool, atRoot: Bool) -> Int32 {
        if atRoot {
            if let c = rootChildren[letter] { return c }
        } else {
            // Sibling lists are unordered; a child found is moved to the front, so the letters
            // names use most are found first (a bulk build spent most of its time in these scans).
            var previous: Int32 = -1
            var c = nodes[Int(node)].firstChild
            while c >= 0 {
                if nodes[Int(c)].letter == letter {
                    if previous >= 0 {
                        nodes[Int(previous)].nextSibling = nodes[Int(c)].nextSibling
                        nodes[Int(c)].nextSibling = nodes[Int(node)].firstChild
                        nodes[Int(node)].firstChild = c
                    }
                    return c
                }
                previous = c
                c = nodes[Int(c)].nextSibling
            }
        }
        let new = Int32(nodes.count)
        nodes.append(Node(scalar: letter, firstChild: -1, nextSibling: nodes[Int(node)].firstChild, slot: -1))
        nodes[Int(node)].firstChild = new
        if atRoot { rootChildren[letter] = new }
        return new
    }

    // MARK: reads

    /// The node `term` leads to, if any.
    func node(of term: [UInt32]) -> Int32? {
        guard let first = term.first, var node = rootChildren[first] else { return term.isEmpty ? 0 : nil }
        for letter in term.dropFirst() {
            var c = nodes[Int(node)].firstChild
            while c >= 0 && nodes[Int(c)].letter != letter { c = nodes[Int(c)].nextSibling }
            if c < 0 { return nil }
            node = c
        }
        return node
    }

    func slot(of term: [UInt32]) -> Int? {
        guard let node = node(of: term), nodes[Int(node)].slot >= 0 else { return nil }
        return Int(nodes[Int(node)].slot)
    }

    /// The entities holding exactly `term`, ascending (empty if none).
    public func postings(of term: [UInt32]) -> [UInt32] {
        slot(of: term).map { Array(postings[$0]) } ?? []
    }

    /// The postings of slot `slot` (as `forEach…` report them), ascending: a view into the pool.
    @inline(__always) public func postings(slot: Int) -> ArraySlice<UInt32> { postings[slot] }

    /// Whether slot `slot` has entities.
    @inline(__always) func hasPostings(_ slot: Int32) -> Bool { slot >= 0 && !postings.isEmpty(Int(slot)) }

    /// Calls `body(slot, exact)` for every term starting with `prefix` (`exact`: the term is the prefix).
    public func forEachTerm(withPrefix prefix: [UInt32], _ body: (Int, Bool) -> Void) {
        guard let start = node(of: prefix) else { return }
        let s = nodes[Int(start)].slot
        if hasPostings(s) { body(Int(s), true) }
        forEachTermBelow(start) { body($0, false) }
    }

    /// Every term strictly below `node` (depth first, without recursion).
    func forEachTermBelow(_ node: Int32, _ body: (Int) -> Void) {
        var stack: [Int32] = []
        var c = nodes[Int(node)].firstChild
        while true {
            while c >= 0 {
                let n = nodes[Int(c)]
                if hasPostings(n.slot) { body(Int(n.slot)) }
                if n.firstChild >= 0 {
                    if n.nextSibling >= 0 { stack.append(n.nextSibling) }
                    c = n.firstChild
                } else {
                    c = n.nextSibling
                }
            }
            guard let next = stack.popLast() else { return }
            c = next
        }
    }

    /// One term found by `forEachMatch`: its slot, its edit distance from the query as a whole
    /// word (> the budget: `Int.max`), and, in prefix mode, the least distance from the query
    /// to any of the term's prefixes (the term itself included).
    public struct Match: Sendable {
        public var slot: Int
        public var wholeDistance: Int
        public var prefixDistance: Int
    }

    /// Every term within `maxDistance` edits of `query` (prefix mode: some prefix of the term is),
    /// `transpositions` making a swap of adjacent letters one edit (optimal string alignment)
    /// rather than two (Levenshtein, as RediSearch). The walk keeps one row a depth and prunes a
    /// branch whose row minimum is over the budget (no later letter can bring it back), and a
    /// subtree sharing no script with the query (LetterScripts.swift).
    public func forEachMatch(_ query: [UInt32], maxDistance k: Int, transpositions: Bool, prefix: Bool,
                             _ body: (Match) -> Void) {
        let m = query.count
        if k == 0 {
            if prefix {
                forEachTerm(withPrefix: query) { slot, exact in body(Match(slot: slot, wholeDistance: exact ? 0 : .max, prefixDistance: 0)) }
            } else if let s = slot(of: query), !postings.isEmpty(s) {
                body(Match(slot: s, wholeDistance: 0, prefixDistance: 0))
            }
            return
        }
        if m <= 60 && k <= 3 {
            forEachMatchBitParallel(query, maxDistance: k, transpositions: transpositions, prefix: prefix, body)
            return
        }
        let width = m + 1
        let maxDepth = m + k
        var rows = [Int32](repeating: 0, count: width * (maxDepth + 2))
        for j in 0...m { rows[j] = Int32(j) }
        var letters = [UInt32](repeating: 0, count: maxDepth + 2)
        // Letters a row at the budget lets through: q[j] per j within it, and per swap.
        var allowedLetters = [UInt32](repeating: 0, count: 2 * m + 2)
        // A term within k typos aligns at least m − k letters with equal query letters: while
        // no prefix is within budget, a child whose subtree shares no script with the query is
        // skipped when the row cannot reach the end of the query without them (LetterScripts).
        let queryScripts = LetterScripts.of(query)
        let prunesScripts = m > k
        // Explicit stack of (node, depth, best prefix distance so far).
        var stack = walkStart(queryScripts: queryScripts, prunesScripts: prunesScripts, queryLength: m)
        let budget = Int32(k)
        query.withUnsafeBufferPointer { q in
            rows.withUnsafeMutableBufferPointer { r in
                while let (node, depth32, parentBest) = stack.popLast() {
                    let depth = Int(depth32)
                    let n = nodes[Int(node)]
                    let letter = n.letter
                    letters[depth] = letter
                    let row = depth * width, up = row - width
                    r[row] = Int32(depth)
                    var rowMin = r[row]
                    // The least cost of finishing the query with letters it does not hold.
                    var tailBound = r[row] + Int32(m)
                    if m > 0 {
                        for j in 1...m {
                            let cost: Int32 = q[j - 1] == letter ? 0 : 1
                            var v = min(r[up + j] + 1, r[row + j - 1] + 1, r[up + j - 1] + cost)
                            if transpositions && depth >= 2 && j >= 2 && q[j - 1] == letters[depth - 1] && q[j - 2] == letter {
                                v = min(v, r[up - width + j - 2] + 1)
                            }
                            r[row + j] = v
                            if v < rowMin { rowMin = v }
                            if v + Int32(m - j) < tailBound { tailBound = v + Int32(m - j) }
                        }
                    }
                    let whole = r[row + m]
                    let best = min(parentBest, whole)
                    if hasPostings(n.slot) && (whole <= budget || (prefix && best <= budget)) {
                        body(Match(slot: Int(n.slot), wholeDistance: whole <= budget ? Int(whole) : .max,
                                   prefixDistance: prefix ? Int(best) : Int(whole)))
                    }
                    if rowMin > budget || depth >= maxDepth {
                        // No deeper term gets closer; in prefix mode a reached prefix admits the whole subtree.
                        if prefix && best <= budget {
                            forEachTermBelow(node) { slot in
                                body(Match(slot: Int(slot), wholeDistance: .max, prefixDistance: Int(best)))
                            }
                        }
                        continue
                    }
                    let everyChild = prefix && best <= budget
                    let needsScripts = prunesScripts && !everyChild && tailBound > budget
                    // A row whose minimum is the whole budget admits only children that spend
                    // nothing more: a letter equal to q[j] where the row is at the budget, or the
                    // second letter of a swap (OSA reads two rows up). Other children cannot
                    // match, and need no row: the walk skips them (in prefix mode once a prefix
                    // is within budget every descendant matches, so then all are walked).
                    if rowMin == budget && !everyChild {
                        var allowed = 0
                        for j in 0..<m where r[row + j] <= budget {
                            allowedLetters[allowed] = q[j]
                            allowed += 1
                        }
                        if transpositions && depth >= 1 {
                            for j in 2...max(2, m) where j <= m && q[j - 1] == letter && r[up + j - 2] + 1 <= budget {
                                allowedLetters[allowed] = q[j - 2]
                                allowed += 1
                            }
                        }
                        var child = n.firstChild
                        while child >= 0 {
                            let s = nodes[Int(child)].letter
                            for a in 0..<allowed where allowedLetters[a] == s {
                                stack.append((child, depth32 + 1, best))
                                break
                            }
                            child = nodes[Int(child)].nextSibling
                        }
                        continue
                    }
                    var child = n.firstChild
                    while child >= 0 {
                        let c = nodes[Int(child)]
                        if !needsScripts || c.scripts & queryScripts != 0 { stack.append((child, depth32 + 1, best)) }
                        child = c.nextSibling
                    }
                }
            }
        }
    }
}

extension TermTrie {
    /// Every term with entities and its postings, sorted by term (tests compare dictionaries).
    public func allTerms() -> [(term: [UInt32], ids: [UInt32])] {
        var result: [(term: [UInt32], ids: [UInt32])] = []
        var path: [UInt32] = []
        func walk(_ node: Int32) {
            var c = nodes[Int(node)].firstChild
            while c >= 0 {
                let n = nodes[Int(c)]
                path.append(n.letter)
                if hasPostings(n.slot) { result.append((path, Array(postings[Int(n.slot)]))) }
                walk(c)
                path.removeLast()
                c = n.nextSibling
            }
        }
        walk(0)
        result.sort { $0.term.lexicographicallyPrecedes($1.term) }
        return result
    }
}

extension TermTrie {
    /// A fuzzy walk's first stack: the root's children as (node, depth 1, best prefix distance
    /// `queryLength`), leaving out, when `prunesScripts`, those whose subtree shares no script
    /// with the query (LetterScripts).
    func walkStart(queryScripts: UInt32, prunesScripts: Bool, queryLength: Int) -> [(Int32, Int32, Int32)] {
        var stack: [(Int32, Int32, Int32)] = []
        var c = nodes[0].firstChild
        while c >= 0 {
            if !prunesScripts || nodes[Int(c)].scripts & queryScripts != 0 { stack.append((c, 1, Int32(queryLength))) }
            c = nodes[Int(c)].nextSibling
        }
        return stack
    }
}
