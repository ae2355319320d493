// Graph+Friends.swift — one-hop social reads: a user's friends, whether two users are friends,
// their mutual friends (an intersection of two sorted friend lists), and friends-only
// visibility. No scratch needed: every answer is a walk over at most two adjacency lists.

/// How `friends(of:)` orders its answer.
public enum FriendOrder: Sendable, Hashable {
    /// Ascending node id: the stored order, no sort.
    case byID
    /// Newest friendship first (the FRIEND relationship's `created_at`, missing = oldest);
    /// ties by ascending node id.
    case newestFirst
}

/// One friend of a user, with the FRIEND relationship that links them.
public struct Friend: Sendable, Hashable {
    public var node: NodeID
    public var relationship: RelationshipID

    public init(node: NodeID, relationship: RelationshipID) {
        self.node = node
        self.relationship = relationship
    }
}

extension Graph {
    /// The friends of `user` (FRIEND either way), at most `limit`, in `order`.
    /// - Complexity: O(degree) by id; O(degree log degree) newest first.
    public func friends(of user: NodeID, schema: SocialSchema, order: FriendOrder = .byID, limit: Int? = nil) -> [Friend] {
        var merge = FriendMerge(self, user, schema.friend)
        var result: [Friend] = []
        result.reserveCapacity(order == .byID ? min(limit ?? Int.max, merge.capacityHint) : merge.capacityHint)
        let cap = order == .byID ? limit ?? Int.max : Int.max
        while result.count < cap, let step = merge.nextStep() {
            // An incoming entry's relationship is the friend's outgoing entry naming `user`.
            let relationship = step.outgoing ? merge.outgoing.relationship(at: step.position)
                : incomingRelationship(of: user, type: schema.friend!, in: merge.incoming, at: step.position)
            result.append(Friend(node: NodeID(rawValue: step.id), relationship: relationship))
        }
        if order == .byID { return result }
        guard let key = schema.createdAt else {
            // No relationship has a timestamp: all tie, so id order is already right.
            if let limit, result.count > limit { result.removeLast(result.count - limit) }
            return result
        }
        let stamps = result.map { friend -> Int64 in
            if case .integer(let t) = property(key, of: friend.relationship) { return t }
            return Int64.min
        }
        var order = Array(result.indices)
        order.sort { stamps[$0] != stamps[$1] ? stamps[$0] > stamps[$1] : result[$0].node < result[$1].node }
        if let limit, order.count > limit { order.removeLast(order.count - limit) }
        return order.map { result[$0] }
    }

    /// The number of distinct friends of `user`.
    /// - Complexity: O(degree).
    public func friendCount(of user: NodeID, schema: SocialSchema) -> Int {
        var merge = FriendMerge(self, user, schema.friend)
        var n = 0
        while merge.nextID() != nil { n += 1 }
        return n
    }

    /// Whether `a` and `b` are friends (a FRIEND relationship either way).
    /// - Complexity: O(log degree).
    public func areFriends(_ a: NodeID, _ b: NodeID, schema: SocialSchema) -> Bool {
        guard let friend = schema.friend, a != b else { return false }
        return adjacency(of: a, type: friend, direction: .outgoing).contains(neighbor: b)
            || adjacency(of: a, type: friend, direction: .incoming).contains(neighbor: b)
    }

    /// Whether `user` has a FRIEND relationship to itself. The social kernels never count one
    /// (people are not their own friends); a plain pattern such as `(a)-[:FRIEND]-(m)` does,
    /// and the planner's rewrites of such patterns use this to give the pattern's answer.
    public func hasFriendSelfLoop(_ user: NodeID, schema: SocialSchema) -> Bool {
        hasRelationship(schema.friend, from: user, to: user)
    }

    /// Whether there is a relationship of `type` from `a` to `b` (never, for a type the graph
    /// has not seen). O(log deg a): a's outgoing list of that type is sorted by neighbour.
    public func hasRelationship(_ type: RelationshipTypeID?, from a: NodeID, to b: NodeID) -> Bool {
        guard let type else { return false }
        return adjacency(of: a, type: type, direction: .outgoing).contains(neighbor: b)
    }

    /// The friends `a` and `b` have in common, ascending — whether or not `a` and `b` are friends.
    /// - Complexity: O(deg a + deg b), an intersection of the two sorted friend lists.
    public func mutualFriends(_ a: NodeID, _ b: NodeID, schema: SocialSchema) -> [NodeID] {
        var result: [NodeID] = []
        forEachMutualFriend(a, b, schema: schema) { result.append(NodeID(rawValue: $0)) }
        return result
    }

