// TermTrie+BitParallelWalk.swift — the fuzzy walk of the dictionary with the edit-distance row
// held as bits (Wu–Manber's automaton with Hyyrö's transposition step): per typo count e ≤ k a
// word whose bit j says "the term so far is within e edits of the query's first j letters".
// A trie node then costs a dozen word operations instead of a row of m cells, and the nodes
// a walk with typos must visit (every node within k edits of some prefix of the query: all
// of the trie's first k levels) are most of a search's time. Queries of up to 60 letters;
// longer ones take the row-per-node walk.

extension TermTrie {
    /// `forEachMatch` for 1 ≤ k ≤ 3 and a query of 1 to 60 letters (same matches, same order
    /// of reporting is not promised).
    func forEachMatchBitParallel(_ query: [UInt32], maxDistance k: Int, transpositions: Bool, prefix: Bool,
                                 _ body: (Match) -> Void) {
        let m = query.count
        let all: UInt64 = (1 << UInt64(m + 1)) - 1
        let whole: UInt64 = 1 << UInt64(m)
        // Bit j (1...m) of a letter's mask: the query's letter j is that letter.
        var ascii = [UInt64](repeating: 0, count: 128)
        var others: [(UInt32, UInt64)] = []
        for (j, letter) in query.enumerated() {
            let bit: UInt64 = 1 << UInt64(j + 1)
            if letter < 128 { ascii[Int(letter)] |= bit } else if let i = others.firstIndex(where: { $0.0 == letter }) {
                others[i].1 |= bit
            } else {
                others.append((letter, bit))
            }
        }
        @inline(__always) func mask(_ letter: UInt32) -> UInt64 {
            if letter < 128 { return ascii[Int(letter)] }
            for (l, b) in others where l == letter { return b }
            return 0
        }
        let maxDepth = m + k
        let stride = k + 1
        // states[depth * stride + e]; depth 0 is the empty term: within e edits of the first e letters.
        var states = [UInt64](repeating: 0, count: (maxDepth + 2) * stride)
        for e in 0...k { states[e] = e >= m ? all : (1 << UInt64(e + 1)) - 1 }
        var masks = [UInt64](repeating: 0, count: maxDepth + 2)
        let queryScripts = LetterScripts.of(query)
        let prunesScripts = m > k
        // Below the root when the entry points allow it (FuzzyEntryPoints.swift): each entry's
        // subtree is walked in turn, its path's rows set first.
        var entryDepth = 0
        var entries: [Int] = []
        if keepsForward && transpositions, let depth = FuzzyEntryPoints.startDepth(queryLength: m, typos: k) {
            entryDepth = depth
            entries = entryPoints.candidates(query, typos: k, depth: depth)
        }
        var stack = entryDepth > 0 ? [] : walkStart(queryScripts: queryScripts, prunesScripts: prunesScripts, queryLength: m)
        let budget = Int32(k)
        states.withUnsafeMutableBufferPointer { s in
        masks.withUnsafeMutableBufferPointer { b in
            /// Row `depth` from row `depth - 1` for a node of `letterMask`: returns row k,
            /// the whole word's distance (.max: over k) and whether the tail can finish.
            @inline(__always) func step(_ depth: Int, _ letterMask: UInt64) -> (UInt64, Int32, Bool) {
                b[depth] = letterMask
                let row = depth * stride, up = row - stride
                // Transposition: the query's letters j-1, j are this letter and the one before.
                let swap = transpositions && depth >= 2 ? b[depth - 1] & (letterMask << 1) : 0
                var previous: UInt64 = (s[up] << 1) & letterMask
                s[row] = previous
                var distance: Int32 = previous & whole != 0 ? 0 : .max
                // Whether some e-edit prefix alignment can still finish within k: bit j of
                // row e with e + (m − j) ≤ k (only asked when m > k).
                var tailWithin = prunesScripts && previous >> UInt64(m - k) != 0
                if k >= 1 {
                    for e in 1...k {
                        var v = ((s[up + e] << 1) & letterMask) | s[up + e - 1] | (s[up + e - 1] << 1) | (previous << 1)
                        if swap != 0 { v |= (s[up - stride + e - 1] << 2) & swap }
                        v &= all
                        s[row + e] = v
                        if distance == .max && v & whole != 0 { distance = Int32(e) }
                        if prunesScripts && v >> UInt64(m - k + e) != 0 { tailWithin = true }
                        previous = v
                    }
                }
                return (previous, distance, tailWithin)
            }
            var nextEntry = 0
            while true {
                if entryDepth > 0 {
                    guard nextEntry < entries.count else { break }
                    let r = entries[nextEntry]
                    nextEntry += 1
                    let path = entryPoints.path(r, in: self)
                    var depth = 1
                    for letter in path.dropLast() { _ = step(depth, mask(letter)); depth += 1 }
                    stack.append((entryPoints.nodes[r], Int32(entryDepth), Int32(m)))
                }
                while let (node, depth32, parentBest) = stack.popLast() {
                    let depth = Int(depth32)
                    let n = nodes[Int(node)]
                    let letterMask = mask(n.letter)
                    let row = depth * stride, up = row - stride
                    let (previous, distance, tailWithin) = step(depth, letterMask)
                    let best = min(parentBest, distance)
                    if hasPostings(n.slot) && (distance <= budget || (prefix && best <= budget)) {
                        body(Match(slot: Int(n.slot), wholeDistance: distance <= budget ? Int(distance) : .max,
                                   prefixDistance: prefix ? Int(best) : Int(distance)))
                    }
                    if previous == 0 || depth >= maxDepth {   // `previous`: the row within k edits
                        if prefix && best <= budget {
                            forEachTermBelow(node) { slot in body(Match(slot: slot, wholeDistance: .max, prefixDistance: Int(best))) }
                        }
                        continue
                    }
                    let everyChild = prefix && best <= budget
                    if !everyChild && s[row + k - 1] == 0 {
                        // The row is at the budget: a child survives only by matching the next query
                        // letter of a bit of row k, or by finishing a swap begun two rows up.
                        let next = s[row + k] << 1
                        let swapNext = transpositions ? (s[up + k - 1] << 2) & letterMask : 0
                        var child = n.firstChild
                        while child >= 0 {
                            let ch = nodes[Int(child)]
                            let childMask = mask(ch.letter)
                            if next & childMask != 0 || swapNext & (childMask << 1) != 0 { stack.append((child, depth32 + 1, best)) }
                            child = ch.nextSibling
                        }
                        continue
                    }
                    let needsScripts = prunesScripts && !everyChild && !tailWithin
                    var child = n.firstChild
                    while child >= 0 {
                        let ch = nodes[Int(child)]
                        if !needsScripts || ch.scripts & queryScripts != 0 { stack.append((child, depth32 + 1, best)) }
                        child = ch.nextSibling
                    }
                }
                if entryDepth == 0 { break }
            }
        }}
    }
}
