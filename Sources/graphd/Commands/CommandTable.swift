// CommandTable.swift — every command graphd serves, described once as data, and the one
// place where a request is matched to its command and its arity is checked (Redis's
// processCommand). Handlers live in *Commands.swift files beside this one.

import GraphStore

/// The command table: specs looked up by case-insensitive name.
struct CommandTable: Sendable {
    private var specs: [String: CommandSpec] = [:]

    /// A table holding `specs`.
    init(_ specs: [CommandSpec]) {
        for spec in specs { self.specs[spec.key] = spec }
    }

    /// Every command graphd serves. Other areas add theirs with one line each.
    static func standard() -> CommandTable {
        var specs: [CommandSpec] = [
            CommandSpec(name: "ping", arity: -1, flags: [.fast], summary: "Returns PONG, or the message given.",
                        handler: ConnectionCommands.ping),
            CommandSpec(name: "echo", arity: 2, flags: [.fast], summary: "Returns the message given.",
                        handler: ConnectionCommands.echo),
            CommandSpec(name: "quit", arity: -1, flags: [.fast, .noAuth], summary: "Closes the connection.",
                        handler: ConnectionCommands.quit),
            CommandSpec(name: "select", arity: 2, flags: [.fast], summary: "Selects database 0, the only one.",
                        handler: ConnectionCommands.select),
            CommandSpec(name: "auth", arity: -2, flags: [.fast, .noAuth], summary: "Authenticates the connection.",
                        handler: ConnectionCommands.auth),
            CommandSpec(name: "hello", arity: -1, flags: [.fast, .noAuth],
                        summary: "Switches to RESP2 or RESP3, optionally authenticating; describes the server.",
                        handler: ConnectionCommands.hello),
            CommandSpec(name: "client", arity: -2, flags: [.fast],
                        summary: "CLIENT SETINFO|SETNAME|GETNAME|ID|INFO: the connection's own attributes.",
                        handler: ConnectionCommands.client),
            // Pub/Sub: listed here for COMMAND and the AUTH check; the loop runs them (Server.pubSub).
            CommandSpec(name: "subscribe", arity: -2, flags: [.fast], summary: "Listens to channels: SUBSCRIBE channel [channel …].",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "psubscribe", arity: -2, flags: [.fast], summary: "Listens to channels matching glob patterns.",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "unsubscribe", arity: -1, flags: [.fast], summary: "Stops listening to channels (all without names).",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "punsubscribe", arity: -1, flags: [.fast], summary: "Stops listening to patterns (all without names).",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "publish", arity: 3, flags: [.fast], summary: "Sends a message to a channel's subscribers; replies how many got it.",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "pubsub", arity: -2, flags: [.fast], summary: "PUBSUB CHANNELS [pattern] | NUMSUB [channel …] | NUMPAT.",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "reset", arity: 1, flags: [.fast], summary: "Leaves subscribed mode and resets the connection (RESP2, no name).",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "info", arity: -1, flags: [],
                        summary: "graphd's figures: graphs, nodes, relationships, memory, log size, clients, commands.",
                        handler: ServerCommands.info),
            CommandSpec(name: "config", arity: -2, flags: [.fast],
                        summary: "CONFIG GET: the Redis-style settings tools probe for.",
                        handler: ServerCommands.config),
            CommandSpec(name: "del", arity: -2, flags: [.write], summary: "Deletes graphs; replies how many existed.",
                        handler: KeyCommands.del),
            CommandSpec(name: "exists", arity: -2, flags: [.readonly], summary: "Counts the keys that name a graph.",
                        handler: KeyCommands.exists),
            CommandSpec(name: "type", arity: 2, flags: [.readonly], summary: "graphdata for a graph, none otherwise.",
                        handler: KeyCommands.type),
            CommandSpec(name: "graph.QUERY", arity: -3, flags: [.write, .query],
                        summary: "Runs a query on a graph: GRAPH.QUERY graph query [--compact] [TIMEOUT ms].",
                        handler: GraphCommands.query, quickHandler: GraphCommands.quickQuery),
            CommandSpec(name: "graph.RO_QUERY", arity: -3, flags: [.readonly, .query],
                        summary: "Runs a read-only query: GRAPH.RO_QUERY graph query [--compact] [TIMEOUT ms].",
                        handler: GraphCommands.readOnlyQuery, quickHandler: GraphCommands.quickReadOnlyQuery),
            CommandSpec(name: "graph.EXPLAIN", arity: 3, flags: [.readonly],
                        summary: "The plan of a query, one operator per line: GRAPH.EXPLAIN graph query.",
                        handler: GraphPlanCommands.explain),
            CommandSpec(name: "graph.PROFILE", arity: -3, flags: [.write, .query],
                        summary: "Runs a query and reports rows and time per operator: GRAPH.PROFILE graph query [TIMEOUT ms].",
                        handler: GraphPlanCommands.profile),
            CommandSpec(name: "graph.LIST", arity: 1, flags: [.readonly], summary: "Lists the graphs.",
                        handler: GraphCommands.list),
            CommandSpec(name: "graph.DELETE", arity: 2, flags: [.write], summary: "Deletes a graph and its files.",
                        handler: GraphCommands.delete),
            CommandSpec(name: "graph.COPY", arity: 3, flags: [.write],
                        summary: "Copies a graph, ids and indexes included: GRAPH.COPY source destination.",
                        handler: GraphCopyCommand.handler),
            CommandSpec(name: "graph.SAVE", arity: 2, flags: [.write],
                        summary: "Writes a snapshot of a graph and starts a new log segment: GRAPH.SAVE graph.",
                        handler: GraphSaveCommand.handler),
            CommandSpec(name: "graph.SLOWLOG", arity: -2, flags: [.readonly],
                        summary: "The slowest queries of a graph: GRAPH.SLOWLOG graph [RESET].",
                        handler: GraphCommands.slowLog),
            CommandSpec(name: "graph.CHANGES", arity: -4, flags: [.readonly],
                        summary: "GRAPH.CHANGES graph SINCE token [FOR user:id] [TYPES type …] [COUNT n] [BLOCK ms]: the change feed, pulled.",
                        handler: GraphChangesCommand.handler),
            CommandSpec(name: "graph.CONFIG", arity: -3, flags: [.fast],
                        summary: "GRAPH.CONFIG GET name|* / SET name value: query limits at run time.",
                        handler: GraphConfigCommand.handler),
        ] + replicationSpecs
        let descriptions = (specs + [CommandSpec(name: "command", arity: -1, flags: [], handler: { _, _, _ in .keepOpen })])
            .map { ServerCommands.Description(name: $0.name, arity: $0.arity, flags: $0.flags, summary: $0.summary) }
        specs.append(CommandSpec(name: "command", arity: -1, flags: [],
                                 summary: "COMMAND [COUNT|LIST|INFO|DOCS]: describes these commands.",
                                 handler: ServerCommands.command(describing: descriptions)))
        return CommandTable(specs)
    }

