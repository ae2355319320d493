// Graph+ChangedSince.swift — the cache categories apps validate, as maxima over change versions.
// Each category is defined (docs/social.md) as the data an app caches for it; it "changed"
// when a version of anything that data is read from is newer than the client's baseline. The
// definitions err towards "changed": a version moves for any change to a node or relationship
// set, visible in the category or not, but never stays put when the category's data moved.

/// What an app caches about a user, and validates with `social.changedSince`.
public enum ChangeCategory: String, Sendable, CaseIterable {
    /// The user's friends (FRIEND either way), the friendships' properties, and each friend's
    /// own labels and properties.
    case friends
    /// Friend requests the user sent or received (FRIEND_REQUEST either way), their properties,
    /// and the other party's labels and properties.
    case friendRequests
    /// Events the user hosts (HOSTS), is invited to (INVITED) or attends (ATTENDING); each
    /// event's labels and properties, its host, and its guest lists (INVITED and ATTENDING).
    case events
    /// The user's own labels and properties.
    case profile
    /// The users this user blocks (their outgoing BLOCKED relationships). Being blocked by
    /// someone else does not count: a user never learns that from graphd.
    case blocked
}

extension Graph {
    /// Whether `category` of `user` changed after `baseline`. A user that does not exist (or no
    /// longer does) has changed, as has anything before a baseline the graph cannot place.
    /// - Complexity: O(1) for profile and blocked; O(degree) of the user in the category's
    ///   relationship types otherwise.
    public func changed(_ category: ChangeCategory, of user: NodeID, after baseline: ChangeBaseline,
                        schema: SocialSchema) -> Bool {
        let v = versions
        guard case .sequence = baseline, contains(user) else { return true }
        switch category {
        case .profile:
            return v.changed(user, after: baseline)
        case .blocked:
            guard let blocked = schema.blocked else { return false }
            return v.changed(user, blocked, .outgoing, after: baseline)
        case .friends:
            return changed(schema.friend, of: user, after: baseline) { _ in false }
        case .friendRequests:
            return changed(schema.friendRequest, of: user, after: baseline) { _ in false }
        case .events:
            let guestTypes = [schema.invited, schema.attending, schema.hosts].compactMap { $0 }
            let eventChanged: (NodeID) -> Bool = { event in
                guestTypes.contains { v.changed(event, $0, after: baseline) }
            }
            return changed(schema.hosts, of: user, direction: .outgoing, after: baseline, also: eventChanged)
                || changed(schema.invited, of: user, direction: .outgoing, after: baseline, also: eventChanged)
                || changed(schema.attending, of: user, direction: .outgoing, after: baseline, also: eventChanged)
        }
    }

    /// Whether `user`'s relationships of `type` in `direction`, or a node at their other end
    /// (its own version, or `also`), changed after `baseline`.
    private func changed(_ type: RelationshipTypeID?, of user: NodeID, direction: Direction = .both,
                         after baseline: ChangeBaseline, also: (NodeID) -> Bool) -> Bool {
        guard let type else { return false }
        let v = versions
        if v.changed(user, type, direction, after: baseline) { return true }
        for d in [Direction.outgoing, .incoming] where direction == .both || direction == d {
            for other in socialAdjacency(of: user, type, d) where v.changed(other, after: baseline) || also(other) {
                return true
            }
        }
        return false
    }
}
