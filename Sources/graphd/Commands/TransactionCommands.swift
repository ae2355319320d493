// TransactionCommands.swift — MULTI / EXEC / DISCARD: commands queued after MULTI run in order
// at EXEC, their replies in one array (Redis's multi.c). Sentinel reconfigures a server with
// one such transaction (SLAVEOF, CONFIG REWRITE, CLIENT KILL TYPE normal, CLIENT KILL TYPE
// pubsub). The event loop queues (it must see MULTI before choosing where a command runs) and
// runs an EXEC of quick commands itself; an EXEC holding a query runs here, on a worker.

/// Where queued commands are decided and run.
enum TransactionCommands {
    static let nestedMessage = "ERR MULTI calls can not be nested"
    static let execWithoutMultiMessage = "ERR EXEC without MULTI"
    static let discardWithoutMultiMessage = "ERR DISCARD without MULTI"
    static let abortMessage = "EXECABORT Transaction discarded because of previous errors."
    /// The commands a transaction does not queue: they act on the transaction or the connection.
    static let immediate: Set<String> = ["MULTI", "EXEC", "DISCARD", "QUIT", "RESET", "WATCH", "UNWATCH"]
    /// Commands only the event loop can run (they touch other connections).
    static let loopOnly: Set<String> = ["SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "PUBLISH", "PUBSUB",
                                        "RESET", "CLIENT KILL"]

    /// The name a transaction decision looks at: `CLIENT KILL` for CLIENT's KILL, else the name, upper-cased.
    static func name(of request: [[UInt8]]) -> String {
        let name = String(decoding: request[0], as: UTF8.self).uppercased()
        if name == "CLIENT", request.count > 1, String(decoding: request[1], as: UTF8.self).uppercased() == "KILL" {
            return "CLIENT KILL"
        }
        return name
    }

    /// The reply to queueing `request` inside MULTI (the session updated): `+QUEUED`, or the
    /// error of an unknown command or a wrong arity, which makes EXEC abort.
    static func queue(_ request: [[UInt8]], table: CommandTable, session: inout ClientSession) -> [UInt8] {
        var reply = RESPEncoder(protocolVersion: session.protocolVersion)
        guard let spec = table.spec(named: request[0]) else {
            reply.error(CommandTable.unknownCommandMessage(request))
            session.transactionFailed = true
            return reply.bytes
        }
        guard spec.accepts(argumentCount: request.count) else {
            reply.error(CommandTable.wrongArityMessage(spec.name))
            session.transactionFailed = true
            return reply.bytes
        }
        session.transaction?.append(request)
        reply.simpleString("QUEUED")
        return reply.bytes
    }

    /// Whether the event loop may run this queued command itself: a fast command or one only
    /// it can run. Anything else (a query, INFO, WAIT) sends the whole EXEC to a worker.
    static func runsOnLoop(_ request: [[UInt8]], table: CommandTable) -> Bool {
        if loopOnly.contains(name(of: request)) { return true }
        return table.spec(named: request[0])?.flags.contains(.fast) ?? true
    }

    /// EXEC on a worker: runs the queued commands through the table, in order; those only the
    /// loop can run get an error in their slot of the reply.
    static func execute(session: inout ClientSession, table: CommandTable, context: ServerContext,
                        into reply: inout RESPEncoder) {
        guard let queued = session.transaction else {
            reply.error(execWithoutMultiMessage)
            return
        }
        session.transaction = nil
        if session.transactionFailed {
            session.transactionFailed = false
            reply.error(abortMessage)
            return
        }
        reply.arrayHeader(queued.count)
        for request in queued {
            if loopOnly.contains(name(of: request)) {
                reply.error("ERR \(name(of: request)) cannot run in a transaction that also runs queries")
                continue
            }
            _ = table.execute(request, session: &session, context: context, into: &reply)
        }
    }
}