    /// Replication, failover and transactions (Sentinel's surface: docs/replication.md).
    static var replicationSpecs: [CommandSpec] {
        [
            CommandSpec(name: "replicaof", arity: 3, flags: [.fast],
                        summary: "REPLICAOF host port | NO ONE: follow a primary, or become one.",
                        handler: ReplicationCommands.replicaOf),
            CommandSpec(name: "slaveof", arity: 3, flags: [.fast], summary: "SLAVEOF host port | NO ONE: REPLICAOF's old name (Sentinel's).",
                        handler: ReplicationCommands.replicaOf),
            CommandSpec(name: "role", arity: 1, flags: [],
                        summary: "ROLE: master <offset> <replicas> | slave <host> <port> <state> <offset>.",
                        handler: ReplicationCommands.role),
            CommandSpec(name: "wait", arity: 3, flags: [],
                        summary: "WAIT numreplicas timeout: waits for replicas to apply this connection's last write.",
                        handler: ReplicationCommands.wait, quickHandler: ReplicationCommands.quickWait),
            CommandSpec(name: "waitaof", arity: 4, flags: [],
                        summary: "WAITAOF numlocal numreplicas timeout: waits for this connection's last write to be durable here and on replicas.",
                        handler: ReplicationCommands.waitDurable),
            CommandSpec(name: "graphd.WAITSEQ", arity: 4, flags: [],
                        summary: "GRAPHD.WAITSEQ graph sequence timeout: waits until this server has applied the graph up to sequence.",
                        handler: ReplicationCommands.waitSequence, quickHandler: ReplicationCommands.quickWaitSequence),
            CommandSpec(name: "graphd.PULL", arity: -4, flags: [],
                        summary: "GRAPHD.PULL …: a replica's request for the log records after its positions (ReplicationStream).",
                        handler: ReplicationStream.pull),
            CommandSpec(name: "graphd.ACK", arity: -1, flags: [.fast],
                        summary: "GRAPHD.ACK …: a replica's positions, acknowledged between its pulls (ReplicationStream).",
                        handler: ReplicationStream.ack),
            CommandSpec(name: "replconf", arity: -1, flags: [.fast],
                        summary: "REPLCONF listening-port n | capa …: a replica's handshake.",
                        handler: ReplicationStream.replconf),
            // Transactions: listed here for COMMAND and the AUTH check; the loop runs them (Server.loopCommand).
            CommandSpec(name: "multi", arity: 1, flags: [.fast], summary: "Starts queueing commands for EXEC.",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "exec", arity: 1, flags: [.fast], summary: "Runs the commands queued since MULTI.",
                        handler: PubSubCommands.runByLoop),
            CommandSpec(name: "discard", arity: 1, flags: [.fast], summary: "Drops the commands queued since MULTI.",
                        handler: PubSubCommands.runByLoop),
        ]
    }

