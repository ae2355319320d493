// ReplicationCommands.swift — the commands that change or report a server's place in a
// replicated set: REPLICAOF / SLAVEOF (Sentinel sends SLAVEOF), ROLE, WAIT, GRAPHD.WAITSEQ,
// and the replication names of CONFIG GET/SET/REWRITE. Replies and errors use Redis's words,
// which Sentinel and the client libraries match.

import GraphStore

/// Handlers for the replication commands.
enum ReplicationCommands {
    /// Redis's reply to a write on a replica (redis-py turns it into ReadOnlyError).
    static let readOnlyMessage = "READONLY You can't write against a read only replica."

    /// Why a write command may not run here now, or nil: on a replica anything that writes
    /// (GRAPH.QUERY and GRAPH.PROFILE whose text only reads are answered), on a primary under
    /// min-replicas-to-write while too few replicas follow. GRAPH.SAVE only compacts.
    static func writeRefusal(_ spec: CommandSpec, _ request: [[UInt8]], context: ServerContext) -> String? {
        let replication = context.replication
        let isReplica = replication.isReplica
        guard isReplica || replication.hasWriteQuorum, spec.key != "graph.save" else { return nil }
        if spec.flags.contains(.query), request.count >= 3, let text = CommandInvocation.validText(request[2]),
           !context.engine.writes(text) {
            return nil
        }
        return isReplica ? readOnlyMessage : replication.minReplicasRefusal()
    }

    /// `REPLICAOF host port | NO ONE` (and `SLAVEOF`): replies at once; the link connects in
    /// the background, and INFO reports how it goes.
    static let replicaOf: CommandHandler = { invocation, context, reply in
        guard invocation.arguments.count == 2 else {
            reply.error(CommandTable.wrongArityMessage(String(decoding: invocation.name, as: UTF8.self).lowercased()))
            return .keepOpen
        }
        if invocation.keyword(0) == "NO" && invocation.keyword(1) == "ONE" {
            let offset = Int64(ReplicationOffsets.total(context.dataDirectory))
            if context.replication.setRole(.primary, offset: offset).changed {
                promoteGraphs(context)
                context.log("MASTER MODE enabled (REPLICAOF NO ONE from client id=\(invocation.session.id)); "
                            + "new history \(context.replication.snapshot.historyID)")
            }
            reply.simpleString("OK")
            return .keepOpen
        }
        guard let port = Int(invocation.text(1)), (1...65535).contains(port) else {
            reply.error("ERR Invalid master port")
            return .keepOpen
        }
        let address = ReplicationAddress(host: invocation.text(0), port: port)
        let (generation, changed) = context.replication.setRole(.replica(of: address), offset: 0)
        if changed {
            context.log("REPLICAOF \(address.host):\(address.port) enabled (client id=\(invocation.session.id)); "
                        + "writes are refused from now on")
            context.startReplicaLink(generation)
            reply.simpleString("OK")
        } else {
            reply.simpleString("OK Already connected to specified master")
        }
        return .keepOpen
    }

    /// A former replica becomes a primary: every graph starts a new history sharing what it has
    /// (so an old primary that held more under the old one is told where they part), and the
    /// replica marker goes.
    static func promoteGraphs(_ context: ServerContext) {
        for name in context.dataDirectory.graphNames() {
            guard let store = (try? context.dataDirectory.graph(named: name)) ?? nil else { continue }
            do throws(StoreError) {
                try store.forkHistory()
            } catch {
                context.log("promotion: graph '\(name)': cannot start a new history: \(error)")
            }
        }
        ReplicationConfigFile.clearFollowing(dataDirectory: context.dataDirectory.path)
    }

    /// `ROLE`: `master <offset> [[ip port offset] …]` or `slave <host> <port> <state> <offset>`.
    static let role: CommandHandler = { _, context, reply in
        let snapshot = context.replication.snapshot
        let offset = Int64(ReplicationOffsets.total(context.dataDirectory))
        switch snapshot.role {
        case .primary:
            reply.arrayHeader(3)
            reply.bulkString("master")
            reply.integer(offset)
            reply.arrayHeader(snapshot.followers.count)
            for follower in snapshot.followers {
                reply.arrayHeader(3)
                reply.bulkString(follower.address.host)
                reply.bulkString(String(follower.address.port))
                reply.bulkString(String(follower.offset))
            }
        case .replica(let address):
            reply.arrayHeader(5)
            reply.bulkString("slave")
            reply.bulkString(address.host)
            reply.integer(Int64(address.port))
            reply.bulkString(snapshot.linkState.rawValue)
            reply.integer(offset)
        }
        return .keepOpen
    }

