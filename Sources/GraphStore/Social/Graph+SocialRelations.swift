// Graph+SocialRelations.swift — how a viewer relates to each user of a list, in one call: the
// label an app prints under a name ("yourself", "friend", "3 mutual friends"), pending requests
// either way and blocks either way. The viewer's friends are marked once; each user then costs
// one scan of its own friend list.

/// The relationship label of a viewer to another user.
public enum SocialRelationKind: String, Sendable, Hashable {
    /// The viewer themselves.
    case `self` = "SELF"
    /// A friend (FRIEND either way).
    case friend = "FRIEND"
    /// Not a friend, but shares at least one friend (a friend of a friend).
    case connection = "CONNECTION"
    /// Neither.
    case none = "NONE"

    /// The label by its rule: the user itself, else a friend, else a connection when they
    /// share a friend, else none.
    @inlinable public init(isSelf: Bool, areFriends: Bool, mutualFriends: Int) {
        self = isSelf ? .self : areFriends ? .friend : mutualFriends > 0 ? .connection : .none
    }
}

/// How a viewer relates to one user.
public struct SocialRelation: Sendable, Hashable {
    public var user: NodeID
    public var kind: SocialRelationKind
    /// Friends the viewer and the user share (0 for SELF and for a missing user).
    public var mutualFriends: Int
    /// The viewer sent the user a friend request that is still pending.
    public var requestSent: Bool
    /// The user sent the viewer a friend request that is still pending.
    public var requestReceived: Bool
    /// The viewer blocked the user.
    public var blockedByViewer: Bool
    /// The user blocked the viewer.
    public var blocksViewer: Bool

    public init(user: NodeID, kind: SocialRelationKind, mutualFriends: Int = 0, requestSent: Bool = false,
                requestReceived: Bool = false, blockedByViewer: Bool = false, blocksViewer: Bool = false) {
        self.user = user
        self.kind = kind
        self.mutualFriends = mutualFriends
        self.requestSent = requestSent
        self.requestReceived = requestReceived
        self.blockedByViewer = blockedByViewer
        self.blocksViewer = blocksViewer
    }

    /// Blocked either way.
    public var isBlocked: Bool { blockedByViewer || blocksViewer }
}

extension Graph {
    /// The relationship of `viewer` to each of `users`, in the same order (duplicates repeated).
    /// - Complexity: O(deg viewer + Σ deg(user) + n · log degree); no allocation beyond the answer.
    public func relations(of viewer: NodeID, to users: [NodeID], schema: SocialSchema,
                          scratch: inout TraversalScratch) -> [SocialRelation] {
        let mark = scratch.begin(on: self)
        if contains(viewer) {
            var friends = FriendMerge(self, viewer, schema.friend)
            while let f = friends.nextID() { scratch.marks[Int(f)] = mark }
        }
        var result: [SocialRelation] = []
        result.reserveCapacity(users.count)
        for user in users {
            result.append(relation(of: viewer, to: user, schema: schema, viewerFriendMark: mark, scratch: scratch))
        }
        return result
    }

    /// The relationship of `viewer` to `user` alone.
    public func relation(of viewer: NodeID, to user: NodeID, schema: SocialSchema,
                         scratch: inout TraversalScratch) -> SocialRelation {
        relations(of: viewer, to: [user], schema: schema, scratch: &scratch)[0]
    }

    /// One label, given the viewer's friends marked with `mark` in `scratch`.
    func relation(of viewer: NodeID, to user: NodeID, schema: SocialSchema, viewerFriendMark mark: UInt32,
                  scratch: TraversalScratch) -> SocialRelation {
        guard contains(viewer), contains(user) else { return SocialRelation(user: user, kind: .none) }
        if viewer == user { return SocialRelation(user: user, kind: .self) }
        var mutual = 0
        var friends = FriendMerge(self, user, schema.friend)
        while let f = friends.nextID() {
            if scratch.marks[Int(f)] == mark { mutual += 1 }
        }
        let kind = SocialRelationKind(isSelf: false, areFriends: scratch.marks[user.index] == mark, mutualFriends: mutual)
        return SocialRelation(user: user, kind: kind, mutualFriends: mutual,
                              requestSent: hasRelationship(schema.friendRequest, from: viewer, to: user),
                              requestReceived: hasRelationship(schema.friendRequest, from: user, to: viewer),
                              blockedByViewer: hasRelationship(schema.blocked, from: viewer, to: user),
                              blocksViewer: hasRelationship(schema.blocked, from: user, to: viewer))
    }
}
