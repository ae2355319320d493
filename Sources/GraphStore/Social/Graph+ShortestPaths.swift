// Graph+ShortestPaths.swift — the least-length paths between two nodes ("how am I connected to
// this person"), by breadth-first search from both ends at once: each round expands the smaller
// frontier by one level, and the first node both searches have reached fixes the length. Two
// users with hundreds of friends each meet after a few frontier expansions, not a graph walk.
//
// Working memory is the reader's TraversalScratch: each reached node's counter holds its
// distance from the start (low 16 bits, plus one) and from the end (high 16 bits, plus one),
// zeroed afterwards by the touched list, so a search allocates nothing proportional to the
// graph, only its frontiers. Paths are rebuilt from the distances: a node one step nearer the
// start whose relationship leads here is a predecessor on some shortest path.

/// Which paths a shortest-path search follows, read from the start node towards the end.
public struct ShortestPathSearch: Sendable, Hashable {
    /// Relationship types a path may use (the caller lists every type for "any").
    public var types: [RelationshipTypeID]
    /// `.outgoing`: each relationship points from the start's side to the end's; `.incoming`
    /// the other way; `.both`: either.
    public var direction: Direction
    /// 0 lets a node reach itself by the empty path; any other minimum counts as 1 here (a
    /// shortest path between two different nodes has at least one relationship).
    public var minHops: Int
    /// The longest path allowed, nil for no bound.
    public var maxHops: Int?
    /// Every path of the least length (`allShortestPaths`), or the first one found.
    public var all: Bool

    public init(types: [RelationshipTypeID], direction: Direction, minHops: Int = 1, maxHops: Int? = nil, all: Bool = false) {
        self.types = types; self.direction = direction; self.minHops = minHops; self.maxHops = maxHops; self.all = all
    }

    /// The longest path the distance counters can hold.
    public static let longestPath = 0xFFFE
}

extension Graph {
    /// The least-length paths from `start` to `end`, each as its relationships in order from
    /// `start`, handed to `body` one at a time until it returns false. A path uses only
    /// relationships `accept` passes (`filtered` false: every relationship, and `accept` is
    /// never called, so no incoming relationship's id is looked up). `start == end` has the
    /// empty path when `minHops` is 0 and none otherwise. Returns the paths' length, or nil when
    /// no path joins the two within `maxHops` (or within `ShortestPathSearch.longestPath`).
    /// - Complexity: O(the relationships of the nodes nearer either end than half the
    ///   distance), plus O(length × degree) per path rebuilt.
    @discardableResult
    public func shortestPaths<E: Error>(from start: NodeID, to end: NodeID, search: ShortestPathSearch,
                                        scratch: inout TraversalScratch, filtered: Bool = false,
                                        accept: (Relationship) throws(E) -> Bool,
                                        _ body: ([Relationship]) throws(E) -> Bool) throws(E) -> Int? {
        guard contains(start), contains(end) else { return nil }
        if start == end {
            guard search.minHops == 0 else { return nil }
            _ = try body([])
            return 0
        }
        _ = scratch.begin(on: self)
        defer { scratch.resetCounts() }
        let limit = Swift.min(search.maxHops ?? ShortestPathSearch.longestPath, ShortestPathSearch.longestPath)
        guard limit >= 1 else { return nil }
        var sides = (forward: PathFrontier(side: .forward, nodes: [start.rawValue]),
                     backward: PathFrontier(side: .backward, nodes: [end.rawValue]))
        scratch.setFlags(start.rawValue, 1)
        scratch.setFlags(end.rawValue, 1 << 16)
        var meetings: [UInt32] = []
        while meetings.isEmpty {
            guard sides.forward.depth + sides.backward.depth < limit,
                  !sides.forward.nodes.isEmpty, !sides.backward.nodes.isEmpty else { return nil }
            if sides.forward.nodes.count <= sides.backward.nodes.count {
                try expand(&sides.forward, search: search, scratch: &scratch, filtered: filtered, accept: accept, meetings: &meetings)
            } else {
                try expand(&sides.backward, search: search, scratch: &scratch, filtered: filtered, accept: accept, meetings: &meetings)
            }
        }
        let length = sides.forward.depth + sides.backward.depth
        var path: [Relationship] = []
        path.reserveCapacity(length)
        for meeting in meetings {
            let middle = NodeID(rawValue: meeting)
            guard try chains(to: middle, side: .forward, search: search, scratch: scratch, filtered: filtered, accept: accept,
                             path: &path, then: { (path: inout [Relationship]) throws(E) -> Bool in
                let prefix = path.count
                path.reverse()
                defer { path.reverse(); path.removeSubrange(prefix...) }
                return try chains(to: middle, side: .backward, search: search, scratch: scratch, filtered: filtered,
                                  accept: accept, path: &path) { (whole: inout [Relationship]) throws(E) -> Bool in
                    guard try body(whole) else { return false }
                    return search.all
                }
            }) else { break }
            if !search.all { break }
        }
        return length
    }

