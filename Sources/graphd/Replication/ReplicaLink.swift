// ReplicaLink.swift — the replica's side of replication: a thread that connects to the
// primary over RESP (AUTH when a password is set), makes sure it is a graphd and not this
// server, then pulls (ReplicationStream) in a loop: records are checked and appended to the
// replica's own logs (GraphStore.appendReplicated), snapshots installed (collected first when
// they come in parts), dropped graphs deleted. Each pull names the positions reached, which
// acknowledges them; records just applied are acknowledged first (GRAPHD.ACK, in the same
// write as the pull), and only then given to a thread beside the link (ReplicaSyncer) that
// fsyncs them; what is durable goes out on the pull after that fsync. A record
// that fails its checks stops that graph's applying and asks for a full copy instead — the
// link never crash-loops; a broken connection reconnects with a growing pause. The link ends
// when the role changes (REPLICAOF), checked between pulls.

import Foundation
import GraphStore

/// Follows a primary for one role change (`generation`).
final class ReplicaLink: @unchecked Sendable {
    // @unchecked: used by its own thread only after `start` hands it over.
    private let context: ServerContext
    private let generation: UInt64
    private let primary: ReplicationAddress
    /// Graphs whose next pull asks for a full copy (after a failed check or apply).
    private var resync: Set<String> = []
    /// The pause before the next connection attempt; grows while attempts fail.
    private var pause: Duration = .milliseconds(100)
    /// Makes what this link applies durable, beside it.
    private let syncer: ReplicaSyncer
    /// Copies arriving in parts, by graph: installed once complete.
    private var incoming: [String: IncomingCopy] = [:]
    /// Graphs with records applied since the last pull went out: acknowledged with the next,
    /// then made durable (`handToSyncer`).
    private var appliedSincePull: Set<String> = []

    /// A full copy being received in parts (ReplicationStream's `part` entries).
    private struct IncomingCopy {
        var id: String
        var total: Int
        var bytes: [UInt8]
    }

    /// How long one pull waits at the primary for a write before it answers empty.
    static let pullWaitMilliseconds = 500
    /// The same while an fsync runs here: about one fsync, after which the next pull reports it.
    static let syncingPullWaitMilliseconds = 1
    /// Bytes of records one pull asks for at most.
    static let pullBytes = 4 << 20

    private init(context: ServerContext, generation: UInt64, primary: ReplicationAddress) {
        self.context = context
        self.generation = generation
        self.primary = primary
        syncer = ReplicaSyncer(context: context)
    }

    /// Starts the link for `generation` on a thread of its own (nothing when the role is primary).
    static func start(context: ServerContext, generation: UInt64) {
        guard case .replica(let primary) = context.replication.role else { return }
        // Remembered across a restart: a server that was a replica and starts as a primary
        // forks its graphs' histories first (ReplicationCommands.promoteGraphs).
        ReplicationConfigFile.markFollowing(primary, dataDirectory: context.dataDirectory.path)
        let link = ReplicaLink(context: context, generation: generation, primary: primary)
        let thread = Thread { link.run() }
        thread.name = "graphd.replica-link"
        thread.start()
    }

    private var isCurrent: Bool { context.replication.isCurrent(generation) }

