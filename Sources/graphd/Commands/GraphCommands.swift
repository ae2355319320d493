// GraphCommands.swift — the GRAPH.* commands that run queries or manage graphs: QUERY,
// RO_QUERY, LIST, DELETE, SLOWLOG. Each looks up the graph, fails early with FalkorDB's
// wording, hands the text to the query engine with the limits in force (timeout, row
// cap, query length) and writes the verbose or `--compact` result set.

import GraphQuery
import GraphStore

/// Handlers for the query and graph-management GRAPH.* commands.
enum GraphCommands {
    /// FalkorDB's reply for an operation on a graph that does not exist.
    static let emptyKeyMessage = "ERR Invalid graph operation on empty key"
    /// The engine's refusal of a write in a read-only query.
    static let readOnlyRefusal = "graph.RO_QUERY is to be executed only on read-only queries"

    /// `GRAPH.QUERY key query [--compact] [TIMEOUT ms]`. A missing graph is created only
    /// when the query writes: a read of a missing graph answers as an empty graph and
    /// leaves nothing behind (FalkorDB creates it; see docs/protocol.md).
    static let query: CommandHandler = { invocation, context, reply in
        // On a replica every query runs read-only: a text the write check let through (it
        // only reads) cannot write after all. A write's position is kept for WAIT.
        let replica = context.replication.isReplica
        if let written = runQuery(invocation, context: context, readOnly: replica, commandName: "graph.QUERY", reply: &reply) {
            invocation.session.lastWrite = written
        }
        return .keepOpen
    }

    /// `GRAPH.RO_QUERY key query [--compact] [TIMEOUT ms]`: a missing graph is an error; a
    /// write is refused by the engine before anything happens.
    static let readOnlyQuery: CommandHandler = { invocation, context, reply in
        runQuery(invocation, context: context, readOnly: true, commandName: "graph.RO_QUERY", reply: &reply)
        return .keepOpen
    }

    /// How long a query may run on the I/O thread before it gives up there and goes to a
    /// worker: long enough for a point lookup or a friends list, far below what would hold up
    /// the other clients. A text that keeps overrunning it goes straight to a worker
    /// (QueryEngine.strikesOut).
    static let quickBudget: Duration = .microseconds(50)

    /// GRAPH.QUERY's quick path: a read of an existing graph answered on the I/O thread when
    /// the engine finishes it within `quickBudget` (QueryEngine.executeIfQuick).
    static let quickQuery: QuickCommandHandler = { invocation, context, reply in
        runQuickly(invocation, context: context, readOnly: false, commandName: "graph.QUERY", reply: &reply)
    }

    /// GRAPH.RO_QUERY's quick path (see quickQuery).
    static let quickReadOnlyQuery: QuickCommandHandler = { invocation, context, reply in
        runQuickly(invocation, context: context, readOnly: true, commandName: "graph.RO_QUERY", reply: &reply)
    }

    /// Declines (nil) everything unusual — a bad argument, a missing graph — so that the
    /// worker's ordinary path answers it, with one place for every error reply but the
    /// query's own.
    private static func runQuickly(_ invocation: CommandInvocation, context: ServerContext, readOnly: Bool,
                                   commandName: String, reply: inout RESPEncoder) -> CommandOutcome? {
        guard case .success(let prepared) = prepare(invocation, context: context, commandName: commandName),
              let store = context.dataDirectory.openedGraph(named: prepared.graph) else { return nil }
        do throws(QueryError) {
            guard let result = try context.engine.executeIfQuick(prepared.text, on: store, readOnly: readOnly,
                                                                 timeout: prepared.timeout, budget: quickBudget)
            else { return nil }
            context.statistics.quickQueries.add(1, ordering: .relaxed)
            context.slowLog.record(graph: prepared.graph, command: commandName, query: prepared.text,
                                   milliseconds: result.statistics.executionTimeMilliseconds)
            try writeResult(result, prepared: prepared, context: context, reply: &reply)
        } catch {
            QueryErrorReply.write(error, into: &reply)
        }
        return .keepOpen
    }

    /// Whether a query command's text is a read presumed quick (QueryEngine.isPresumedQuick).
    static func presumedQuick(_ request: [[UInt8]], context: ServerContext) -> Bool {
        guard request.count >= 3, let text = CommandInvocation.validText(request[2]) else { return false }
        return context.engine.isPresumedQuick(text)
    }

