// Graph+Invitations.swift — the invitation feed of a user: the events they are invited to or
// attend, soonest first, each with its host and how the user relates to the host.

/// One event in a user's invitation feed.
public struct Invitation: Sendable, Hashable {
    public var event: NodeID
    /// The event's `starts_at` (`.null` when it has none: listed last).
    public var startsAt: Value
    /// The user has an ATTENDING relationship to the event (else only INVITED).
    public var attending: Bool
    /// The event's host, if it has one.
    public var host: NodeID?
    /// How the user relates to the host (`.none` when there is no host).
    public var hostRelation: SocialRelation?
}

extension Graph {
    /// Events `user` is INVITED to or ATTENDING, by `starts_at` ascending (integers and floats
    /// compared as numbers; events without one last), ties by event node id; at most `limit`.
    /// - Complexity: O(k log k + deg user) for k events, plus one relation label per host.
    public func invitations(of user: NodeID, schema: SocialSchema, limit: Int? = nil,
                            scratch: inout TraversalScratch) -> [Invitation] {
        guard contains(user) else { return [] }
        var events: [(event: NodeID, attending: Bool)] = []
        for a in socialAdjacency(of: user, schema.invited, .outgoing) { events.append((a, false)) }
        for a in socialAdjacency(of: user, schema.attending, .outgoing) { events.append((a, true)) }
        // One row per event; attending wins over invited.
        events.sort { $0.event != $1.event ? $0.event < $1.event : ($0.attending && !$1.attending) }
        var unique: [(event: NodeID, attending: Bool)] = []
        for e in events where unique.last?.event != e.event { unique.append(e) }
        let starts: [Double?] = unique.map { e in
            guard let key = schema.startsAt else { return nil }
            switch property(key, of: e.event) {
            case .integer(let t): return Double(t)
            case .double(let t): return t
            default: return nil
            }
        }
        var order = Array(unique.indices)
        order.sort { a, b in
            switch (starts[a], starts[b]) {
            case let (x?, y?) where x != y: return x < y
            case (.some, .none): return true
            case (.none, .some): return false
            default: return unique[a].event < unique[b].event
            }
        }
        if let limit, order.count > limit { order.removeLast(order.count - limit) }
        let hosts = order.map { host(of: unique[$0].event, schema: schema) }
        let relations = relations(of: user, to: hosts.compactMap { $0 }, schema: schema, scratch: &scratch)
        var next = 0
        return zip(order, hosts).map { i, host in
            var relation: SocialRelation?
            if host != nil { relation = relations[next]; next += 1 }
            return Invitation(event: unique[i].event, startsAt: schema.startsAt.map { property($0, of: unique[i].event) } ?? .null,
                              attending: unique[i].attending, host: host, hostRelation: relation)
        }
    }
}
