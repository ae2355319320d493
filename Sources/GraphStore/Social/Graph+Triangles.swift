// Graph+Triangles.swift — the closing count of a triangle pattern through one node: how many
// rows `(x)-[r1]-(a)-[r2]-(b)-[r3]-(x)` has for a given x, counted without making them. The
// relationships from x to its far side are counted per node first (a counter per node in the
// scratch); then each of x's near neighbours' lists is walked once, adding up those counters:
// one pass over the two-hop lists, as the connections kernel makes, instead of a row per path.

/// One hop of a pattern a kernel counts (a triangle, a two-hop path): the relationship type and
/// the direction it is followed in, seen from the node the hop leaves.
public struct PatternHop: Sendable, Hashable {
    public var type: RelationshipTypeID
    public var direction: Direction

    public init(type: RelationshipTypeID, direction: Direction) {
        self.type = type
        self.direction = direction
    }
}

/// The pattern `(x)-[first]-(a)-[second]-(b)-[third]-(x)`: each hop leaves the node before it,
/// a and b may be required to carry a label, and `id(a) < id(b)` (or `>`) may hold as well.
public struct TrianglePattern: Sendable, Hashable {
    /// What the pattern's WHERE says of a and b: nothing, `a <> b`, `id(a) < id(b)` or `id(a) > id(b)`.
    public enum Order: Sendable, Hashable { case any, distinct, aBelowB, aAboveB }

    public var first: PatternHop
    public var second: PatternHop
    public var third: PatternHop
    public var labelA: LabelID?
    public var labelB: LabelID?
    public var order: Order

    public init(first: PatternHop, second: PatternHop, third: PatternHop, labelA: LabelID? = nil, labelB: LabelID? = nil,
                order: Order = .any) {
        self.first = first; self.second = second; self.third = third
        self.labelA = labelA; self.labelB = labelB; self.order = order
    }
}

extension Direction {
    /// The same relationships seen from the other end.
    var reversed: Direction {
        switch self {
        case .outgoing: .incoming
        case .incoming: .outgoing
        case .both: .both
        }
    }
}

extension Graph {
    /// The number of rows the pattern matches through `x`, as a pattern match counts them (each
    /// relationship its own row: parallel relationships, and a friendship stored both ways, count
    /// once each), or nil when a self-loop puts a node of the pattern twice (x = a, a = b or
    /// b = x), which this count does not follow: the caller then makes the rows another way.
    /// Without a self-loop the three nodes are distinct, so the three relationships are too
    /// (openCypher's uniqueness holds by itself).
    /// - Complexity: O(deg x + the sum of the degrees of x's neighbours by `first`).
    public func triangleRowCount(through x: NodeID, pattern: TrianglePattern, scratch: inout TraversalScratch) -> Int? {
        guard contains(x) else { return 0 }
        // x = a needs a self-loop of `first` at x; b = x one of `third`.
        if hasRelationship(pattern.first.type, from: x, to: x) || hasRelationship(pattern.third.type, from: x, to: x) { return nil }
        _ = scratch.begin(on: self)
        defer { scratch.resetCounts() }
        // Per b: the relationships b–x that close the triangle (`third` leaves b towards x).
        forEachNeighbor(of: x, pattern.third.type, pattern.third.direction.reversed) { b in
            if let label = pattern.labelB, !node(NodeID(rawValue: b), hasLabel: label) { return }
            scratch.increment(b)
        }
        guard scratch.touchedCount > 0 else { return 0 }
        var total = 0
        var selfLoop = false
        let counts = scratch.counts
        forEachNeighbor(of: x, pattern.first.type, pattern.first.direction) { a in
            guard !selfLoop else { return }
            if let label = pattern.labelA, !node(NodeID(rawValue: a), hasLabel: label) { return }
            forEachNeighbor(of: NodeID(rawValue: a), pattern.second.type, pattern.second.direction) { b in
                // a = b: rows exist only where the self-loop's node closes back to x.
                if b == a {
                    if pattern.order == .any && counts[Int(b)] > 0 { selfLoop = true }
                    return
                }
                switch pattern.order {
                case .any, .distinct: total &+= Int(counts[Int(b)])
                case .aBelowB: if a < b { total &+= Int(counts[Int(b)]) }
                case .aAboveB: if a > b { total &+= Int(counts[Int(b)]) }
                }
            }
        }
        return selfLoop ? nil : total
    }
}