    private func run() {
        syncer.start()
        defer { syncer.stop() }
        while isCurrent {
            do throws(ReplicationError) {
                try follow()
            } catch {
                guard isCurrent else { return }
                context.replication.linkChanged(generation: generation, to: .connect, error: error.description)
                context.log("replica link to \(primary.host):\(primary.port): \(error); retrying in \(pause)")
                let deadline = ContinuousClock.now + pause
                _ = context.replication.wait(until: deadline) { !self.isCurrent }
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    /// One connection: handshake, then pulls until it breaks or the role changes.
    private func follow() throws(ReplicationError) {
        let client: RESPClient
        do { client = try RESPClient(host: primary.host, port: primary.port) } catch { throw .link(error.description) }
        defer { client.close() }
        client.setTimeout(seconds: 10)
        // Whatever way the connection ends, what it applied is made durable.
        defer { handToSyncer() }
        context.replication.linkChanged(generation: generation, to: .handshake)
        try handshake(client)
        var caughtUp = false
        // The primary refused GRAPHD.ACK (an older graphd): this connection's pulls alone acknowledge.
        var ackRefused = false
        while isCurrent {
            // Records the last reply brought are acknowledged as applied at once, before the
            // fsync (ReplicaSyncer) that makes them durable: GRAPHD.ACK ahead of the pull, which
            // the primary takes on its I/O thread, whereas the pull goes to a worker there. The
            // syncer is woken only once both are sent. While an fsync is under way the pull
            // waits at the primary only briefly, so that a pull reporting the durable position
            // follows the fsync even when no write comes.
            let applied = !appliedSincePull.isEmpty
            let wait = !caughtUp ? 0 : syncer.isBusy || applied ? Self.syncingPullWaitMilliseconds : Self.pullWaitMilliseconds
            let positions = positionWords()
            let acknowledging = applied && !ackRefused
            let reply: RESPClientReply
            do {
                try client.send((acknowledging ? [Self.encode(["GRAPHD.ACK"] + positions)] : [])
                                + [Self.encode(pullHead(wait: wait) + positions)])
                handToSyncer()
                if acknowledging, case .error(let message) = try client.reply(binary: false) {
                    ackRefused = true
                    context.log("replica link: the primary refused GRAPHD.ACK (\(message)); its pulls alone acknowledge")
                }
                reply = try client.reply(binary: true)
            } catch {
                throw .link(error.description)
            }
            // A role change while this pull waited: what it brought is for a link that is over.
            guard isCurrent else { return }
            if case .error(let message) = reply { throw .handshake("the primary refused GRAPHD.PULL: \(message)") }
            guard case .array(let entries) = reply else { throw .stream("GRAPHD.PULL's reply is not an array") }
            if entries.contains(where: Self.isSnapshot) {
                // A copy (of a graph made after the link came up, say): the link is up again
                // only once a pull finds nothing more to fetch.
                context.replication.linkChanged(generation: generation, to: .sync)
                caughtUp = false
            }
            for entry in entries { apply(entry) }
            pause = .milliseconds(100)
            if entries.contains(where: { Self.kind(of: $0) == "refused" }) {
                // The primary cannot send a copy (INFO and the log say why): ask again later, not at once.
                let deadline = ContinuousClock.now + Self.refusedPause
                _ = context.replication.wait(until: deadline) { !self.isCurrent }
                continue
            }
            if entries.isEmpty && !caughtUp {
                // Nothing left to fetch: only now does INFO say the link is up (Sentinel must not
                // promote a replica that looks caught up while it is not).
                caughtUp = true
                context.replication.linkChanged(generation: generation, to: .connected)
                context.log("replica link to \(primary.host):\(primary.port) is up and caught up")
            }
        }
    }

    private static func isSnapshot(_ entry: RESPClientReply) -> Bool { ["snapshot", "part"].contains(kind(of: entry)) }

    /// An entry's kind (`records`, `snapshot`, `drop`, `refused`).
    private static func kind(of entry: RESPClientReply) -> String {
        if case .array(let parts) = entry, case .data(let kind)? = parts.first { return String(decoding: kind, as: UTF8.self) }
        return ""
    }

    /// How long the link waits after the primary refused to send a copy.
    static let refusedPause: Duration = .seconds(30)

    /// AUTH, PING, REPLCONF: fails with a clear message for a wrong password, a server that
    /// is not a graphd, or this server itself.
    private func handshake(_ client: RESPClient) throws(ReplicationError) {
        func send(_ words: [String]) throws(ReplicationError) -> RESPClientReply {
            do { return try client.command(words) } catch { throw .link(error.description) }
        }
        if let password = context.replication.primaryPassword {
            if case .error(let message) = try send(["AUTH", password]), !message.hasPrefix("ERR AUTH <password> called without") {
                throw .handshake("the primary refused the password: \(message)")
            }
        }
        switch try send(["PING"]) {
        case .simple("PONG"): break
        case .error(let message) where message.hasPrefix("NOAUTH"):
            throw .handshake("the primary requires a password (set --masterauth or --requirepass): \(message)")
        case let other: throw .handshake("the primary answered PING with \(other)")
        }
        _ = try send(["REPLCONF", "listening-port", String(context.port)])
        // A graphd names itself in INFO; a Redis or anything else is refused before any data moves.
        guard case .bulk(let info) = try send(["INFO", "server"]), info.contains("graphd_version:") else {
            throw .handshake("\(primary.host):\(primary.port) is not a graphd (its INFO has no graphd_version)")
        }
        if info.contains("run_id:\(context.replication.runID)") {
            throw .handshake("\(primary.host):\(primary.port) is this server itself")
        }
        if case .error(let message) = try send(["REPLCONF", "capa", ReplicationStream.capability]) {
            throw .handshake("the primary refused \(ReplicationStream.capability): \(message)")
        }
    }

    /// Records applied since the last pull are given to the syncer to make durable.
    private func handToSyncer() {
        for name in appliedSincePull.sorted() { syncer.add(name) }
        appliedSincePull = []
    }

    /// GRAPHD.PULL's words before the positions.
    private func pullHead(wait: Int) -> [String] {
        ["GRAPHD.PULL", String(wait), String(Self.pullBytes), String(context.port), context.replication.runID]
    }

    private static func encode(_ words: [String]) -> [[UInt8]] { words.map { Array($0.utf8) } }

    /// This replica's position in every graph, as GRAPHD.PULL and GRAPHD.ACK name them:
    /// applied, and durable, and how much it has of a copy arriving in parts (of a graph it
    /// may not hold yet).
    private func positionWords() -> [String] {
        var words: [String] = []
        for name in Set(context.dataDirectory.graphNames()).union(incoming.keys).sorted() {
            let store = (try? context.dataDirectory.graph(named: name)) ?? nil
            if store == nil && incoming[name] == nil { continue }
            var history = "none", position = "0/0"
            if let store {
                history = (resync.contains(name) ? ReplicationStream.resyncPrefix : "") + ReplicationStream.history(of: store)
                let applied = store.appliedSequence
                position = "\(applied)/\(min(store.durableSequence, applied))"
            }
            if let copy = incoming[name] { position += "/\(copy.id)@\(copy.bytes.count)" }
            words += [name, history, position]
        }
        return words
    }

    /// Installs a full copy of graph `name` (a snapshot file's bytes), after setting aside the
    /// records this replica holds past `fork` (never on the primary).
    private func install(_ name: String, snapshot: [UInt8], history: GraphHistory?, fork forkBytes: [UInt8]) throws(StoreError) {
        if let fork = UInt64(String(decoding: forkBytes, as: UTF8.self)),
           let current = try context.dataDirectory.graph(named: name), current.durableSequence > fork {
            setAside(current, after: fork)
        }
        guard let history else {
            context.log("replica link: graph '\(name)': the copy names no valid history; ignored")
            return
        }
        let started = ContinuousClock.now
        let store = try context.dataDirectory.installReplicated(named: name, snapshot: snapshot, history: history)
        resync.remove(name)
        context.replication.replicaApplied()
        context.log("replica link: graph '\(name)' copied in full from the primary (through record \(store.durableSequence), "
                    + "\(snapshot.count) bytes, loaded and installed in \(ContinuousClock.now - started))")
    }

    /// Keeps the records of `store` after `fork` — this server's writes its new primary never
    /// had (it was the primary, and they were not replicated before it failed) — in
    /// `<data>/diverged/<graph>-<time>.glog` (framed as in the log), counts them, and says so;
    /// the copy about to be installed replaces them in the graph.
    private func setAside(_ store: GraphStore, after fork: UInt64) {
        let total = store.durableSequence - fork
        let records = (try? store.framedRecords(after: fork, maxBytes: Int.max)) ?? nil
        let directory = context.dataDirectory.path + "/diverged"
        let path = directory + "/\(store.name)-\(Int(Date().timeIntervalSince1970 * 1000)).glog"
        var saved = 0
        if let records {
            saved = Self.recordCount(records)
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: path, contents: Data(records)) else {
                    throw ReplicationError.systemCall("cannot write \(path)")
                }
            } catch {
                context.log("replica link: graph '\(store.name)': cannot keep the \(total) diverged record(s) in \(path): \(error)")
                saved = 0
            }
        }
        context.replication.noteDiverged(records: Int(total))
        context.log("replica link: graph '\(store.name)': \(total) record(s) after \(fork) were never on the primary; "
                    + (saved > 0 ? "kept in \(path) (\(saved) record(s)) and " : "not retained in the log, so not kept, and ")
                    + "replaced by the primary's copy")
    }

    /// How many framed records `bytes` holds.
    static func recordCount(_ bytes: [UInt8]) -> Int {
        var count = 0, offset = 0
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            offset += 8 + length
            count += 1
        }
        return count
    }

