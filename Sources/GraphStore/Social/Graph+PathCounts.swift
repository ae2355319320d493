// Graph+PathCounts.swift — counting the paths of a two-hop pattern `(x)-[r1]-(f)-[r2]-(c)` per
// far node c without making them: a counter per node in the scratch, one increment per step of
// the walk, and the walks that go back along the relationship they came by (not paths under
// openCypher's relationship uniqueness) taken off at x. What `count(*)` grouped by c, the
// number of distinct c (two-hop reach) and the number of paths are, for any types, directions
// and labels, multigraphs included.

/// The two-hop pattern a path count walks, with what its WHERE leaves out of the far end.
public struct TwoHopPattern: Sendable, Hashable {
    public var first: PatternHop
    public var second: PatternHop
    public var middleLabel: LabelID?
    public var farLabel: LabelID?
    /// `c <> x`: x itself is never a far end.
    public var excludeStart: Bool
    /// `NOT (x)-[:T]-(c)`: x's neighbours by this hop are never far ends.
    public var excludeNeighbours: PatternHop?
    /// `NOT (x)-[:T]-(c:Label)`: only neighbours with this label are left out.
    public var excludeNeighboursLabel: LabelID?
    /// Whether the two relationships must differ (openCypher's uniqueness, within one MATCH
    /// clause); false for hops written in two MATCH clauses, where going back along the first
    /// relationship is a row.
    public var distinctRelationships = true

    public init(first: PatternHop, second: PatternHop, middleLabel: LabelID? = nil, farLabel: LabelID? = nil,
                excludeStart: Bool = false, excludeNeighbours: PatternHop? = nil) {
        self.first = first; self.second = second
        self.middleLabel = middleLabel; self.farLabel = farLabel
        self.excludeStart = excludeStart; self.excludeNeighbours = excludeNeighbours
    }
}

extension Graph {
    /// The far ends of the pattern's paths from any of `starts`, each with its number of paths
    /// (summed over the starts; a start listed twice counts twice), highest count first, ties by
    /// ascending node id: the first `limit` (all when nil), with `withTies` every node tied with
    /// the last of them too, and none below `minimum`.
    /// - Complexity: O(Σ over the first hop's rows of the middle node's degree) per start, plus
    ///   the ranking; one start needs no allocation proportional to the graph.
    /// With `distinctBy` keys, nil when two far ends it would list (before the limit) hold
    /// equivalent values of them (`touchedAreDistinct`), checked before the ranking cuts.
    public func twoHopPathCounts(from starts: [NodeID], pattern: TwoHopPattern, limit: Int?, withTies: Bool, minimum: Int,
                                 distinctBy keys: [PropertyKeyID] = [], scratch: inout TraversalScratch) -> [Connection]? {
        if starts.count == 1 {
            countTwoHopPaths(from: starts[0], pattern: pattern, scratch: &scratch)
            guard touchedAreDistinct(by: keys, minimum: minimum, scratch: scratch, { _, c in c & CounterFlags.excluded == 0 }) else {
                scratch.resetCounts()
                return nil
            }
            return rank(&scratch, limit: limit, withTies: withTies, minimum: minimum)
        }
        // Several starts: each one's counts (with its own exclusions) added into one table.
        var totals: [UInt32: Int] = [:]
        for x in starts {
            countTwoHopPaths(from: x, pattern: pattern, scratch: &scratch)
            for node in scratch.touched {
                let c = scratch.counts[Int(node)]
                if c & CounterFlags.excluded == 0, c > 0 { totals[node, default: 0] += Int(c) }
            }
            scratch.resetCounts()
        }
        var rows = totals.filter { $0.value >= max(minimum, 1) }.map { Connection(node: NodeID(rawValue: $0.key), mutualFriends: $0.value) }
        guard nodesAreDistinct(rows.lazy.map(\.node.rawValue), by: keys) else { return nil }
        rows.sort { $0.mutualFriends != $1.mutualFriends ? $0.mutualFriends > $1.mutualFriends : $0.node < $1.node }
        return Self.cut(rows, limit: limit, withTies: withTies)
    }