    /// `WAIT numreplicas timeout`: blocks until that many replicas applied this connection's
    /// last write (or the timeout in ms passes; 0 waits forever) and replies how many did.
    /// Applied: in the replica's memory and written to its log, perhaps not yet fsync'ed there
    /// (Redis's WAIT counts the same); WAITAOF counts replicas that made it durable.
    static let wait: CommandHandler = { invocation, context, reply in
        guard let wanted = Int(invocation.text(0)), let timeout = Int(invocation.text(1)), timeout >= 0 else {
            reply.error(timeoutOrIntegerMessage(invocation))
            return .keepOpen
        }
        guard !context.replication.isReplica else {
            reply.error("ERR WAIT cannot be used with replica instances.")
            return .keepOpen
        }
        let write = invocation.session.lastWrite
        let reached = { followers(having: write, durable: false, context: context) }
        _ = context.replication.wait(until: deadline(timeout)) { reached() >= wanted }
        reply.integer(Int64(reached()))
        return .keepOpen
    }

    /// WAIT's quick path, on the I/O thread: the reply when enough replicas have the write
    /// already (a replica acknowledges a write it applied in about the time the write's reply
    /// takes to reach its client, so a WAIT sent right after it often finds it there), saving
    /// the hand-off to a worker and back. Nil (to the worker, which waits) otherwise, and for
    /// anything unusual, whose error the worker's path replies.
    static let quickWait: QuickCommandHandler = { invocation, context, reply in
        guard let wanted = Int(invocation.text(0)), let timeout = Int(invocation.text(1)), timeout >= 0,
              !context.replication.isReplica else { return nil }
        let reached = followers(having: invocation.session.lastWrite, durable: false, context: context)
        guard reached >= wanted else { return nil }
        reply.integer(Int64(reached))
        return .keepOpen
    }

    /// `WAITAOF numlocal numreplicas timeout` (Redis 7.2's): blocks until this connection's
    /// last write is durable here (when `numlocal` is 1) and on `numreplicas` replicas (each
    /// has fsync'ed it into its own log), or the timeout in ms passes (0: forever); replies
    /// `[local, replicas]`: 1 or 0, and how many replicas have it durable.
    static let waitDurable: CommandHandler = { invocation, context, reply in
        guard let local = Int(invocation.text(0)), let wanted = Int(invocation.text(1)),
              let timeout = Int(invocation.text(2)), timeout >= 0, local >= 0, wanted >= 0 else {
            if let timeout = Int(invocation.text(2)), timeout < 0 { reply.error("ERR timeout is negative") } else {
                reply.error("ERR value is not an integer or out of range")
            }
            return .keepOpen
        }
        guard !context.replication.isReplica else {
            reply.error("ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas "
                        + "are just local and are not propagated.")
            return .keepOpen
        }
        let write = invocation.session.lastWrite
        let reached = { (localDurable(write, context: context) ? 1 : 0, followers(having: write, durable: true, context: context)) }
        let end = deadline(timeout)
        // Durability here moves without a signal under --fsync everysec: look again every 10 ms.
        while true {
            let step = min(end ?? .now + .milliseconds(10), .now + .milliseconds(10))
            let done = context.replication.wait(until: step) { let (l, r) = reached(); return l >= local && r >= wanted }
            if done || end.map({ ContinuousClock.now >= $0 }) == true { break }
        }
        let (l, r) = reached()
        reply.arrayHeader(2)
        reply.integer(Int64(l))
        reply.integer(Int64(r))
        return .keepOpen
    }

    /// The end of a wait of `timeout` ms (0: none).
    private static func deadline(_ timeout: Int) -> ContinuousClock.Instant? {
        timeout == 0 ? nil : ContinuousClock.now + .milliseconds(timeout)
    }

    /// How many replicas have `write` applied or durable (all of them before any write).
    private static func followers(having write: WritePosition?, durable: Bool, context: ServerContext) -> Int {
        guard let write else { return context.replication.followers.count }
        return context.replication.followers(reaching: write, durable: durable)
    }

    /// Whether `write` is durable in this server's log. A graph since deleted or replaced has
    /// nothing left to wait for.
    private static func localDurable(_ write: WritePosition?, context: ServerContext) -> Bool {
        guard let write, !write.deleted,
              let store = (try? context.dataDirectory.graph(named: write.graph)) ?? nil,
              store.history.id == write.history else { return true }
        return store.durableSequence >= write.sequence
    }

    /// `GRAPHD.WAITSEQ graph sequence|token timeout`: blocks until this server has applied
    /// `graph` up to `sequence` (visible to reads; on a replica, made durable a moment later)
    /// or the timeout in ms passes (0: forever); replies the graph's applied sequence then. A
    /// change token `<history>-<sequence>` (what `RETURN graph.token()` gives on the primary
    /// after a write) is reached once this graph's history holds that commit: the same history
    /// or one that continues it. Read-your-writes on a replica, Neo4j-bookmark style.
    static let waitSequence: CommandHandler = { invocation, context, reply in
        guard let wait = SequenceWait(invocation, context: context) else {
            reply.error("ERR GRAPHD.WAITSEQ takes a sequence number or a change token <history>-<sequence>, and a timeout in ms")
            return .keepOpen
        }
        _ = context.replication.wait(until: deadline(wait.timeout), for: wait.isReached)
        reply.integer(Int64(wait.applied))
        return .keepOpen
    }