    /// Expands `frontier` by one level: every relationship from its nodes the search allows
    /// (reversed for the backward side) reaching a node this side has not reached. A node the
    /// other side reached is a meeting; with `all` the level is finished, so every meeting at
    /// the least length is listed; otherwise the first one ends it.
    private func expand<E: Error>(_ frontier: inout PathFrontier, search: ShortestPathSearch, scratch: inout TraversalScratch,
                                  filtered: Bool, accept: (Relationship) throws(E) -> Bool,
                                  meetings: inout [UInt32]) throws(E) {
        let mine = frontier.side.mask, theirs = frontier.side.other.mask
        let mark = UInt32(frontier.depth + 2) << frontier.side.shift
        let ways = frontier.side.directions(search.direction)
        var next: [UInt32] = []
        for node in frontier.nodes {
            let from = NodeID(rawValue: node)
            for way in ways {
                for type in search.types {
                    let list = adjacency(of: from, type: type, direction: way)
                    for position in list.indices {
                        let neighbor = list[position]
                        let counter = scratch.counts[Int(neighbor.rawValue)]
                        if counter & mine != 0 { continue }
                        if filtered, try !accept(relationship(of: from, type: type, list, position, way)) { continue }
                        scratch.setFlags(neighbor.rawValue, mark)
                        if counter & theirs != 0 {
                            meetings.append(neighbor.rawValue)
                            if !search.all { frontier.depth += 1; return }
                        } else {
                            next.append(neighbor.rawValue)
                        }
                    }
                }
            }
        }
        frontier.nodes = next
        frontier.depth += 1
    }

    /// Every chain of relationships from `node` back to the side's own end (the start for
    /// `.forward`), each step to a node one nearer, appended to `path` (in order from `node`)
    /// for `then`. Returns false once `then` does.
    private func chains<E: Error>(to node: NodeID, side: PathFrontier.Side, search: ShortestPathSearch, scratch: TraversalScratch,
                                  filtered: Bool, accept: (Relationship) throws(E) -> Bool, path: inout [Relationship],
                                  then: (inout [Relationship]) throws(E) -> Bool) throws(E) -> Bool {
        let distance = side.distance(scratch.counts[Int(node.rawValue)])
        if distance == 0 { return try then(&path) }
        // Back along the search's own steps: a forward step came along `direction`, so the
        // node before it is found by the other side's lists.
        for way in side.other.directions(search.direction) {
            for type in search.types {
                let list = adjacency(of: node, type: type, direction: way)
                for position in list.indices {
                    let previous = list[position]
                    guard side.distance(scratch.counts[Int(previous.rawValue)]) == distance - 1 else { continue }
                    let r = relationship(of: node, type: type, list, position, way)
                    if filtered, try !accept(r) { continue }
                    path.append(r)
                    let going = try chains(to: previous, side: side, search: search, scratch: scratch, filtered: filtered,
                                           accept: accept, path: &path, then: then)
                    path.removeLast()
                    guard going else { return false }
                }
            }
        }
        return true
    }

    /// The relationship of entry `position` of `node`'s `list` (of `type`, walked `way`).
    @inline(__always)
    private func relationship(of node: NodeID, type: RelationshipTypeID, _ list: AdjacencyList, _ position: Int,
                              _ way: Direction) -> Relationship {
        let id = list.hasRelationshipIDs ? list.relationship(at: position) : incomingRelationship(of: node, type: type, in: list, at: position)
        return Relationship(id, type: type, from: node, to: list[position], direction: way)
    }
}

/// One end's breadth-first search: the nodes it reached last and how far they are from it.
struct PathFrontier {
    /// Which end a search starts from, and where its distances live in a node's counter.
    enum Side {
        case forward, backward

        var shift: UInt32 { self == .forward ? 0 : 16 }
        var mask: UInt32 { 0xFFFF << shift }
        var other: Side { self == .forward ? .backward : .forward }

        /// The distance from this side's end recorded in `counter`, -1 when not reached.
        @inline(__always) func distance(_ counter: UInt32) -> Int { Int((counter >> shift) & 0xFFFF) - 1 }

        /// The lists this side walks for a search read `direction`-wise from the start.
        func directions(_ direction: Direction) -> [Direction] {
            switch (direction, self) {
            case (.both, _): [.outgoing, .incoming]
            case (.outgoing, .forward), (.incoming, .backward): [.outgoing]
            case (.incoming, .forward), (.outgoing, .backward): [.incoming]
            }
        }
    }

    let side: Side
    var nodes: [UInt32]
    var depth = 0
}