    /// The number of distinct far ends of the pattern's paths from any of `starts`.
    public func twoHopReach(from starts: [NodeID], pattern: TwoHopPattern, scratch: inout TraversalScratch) -> Int {
        var reached = Set<UInt32>()
        var n = 0
        for x in starts {
            countTwoHopPaths(from: x, pattern: pattern, scratch: &scratch)
            for node in scratch.touched where scratch.counts[Int(node)] & CounterFlags.excluded == 0 && scratch.counts[Int(node)] > 0 {
                if starts.count == 1 { n += 1 } else { reached.insert(node) }
            }
            scratch.resetCounts()
        }
        return starts.count == 1 ? n : reached.count
    }

    /// The number of the pattern's paths from any of `starts` (each start's paths, summed).
    public func twoHopPathTotal(from starts: [NodeID], pattern: TwoHopPattern, scratch: inout TraversalScratch) -> Int {
        var n = 0
        for x in starts {
            countTwoHopPaths(from: x, pattern: pattern, scratch: &scratch)
            for node in scratch.touched where scratch.counts[Int(node)] & CounterFlags.excluded == 0 {
                n += Int(scratch.counts[Int(node)])
            }
            scratch.resetCounts()
        }
        return n
    }

    /// Leaves in `scratch` each far end's number of paths from `x` (excluded nodes flagged).
    func countTwoHopPaths(from x: NodeID, pattern: TwoHopPattern, scratch: inout TraversalScratch) {
        _ = scratch.begin(on: self)
        guard contains(x) else { return }
        if pattern.excludeStart { scratch.setFlags(x.rawValue, CounterFlags.excluded) }
        if let hop = pattern.excludeNeighbours {
            forEachNeighbor(of: x, hop.type, hop.direction) { n in
                if let label = pattern.excludeNeighboursLabel, !node(NodeID(rawValue: n), hasLabel: label) { return }
                scratch.setFlags(n, CounterFlags.excluded)
            }
        }
        let (first, second) = (pattern.first, pattern.second)
        // Whether the second hop can take the first hop's relationship back to x: the same type,
        // followed the other way (or either way; a self-loop any way).
        let reverses = second.type == first.type && (second.direction == .both || second.direction == first.direction.reversed)
        var reused = 0
        forEachExpansion(of: x, first.type, first.direction) { f in
            if let label = pattern.middleLabel, !node(NodeID(rawValue: f), hasLabel: label) { return }
            if second.type == first.type && (reverses || f == x.rawValue) { reused += 1 }
            forEachExpansion(of: NodeID(rawValue: f), second.type, second.direction) { c in
                if let label = pattern.farLabel, !node(NodeID(rawValue: c), hasLabel: label) { return }
                scratch.increment(c)
            }
        }
        // Each such walk went x → f → x on one relationship: not a path.
        if reused > 0, pattern.distinctRelationships, pattern.farLabel.map({ node(x, hasLabel: $0) }) ?? true {
            scratch.counts[Int(x.rawValue)] -= UInt32(reused)
        }
    }

    /// The scratch's non-excluded counts, ranked and cut (the counters left zero).
    func rank(_ scratch: inout TraversalScratch, limit: Int?, withTies: Bool, minimum: Int) -> [Connection] {
        var limit = limit, minimum = minimum
        let keep: (UInt32, UInt32) -> Bool = { _, c in c & CounterFlags.excluded == 0 }
        if withTies, let k = limit {
            minimum = max(minimum, scratch.countAtRank(k, minimum: minimum, keep))
            limit = nil
        }
        return scratch.rankTouched(limit: limit, minimum: minimum, keep).map {
            Connection(node: NodeID(rawValue: $0.node), mutualFriends: $0.count)
        }
    }

    /// The first `limit` of ranked rows, with `withTies` those tied with the last too.
    public static func cut(_ rows: [Connection], limit: Int?, withTies: Bool) -> [Connection] {
        guard let limit, rows.count > limit else { return rows }
        guard limit > 0 else { return [] }
        var end = limit
        if withTies { while end < rows.count && rows[end].mutualFriends == rows[limit - 1].mutualFriends { end += 1 } }
        return Array(rows[0..<end])
    }
}
