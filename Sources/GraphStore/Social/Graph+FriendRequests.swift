// Graph+FriendRequests.swift — the friend-request state machine as graph writes: send, accept,
// decline, cancel, unfriend, block, unblock. Each call runs inside the caller's transaction
// (GraphStore.write), checks its rules first and throws SocialError with the graph unchanged.
//
// Rules: no request to oneself; a repeated request is not duplicated; a request to someone who
// already sent one becomes a friendship; accepting, declining or cancelling a request that does
// not exist is an error; blocking removes friendship and pending requests both ways; a blocked
// user (either way) cannot send requests. FRIEND is created once per pair, sender → recipient.

/// What `sendFriendRequest` did.
public enum FriendRequestOutcome: String, Sendable, Hashable {
    /// A new pending request was created.
    case sent = "SENT"
    /// The same request was already pending: nothing changed.
    case alreadyPending = "ALREADY_PENDING"
    /// The recipient had already asked the sender: the two are now friends.
    case becameFriends = "FRIENDS"
    /// They were friends already: nothing changed.
    case alreadyFriends = "ALREADY_FRIENDS"
}

extension Graph {
    /// `sender` asks `recipient` to be friends, at `time` (ms since the epoch, stored as `created_at`).
    public mutating func sendFriendRequest(from sender: NodeID, to recipient: NodeID, at time: Int64,
                                           names: SocialNames = .standard) throws(SocialError) -> FriendRequestOutcome {
        try requireUsers(sender, recipient, doing: "send a friend request")
        if sender == recipient {
            throw SocialError(.selfRequest, "Cannot send a friend request: \(socialName(sender, names)) cannot befriend themselves")
        }
        var schema = socialSchema(names: names)
        if hasRelationship(schema.blocked, from: recipient, to: sender) {
            throw SocialError(.blocked, "Cannot send a friend request: \(socialName(recipient, names)) has blocked \(socialName(sender, names))")
        }
        if hasRelationship(schema.blocked, from: sender, to: recipient) {
            throw SocialError(.blocked, "Cannot send a friend request: \(socialName(sender, names)) has blocked \(socialName(recipient, names)); unblock first")
        }
        if areFriends(sender, recipient, schema: schema) { return .alreadyFriends }
        if hasRelationship(schema.friendRequest, from: sender, to: recipient) { return .alreadyPending }
        if hasRelationship(schema.friendRequest, from: recipient, to: sender) {
            // The other side asked first: this request is their acceptance.
            try deleteSocialRelationships(schema.friendRequest, between: recipient, and: sender, bothWays: true)
            schema = try createSocialRelationship(names.friend, from: recipient, to: sender, at: time, names: names)
            return .becameFriends
        }
        _ = try createSocialRelationship(names.friendRequest, from: sender, to: recipient, at: time, names: names)
        return .sent
    }

    /// `recipient` accepts the pending request from `sender`: the request goes, FRIEND
    /// (sender → recipient) comes. Throws `.requestNotFound` when no such request is pending.
    public mutating func acceptFriendRequest(by recipient: NodeID, from sender: NodeID, at time: Int64,
                                             names: SocialNames = .standard) throws(SocialError) {
        try requireUsers(sender, recipient, doing: "accept a friend request")
        let schema = socialSchema(names: names)
        guard hasRelationship(schema.friendRequest, from: sender, to: recipient) else {
            throw SocialError(.requestNotFound, "Cannot accept: \(socialName(sender, names)) has no pending friend request to \(socialName(recipient, names))")
        }
        try deleteSocialRelationships(schema.friendRequest, between: sender, and: recipient, bothWays: true)
        if !areFriends(sender, recipient, schema: schema) {
            _ = try createSocialRelationship(names.friend, from: sender, to: recipient, at: time, names: names)
        }
    }

    /// `recipient` declines the pending request from `sender`: the request goes.
    public mutating func declineFriendRequest(by recipient: NodeID, from sender: NodeID,
                                              names: SocialNames = .standard) throws(SocialError) {
        try requireUsers(sender, recipient, doing: "decline a friend request")
        let schema = socialSchema(names: names)
        guard hasRelationship(schema.friendRequest, from: sender, to: recipient) else {
            throw SocialError(.requestNotFound, "Cannot decline: \(socialName(sender, names)) has no pending friend request to \(socialName(recipient, names))")
        }
        try deleteSocialRelationships(schema.friendRequest, between: sender, and: recipient, bothWays: false)
    }