    /// True when a query command's request only reads: always for a read-only command
    /// (RO_QUERY refuses a write), else when its text compiles to a plan that writes nothing.
    /// The server runs those on its CPU-sized read pool. Never for a command that is not a
    /// query but has a quick path (WAIT): it may block, so it keeps its connection's queue.
    static func onlyReads(_ request: [[UInt8]], spec: CommandSpec, context: ServerContext) -> Bool {
        guard spec.flags.contains(.query) else { return false }
        if spec.flags.contains(.readonly) { return true }
        guard request.count >= 3, let text = CommandInvocation.validText(request[2]) else { return false }
        return !context.engine.writes(text)
    }

    /// `GRAPH.LIST` → an array of graph names (`*0` when none).
    static let list: CommandHandler = { _, context, reply in
        let names = context.dataDirectory.graphNames()
        reply.arrayHeader(names.count)
        for name in names { reply.bulkString(name) }
        return .keepOpen
    }

    /// `GRAPH.DELETE key` → `+OK`; a missing graph is FalkorDB's empty-key error.
    static let delete: CommandHandler = { invocation, context, reply in
        let name = invocation.text(0)
        do throws(StoreError) {
            if let deleted = try deleteGraph(named: name, context: context) {
                invocation.session.lastWrite = deleted
                reply.simpleString("OK")
            } else {
                reply.error(emptyKeyMessage)
            }
        } catch {
            reply.error(storeErrorMessage(error))
        }
        return .keepOpen
    }

    /// Deletes graph `name` (GRAPH.DELETE, DEL): the position of that write (for WAIT), or nil
    /// when there was no such graph.
    static func deleteGraph(named name: String, context: ServerContext) throws(StoreError) -> WritePosition? {
        guard let store = try context.dataDirectory.graph(named: name) else { return nil }
        let position = WritePosition.deleting(store)
        guard try context.dataDirectory.deleteGraph(named: name) else { return nil }
        context.slowLog.reset(graph: name)
        return position
    }

    /// `GRAPH.SLOWLOG key [RESET]` → `[[unix-time, command, query, ms, null]…]`, slowest
    /// first, as FalkorDB shapes it (the fifth field is its unused parameters slot).
    static let slowLog: CommandHandler = { invocation, context, reply in
        let name = invocation.text(0)
        if invocation.arguments.count == 2 {
            guard invocation.keyword(1) == "RESET" else {
                reply.error("ERR unknown GRAPH.SLOWLOG argument '\(invocation.text(1))' (expected RESET)")
                return .keepOpen
            }
            context.slowLog.reset(graph: name)
            reply.simpleString("OK")
            return .keepOpen
        }
        let entries = context.slowLog.entries(of: name)
        reply.arrayHeader(entries.count)
        for entry in entries {
            reply.arrayHeader(5)
            reply.bulkString(String(entry.unixTime))
            reply.bulkString(entry.command)
            reply.bulkString(entry.query)
            reply.bulkString(NumberFormatting.format("%.3f", entry.milliseconds))
            reply.null()
        }
        return .keepOpen
    }

    /// The checks every query command makes before the engine sees the text: the
    /// flags, valid UTF-8, the length cap and the timeout against TIMEOUT_MAX.
    struct PreparedQuery {
        var graph: String
        var text: String
        var arguments: QueryArguments
        var timeout: Duration?
    }

    static func prepare(_ invocation: CommandInvocation, context: ServerContext,
                        commandName: String) -> Result<PreparedQuery, ConfigError> {
        let limits = context.configuration.limits
        let arguments: QueryArguments
        switch QueryArguments.parse(invocation.arguments.dropFirst(2), command: commandName) {
        case .success(let parsed): arguments = parsed
        case .failure(let error): return .failure(error)
        }
        let raw = invocation.arguments[1]
        guard raw.count <= limits.maxQueryLength else {
            return .failure(ConfigError(message: "ERR query is \(raw.count) bytes, longer than MAX_QUERY_LENGTH "
                                        + "(\(limits.maxQueryLength) bytes)"))
        }
        guard let text = CommandInvocation.validText(raw) else {
            return .failure(ConfigError(message: "ERR query text is not valid UTF-8"))
        }
        let timeout: Duration?
        switch limits.effectiveTimeout(requested: arguments.timeoutMilliseconds) {
        case .success(let milliseconds): timeout = milliseconds.map { .milliseconds($0) }
        case .failure(let error): return .failure(error)
        }
        return .success(PreparedQuery(graph: invocation.text(0), text: text, arguments: arguments, timeout: timeout))
    }

