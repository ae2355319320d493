// Graph+InvitableAudience.swift — who a host may still invite to an event: the host's friends
// and (by option) connections, minus the host, anyone already invited or attending, and anyone
// blocked either way, each with its label and mutual count. One 2-hop count into the scratch.

/// Options of `invitableAudience(of:)`.
public struct AudienceOptions: Sendable, Hashable {
    /// 1: the host's friends only; 2: friends and connections (friends of friends).
    public var hops: Int
    /// At most this many rows (nil: all).
    public var limit: Int?

    public init(hops: Int = 2, limit: Int? = nil) {
        self.hops = hops
        self.limit = limit
    }
}

/// One person the host may invite.
public struct AudienceMember: Sendable, Hashable {
    public var node: NodeID
    /// `.friend` or `.connection`.
    public var kind: SocialRelationKind
    /// Friends shared with the host.
    public var mutualFriends: Int

    public init(node: NodeID, kind: SocialRelationKind, mutualFriends: Int) {
        self.node = node
        self.kind = kind
        self.mutualFriends = mutualFriends
    }
}

extension Graph {
    /// The host of `event`: the start of its first incoming HOSTS relationship, or nil.
    public func host(of event: NodeID, schema: SocialSchema) -> NodeID? {
        let hosts = socialAdjacency(of: event, schema.hosts, .incoming)
        return hosts.isEmpty ? nil : hosts[hosts.startIndex]
    }

    /// The invitable audience of `event` (hosted by `host`, or by its HOSTS host when nil):
    /// friends first, then connections; within each, mutual friends descending, then node id.
    /// Empty when the event has no host.
    /// - Complexity: O(Σ deg(f) over the host's friends + audience · log audience).
    public func invitableAudience(of event: NodeID, host: NodeID? = nil, schema: SocialSchema,
                                  options: AudienceOptions = AudienceOptions(),
                                  scratch: inout TraversalScratch) -> [AudienceMember] {
        guard let host = host ?? self.host(of: event, schema: schema), contains(host) else { return [] }
        // Two stamps: `friendMark` on the host's friends, `excluded` on who may not be invited.
        let friendMark = scratch.begin(on: self, stamps: 2)
        let excluded = friendMark + 1
        var friends = FriendMerge(self, host, schema.friend)
        while let f = friends.nextID() { scratch.marks[Int(f)] = friendMark }
        markExcluded(event: event, host: host, schema: schema, mark: excluded, scratch: &scratch)
        // Counts every node adjacent to a friend of the host, friends included: a friend's
        // counter is then its mutual count with the host too.
        countFriendsOfFriends(of: host, schema: schema, scratch: &scratch)
        var members: [AudienceMember] = []
        var again = FriendMerge(self, host, schema.friend)
        while let f = again.nextID() {
            guard scratch.marks[Int(f)] == friendMark else { continue }
            members.append(AudienceMember(node: NodeID(rawValue: f), kind: .friend, mutualFriends: Int(scratch.counts[Int(f)])))
        }
        members.sort { $0.mutualFriends != $1.mutualFriends ? $0.mutualFriends > $1.mutualFriends : $0.node < $1.node }
        if options.hops >= 2, (options.limit ?? Int.max) > members.count {
            let rest = options.limit.map { $0 - members.count }
            let marks = scratch.marks
            let ranked = scratch.rankTouched(limit: rest, minimum: 1) { node in
                let m = marks[Int(node)]
                return m != friendMark && m != excluded
            }
            for row in ranked {
                members.append(AudienceMember(node: NodeID(rawValue: row.node), kind: .connection, mutualFriends: row.count))
            }
        }
        scratch.resetCounts()
        if let limit = options.limit, members.count > limit { members.removeLast(members.count - limit) }
        return members
    }

    /// How many people `invitableAudience(of:)` would return (hops 2, no limit), without
    /// labels, counts or sorting: one pass of "seen" marks.
    /// - Complexity: O(Σ deg(f) over the host's friends).
    public func invitableAudienceCount(of event: NodeID, host: NodeID? = nil, schema: SocialSchema,
                                       hops: Int = 2, scratch: inout TraversalScratch) -> Int {
        guard let host = host ?? self.host(of: event, schema: schema), contains(host) else { return 0 }
        let seen = scratch.begin(on: self)
        markExcluded(event: event, host: host, schema: schema, mark: seen, scratch: &scratch)
        var n = 0
        scratch.marks.withUnsafeMutableBufferPointer { marks in
            var friends = FriendMerge(self, host, schema.friend)
            while let f = friends.nextID() {
                if marks[Int(f)] != seen { marks[Int(f)] = seen; n += 1 }
                guard hops >= 2 else { continue }
                var inner = FriendMerge(self, NodeID(rawValue: f), schema.friend)
                inner.forEachID { w in
                    if marks[Int(w)] != seen { marks[Int(w)] = seen; n += 1 }
                }
            }
        }
        return n
    }

    /// Marks the host, the event's invited and attending guests and everyone blocked either way.
    func markExcluded(event: NodeID, host: NodeID, schema: SocialSchema, mark: UInt32, scratch: inout TraversalScratch) {
        scratch.marks[host.index] = mark
        for a in socialAdjacency(of: event, schema.invited, .incoming) { scratch.marks[a.index] = mark }
        for a in socialAdjacency(of: event, schema.attending, .incoming) { scratch.marks[a.index] = mark }
        for a in socialAdjacency(of: host, schema.blocked, .outgoing) { scratch.marks[a.index] = mark }
        for a in socialAdjacency(of: host, schema.blocked, .incoming) { scratch.marks[a.index] = mark }
    }
}
