// ReplicationStream.swift — the primary's side of replication. A replica pulls: it sends
//   GRAPHD.PULL <wait-ms> <max-bytes> <listening-port> <run-id>
//               [<graph> <history> <applied>[/<durable>[/<copy-id>@<received>]]]…
// naming each graph it holds, the history it follows, the last sequence it applied and the
// last it made durable (the same when `/<durable>` is left out); that is also its
// acknowledgement (WAIT counts applied, WAITAOF durable). A replica that has just applied
// records says so first, in the same write as the pull that follows:
//   GRAPHD.ACK [<graph> <history> <applied>[/<durable>[/<copy-id>@<received>]]]…
// the pull's positions, taken on the I/O thread (a fast command) so that a WAIT for them
// wakes without the pull's hand-off to a worker first. A replica receiving a copy in parts
// adds the copy's id and the bytes it has (a graph it does not hold yet: history `none`,
// applied 0). The primary answers an array of entries, one per graph with something to do:
//   [records,  graph, history, "",   <records after `applied`, framed exactly as in the log>]
//   [snapshot, graph, history, fork, <a snapshot file's bytes: the graph as of a durable record>]
//   [part,     graph, history, fork, <copy-id> <offset> <total>, <that snapshot's bytes from offset>]
//   [drop,     graph, "",      "",   ""]                        (the primary has no such graph)
// A snapshot larger than `partBytes` goes in parts, from one snapshot the primary keeps
// (ReplicationCopies) until the replica has it all; the replica installs it then.
// `fork` is the last sequence the replica's records share with the primary's: a replica that
// holds records past it (an old primary's unreplicated tail) sets them aside before it
// installs the copy (ReplicaLink.setAside).
// Only durable records leave the primary. With nothing to send it waits up to wait-ms for a
// write (long poll), so a caught-up replica gets a write's record as soon as it is durable.
// Resume after a disconnect is the same request: the retained log segments are the backlog;
// when they no longer hold what a replica needs, or it follows another history, or it is
// ahead of the primary, it gets a snapshot. docs/replication.md describes the stream.

import GraphStore

/// GRAPHD.PULL and REPLCONF.
enum ReplicationStream {
    /// The capability a graphd replica announces (`REPLCONF capa graphd-log/1`); a Redis
    /// replica's PSYNC is never answered with graphd's records.
    static let capability = "graphd-log/1"
    /// The most a pull waits for a write before answering empty: short enough that a replica
    /// notices a role change or a stop promptly.
    static let maximumWaitMilliseconds = 1000

    /// `REPLCONF listening-port <port> | capa … | ack …`: Redis's handshake words; graphd
    /// keeps the port (the replica's address in INFO) and accepts the rest.
    static let replconf: CommandHandler = { invocation, _, reply in
        if invocation.arguments.count == 2, invocation.keyword(0) == "LISTENING-PORT" {
            guard let port = Int(invocation.text(1)), (1...65535).contains(port) else {
                reply.error("ERR value is not an integer or out of range")
                return .keepOpen
            }
            invocation.session.replicaListeningPort = port
        }
        reply.simpleString("OK")
        return .keepOpen
    }

    /// One graph a replica names in its pull.
    struct Position: Sendable, Equatable {
        var history: String
        var applied: UInt64
        /// Never past `applied`.
        var durable: UInt64
        /// A copy in parts under way: its id and the bytes the replica has of it.
        var copy: CopyProgress?

        /// `<applied>`, `<applied>/<durable>` or `<applied>/<durable>/<copy-id>@<received>`.
        init?(history: String, word: String) {
            let parts = word.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 3, let applied = UInt64(parts[0]) else { return nil }
            guard let durable = parts.count >= 2 ? UInt64(parts[1]) : applied, durable <= applied else { return nil }
            if parts.count == 3 {
                let fields = parts[2].split(separator: "@")
                guard fields.count == 2, let received = Int(fields[1]), received >= 0 else { return nil }
                copy = CopyProgress(id: String(fields[0]), received: received)
            }
            self.history = history
            self.applied = applied
            self.durable = durable
        }

        /// What the primary keeps of it for WAIT and INFO: the history's id, without the
        /// resync mark and the ancestors.
        var follower: FollowerPosition {
            let id = history.drop { String($0) == ReplicationStream.resyncPrefix }.prefix { $0 != "," }
            return FollowerPosition(history: String(id), applied: applied, durable: durable)
        }
    }

    /// What a pull asks, parsed.
    struct PullRequest: Sendable, Equatable {
        var waitMilliseconds: Int
        var maxBytes: Int
        var listeningPort: Int
        var runID: String
        var positions: [String: Position]

