// GeneratorGraph.swift — puts a SocialDataset into a graph through the importer's ImportTarget:
// GraphBuilder (the bulk path, for `graphd demo` and the benchmark) or a Graph inside one
// transaction. The labels, types and keys are graphd's social schema (docs/social.md).

import GraphStore

extension SocialDataset {
    /// The node ids a load gave users and events (user i is `users[i]`).
    public struct LoadedIDs: Sendable {
        public var users: [NodeID]
        public var events: [NodeID]
    }

    /// Creates `(:User {id, name, username})` per user, `(:Event {id, title, starts_at})` per event
    /// (`starts_at` in milliseconds since the epoch, as the social kernels sort it), unique indexes
    /// on both ids, and FRIEND a→b, FRIEND_REQUEST, FOLLOWS, HOSTS, INVITED and ATTENDING edges,
    /// property-less through the bulk call. Users are created first, in id order, then events.
    @discardableResult
    public func load<Target: ImportTarget>(into target: inout Target,
                                           progress: (String) -> Void = { _ in }) throws(GraphError) -> LoadedIDs {
        let user = target.importLabel("User"), event = target.importLabel("Event")
        let id = target.importPropertyKey("id"), name = target.importPropertyKey("name")
        let username = target.importPropertyKey("username"), title = target.importPropertyKey("title")
        let startsAt = target.importPropertyKey("starts_at")
        try target.importIndex(label: user, key: id, unique: true)
        try target.importIndex(label: event, key: id, unique: true)
        var users = [NodeID]()
        users.reserveCapacity(userCount)
        for u in 0..<userCount {
            users.append(try target.importNode(labels: [user], properties: [
                (id, .integer(Int64(u))), (name, .string(names[u])), (username, .string(usernames[u]))]))
        }
        var events = [NodeID]()
        events.reserveCapacity(eventCount)
        for e in 0..<eventCount {
            events.append(try target.importNode(labels: [event], properties: [
                (id, .integer(Int64(e))), (title, .string(eventTitles[e])),
                (startsAt, .integer(eventStartMinutes[e] * 60_000))]))
        }
        progress("nodes: \(userCount) users, \(eventCount) events")
        func edges(_ type: String, _ from: [UInt32], _ fromNodes: [NodeID], _ to: [UInt32], _ toNodes: [NodeID]) throws(GraphError) {
            let t = target.importRelationshipType(type)
            try target.importRelationships(type: t, from: from.map { fromNodes[Int($0)] }, to: to.map { toNodes[Int($0)] })
        }
        try edges("FRIEND", friendA, users, friendB, users)
        progress("FRIEND: \(friendshipCount)")
        try edges("FRIEND_REQUEST", requestFrom, users, requestTo, users)
        try edges("FOLLOWS", followFrom, users, followTo, users)
        try edges("HOSTS", eventHost, users, (0..<UInt32(eventCount)).map { $0 }, events)
        try edges("INVITED", invitedUser, users, invitedEvent, events)
        try edges("ATTENDING", attendingUser, users, attendingEvent, events)
        progress("relationships: requests \(requestFrom.count), follows \(followFrom.count), invitations \(invitedUser.count), RSVPs \(attendingUser.count)")
        return LoadedIDs(users: users, events: events)
    }
}
