// KeptFriends.swift — one user's friends held for many questions about that user and others
// (a viewer and each user of a list): the sorted ids and a mark per friend in a scratch, so
// each question reads only the other user's lists, as `relations(of:to:)` does in one call.

/// A user's friends, kept: ascending raw ids (for looking them up in a hub's lists) and a mark
/// on each in the scratch it holds (for checking a short list against them). Valid for the
/// graph value it was made on only (a read's graph does not change). Hand the scratch back with
/// `releaseScratch()`.
public struct KeptFriends: Sendable {
    /// Whose friends these are.
    public private(set) var user: NodeID
    private(set) var ids: [UInt32] = []
    private(set) var mark: UInt32 = 0
    var scratch: TraversalScratch

    /// Keeps `user`'s friends in `scratch` (its marks from before are void afterwards).
    /// - Complexity: O(degree).
    public init(_ user: NodeID, of graph: Graph, schema: SocialSchema, scratch: consuming TraversalScratch) {
        self.user = user
        // Moved, not copied: a copy would leave the buffers shared, and the first mark would
        // copy all of them.
        self.scratch = consume scratch
        keep(user, of: graph, schema: schema)
    }

    /// Keeps `user`'s friends instead, in the same scratch.
    /// - Complexity: O(degree).
    public mutating func keep(_ user: NodeID, of graph: Graph, schema: SocialSchema) {
        self.user = user
        mark = scratch.begin(on: graph)
        ids = graph.friendIDs(of: user, schema: schema)
        for f in ids { scratch.marks[Int(f)] = mark }
    }

    /// How many friends are kept.
    public var count: Int { ids.count }

    /// Whether `node` is one of the kept friends. O(1).
    @inline(__always) public func contains(_ node: NodeID) -> Bool {
        node.index < scratch.marks.count && scratch.marks[node.index] == mark
    }

    /// The scratch, for its pool; the kept friends are unusable afterwards.
    public consuming func releaseScratch() -> TraversalScratch { scratch }
}

extension Graph {
    /// The friends `kept.user` and `b` share, ascending: `mutualFriends(_:_:schema:)`'s answer.
    /// - Complexity: O(deg b) reads of the marks; O(kept · log deg b) when b is a hub.
    public func mutualFriends(_ kept: KeptFriends, _ b: NodeID, schema: SocialSchema) -> [NodeID] {
        var result: [NodeID] = []
        forEachMutualFriend(kept, b, schema: schema) { result.append(NodeID(rawValue: $0)) }
        return result
    }

    /// How many friends `kept.user` and `b` share, as `mutualFriends(_:_:schema:)` finds them.
    /// - Complexity: as `mutualFriends(_:_:schema:)` with kept friends; no allocation.
    public func mutualFriendCount(_ kept: KeptFriends, _ b: NodeID, schema: SocialSchema) -> Int {
        var n = 0
        forEachMutualFriend(kept, b, schema: schema) { _ in n &+= 1 }
        return n
    }

    /// Calls `body` with each friend `kept.user` and `b` share, ascending.
    @inline(__always) func forEachMutualFriend(_ kept: KeptFriends, _ b: NodeID, schema: SocialSchema,
                                               _ body: (UInt32) -> Void) {
        guard kept.user != b else { return }
        var right = FriendMerge(self, b, schema.friend)
        if kept.ids.count * 16 < right.capacityHint {
            // b is a hub: look each of the few kept friends up in b's sorted lists.
            for f in kept.ids where f != b.rawValue && right.containsAscending(f) { body(f) }
            return
        }
        // Otherwise each of b's friends (never b itself) is checked against the marks: O(deg b)
        // however many friends are kept, where a merge would walk the kept list every time.
        let marks = kept.scratch.marks, mark = kept.mark
        marks.withUnsafeBufferPointer { marks in
            right.forEachID { f in if marks[Int(f)] == mark { body(f) } }
        }
    }
}