        static func parse(_ invocation: CommandInvocation) -> PullRequest? {
            let arguments = invocation.arguments
            guard arguments.count >= 4, (arguments.count - 4) % 3 == 0,
                  let wait = Int(invocation.text(0)), wait >= 0,
                  let maxBytes = Int(invocation.text(1)), maxBytes > 0,
                  let port = Int(invocation.text(2)), (0...65535).contains(port) else { return nil }
            guard let positions = positions(invocation, from: 4) else { return nil }
            return PullRequest(waitMilliseconds: min(wait, maximumWaitMilliseconds), maxBytes: maxBytes,
                               listeningPort: port, runID: invocation.text(3), positions: positions)
        }

        /// The `<graph> <history> <position>` triples from argument `first` on; nil when malformed.
        static func positions(_ invocation: CommandInvocation, from first: Int) -> [String: Position]? {
            let arguments = invocation.arguments
            guard arguments.count >= first, (arguments.count - first) % 3 == 0 else { return nil }
            var positions: [String: Position] = [:]
            for i in stride(from: first, to: arguments.count, by: 3) {
                guard let position = Position(history: invocation.text(i + 1), word: invocation.text(i + 2)) else { return nil }
                positions[invocation.text(i)] = position
            }
            return positions
        }
    }

    /// `GRAPHD.ACK [<graph> <history> <position>]…` (see the file's header): the positions a
    /// replica reached, from a connection that pulls. `+OK`; an error from a connection that
    /// has not pulled (it is no follower yet) or on a replica.
    static let ack: CommandHandler = { invocation, context, reply in
        guard let positions = PullRequest.positions(invocation, from: 0) else {
            reply.error("ERR syntax: GRAPHD.ACK [<graph> <history> <applied>[/<durable>[/<copy-id>@<received>]]]…")
            return .keepOpen
        }
        guard !context.replication.isReplica,
              context.replication.followerAdvanced(connection: invocation.session.id, positions: positions.mapValues(\.follower))
        else {
            reply.error("ERR GRAPHD.ACK comes from a replica that pulls from this primary (GRAPHD.PULL)")
            return .keepOpen
        }
        reply.simpleString("OK")
        return .keepOpen
    }

    /// How far a replica has received a copy in parts.
    struct CopyProgress: Sendable, Equatable {
        var id: String
        var received: Int
    }

    /// One entry of a pull's reply.
    enum Entry: Sendable {
        case records(graph: String, history: String, bytes: [UInt8])
        case snapshot(graph: String, history: String, fork: UInt64, bytes: [UInt8])
        case part(graph: String, copy: ReplicationCopies.Copy, offset: Int, count: Int)
        case drop(graph: String)
    }

    /// The most of a snapshot one reply carries; a larger one goes in parts. Half the output
    /// limit leaves room for the rest of the reply and the client's other replies; 64 MiB bounds
    /// what one reply holds in memory on both sides.
    static func partBytes(_ context: ServerContext) -> Int { min(context.clientOutputLimit / 2, 64 << 20) }

    /// A graph's history on the wire (GraphHistory.wire; docs/replication.md, "Histories").
    static func history(of store: GraphStore) -> String { store.history.wire }

    /// A replica's history word asking for a full copy whatever it shares (its apply failed).
    static let resyncPrefix = "!"

    /// What a replica at `position` needs of `store`: nil when the records after `applied` fit
    /// (its history shares them all), else the fork (the last sequence it shares) for a copy.
    static func fork(of position: Position, in store: GraphStore) -> UInt64? {
        let forced = position.history.hasPrefix(resyncPrefix)
        let theirs = GraphHistory(wire: forced ? String(position.history.dropFirst()) : position.history)
        let shared = theirs.flatMap { store.history.sharedSequence(with: $0, otherLast: position.applied, last: store.durableSequence) }
        if !forced, let shared, shared == position.applied { return nil }
        return shared ?? 0
    }