    /// This table with `extra` added (replacing specs of the same name).
    func adding(_ extra: [CommandSpec]) -> CommandTable {
        var table = self
        for spec in extra { table.specs[spec.key] = spec }
        return table
    }

    /// The spec for a command name in any case, or nil.
    func spec(named name: [UInt8]) -> CommandSpec? {
        // Every request passes here: the key is written in place. (Decoding a lazily
        // lowercased sequence takes the generic path, a dynamic cast and a copy, and costs as
        // much as the point lookup the request asked for.) No command name is that long.
        guard name.count <= 64 else { return nil }
        let key = String(unsafeUninitializedCapacity: name.count) { buffer in
            for i in name.indices { buffer[i] = Self.asciiLowercase(name[i]) }
            return name.count
        }
        return specs[key]
    }

    /// All specs, sorted by name (for docs and tests).
    var allSpecs: [CommandSpec] { specs.values.sorted { $0.name < $1.name } }

    /// Redis's reply to a command from a client that has not authenticated.
    static let noAuthMessage = "NOAUTH Authentication required."

    /// Runs one request (name first) for a client with `session` and returns its reply
    /// bytes and what to do next; the handler's changes to the session are kept.
    /// Unknown commands and wrong arity are answered first, then authentication is
    /// checked (Redis's processCommand order).
    func execute(_ request: [[UInt8]], session: inout ClientSession,
                 context: ServerContext) -> (reply: [UInt8], outcome: CommandOutcome) {
        var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
        let outcome = execute(request, session: &session, context: context, into: &encoder)
        return (encoder.bytes, outcome)
    }

    /// As `execute(_:session:context:)` for a fresh, authenticated RESP2 client (tests).
    func execute(_ request: [[UInt8]], context: ServerContext) -> (reply: [UInt8], outcome: CommandOutcome) {
        var session = ClientSession()
        return execute(request, session: &session, context: context)
    }

    /// As `execute(_:session:context:)`, appending the reply to `reply`.
    func execute(_ request: [[UInt8]], session: inout ClientSession, context: ServerContext,
                 into reply: inout RESPEncoder) -> CommandOutcome {
        guard let name = request.first else {
            // The decoder never yields an empty request; answer sanely if one appears.
            reply.error("ERR empty command")
            return .keepOpen
        }
        guard let spec = spec(named: name) else {
            reply.error(Self.unknownCommandMessage(request))
            return .keepOpen
        }
        guard spec.accepts(argumentCount: request.count) else {
            reply.error(Self.wrongArityMessage(spec.name))
            return .keepOpen
        }
        guard session.isAuthenticated || spec.flags.contains(.noAuth) else {
            reply.error(Self.noAuthMessage)
            return .keepOpen
        }
        if spec.key == "exec" {
            TransactionCommands.execute(session: &session, table: self, context: context, into: &reply)
            return .keepOpen
        }
        return Self.counted(spec, request, session: &session, context: context, into: &reply, spec.handler)!
    }

