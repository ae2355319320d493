// FuzzyEntryPoints.swift — where a fuzzy walk of the people-words dictionary starts instead of
// the root. A walk with k typos of an m-letter word visits every node of the trie's first k
// levels and most of the next ones (any path within k edits of some prefix of the word): 10,000
// or more nodes for k = 2, each a cache miss, before it reaches the few hundred branches that
// can still hold a match. When m > L + k, no match lies at depth L or above, so the walk may
// start at the depth-L nodes whose path is within k edits of some prefix of the word, and those
// are found without walking: two strings within k edits (optimal string alignment) become equal
// after deleting at most k letters from each (a swap costs one deletion on each side), so every
// depth-L path is filed under each of its deletion variants (up to two deleted letters at depth
// 5, one at depths 2 and 3), and the word's prefixes of L − k to L + k letters look their own
// variants up. The variants over-approximate the distance: each node found is checked by the
// walk itself (its row at depth L), so the matches are exactly those of a walk from the root.
// Depth 5 rather than 4 for two typos: a walk starts from a few hundred nodes instead of one to
// four thousand, for twice the variants to keep (69,000 depth-5 nodes, 16 variants each);
// depth 4 is left out (a 6-letter word with one typo starts at depth 3) to keep the memory.
//
// The table is built at once after a bulk build (CREATE FULLTEXT INDEX, snapshot load); nodes
// made later by single inserts wait in a list every walk checks, and the table is rebuilt when
// that list outgrows a sixteenth of it.

/// Depth-L entry nodes of a `TermTrie` (L 2, 3 or 5), filed under their paths' deletion variants.
struct FuzzyEntryPoints: Sendable, Equatable {
    static let maxLength = 5

    /// Whether nodes at `depth` are entry points.
    @inline(__always) static func isEntryDepth(_ depth: Int) -> Bool { depth == 2 || depth == 3 || depth == maxLength }

    /// Per record: the node, its depth, and the slot of a term below it (its path is that
    /// term's first letters).
    private(set) var nodes: [Int32] = []
    private(set) var depths: [UInt8] = []
    private(set) var slots: [UInt32] = []
    /// Records filed in the table (the rest wait in `nodes[filed...]`, checked by every walk).
    private var filed = 0
    /// Buckets by the top bits of a variant's hash: `bucketStarts[b]..<bucketStarts[b + 1]` in
    /// `entries`, each entry record << 8 | the hash's low 8 bits.
    private var bucketStarts: [UInt32] = [0, 0]
    private var entries: [UInt32] = []
    private var bucketBits = 0

    /// Deleted letters a depth's variants allow: two at the deepest (walks with 2 typos start
    /// there), one above (walks with 1 typo start at the deepest depth the word allows).
    @inline(__always) static func deletions(atDepth depth: Int) -> Int { depth == maxLength ? 2 : 1 }

    /// The depth a walk with `k` typos of an `m`-letter word starts at, or nil (from the root).
    @inline(__always) static func startDepth(queryLength m: Int, typos k: Int) -> Int? {
        switch k {
        case 1: return m >= maxLength + 2 ? maxLength : m >= 4 ? min(3, m - 2) : nil
        case 2: return m >= maxLength + 3 ? maxLength : nil
        default: return nil
        }
    }

    var byteCount: Int {
        nodes.capacity * 4 + depths.capacity + slots.capacity * 4 + bucketStarts.capacity * 4 + entries.capacity * 4
    }

    /// Adds a node at an entry depth above term `slot`; filed at the next rebuild.
    mutating func add(node: Int32, depth: Int, slot: Int) {
        nodes.append(node)
        depths.append(UInt8(depth))
        slots.append(UInt32(slot))
    }

    /// Whether enough records wait unfiled that `rebuild` should run.
    var needsRebuild: Bool { nodes.count - filed > 64 + filed / 16 }