    /// Applies one entry of a pull's reply. A failure is logged and that graph resynced.
    private func apply(_ entry: RESPClientReply) {
        guard case .array(let parts) = entry, parts.count == 5 || parts.count == 6,
              case .data(let kindBytes) = parts[0], case .data(let nameBytes) = parts[1], case .data(let historyBytes) = parts[2],
              case .data(let forkBytes) = parts[3], case .data(let payload) = parts[parts.count - 1] else {
            context.log("replica link: an entry of GRAPHD.PULL's reply is malformed; ignored")
            return
        }
        let kind = String(decoding: kindBytes, as: UTF8.self), name = String(decoding: nameBytes, as: UTF8.self)
        let history = GraphHistory(wire: String(decoding: historyBytes, as: UTF8.self))
        // Anything else for this graph means the primary no longer sends that copy.
        if kind != "part" { incoming[name] = nil }
        do throws(StoreError) {
            switch kind {
            case "records":
                guard let store = try context.dataDirectory.graph(named: name) else {
                    resync.insert(name)
                    return
                }
                // The primary's history continues this one (or is it): take it, so the two compare.
                if let history { try store.adoptHistory(history) }
                // Synced also when a record fails: those before it are applied.
                defer { appliedSincePull.insert(name) }
                _ = try store.appendReplicated(payload)
                context.replication.replicaApplied()
            case "snapshot":
                try install(name, snapshot: payload, history: history, fork: forkBytes)
            case "part":
                guard case .data(let placeBytes) = parts[4] else { return }
                let place = String(decoding: placeBytes, as: UTF8.self).split(separator: " ")
                guard place.count == 3, let offset = Int(place[1]), let total = Int(place[2]), offset >= 0, total > 0 else {
                    context.log("replica link: graph '\(name)': a part of a copy is malformed; ignored")
                    return
                }
                let id = String(place[0])
                if offset == 0 {
                    incoming[name] = IncomingCopy(id: id, total: total, bytes: [])
                    incoming[name]!.bytes.reserveCapacity(min(total, 1 << 30))
                }
                guard var copy = incoming[name], copy.id == id, copy.bytes.count == offset, offset + payload.count <= total else {
                    // Not the next part of the copy under way: the next pull names none, and gets a new one.
                    incoming[name] = nil
                    context.log("replica link: graph '\(name)': a part of a copy does not follow what came before; starting over")
                    return
                }
                incoming[name] = nil   // a single owner of the buffer while it grows
                copy.bytes += payload
                guard copy.bytes.count == total else {
                    incoming[name] = copy
                    return
                }
                try install(name, snapshot: copy.bytes, history: history, fork: forkBytes)
            case "refused":
                let reason = String(decoding: payload, as: UTF8.self)
                context.replication.linkChanged(generation: generation, to: .sync, error: "graph '\(name)': \(reason)")
                context.log("replica link: the primary cannot send graph '\(name)': \(reason)")
            case "drop":
                _ = try context.dataDirectory.deleteGraph(named: name)
                context.replication.replicaApplied()
                context.log("replica link: graph '\(name)' is gone on the primary; deleted here")
            default:
                context.log("replica link: unknown entry '\(kind)' in GRAPHD.PULL's reply; ignored")
            }
        } catch {
            resync.insert(name)
            context.log("replica link: graph '\(name)': \(error.message); asking the primary for a full copy")
        }
    }
}