    /// Runs `handler` (a spec's handler or its quick path) and, unless it declined (nil),
    /// keeps the session it left and counts the call: its time, and whether it replied an error.
    private static func counted(_ spec: CommandSpec, _ request: [[UInt8]], session: inout ClientSession,
                                context: ServerContext, into reply: inout RESPEncoder,
                                _ handler: (inout CommandInvocation, ServerContext, inout RESPEncoder) -> CommandOutcome?)
        -> CommandOutcome? {
        let started = ContinuousClock.now
        let replyStart = reply.bytes.count
        var invocation = CommandInvocation(name: request[0], arguments: Array(request.dropFirst()), session: session)
        if spec.flags.contains(.write), let refusal = ReplicationCommands.writeRefusal(spec, request, context: context) {
            reply.error(refusal)
            context.statistics.record(command: spec.key, duration: ContinuousClock.now - started, failed: true)
            return .keepOpen
        }
        guard let outcome = handler(&invocation, context, &reply) else { return nil }
        // Every command that committed to a graph's log (or removed a graph) moved the
        // connection's last write: the followers' pulls waiting for news wake now, or once
        // the write is durable when its reply waits for that (only durable records ship).
        if spec.flags.contains(.write), invocation.session.lastWrite != session.lastWrite {
            if let deferral = DurabilityDeferral.current, !deferral.isEmpty {
                let replication = context.replication
                deferral.whenDurableRun { replication.recordsWritten() }
            } else {
                context.replication.recordsWritten()
            }
        }
        session = invocation.session
        let failed = reply.bytes.count > replyStart && reply.bytes[replyStart] == UInt8(ascii: "-")
        context.statistics.record(command: spec.key, duration: ContinuousClock.now - started, failed: failed)
        return outcome
    }

    /// The quick path of `spec` (which must have one) for an authenticated client whose
    /// request passes the arity check: the reply and outcome, or nil when the command must run
    /// on a worker. Counted in the statistics as `execute` counts.
    func executeQuickly(_ request: [[UInt8]], spec: CommandSpec, session: inout ClientSession,
                        context: ServerContext) -> (reply: [UInt8], outcome: CommandOutcome)? {
        guard let quick = spec.quickHandler, session.isAuthenticated, spec.accepts(argumentCount: request.count) else {
            return nil
        }
        var reply = RESPEncoder(protocolVersion: session.protocolVersion)
        guard let outcome = Self.counted(spec, request, session: &session, context: context, into: &reply, quick) else {
            return nil
        }
        return (reply.bytes, outcome)
    }

    /// Redis's `ERR wrong number of arguments for '<name>' command`.
    static func wrongArityMessage(_ name: String) -> String {
        "ERR wrong number of arguments for '\(name)' command"
    }

    /// Redis's unknown-command text: the name (at most 128 bytes), then each argument
    /// quoted and followed by a space while the list is shorter than 128 bytes, each
    /// cut to what is left of those 128 (server.c processCommand).
    static func unknownCommandMessage(_ request: [[UInt8]]) -> String {
        var text = Array("ERR unknown command '".utf8)
        text.append(contentsOf: request[0].prefix(128))
        text.append(contentsOf: "', with args beginning with: ".utf8)
        var args: [UInt8] = []
        var i = 1
        while i < request.count && args.count < 128 {
            args.append(UInt8(ascii: "'"))
            args.append(contentsOf: request[i].prefix(128 - args.count + 1))
            args.append(contentsOf: "' ".utf8)
            i += 1
        }
        text.append(contentsOf: args)
        return String(decoding: text, as: UTF8.self)
    }

    @inline(__always)
    private static func asciiLowercase(_ b: UInt8) -> UInt8 {
        b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
    }
}