    /// Files every record under its variants (`trie`: the one whose nodes they are).
    mutating func rebuild(_ trie: TermTrie) {
        var pairs: [UInt64] = []   // bucket << 32 | entry
        var bits = 1
        // About four variants a bucket: the count is known only roughly before they are made.
        var estimate = 0
        for d in depths { estimate += d == UInt8(Self.maxLength) ? 16 : Int(d) + 1 }
        while (1 << bits) < max(2, estimate / 4) { bits += 1 }
        pairs.reserveCapacity(estimate)
        trie.termLetters.withUnsafeBufferPointer { l in
            for r in nodes.indices {
                let depth = Int(depths[r])
                let start = trie.termRange(Int(slots[r])).lowerBound
                let path = UnsafeBufferPointer(rebasing: l[start..<start + depth])
                Self.forEachVariant(path, deletions: 0...Self.deletions(atDepth: depth), depth: depth) { h in
                    pairs.append(UInt64(h >> UInt64(64 - bits)) << 32 | UInt64(UInt32(r) << 8 | UInt32(h & 0xFF)))
                }
            }
        }
        var starts = [UInt32](repeating: 0, count: (1 << bits) + 1)
        for p in pairs { starts[Int(p >> 32) + 1] += 1 }
        for b in 0..<(1 << bits) { starts[b + 1] += starts[b] }
        var next = starts
        var table = [UInt32](repeating: 0, count: pairs.count)
        for p in pairs {
            let b = Int(p >> 32)
            table[Int(next[b])] = UInt32(truncatingIfNeeded: p)
            next[b] += 1
        }
        bucketStarts = starts
        entries = table
        bucketBits = bits
        filed = nodes.count
    }

    /// Calls `body` with the hash of every variant of `path` (`path` less `deletions` of its
    /// letters, any of them), for depth-`depth` entries. Duplicates (repeated letters) repeat.
    @inline(__always) static func forEachVariant(_ path: UnsafeBufferPointer<UInt32>, deletions: ClosedRange<Int>,
                                                 depth: Int, _ body: (UInt64) -> Void) {
        let n = path.count
        for mask in 0..<(1 << n) where deletions.contains(mask.nonzeroBitCount) {
            var h = UInt64(depth) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(n - mask.nonzeroBitCount)
            for i in 0..<n where mask >> i & 1 == 0 {
                h = (h ^ UInt64(path[i])) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 31
            }
            h = (h ^ (h >> 33)) &* 0xC4CE_B9FE_1A85_EC53
            body(h ^ (h >> 29))
        }
    }

    /// The records where a walk with `k` typos of `query` starts at depth `depth`, each once:
    /// a superset of the depth-`depth` nodes within `k` edits of some prefix of `query`.
    func candidates(_ query: [UInt32], typos k: Int, depth: Int) -> [Int] {
        var seen = [UInt64](repeating: 0, count: nodes.count / 64 + 1)
        var found: [Int] = []
        let bits = bucketBits
        query.withUnsafeBufferPointer { q in
        seen.withUnsafeMutableBufferPointer { seen in
            @inline(__always) func take(_ r: Int) {
                if seen[r >> 6] >> UInt64(r & 63) & 1 == 0 && Int(depths[r]) == depth {
                    seen[r >> 6] |= 1 << UInt64(r & 63)
                    found.append(r)
                }
            }
            if filed > 0 {
                for j in max(1, depth - k)...min(q.count, depth + k) {
                    // Prefix j less d letters, as long as a depth-`depth` path less at most k.
                    let low = max(0, j - depth), high = min(k, j - (depth - k))
                    guard low <= high else { continue }
                    Self.forEachVariant(UnsafeBufferPointer(rebasing: q[0..<j]), deletions: low...high, depth: depth) { h in
                        let b = Int(h >> UInt64(64 - bits))
                        let tag = UInt32(h & 0xFF)
                        for e in Int(bucketStarts[b])..<Int(bucketStarts[b + 1]) where entries[e] & 0xFF == tag {
                            take(Int(entries[e] >> 8))
                        }
                    }
                }
            }
            for r in filed..<nodes.count { take(r) }
        }}
        return found
    }

    /// The path of record `r` in `trie`.
    @inline(__always) func path(_ r: Int, in trie: TermTrie) -> ArraySlice<UInt32> {
        let start = trie.termRange(Int(slots[r])).lowerBound
        return trie.termLetters[start..<start + Int(depths[r])]
    }
}
