// PubSubCommands.swift — SUBSCRIBE, PSUBSCRIBE, UNSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB and
// RESET, and the rule of RESP2's subscribed mode (only those, PING and QUIT), as Redis's
// pubsub.c and server.c have them. They change the server's registry and other connections'
// output, so the loop runs them itself (Server.pubSub) rather than the command table.

/// What a Pub/Sub command does: the reply to its own connection, and the frames to deliver to
/// others (PUBLISH).
struct PubSubOutcome {
    var reply: [UInt8]
    var deliveries: [(connection: UInt64, frame: [UInt8])] = []
    /// RESET: the session goes back to a new connection's (RESP2, no name).
    var resetsSession = false
}

enum PubSubCommands {
    /// The commands a RESP2 connection with subscriptions may send (Redis's subscribed mode).
    static let allowedWhileSubscribed: Set<String> = ["SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "PING", "QUIT", "RESET"]
    static let names: Set<String> = ["SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "PUBLISH", "PUBSUB", "RESET"]

    /// Runs `request` for `connection` when it is a Pub/Sub command or is refused by subscribed
    /// mode; nil hands it to the command table. `protocolFor` gives a connection's protocol
    /// (each subscriber gets frames in its own).
    static func run(_ request: [[UInt8]], connection: UInt64, session: ClientSession, registry: inout PubSubRegistry,
                    protocolFor: (UInt64) -> ProtocolVersion) -> PubSubOutcome? {
        let name = String(decoding: request[0], as: UTF8.self).uppercased()
        let subscribed = registry.count(of: connection) > 0
        let frames = PubSubFrames(protocolVersion: session.protocolVersion)
        if subscribed, session.protocolVersion == .resp2, !allowedWhileSubscribed.contains(name) {
            var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
            encoder.error("ERR Can't execute '\(name.lowercased())': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
            return PubSubOutcome(reply: encoder.bytes)
        }
        if name == "PING", subscribed, session.protocolVersion == .resp2 {
            guard request.count <= 2 else { return wrongArity("ping", session) }
            return PubSubOutcome(reply: frames.pong(request.count == 2 ? request[1] : nil))
        }
        guard names.contains(name) else { return nil }
        switch name {
        case "SUBSCRIBE", "PSUBSCRIBE":
            guard request.count >= 2 else { return wrongArity(name.lowercased(), session) }
            let pattern = name == "PSUBSCRIBE"
            var reply: [UInt8] = []
            for channel in request.dropFirst() {
                registry.subscribe(connection, to: channel, pattern: pattern)
                reply += frames.acknowledgement(name.lowercased(), channel, count: registry.count(of: connection))
            }
            return PubSubOutcome(reply: reply)
        case "UNSUBSCRIBE", "PUNSUBSCRIBE":
            let pattern = name == "PUNSUBSCRIBE"
            let held = registry.subscriptions(of: connection)
            let targets = request.count > 1 ? Array(request.dropFirst()) : (pattern ? held.patterns : held.channels)
            if targets.isEmpty {
                return PubSubOutcome(reply: frames.acknowledgement(name.lowercased(), nil, count: registry.count(of: connection)))
            }
            var reply: [UInt8] = []
            for channel in targets {
                registry.unsubscribe(connection, from: channel, pattern: pattern)
                reply += frames.acknowledgement(name.lowercased(), channel, count: registry.count(of: connection))
            }
            return PubSubOutcome(reply: reply)
        case "PUBLISH":
            guard request.count == 3 else { return wrongArity("publish", session) }
            if request[1].starts(with: FeedChannel.prefix.utf8) {
                // Subscribers trust what arrives there to come from the graph's commits.
                var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
                encoder.error("ERR channels starting with '\(FeedChannel.prefix)' carry the change feed; PUBLISH to them is refused")
                return PubSubOutcome(reply: encoder.bytes)
            }
            var outcome = PubSubOutcome(reply: [])
            for (target, pattern) in registry.recipients(of: request[1]) {
                let theirs = PubSubFrames(protocolVersion: protocolFor(target))
                let frame = pattern.map { theirs.patternMessage(pattern: $0, channel: request[1], payload: request[2]) }
                    ?? theirs.message(channel: request[1], payload: request[2])
                outcome.deliveries.append((target, frame))
            }
            var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
            encoder.integer(Int64(outcome.deliveries.count))
            outcome.reply = encoder.bytes
            return outcome
        case "PUBSUB":
            return PubSubOutcome(reply: introspect(request, session: session, registry: registry))
        default:  // RESET
            guard request.count == 1 else { return wrongArity("reset", session) }
            registry.removeAll(of: connection)
            var encoder = RESPEncoder(protocolVersion: .resp2)
            encoder.simpleString("RESET")
            return PubSubOutcome(reply: encoder.bytes, resetsSession: true)
        }
    }

    /// PUBSUB CHANNELS [pattern] | NUMSUB [channel …] | NUMPAT.
    static func introspect(_ request: [[UInt8]], session: ClientSession, registry: PubSubRegistry) -> [UInt8] {
        var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
        let sub = request.count > 1 ? String(decoding: request[1], as: UTF8.self).uppercased() : ""
        switch (sub, request.count) {
        case ("CHANNELS", 2), ("CHANNELS", 3):
            let glob = request.count == 3 ? GlobPattern(request[2]) : nil
            let names = registry.channels.keys.filter { glob?.matches($0) ?? true }.sorted { $0.lexicographicallyPrecedes($1) }
            encoder.arrayHeader(names.count)
            for name in names { encoder.bulkString(name) }
        case ("NUMSUB", _):
            let names = request.dropFirst(2)
            encoder.arrayHeader(names.count * 2)
            for name in names {
                encoder.bulkString(name)
                encoder.integer(Int64(registry.channels[name]?.count ?? 0))
            }
        case ("NUMPAT", 2):
            encoder.integer(Int64(registry.patternCount))
        default:
            encoder.error("ERR unknown subcommand or wrong number of arguments for 'pubsub|\(sub.lowercased())' command")
        }
        return encoder.bytes
    }

    /// The command table's handler for these commands, reached only by a caller without a
    /// server loop (the loop runs them before the table: Server.pubSub).
    static let runByLoop: CommandHandler = { invocation, _, reply in
        reply.error("ERR this command needs the server's event loop")
        return .keepOpen
    }

    static func wrongArity(_ command: String, _ session: ClientSession) -> PubSubOutcome {
        var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
        encoder.error("ERR wrong number of arguments for '\(command)' command")
        return PubSubOutcome(reply: encoder.bytes)
    }
}