    /// `GRAPHD.PULL …` (see the file's header).
    static let pull: CommandHandler = { invocation, context, reply in
        guard let request = PullRequest.parse(invocation) else {
            reply.error("ERR syntax: GRAPHD.PULL <wait-ms> <max-bytes> <listening-port> <run-id> "
                        + "[<graph> <history> <applied>[/<durable>[/<copy-id>@<received>]]]…")
            return .keepOpen
        }
        guard request.runID != context.replication.runID else {
            reply.error("ERR a server cannot replicate from itself (REPLICAOF names this server)")
            return .keepOpen
        }
        guard !context.replication.isReplica else {
            reply.error("ERR this server is a replica itself; point REPLICAOF at its primary")
            return .keepOpen
        }
        let session = invocation.session
        let port = request.listeningPort > 0 ? request.listeningPort : session.replicaListeningPort
        let host = hostPart(of: session.peerAddress)
        context.replication.followerAcknowledged(connection: session.id, address: ReplicationAddress(host: host, port: port),
                                                 positions: request.positions.mapValues(\.follower))
        let deadline = ContinuousClock.now + .milliseconds(request.waitMilliseconds)
        var entries: [Entry] = []
        while true {
            let seen = context.replication.recordsSeen
            entries = collect(request, context: context)
            if !entries.isEmpty || ContinuousClock.now >= deadline { break }
            context.replication.waitForRecords(after: seen, until: min(deadline, ContinuousClock.now + .milliseconds(50)))
        }
        reply.arrayHeader(entries.count)
        for entry in entries {
            if case .part = entry { reply.arrayHeader(6) } else { reply.arrayHeader(5) }
            switch entry {
            case .records(let graph, let history, let bytes):
                reply.bulkString("records"); reply.bulkString(graph); reply.bulkString(history); reply.bulkString("")
                reply.bulkString(bytes)
            case .snapshot(let graph, let history, let fork, let bytes):
                reply.bulkString("snapshot"); reply.bulkString(graph); reply.bulkString(history); reply.bulkString(String(fork))
                reply.bulkString(bytes)
            case .part(let graph, let copy, let offset, let count):
                reply.bulkString("part"); reply.bulkString(graph); reply.bulkString(copy.history); reply.bulkString(String(copy.fork))
                reply.bulkString("\(copy.id) \(offset) \(copy.bytes.count)")
                reply.bulkString(Array(copy.bytes[offset..<offset + count]))
            case .drop(let graph):
                reply.bulkString("drop"); reply.bulkString(graph); reply.bulkString(""); reply.bulkString(""); reply.bulkString("")
            }
        }
        return .keepOpen
    }

    /// What each graph needs now. At most one snapshot per pull, to bound the reply.
    static func collect(_ request: PullRequest, context: ServerContext) -> [Entry] {
        var entries: [Entry] = []
        var budget = request.maxBytes
        var snapshotSent = false
        let names = context.dataDirectory.graphNames()
        for name in names where budget > 0 {
            guard let store = (try? context.dataDirectory.graph(named: name)) ?? nil else { continue }
            let history = history(of: store)
            let position = request.positions[name]
            if let progress = position?.copy {
                // A copy in parts under way: its next part, while this primary still keeps it
                // (else, restarted or after a long pause, the replica gets what it needs below).
                if !snapshotSent, let copy = context.replication.copies.find(runID: request.runID, graph: name, id: progress.id),
                   progress.received < copy.bytes.count {
                    let count = min(partBytes(context), copy.bytes.count - progress.received)
                    entries.append(.part(graph: name, copy: copy, offset: progress.received, count: count))
                    budget -= count
                    snapshotSent = true
                    continue
                }
            } else {
                // The replica installed the copy (or never asked for one): it is not needed any more.
                context.replication.copies.discard(runID: request.runID, graph: name)
            }
            var needsCopy = true
            if let position, fork(of: position, in: store) == nil {
                do throws(StoreError) {
                    if let bytes = try store.framedRecords(after: position.applied, maxBytes: budget) {
                        needsCopy = false
                        if !bytes.isEmpty {
                            entries.append(.records(graph: name, history: history, bytes: bytes))
                            budget -= bytes.count
                        }
                    }
                } catch {
                    context.log("replication: reading graph '\(name)' for a replica failed: \(error); sending a full copy")
                }
            }
            guard needsCopy, !snapshotSent else { continue }
            do throws(StoreError) {
                let copy = try store.replicationSnapshot(scratch: context.dataDirectory.path)
                let shared = position.map { min(Self.fork(of: $0, in: store) ?? $0.applied, copy.lastSequence) } ?? 0
                let partBytes = partBytes(context)
                snapshotSent = true
                guard copy.bytes.count > partBytes else {
                    entries.append(.snapshot(graph: name, history: history, fork: shared, bytes: copy.bytes))
                    budget -= copy.bytes.count
                    continue
                }
                // One reply past the output limit would close the replica's connection: in parts.
                let kept = context.replication.copies.start(runID: request.runID, graph: name, history: history,
                                                            fork: shared, bytes: copy.bytes)
                context.log("replication: graph '\(name)' is \(copy.bytes.count) bytes as a snapshot, more than one reply "
                            + "carries (\(partBytes)): sending it in \((copy.bytes.count + partBytes - 1) / partBytes) parts")
                entries.append(.part(graph: name, copy: kept, offset: 0, count: partBytes))
                budget -= partBytes
            } catch {
                context.log("replication: copying graph '\(name)' for a replica failed: \(error)")
            }
        }
        let present = Set(names)
        for name in request.positions.keys.sorted() where !present.contains(name) {
            entries.append(.drop(graph: name))
        }
        return entries
    }

    /// The address part of `ip:port` (`[v6]:port` too).
    static func hostPart(of peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        var host = String(peer[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }
}