    /// `sender` withdraws its pending request to `recipient`.
    public mutating func cancelFriendRequest(from sender: NodeID, to recipient: NodeID,
                                             names: SocialNames = .standard) throws(SocialError) {
        try requireUsers(sender, recipient, doing: "cancel a friend request")
        let schema = socialSchema(names: names)
        guard hasRelationship(schema.friendRequest, from: sender, to: recipient) else {
            throw SocialError(.requestNotFound, "Cannot cancel: \(socialName(sender, names)) has no pending friend request to \(socialName(recipient, names))")
        }
        try deleteSocialRelationships(schema.friendRequest, between: sender, and: recipient, bothWays: false)
    }

    /// Ends the friendship of `a` and `b` (every FRIEND between them, either way).
    /// Returns false, changing nothing, when they were not friends.
    @discardableResult
    public mutating func unfriend(_ a: NodeID, _ b: NodeID, names: SocialNames = .standard) throws(SocialError) -> Bool {
        try requireUsers(a, b, doing: "unfriend")
        let schema = socialSchema(names: names)
        guard areFriends(a, b, schema: schema) else { return false }
        try deleteSocialRelationships(schema.friend, between: a, and: b, bothWays: true)
        return true
    }

    /// `blocker` blocks `blocked`: BLOCKED (blocker → blocked) is created, and their friendship
    /// and pending requests, both ways, are removed. Returns false when already blocked (the
    /// clean-up still runs, so the invariant holds even for data imported with both).
    @discardableResult
    public mutating func block(_ blocked: NodeID, by blocker: NodeID, at time: Int64,
                               names: SocialNames = .standard) throws(SocialError) -> Bool {
        try requireUsers(blocker, blocked, doing: "block")
        if blocker == blocked {
            throw SocialError(.selfRequest, "Cannot block: \(socialName(blocker, names)) cannot block themselves")
        }
        let schema = socialSchema(names: names)
        try deleteSocialRelationships(schema.friend, between: blocker, and: blocked, bothWays: true)
        try deleteSocialRelationships(schema.friendRequest, between: blocker, and: blocked, bothWays: true)
        if hasRelationship(schema.blocked, from: blocker, to: blocked) { return false }
        _ = try createSocialRelationship(names.blocked, from: blocker, to: blocked, at: time, names: names)
        return true
    }

    /// `blocker` lifts its block of `blocked` (the other way, if any, stays). Returns false when
    /// there was no block. Friendship is not restored.
    @discardableResult
    public mutating func unblock(_ blocked: NodeID, by blocker: NodeID, names: SocialNames = .standard) throws(SocialError) -> Bool {
        try requireUsers(blocker, blocked, doing: "unblock")
        let schema = socialSchema(names: names)
        guard hasRelationship(schema.blocked, from: blocker, to: blocked) else { return false }
        try deleteSocialRelationships(schema.blocked, between: blocker, and: blocked, bothWays: false)
        return true
    }

    // MARK: helpers

    private func requireUsers(_ a: NodeID, _ b: NodeID, doing what: String) throws(SocialError) {
        for node in [a, b] where !contains(node) {
            throw SocialError(.userNotFound, "Cannot \(what): node \(node.rawValue) does not exist")
        }
    }

    /// "user 42" (the app id) when the node has one, else "node 7".
    func socialName(_ node: NodeID, _ names: SocialNames) -> String {
        if let key = propertyKeyID(named: names.id) {
            let value = property(key, of: node)
            if value != .null { return "user \(value.cypherLiteral)" }
        }
        return "node \(node.rawValue)"
    }

    /// Creates `type` from `a` to `b` with `created_at = time`; returns the schema re-resolved
    /// (the call may have interned the type or the key).
    @discardableResult
    private mutating func createSocialRelationship(_ type: String, from a: NodeID, to b: NodeID, at time: Int64,
                                                   names: SocialNames) throws(SocialError) -> SocialSchema {
        let typeID = internRelationshipType(type)
        let key = internPropertyKey(names.createdAt)
        do {
            _ = try createRelationship(type: typeID, from: a, to: b, properties: [(key, .integer(time))])
        } catch {
            throw SocialError(error)
        }
        return socialSchema(names: names)
    }

    /// Deletes every `type` relationship from `a` to `b` (and from `b` to `a` with `bothWays`).
    private mutating func deleteSocialRelationships(_ type: RelationshipTypeID?, between a: NodeID, and b: NodeID,
                                                    bothWays: Bool) throws(SocialError) {
        guard let type else { return }
        var doomed = relationships(of: type, from: a, to: b)
        if bothWays { doomed += relationships(of: type, from: b, to: a) }
        for rel in Set(doomed).sorted(by: { $0.id < $1.id }) {
            do { try deleteRelationship(rel) } catch { throw SocialError(error) }
        }
    }
}
