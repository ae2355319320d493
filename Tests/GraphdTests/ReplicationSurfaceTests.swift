// ReplicationSurfaceTests.swift — what Redis Sentinel sends a monitored server and parses of
// its replies, on the real server loop: INFO's replication section (field names, order, a
// 40-hex run_id per process), Sentinel's reconfiguration transaction (MULTI, SLAVEOF,
// CONFIG REWRITE, CLIENT KILL TYPE normal|pubsub, EXEC), ROLE, READONLY on a replica with
// its reads answered, the replication CONFIG knobs, -NOREPLICAS, transactions' edge cases,
// and PING answered while a long query runs.

import Foundation
import Testing
@testable import graphd

@Suite("Replication surface for Sentinel", .serialized)
struct ReplicationSurfaceTests {
    /// INFO's `key:value` lines, in order.
    func infoLines(_ client: RESPTestClient, _ section: String? = nil) throws -> [String] {
        let reply = try section.map { try client.command("INFO", $0) } ?? client.command("INFO")
        guard case .bulk(let text) = reply else { return [] }
        return text.components(separatedBy: "\r\n")
    }

    func field(_ lines: [String], _ name: String) -> String? {
        lines.first { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)) }
    }

    @Test("INFO: a 40-hex run_id per process, and a primary's replication section in Redis's order")
    func infoOnPrimary() throws {
        let first = try InProcessServer(), second = try InProcessServer()
        defer { first.stop(); second.stop() }
        let a = try first.client(), b = try second.client()
        let lines = try infoLines(a)
        let runID = try #require(field(lines, "run_id"))
        #expect(runID.count == 40 && runID.allSatisfy(\.isHexDigit))
        // Sentinel reads run_id only from a line of at least 47 bytes.
        #expect(("run_id:" + runID).utf8.count == 47)
        #expect(field(try infoLines(b), "run_id") != runID, "each process has its own run_id")
        let replication = try infoLines(a, "replication")
        #expect(replication.prefix(3) == ["# Replication", "role:master", "connected_slaves:0"])
        #expect(field(replication, "master_repl_offset") == "0")
        #expect(field(replication, "master_replid")?.count == 40)
        #expect(lines.contains("role:master"), "plain INFO includes the replication section")
        #expect(try a.command("ROLE") == .array([.bulk("master"), .integer(0), .array([])]))
    }

    @Test("Sentinel's transaction: SLAVEOF + CONFIG REWRITE + CLIENT KILL TYPE normal|pubsub in MULTI/EXEC; INFO then says role:slave first")
    func sentinelReconfiguration() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let sentinel = try server.client(), normal = try server.client(), subscriber = try server.client()
        #expect(try normal.command("PING") == .simple("PONG"))
        _ = try subscriber.command("SUBSCRIBE", "__sentinel__:hello")
        #expect(try sentinel.command("CLIENT", "SETNAME", "sentinel-1a2b3c4d-cmd") == .simple("OK"))
        #expect(try sentinel.command("MULTI") == .simple("OK"))
        // A port nothing listens on: the link stays down, which is what this test looks at.
        let nowhere = try GraphdProcess.freePort()
        for command in [["SLAVEOF", "127.0.0.1", String(nowhere)], ["CONFIG", "REWRITE"],
                        ["CLIENT", "KILL", "TYPE", "normal"], ["CLIENT", "KILL", "TYPE", "pubsub"]] {
            try sentinel.send(RESPTestClient.encode(command))
            #expect(try sentinel.readReply() == .simple("QUEUED"))
        }
        let exec = try sentinel.command("EXEC")
        #expect(exec == .array([.simple("OK"), .simple("OK"), .integer(1), .integer(1)]))
        // The other clients were closed; the caller was spared (SKIPME yes).
        #expect(try normal.readUntilClosed() == "")
        #expect(try subscriber.readUntilClosed() == "")
        #expect(try sentinel.command("PING") == .simple("PONG"))

        let lines = try infoLines(sentinel, "replication")
        let role = try #require(lines.firstIndex(of: "role:slave"))
        for name in ["master_host", "master_port", "master_link_status", "slave_priority", "slave_repl_offset"] {
            let index = try #require(lines.firstIndex { $0.hasPrefix(name + ":") }, "\(name) missing")
            #expect(index > role, "\(name) must follow role:slave (Sentinel sets the role as it reads)")
        }
        #expect(field(lines, "master_host") == "127.0.0.1")
        #expect(field(lines, "master_port") == String(nowhere))
        #expect(field(lines, "master_link_status") == "down")
        #expect(field(lines, "master_link_down_since_seconds") == "-1")
        #expect(field(lines, "slave_priority") == "100")
        #expect(field(lines, "replica_announced") == "1")
        #expect(try sentinel.command("ROLE").items.first == .bulk("slave"))
        let saved = try String(contentsOfFile: server.directory.path + "/data/replication.conf", encoding: .utf8)
        #expect(saved.contains("replicaof 127.0.0.1 \(nowhere)\n"))
        // Asked again, the same primary is not a change.
        #expect(try sentinel.command("SLAVEOF", "127.0.0.1", String(nowhere)) == .simple("OK Already connected to specified master"))
    }

    @Test("A replica refuses writes with -READONLY and answers reads; REPLICAOF NO ONE takes writes again under a new history")
    func readOnlyReplica() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client()
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        let historyBefore = field(try infoLines(client, "replication"), "master_replid")
        #expect(try client.command("REPLICAOF", "127.0.0.1", String(try GraphdProcess.freePort())) == .simple("OK"))
        let refusal = RESPReply.error("READONLY You can't write against a read only replica.")
        #expect(try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 2})") == refusal)
        #expect(try client.command("GRAPH.QUERY", "new", "CREATE (:User {id: 2})") == refusal)
        #expect(try client.command("GRAPH.DELETE", "g") == refusal)
        #expect(try client.command("DEL", "g") == refusal)
        #expect(try client.command("GRAPH.QUERY", "g", "MATCH (u:User) RETURN count(u)").rows == [[.integer(1)]])
        #expect(try client.command("GRAPH.RO_QUERY", "g", "MATCH (u:User) RETURN u.id").rows == [[.integer(1)]])
        #expect(try client.command("GRAPH.RO_QUERY", "missing", "RETURN 1") == .error("ERR Invalid graph operation on empty key"))
        #expect(try client.command("GRAPH.LIST") == .array([.bulk("g")]), "a refused write creates no graph")
        #expect(try client.command("WAIT", "1", "0") == .error("ERR WAIT cannot be used with replica instances."))
        #expect(try client.command("HELLO", "3").items.contains(.bulk("replica")))
        _ = try client.command("HELLO", "2")

        #expect(try client.command("REPLICAOF", "NO", "ONE") == .simple("OK"))
        let lines = try infoLines(client, "replication")
        #expect(field(lines, "role") == "master")
        #expect(field(lines, "master_replid2") == historyBefore, "the history before the promotion is kept as replid2")
        #expect(field(lines, "master_replid") != historyBefore)
        #expect(try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 2})").statistics.contains { $0.hasPrefix("Nodes created: 1") })
    }

    @Test("CONFIG GET/SET replica-priority and min-replicas-*; writes refused with -NOREPLICAS below the minimum; CONFIG REWRITE keeps them")
    func knobs() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client()
        #expect(try client.command("CONFIG", "SET", "replica-priority", "7") == .simple("OK"))
        #expect(try client.command("CONFIG", "GET", "slave-priority") == .array([.bulk("slave-priority"), .bulk("7")]))
        #expect(try client.command("CONFIG", "SET", "replica-priority", "-1").description.hasPrefix("-ERR CONFIG SET failed"))
        #expect(try client.command("CONFIG", "SET", "maxmemory", "1").description.hasPrefix("-ERR CONFIG SET is not supported"))
        #expect(try client.command("CONFIG", "SET", "min-replicas-to-write", "1", "min-replicas-max-lag", "5") == .simple("OK"))
        #expect(try client.command("GRAPH.QUERY", "g", "CREATE (:User)") == .error("NOREPLICAS Not enough good replicas to write."))
        #expect(try client.command("GRAPH.QUERY", "g", "RETURN 1").rows == [[.integer(1)]], "reads still run")
        #expect(field(try infoLines(client, "replication"), "min_slaves_good_slaves") == "0")
        #expect(try client.command("CONFIG", "REWRITE") == .simple("OK"))
        let saved = try String(contentsOfFile: server.directory.path + "/data/replication.conf", encoding: .utf8)
        let file = try ReplicationConfigFile.parse(saved)
        #expect(file.role == .primary)
        #expect(file.settings == ReplicationSettings(replicaPriority: 7, minReplicasToWrite: 1, minReplicasMaxLag: 5))
        #expect(try client.command("CONFIG", "SET", "min-replicas-to-write", "0") == .simple("OK"))
        #expect(try client.command("GRAPH.QUERY", "g", "CREATE (:User)").statistics.contains { $0.hasPrefix("Nodes created: 1") })
        #expect(try client.command("WAIT", "0", "0") == .integer(0))
        #expect(try client.command("WAIT", "1", "50") == .integer(0), "no replica: WAIT gives up at its timeout and says 0")
    }

    @Test("MULTI/EXEC/DISCARD: nesting, EXEC and DISCARD without MULTI, a queued unknown command aborts EXEC, queries run in order")
    func transactions() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client()
        #expect(try client.command("EXEC") == .error("ERR EXEC without MULTI"))
        #expect(try client.command("DISCARD") == .error("ERR DISCARD without MULTI"))
        #expect(try client.command("MULTI") == .simple("OK"))
        #expect(try client.command("MULTI") == .error("ERR MULTI calls can not be nested"))
        #expect(try client.command("NOSUCH").description.hasPrefix("-ERR unknown command 'NOSUCH'"))
        #expect(try client.command("PING") == .simple("QUEUED"))
        #expect(try client.command("EXEC") == .error("EXECABORT Transaction discarded because of previous errors."))
        #expect(try client.command("MULTI") == .simple("OK"))
        #expect(try client.command("PING") == .simple("QUEUED"))
        #expect(try client.command("DISCARD") == .simple("OK"))
        #expect(try client.command("PING") == .simple("PONG"))
        // A transaction holding queries runs on a worker, in order.
        #expect(try client.command("MULTI") == .simple("OK"))
        #expect(try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 5})") == .simple("QUEUED"))
        #expect(try client.command("GRAPH.QUERY", "g", "MATCH (u:User) RETURN u.id") == .simple("QUEUED"))
        #expect(try client.command("ECHO", "done") == .simple("QUEUED"))
        let replies = try client.command("EXEC").items
        #expect(replies.count == 3)
        #expect(replies.count == 3 && replies[1].rows == [[.integer(5)]] && replies[2] == .bulk("done"))
        #expect(try client.command("CLIENT", "KILL", "TYPE", "bogus") == .error("ERR Unknown client type 'bogus'"))
        #expect(try client.command("CLIENT", "KILL", "127.0.0.1:1") == .error("ERR No such client"))
    }

    @Test("PING and INFO are answered while a long query runs: a read, and a write that holds the graph's lock")
    func pingDuringLongQuery() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let busy = try server.client(), monitor = try server.client()
        _ = try busy.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        // A long read: PING and INFO are answered while it runs.
        try busy.send(RESPTestClient.encode(["GRAPH.QUERY", "g", "UNWIND range(1, 1000000) AS x RETURN count(x)"]))
        let started = ContinuousClock.now
        #expect(try monitor.command("PING") == .simple("PONG"))
        #expect(try monitor.command("INFO", "replication").description.contains("role:master"))
        let answered = ContinuousClock.now - started
        let stillRunning = !busy.hasPendingInput()
        _ = try busy.readReply()
        let total = ContinuousClock.now - started
        #expect(stillRunning || answered * 4 < total, "PING took \(answered) of the query's \(total)")

        // A long write holds the graph's write lock throughout. Sentinel pipelines PING after
        // INFO (every default section) on one connection: INFO must not wait for the write, or
        // the PING behind it waits too. Once INFO reports the graph busy, the write holds its lock.
        try busy.send(RESPTestClient.encode(["GRAPH.QUERY", "g", "UNWIND range(1, 200000) AS x CREATE (:Counted {n: x})"]))
        var sawBusy = false
        while !sawBusy && !busy.hasPendingInput() {
            try monitor.send(RESPTestClient.encode(["INFO"]) + RESPTestClient.encode(["PING"]))
            sawBusy = try monitor.readReply().description.contains("graph_g:busy=1")
            #expect(try monitor.readReply() == .simple("PONG"))
        }
        let writeStillRunning = !busy.hasPendingInput()
        #expect(sawBusy && writeStillRunning, "INFO waited for the write instead of reporting the graph busy")
        #expect(try busy.readReply().statistics.contains { $0.hasPrefix("Nodes created: 200000") })
        #expect(!(try monitor.command("INFO", "graphs").description.contains("busy")), "the lock is free again")
    }

    @Test("Every write command moves the connection's last write: WAIT and WAITAOF wait for it, not for an earlier one")
    func waitFollowsEveryWrite() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), follower = try server.client()
        // The follower is a replica as the primary sees it: each pull names its positions.
        func pull(_ positions: [(graph: String, position: String)]) throws {
            var words = ["GRAPHD.PULL", "0", "1000000", "7000", "a-follower"]
            for (graph, position) in positions { words += [graph, try history(graph), position] }
            try follower.send(RESPTestClient.encode(words))
            #expect(try follower.readReply().items.allSatisfy { $0.items.first != .bulk("refused") })
        }
        func run(_ words: [String]) throws -> RESPReply {
            try writer.send(RESPTestClient.encode(words))
            return try writer.readReply()
        }
        var histories: [String: String] = [:]
        func history(_ graph: String) throws -> String {
            if let known = histories[graph] { return known }
            guard case .bulk(let token)? = try writer.command("GRAPH.RO_QUERY", graph, "RETURN graph.token()").rows.first?.first,
                  let dash = token.firstIndex(of: "-") else { return "" }
            histories[graph] = String(token[..<dash])
            return histories[graph]!
        }
        func sequence(_ graph: String) throws -> String {
            guard case .bulk(let token)? = try writer.command("GRAPH.RO_QUERY", graph, "RETURN graph.token()").rows.first?.first,
                  let dash = token.firstIndex(of: "-") else { return "" }
            return String(token[token.index(after: dash)...])
        }
        func waited() throws -> RESPReply { try writer.command("WAIT", "1", "1") }

        #expect(try writer.command("WAIT", "1", "1") == .integer(0), "no replica yet")
        _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1}), (:User {id: 2})")
        try pull([("g", "0")])
        #expect(try waited() == .integer(0))
        // Applied but not yet durable on the replica: WAIT counts it, WAITAOF does not.
        try pull([("g", "1/0")])
        #expect(try waited() == .integer(1))
        #expect(try writer.command("WAITAOF", "1", "1", "1") == .array([.integer(1), .integer(0)]))
        try pull([("g", "1/1")])
        #expect(try writer.command("WAITAOF", "1", "1", "1") == .array([.integer(1), .integer(1)]))

        // Each of these commits to g's log; WAIT waits for that record, not the one before.
        for write in [["GRAPH.QUERY", "g", "CREATE INDEX FOR (u:User) ON (u.id)"],
                      ["GRAPH.QUERY", "g", "CALL db.idx.fulltext.createNodeIndex('User', 'name')"],
                      ["GRAPH.QUERY", "g", "CALL social.block(1, 2) YIELD outcome RETURN outcome"],
                      ["GRAPH.PROFILE", "g", "CREATE (:User {id: 3})"]] {
            let before = try sequence("g")
            let reply = try run(write)
            #expect(!reply.description.hasPrefix("-"), "\(write): \(reply)")
            let after = try sequence("g")
            #expect(after != before, "\(write) commits a record")
            #expect(try waited() == .integer(0), "\(write): the replica is still at \(before)")
            try pull([("g", after)])
            #expect(try waited() == .integer(1), "\(write)")
        }
        // GRAPH.COPY's write is the destination's record.
        #expect(try writer.command("GRAPH.COPY", "g", "copy") == .bulk("OK"))
        #expect(try waited() == .integer(0), "the replica does not have the copy")
        try pull([("g", try sequence("g")), ("copy", try sequence("copy"))])
        #expect(try waited() == .integer(1))
        // GRAPH.DELETE and DEL: reached once the replica no longer has the graph.
        #expect(try writer.command("GRAPH.DELETE", "copy") == .simple("OK"))
        #expect(try waited() == .integer(0), "the replica still has the deleted graph")
        try pull([("g", try sequence("g"))])
        #expect(try waited() == .integer(1))
        #expect(try writer.command("DEL", "g") == .integer(1))
        #expect(try waited() == .integer(0))
        try pull([])
        #expect(try waited() == .integer(1))
        #expect(try writer.command("WAITAOF", "1", "1", "1") == .array([.integer(1), .integer(1)]))
        #expect(try writer.command("WAITAOF", "x", "1", "1") == .error("ERR value is not an integer or out of range"))
        #expect(try writer.command("WAITAOF", "1", "1", "-1") == .error("ERR timeout is negative"))
    }

    @Test("GRAPHD.ACK takes a follower's positions between its pulls; WAIT and GRAPHD.WAITSEQ answer on their quick paths once reached")
    func acknowledgementBetweenPulls() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), follower = try server.client()
        _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        guard case .bulk(let token)? = try writer.command("GRAPH.RO_QUERY", "g", "RETURN graph.token()").rows.first?.first,
              let dash = token.firstIndex(of: "-"), let sequence = UInt64(token[token.index(after: dash)...]) else {
            Issue.record("no token")
            return
        }
        let history = String(token[..<dash])
        #expect(try follower.command("GRAPHD.ACK", "g", history, "\(sequence)")
                == .error("ERR GRAPHD.ACK comes from a replica that pulls from this primary (GRAPHD.PULL)"),
                "a connection that never pulled is no follower")
        #expect(try follower.command("GRAPHD.ACK", "g", history).description.hasPrefix("-ERR syntax"))
        let pulled = try follower.command("GRAPHD.PULL", "0", "1000000", "7000", "a-follower", "g", history, "0")
        #expect(pulled.items.first?.items.first == .bulk("records"))
        #expect(try writer.command("WAIT", "1", "1") == .integer(0), "the pull named nothing applied")
        // Applied, not yet durable: WAIT counts it, WAITAOF not; a later ACK with it durable too.
        #expect(try follower.command("GRAPHD.ACK", "g", history, "\(sequence)/0") == .simple("OK"))
        #expect(try writer.command("WAIT", "1", "1") == .integer(1))
        #expect(try writer.command("WAITAOF", "1", "1", "1") == .array([.integer(1), .integer(0)]))
        #expect(try follower.command("GRAPHD.ACK", "g", history, "\(sequence)/\(sequence)") == .simple("OK"))
        #expect(try writer.command("WAITAOF", "1", "1", "1") == .array([.integer(1), .integer(1)]))

        // The quick paths answer on the I/O thread only what is already reached; the rest goes
        // to a worker, which waits.
        let table = CommandTable.standard()
        func quickly(_ words: [String], after write: WritePosition?) throws -> String? {
            let request = words.map { Array($0.utf8) }
            let spec = try #require(table.spec(named: request[0]))
            var session = ClientSession(id: 99, peerAddress: "127.0.0.1:1")
            session.lastWrite = write
            return table.executeQuickly(request, spec: spec, session: &session, context: server.context)
                .map { String(decoding: $0.reply, as: UTF8.self) }
        }
        let written = WritePosition(graph: "g", history: history, sequence: sequence)
        #expect(try quickly(["WAIT", "1", "1000"], after: written) == ":1\r\n")
        #expect(try quickly(["WAIT", "0", "0"], after: nil) == ":1\r\n", "before any write every follower has it")
        var later = written
        later.sequence += 1
        #expect(try quickly(["WAIT", "1", "1000"], after: later) == nil)
        #expect(try quickly(["WAIT", "x", "1000"], after: written) == nil, "the worker replies the error")
        #expect(try quickly(["GRAPHD.WAITSEQ", "g", "\(sequence)", "1000"], after: nil) == ":\(sequence)\r\n")
        #expect(try quickly(["GRAPHD.WAITSEQ", "g", token, "1000"], after: nil) == ":\(sequence)\r\n")
        #expect(try quickly(["GRAPHD.WAITSEQ", "g", "\(sequence + 1)", "1000"], after: nil) == nil)
        #expect(try quickly(["GRAPHD.WAITSEQ", "missing", "1", "1000"], after: nil) == nil)
        // The worker's paths, through the server, after the quick ones declined.
        #expect(try writer.command("GRAPHD.WAITSEQ", "g", "\(sequence + 1)", "1") == .integer(Int64(sequence)))
        #expect(try writer.command("WAIT", "x", "1") == .error("ERR value is not an integer or out of range"))
    }

    @Test("Bad arguments to the replication commands get errors, never a crash; a pull naming this server is refused")
    func badArguments() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client()
        #expect(try client.command("REPLICAOF", "127.0.0.1", "0") == .error("ERR Invalid master port"))
        #expect(try client.command("REPLICAOF", "127.0.0.1", "x") == .error("ERR Invalid master port"))
        #expect(try client.command("REPLICAOF", "NO") == .error("ERR wrong number of arguments for 'replicaof' command"))
        #expect(try client.command("REPLCONF", "listening-port", "99999") == .error("ERR value is not an integer or out of range"))
        #expect(try client.command("REPLCONF", "capa", "graphd-log/1") == .simple("OK"))
        #expect(try client.command("WAIT", "x", "1") == .error("ERR value is not an integer or out of range"))
        #expect(try client.command("WAIT", "1", "-1") == .error("ERR timeout is negative"))
        #expect(try client.command("GRAPHD.WAITSEQ", "g", "nope", "10").description.hasPrefix("-ERR GRAPHD.WAITSEQ takes"))
        #expect(try client.command("GRAPHD.WAITSEQ", "g", "0", "10") == .integer(0))
        #expect(try client.command("GRAPHD.PULL", "x", "1", "1").description.hasPrefix("-ERR syntax"))
        #expect(try client.command("GRAPHD.PULL", "0", "100", "1", "someone", "g", "h").description.hasPrefix("-ERR syntax"))
        #expect(try client.command("GRAPHD.PULL", "0", "100", "1", "someone", "g", "h", "1/2").description.hasPrefix("-ERR syntax"),
                "durable past applied")
        #expect(try client.command("GRAPHD.PULL", "0", "100", "1", "someone", "g", "h", "2/1/copy").description.hasPrefix("-ERR syntax"))
        let runID = try #require(field(try infoLines(client, "server"), "run_id"))
        #expect(try client.command("GRAPHD.PULL", "0", "100", "1", runID)
                == .error("ERR a server cannot replicate from itself (REPLICAOF names this server)"))
        // A pull with a history that is not one is a stranger's graph: it gets a copy, never records.
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User)")
        let pull = try client.command("GRAPHD.PULL", "0", "1000000", "1", "other", "g", "not-a-history", "5")
        #expect(pull.items.first?.items.first == .bulk("snapshot"))
        #expect(try client.command("CLIENT", "KILL") == .error("ERR syntax error"))
        #expect(try client.command("CLIENT", "KILL", "ID", "0") == .error("ERR client-id should be greater than 0"))
        #expect(try client.command("CLIENT", "KILL", "SKIPME", "maybe") == .error("ERR syntax error"))
        #expect(try client.command("CONFIG", "SET", "replica-priority") == .error("ERR wrong number of arguments for 'config|set' command"))
        #expect(try client.command("PING") == .simple("PONG"))
    }
}

