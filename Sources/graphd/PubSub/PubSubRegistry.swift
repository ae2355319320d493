// PubSubRegistry.swift — who listens to what: each channel's and each pattern's subscribers
// (connection tokens), and each connection's own subscriptions in the order it made them (an
// UNSUBSCRIBE of everything acknowledges them in that order). Owned by the server's loop and
// touched only under its state lock.

/// Channel and pattern subscriptions of every connection.
struct PubSubRegistry {
    /// One connection's subscriptions, oldest first.
    struct Subscriptions {
        var channels: [[UInt8]] = []
        var patterns: [[UInt8]] = []
        var count: Int { channels.count + patterns.count }
    }

    private(set) var channels: [[UInt8]: Set<UInt64>] = [:]
    private(set) var patterns: [[UInt8]: Set<UInt64>] = [:]
    private var byConnection: [UInt64: Subscriptions] = [:]

    /// How many channels and patterns `connection` listens to (Redis's subscription count).
    func count(of connection: UInt64) -> Int { byConnection[connection]?.count ?? 0 }

    func subscriptions(of connection: UInt64) -> Subscriptions { byConnection[connection] ?? Subscriptions() }

    /// Adds a channel (`pattern` false) or pattern subscription; false when it was there.
    @discardableResult
    mutating func subscribe(_ connection: UInt64, to name: [UInt8], pattern: Bool) -> Bool {
        let inserted = pattern ? patterns[name, default: []].insert(connection).inserted
            : channels[name, default: []].insert(connection).inserted
        guard inserted else { return false }
        if pattern { byConnection[connection, default: Subscriptions()].patterns.append(name) }
        else { byConnection[connection, default: Subscriptions()].channels.append(name) }
        return true
    }

    /// Removes a subscription; false when there was none.
    @discardableResult
    mutating func unsubscribe(_ connection: UInt64, from name: [UInt8], pattern: Bool) -> Bool {
        let removed = pattern ? patterns[name]?.remove(connection) : channels[name]?.remove(connection)
        guard removed != nil else { return false }
        if pattern {
            if patterns[name]?.isEmpty == true { patterns[name] = nil }
            byConnection[connection]?.patterns.removeAll { $0 == name }
        } else {
            if channels[name]?.isEmpty == true { channels[name] = nil }
            byConnection[connection]?.channels.removeAll { $0 == name }
        }
        if byConnection[connection]?.count == 0 { byConnection[connection] = nil }
        return true
    }

    /// Drops every subscription of a connection that closed or was reset.
    mutating func removeAll(of connection: UInt64) {
        let held = subscriptions(of: connection)
        for name in held.channels { unsubscribe(connection, from: name, pattern: false) }
        for name in held.patterns { unsubscribe(connection, from: name, pattern: true) }
    }

    /// Who receives a message on `channel`: the channel's subscribers, then each matching
    /// pattern's (a connection subscribed both ways receives it once per subscription, as in Redis).
    func recipients(of channel: [UInt8]) -> [(connection: UInt64, pattern: [UInt8]?)] {
        var out: [(connection: UInt64, pattern: [UInt8]?)] = []
        for connection in channels[channel] ?? [] { out.append((connection, nil)) }
        for (pattern, connections) in patterns where GlobPattern(pattern).matches(channel) {
            for connection in connections { out.append((connection, pattern)) }
        }
        return out
    }

    /// PUBSUB NUMPAT: distinct patterns with at least one subscriber.
    var patternCount: Int { patterns.count }
}