    /// GRAPHD.WAITSEQ's quick path, on the I/O thread: the reply when the graph has the
    /// sequence already (as WAIT's quick path); nil, to the worker that waits, otherwise.
    static let quickWaitSequence: QuickCommandHandler = { invocation, context, reply in
        guard let wait = SequenceWait(invocation, context: context), wait.isReached() else { return nil }
        reply.integer(Int64(wait.applied))
        return .keepOpen
    }

    /// What a GRAPHD.WAITSEQ waits for, parsed.
    private struct SequenceWait {
        let graph: String
        let sequence: UInt64
        let token: ChangeToken?
        let timeout: Int
        let context: ServerContext

        init?(_ invocation: CommandInvocation, context: ServerContext) {
            let text = invocation.text(1)
            token = ChangeToken(text)
            guard let sequence = token?.sequence ?? UInt64(text), let timeout = Int(invocation.text(2)), timeout >= 0 else {
                return nil
            }
            self.sequence = sequence
            self.timeout = timeout
            self.graph = invocation.text(0)
            self.context = context
        }

        var store: GraphStore? { (try? context.dataDirectory.graph(named: graph)) ?? nil }

        /// The graph's applied sequence now (0: no such graph).
        var applied: UInt64 { store?.appliedSequence ?? 0 }

        func isReached() -> Bool {
            guard let store else { return false }
            let applied = store.appliedSequence
            guard let token else { return applied >= sequence }
            return applied >= sequence && store.history.contains(token.history, sequence, last: applied)
        }
    }

    private static func timeoutOrIntegerMessage(_ invocation: CommandInvocation) -> String {
        if let timeout = Int(invocation.text(1)), timeout < 0 { return "ERR timeout is negative" }
        return "ERR value is not an integer or out of range"
    }

    // MARK: CONFIG

    /// CONFIG GET's replication entries, under Redis's names and their old `slave` aliases.
    static func configuration(_ context: ServerContext) -> [(String, String)] {
        let settings = context.replication.settings
        var replicaOf = ""
        if case .replica(let address) = context.replication.role { replicaOf = "\(address.host) \(address.port)" }
        return [("replica-priority", String(settings.replicaPriority)),
                ("slave-priority", String(settings.replicaPriority)),
                ("min-replicas-to-write", String(settings.minReplicasToWrite)),
                ("min-slaves-to-write", String(settings.minReplicasToWrite)),
                ("min-replicas-max-lag", String(settings.minReplicasMaxLag)),
                ("min-slaves-max-lag", String(settings.minReplicasMaxLag)),
                ("replicaof", replicaOf),
                ("slaveof", replicaOf),
                ("replica-read-only", "yes"),
                ("slave-read-only", "yes"),
                ("replica-serve-stale-data", "yes")]
    }

    /// Whether CONFIG SET may change `name`.
    static func isSettable(_ name: String) -> Bool {
        ["replica-priority", "slave-priority", "min-replicas-to-write", "min-slaves-to-write",
         "min-replicas-max-lag", "min-slaves-max-lag"].contains(name.lowercased())
    }

    /// CONFIG SET of one replication name; nil when `name` is not one.
    static func set(_ name: String, to value: String, context: ServerContext) -> Result<Void, ConfigError>? {
        let path: WritableKeyPath<ReplicationSettings, Int>
        switch name.lowercased() {
        case "replica-priority", "slave-priority": path = \.replicaPriority
        case "min-replicas-to-write", "min-slaves-to-write": path = \.minReplicasToWrite
        case "min-replicas-max-lag", "min-slaves-max-lag": path = \.minReplicasMaxLag
        default: return nil
        }
        guard let number = Int(value), number >= 0, number <= Int(Int32.max) else {
            return .failure(ConfigError(message: "ERR CONFIG SET failed (possibly related to argument '\(name)') - argument must be a non-negative integer"))
        }
        context.replication.updateSettings { $0[keyPath: path] = number }
        return .success(())
    }

    /// CONFIG REWRITE: the role and knobs into `<data>/replication.conf`.
    static func rewrite(_ context: ServerContext) -> Result<Void, ConfigError> {
        let file = ReplicationConfigFile(role: context.replication.role, settings: context.replication.settings)
        do throws(ReplicationError) {
            try file.save(dataDirectory: context.dataDirectory.path)
            return .success(())
        } catch {
            return .failure(ConfigError(message: "ERR Rewriting config file: \(error)"))
        }
    }
}