    /// Runs the query and writes its reply; returns the graph's position after a query that
    /// wrote (at least this write's sequence), nil otherwise.
    @discardableResult
    private static func runQuery(_ invocation: CommandInvocation, context: ServerContext, readOnly: Bool,
                                 commandName: String, reply: inout RESPEncoder) -> WritePosition? {
        let prepared: PreparedQuery
        switch prepare(invocation, context: context, commandName: commandName) {
        case .success(let value): prepared = value
        case .failure(let error):
            reply.error(error.message)
            return nil
        }
        let store: GraphStore
        do throws(StoreError) {
            if let existing = try context.dataDirectory.graph(named: prepared.graph) {
                store = existing
            } else if commandName == "graph.RO_QUERY" {
                reply.error(emptyKeyMessage)
                return nil
            } else {
                // Run it as a read on an empty graph first: a read answers from there and
                // creates nothing; only a write (refused by that read-only run) creates it.
                do throws(QueryError) {
                    let result = try execute(prepared, on: GraphStore.inMemory(name: prepared.graph),
                                             readOnly: true, engine: probeEngine(context), context: context)
                    try writeResult(result, prepared: prepared, context: context, reply: &reply)
                    return nil
                } catch where error.message == readOnlyRefusal {
                    if context.replication.isReplica && commandName != "graph.RO_QUERY" {
                        reply.error(ReplicationCommands.readOnlyMessage)
                        return nil
                    }
                    store = try context.dataDirectory.createGraph(named: prepared.graph)
                } catch {
                    QueryErrorReply.write(error, into: &reply)
                    return nil
                }
            }
        } catch {
            reply.error(storeErrorMessage(error))
            return nil
        }
        let before = readOnly ? 0 : store.publishedSequence
        do throws(QueryError) {
            let result = try execute(prepared, on: store, readOnly: readOnly, context: context)
            context.slowLog.record(graph: prepared.graph, command: commandName, query: prepared.text,
                                   milliseconds: result.statistics.executionTimeMilliseconds)
            try writeResult(result, prepared: prepared, context: context, reply: &reply)
        } catch where error.message == readOnlyRefusal && context.replication.isReplica && commandName != "graph.RO_QUERY" {
            reply.error(ReplicationCommands.readOnlyMessage)
        } catch {
            QueryErrorReply.write(error, into: &reply)
        }
        guard !readOnly else { return nil }
        let written = WritePosition.after(writing: store)
        return written.sequence > before ? written : nil
    }

    /// Runs the query with the limits in force: its timeout here, the row and memory caps
    /// through the engine's configuration. The engine checks them while it runs, so a
    /// result over RESULTSET_SIZE is an error (FalkorDB silently truncates) and a write that
    /// runs out of time or rows is rolled back.
    static func execute(_ prepared: PreparedQuery, on store: GraphStore, readOnly: Bool,
                        engine: QueryEngine? = nil, context: ServerContext) throws(QueryError) -> QueryResult {
        try (engine ?? context.engine).execute(prepared.text, on: store, readOnly: readOnly, timeout: prepared.timeout)
    }

    /// An engine for the read-only trial run on a missing graph: the server's procedures and
    /// limits, its own plan cache, so the real run's "Cached execution" stays truthful.
    static func probeEngine(_ context: ServerContext) -> QueryEngine {
        QueryEngine(cacheCapacity: 1, configuration: context.engine.configuration, procedures: context.engine.procedures)
    }

    /// Writes the result set in the form the client asked for.
    static func writeResult(_ result: QueryResult, prepared: PreparedQuery, context: ServerContext,
                            reply: inout RESPEncoder) throws(QueryError) {
        if prepared.arguments.compact {
            CompactResultSetReply.write(result, into: &reply)
        } else {
            ResultSetReply.write(result, into: &reply)
        }
    }

    /// A data-directory error (bad graph name, I/O) as an `ERR` reply.
    static func storeErrorMessage(_ error: StoreError) -> String {
        "ERR \(error.description)"
    }
}