    /// The number of friends `a` and `b` have in common.
    /// - Complexity: O(deg a + deg b), no allocation.
    public func mutualFriendCount(_ a: NodeID, _ b: NodeID, schema: SocialSchema) -> Int {
        var n = 0
        forEachMutualFriend(a, b, schema: schema) { _ in n += 1 }
        return n
    }

    /// Calls `body` with each common friend of `a` and `b`, ascending, the cheapest way
    /// (`MutualFriendsWay`), so a hub costs little more than its partner's degree.
    @inline(__always) func forEachMutualFriend(_ a: NodeID, _ b: NodeID, schema: SocialSchema, _ body: (UInt32) -> Void) {
        guard a != b else { return }
        var left = FriendMerge(self, a, schema.friend)
        var right = FriendMerge(self, b, schema.friend)
        let (short, long) = left.capacityHint <= right.capacityHint ? (left, right) : (right, left)
        switch MutualFriendsWay(short: short, long: long) {
        case .search:
            long.searchEach(of: short, body)
            return
        case .resumedSearch:
            var walk = short, probe = long
            let other = long.owner
            walk.forEachID { f in
                if f != other && probe.containsAscending(f) { body(f) }
            }
            return
        case .bitmap(let bitmap):
            bitmap.forEachCommon(short, long, body)
            return
        case .merge:
            break
        }
        // Otherwise each side's two lists are first laid out as one ascending array (the merge's
        // branch-light walk: two copies when they do not interleave), then the two arrays are
        // intersected with the step chosen by conditional moves: merging the four lists in
        // one loop mispredicted a branch on most steps.
        let capacity = left.capacityHint + right.capacityHint
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return }
            var n1 = 0
            left.forEachID { base[n1] = $0; n1 &+= 1 }
            let second = base + n1
            var n2 = 0
            right.forEachID { second[n2] = $0; n2 &+= 1 }
            var i = 0, j = 0
            while i < n1 && j < n2 {
                let x = base[i], y = second[j]
                if x == y { body(x) }
                i &+= x <= y ? 1 : 0
                j &+= y <= x ? 1 : 0
            }
        }
    }

    /// The way `forEachMutualFriend` takes for `a` and `b` (for tests that must see each run).
    func mutualFriendsWay(_ a: NodeID, _ b: NodeID, schema: SocialSchema) -> MutualFriendsWay {
        let left = FriendMerge(self, a, schema.friend), right = FriendMerge(self, b, schema.friend)
        return left.capacityHint <= right.capacityHint ? MutualFriendsWay(short: left, long: right)
                                                       : MutualFriendsWay(short: right, long: left)
    }

    /// The friends of `user` as raw node ids, ascending and distinct (FriendMerge's order), as
    /// `KeptFriends` keeps them.
    /// - Complexity: O(degree).
    public func friendIDs(of user: NodeID, schema: SocialSchema) -> [UInt32] {
        var merge = FriendMerge(self, user, schema.friend)
        // Written straight into uninitialised storage: no capacity check per friend, and the
        // merge's branch-light walk (two copies when the lists do not interleave).
        return Array(unsafeUninitializedCapacity: merge.capacityHint) { buffer, count in
            var n = 0
            merge.forEachID { id in buffer[n] = id; n &+= 1 }
            count = n
        }
    }

    /// The integer property `key` (the app's id, say) of each friend of `user`, in
    /// `friendIDs`' order, nil for a friend without one: a friend list in the app's ids,
    /// read in the one pass that finds the friends, into one array.
    /// - Complexity: O(degree).
    public func friendIntegerValues(_ key: PropertyKeyID, of user: NodeID, schema: SocialSchema) -> [Int64?] {
        var merge = FriendMerge(self, user, schema.friend)
        let column = integerColumn(key)
        return Array(unsafeUninitializedCapacity: merge.capacityHint) { buffer, count in
            var n = 0
            merge.forEachID { id in buffer[n] = integerValue(key, of: id, column: column); n &+= 1 }
            count = n
        }
    }

    /// Whether `viewer` may read `user`'s friends-only profile: themselves and their friends may,
    /// nobody else (blocking removes friendship, so a blocked viewer is never a friend).
    /// - Complexity: O(log degree).
    public func canView(viewer: NodeID, user: NodeID, schema: SocialSchema) -> Bool {
        viewer == user ? contains(user) : areFriends(viewer, user, schema: schema)
    }
}
