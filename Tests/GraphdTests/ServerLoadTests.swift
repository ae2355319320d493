// ServerLoadTests.swift — the event loop under load, in process: a thousand concurrent
// connections, queries running in parallel, load shedding when the pending-query limit is
// reached, a client that does not read never blocking the others, the output limit closing
// a client with a log line, max clients, Redis's hard request caps before AUTH, and the idle
// loop's busy poll.
// Commands that block until released make each case deterministic: no sleeps, no timing.

import Foundation
import GraphQuery
import GraphStore
import Synchronization
import Testing
@testable import graphd

/// A gate that blocking test commands wait on; `open()` lets them all through.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    let arrived = Atomic<Int>(0)
    /// Waits (bounded, so a broken server fails the test instead of hanging it).
    func pass() -> Bool {
        arrived.add(1, ordering: .relaxed)
        return semaphore.wait(timeout: .now() + 30) == .success
    }
    func open(_ count: Int) { for _ in 0..<count { semaphore.signal() } }
}

/// Spins until `condition` holds or 30 s pass (polling for a state, not timing).
func waitUntil(_ condition: () -> Bool) -> Bool {
    let end = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < end {
        if condition() { return true }
        usleep(1000)
    }
    return false
}

@Suite("Server under load", .serialized)
struct ServerLoadTests {
    /// The standard table plus `TEST.BLOCK` (a query that waits at `gate`) and `TEST.BIG n`
    /// (a reply of n bytes).
    static func table(gate: Gate) -> CommandTable {
        CommandTable.standard().adding([
            CommandSpec(name: "test.BLOCK", arity: 1, flags: [.readonly, .query]) { _, _, reply in
                reply.simpleString(gate.pass() ? "RELEASED" : "GATE TIMED OUT")
                return .keepOpen
            },
            CommandSpec(name: "test.BIG", arity: 2, flags: [.readonly]) { invocation, _, reply in
                reply.bulkString([UInt8](repeating: UInt8(ascii: "x"), count: Int(invocation.text(0)) ?? 0))
                return .keepOpen
            },
        ])
    }

    @Test("A thousand clients connected at once each get their replies")
    func thousandConnections() throws {
        // Client and server ends both live in this process: 2,000 descriptors and more.
        let limit = ServeCommand.raiseOpenFileLimit(wanted: 4096)
        try #require(limit >= 2200, "the open-file limit (\(limit)) is too low for 1,000 connections; raise `ulimit -Hn`")
        let server = try InProcessServer()
        defer { server.stop() }
        let first = try server.client()
        _ = try first.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        var clients: [RESPTestClient] = []
        for _ in 0..<1000 { clients.append(try server.client()) }
        #expect(waitUntil { server.context.statistics.connectedClients.load(ordering: .relaxed) == 1001 })
        // Every client sends before any reads: all 1000 requests are in flight together.
        for client in clients {
            try client.send(RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "MATCH (u:User) RETURN u.id"]))
        }
        var answered = 0
        for client in clients {
            if try client.readReply().rows == [[.integer(1)]] { answered += 1 }
        }
        #expect(answered == 1000)
    }

    @Test("Queries run in parallel: two blocked queries are both running at once")
    func parallelQueries() throws {
        let gate = Gate()
        let server = try InProcessServer(table: Self.table(gate: gate))
        defer { server.stop() }
        let a = try server.client(), b = try server.client()
        try a.send(RESPTestClient.encode(["TEST.BLOCK"]))
        try b.send(RESPTestClient.encode(["TEST.BLOCK"]))
        // Both reach the gate before either is released: two workers at once.
        #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == 2 })
        gate.open(2)
        #expect(try a.readReply() == .simple("RELEASED"))
        #expect(try b.readReply() == .simple("RELEASED"))
    }

    @Test("A cheap read is answered on the I/O thread; a write and a two-hop procedure go to a worker")
    func quickPath() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client()
        let quick = { server.context.statistics.quickQueries.load(ordering: .relaxed) }
        // A write (which also creates the graph) is never quick.
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})-[:FRIEND]->(:User {id: 2})-[:FRIEND]->(:User {id: 3})")
        #expect(quick() == 0)
        #expect(try client.command("GRAPH.QUERY", "g", "CYPHER id=2 MATCH (u:User {id: $id})-[:FRIEND]-(f) RETURN f.id ORDER BY f.id")
                .rows == [[.integer(1)], [.integer(3)]])
        #expect(try client.command("GRAPH.RO_QUERY", "g", "MATCH (u:User {id: 3}) RETURN u.id").rows == [[.integer(3)]])
        #expect(quick() == 2)
        // Two hops from a user: a worker's job, with the same answer.
        #expect(try client.command("GRAPH.QUERY", "g", "CALL social.connections(1, {}) YIELD user, mutual RETURN user.id, mutual")
                .rows == [[.integer(3), .integer(1)]])
        // A write through RO_QUERY is refused on the quick path as on a worker; a bad query's error too.
        let isError = { (reply: RESPReply) -> Bool in if case .error = reply { true } else { false } }
        #expect(isError(try client.command("GRAPH.RO_QUERY", "g", "CREATE (:X)")))
        #expect(isError(try client.command("GRAPH.QUERY", "g", "MATCH (n RETURN n")))
        #expect(quick() == 2)
        #expect(try client.command("GRAPH.QUERY", "g", "MATCH (n) RETURN count(n)").rows == [[.integer(3)]])
    }

    /// An engine whose `test.wait()` is a read that waits at `gate`, then yields `released`
    /// (1; 0 when the gate timed out).
    static func engine(gate: Gate) -> QueryEngine {
        struct WaitProcedure: Procedure {
            let gate: Gate
            var signature: ProcedureSignature { .init(name: "test.wait", outputs: [.init("released", .integer)]) }
            func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
                [[.integer(gate.pass() ? 1 : 0)]]
            }
        }
        var registry = ProcedureRegistry.standard
        registry.register(WaitProcedure(gate: gate))
        return QueryEngine(procedures: registry)
    }

    @Test("A read arriving while no other runs is run by the loop thread; the follower on standby leads if anything happens meanwhile")
    func loopReads() throws {
        let gate = Gate()
        let server = try InProcessServer(engine: Self.engine(gate: gate))
        defer { server.stop() }
        let loopReads = { server.context.statistics.loopReads.load(ordering: .relaxed) }
        let a = try server.client(), b = try server.client()
        _ = try a.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})-[:FRIEND]->(:User {id: 2})-[:FRIEND]->(:User {id: 3})")
        #expect(loopReads() == 0)  // a write goes to its connection's queue
        try a.send(RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "CALL test.wait() YIELD released RETURN released"]))
        #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == 1 })
        #expect(loopReads() == 1)
        // While that read holds its thread, another leads the loop: b is served, its quick
        // read on the loop, its two-hop read (a read is already running) on a worker.
        #expect(try b.command("PING") == .simple("PONG"))
        #expect(try b.command("GRAPH.RO_QUERY", "g", "MATCH (u:User {id: 2}) RETURN u.id").rows == [[.integer(2)]])
        #expect(try b.command("GRAPH.RO_QUERY", "g", "CALL social.connections(1, {}) YIELD user, mutual RETURN user.id, mutual")
                .rows == [[.integer(3), .integer(1)]])
        #expect(loopReads() == 1)
        gate.open(1)
        #expect(try a.readReply().rows == [[.integer(1)]])
        // Pipelined reads, each starting when the one before it has answered: the thread that
        // ran one runs the next, in order.
        let count = 50
        var batch: [UInt8] = []
        for i in 0..<count {
            batch += RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "CYPHER i=\(i) CALL social.connections(1, {}) YIELD user RETURN $i, user.id"])
        }
        try b.send(batch)
        var inOrder = 0
        for i in 0..<count where try b.readReply().rows == [[.integer(Int64(i)), .integer(3)]] { inOrder += 1 }
        #expect(inOrder == count)
        #expect(loopReads() == 1 + count)
    }

    @Test("A write arriving while no other command runs is run by the loop thread; one arriving beside another command goes to its connection's queue")
    func loopWrites() throws {
        let gate = Gate()
        let server = try InProcessServer(engine: Self.engine(gate: gate))
        defer { server.stop() }
        let loopWrites = { server.context.statistics.loopWrites.load(ordering: .relaxed) }
        let a = try server.client(), b = try server.client()
        #expect(loopWrites() == 0)
        _ = try a.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        #expect(loopWrites() == 1)
        _ = try b.command("GRAPH.QUERY", "g", "CREATE (:User {id: 2})")
        #expect(loopWrites() == 2)
        // While a's read holds a loop thread, b's write is not alone: its connection's queue
        // runs it (where it waits for the graph's lock until the read is done).
        try a.send(RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "CALL test.wait() YIELD released RETURN released"]))
        #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == 1 })
        try b.send(RESPTestClient.encode(["GRAPH.QUERY", "g", "CREATE (:User {id: 3})"]))
        #expect(waitUntil { server.context.statistics.pendingQueries.load(ordering: .relaxed) == 2 })
        gate.open(1)
        #expect(try a.readReply().rows == [[.integer(1)]])
        _ = try b.readReply()
        #expect(loopWrites() == 2)
        #expect(try b.command("GRAPH.RO_QUERY", "g", "MATCH (u:User) RETURN count(u)").rows == [[.integer(3)]])
        #expect(server.context.statistics.loopReads.load(ordering: .relaxed) >= 1)
    }

    @Test("A stop does not wait forever for a read a loop thread runs: the loop returns after the grace")
    func boundedStopOfLoopRead() throws {
        let gate = Gate()
        let server = try InProcessServer(configure: { $0.stopGraceMilliseconds = 100 }, engine: Self.engine(gate: gate))
        let client = try server.client()
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        try client.send(RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "CALL test.wait() YIELD released RETURN released"]))
        #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == 1 })
        #expect(server.context.statistics.loopReads.load(ordering: .relaxed) == 1)
        server.stop()   // returns although the loop thread is still waiting at the gate
        #expect(server.logLines.withLock { $0 }.contains { $0.contains("stopping with 1 command(s) still running") })
        gate.open(1)
    }

    @Test("An idle loop polls before it sleeps: a request sent right after a reply is found by polling; with a budget of 0, none is")
    func busyPoll() throws {
        for (budget, polls) in [(1_000_000, true), (0, false)] {
            // A budget of a second: nothing this test does leaves the loop idle that long.
            let server = try InProcessServer(configure: { $0.busyPollMicroseconds = budget })
            defer { server.stop() }
            let client = try server.client()
            _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
            for _ in 0..<20 {
                #expect(try client.command("PING") == .simple("PONG"))
                #expect(try client.command("GRAPH.RO_QUERY", "g", "MATCH (u:User {id: 1}) RETURN u.id").rows == [[.integer(1)]])
            }
            guard case .bulk(let info) = try client.command("INFO", "stats") else {
                Issue.record("INFO did not answer a bulk string")
                continue
            }
            let hits = server.context.statistics.busyPollHits.load(ordering: .relaxed)
            #expect(info.contains("busy_poll_hits:"))
            #expect(polls ? hits >= 20 : hits == 0, "budget \(budget) µs: \(hits) requests found by polling")
        }
    }

    @Test("Through a read a loop thread runs, the other loop thread polls instead of sleeping; with a busy-poll budget of 0 it sleeps")
    func polledReads() throws {
        for (budget, polls) in [(1, true), (0, false)] {
            let gate = Gate()
            // Polling into the read for up to a minute: however late the follower's thread
            // gets a core, the gated read is still running when it looks.
            let server = try InProcessServer(configure: {
                $0.busyPollMicroseconds = budget
                $0.pollIntoReadMicroseconds = 60_000_000
            }, engine: Self.engine(gate: gate))
            defer { server.stop() }
            let polledReads = { server.context.statistics.polledReads.load(ordering: .relaxed) }
            let client = try server.client()
            _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
            for round in 1...2 {
                // The first read starts the follower's thread; after it the follower polls for
                // the budget (1 µs), sleeps, and is woken when the second read starts.
                try client.send(RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "CALL test.wait() YIELD released RETURN released"]))
                #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == round })
                if polls { #expect(waitUntil { polledReads() == round }, "round \(round)") }
                gate.open(1)
                #expect(try client.readReply().rows == [[.integer(1)]])
            }
            #expect(server.context.statistics.loopReads.load(ordering: .relaxed) == 2)
            if !polls { #expect(polledReads() == 0) }
            guard case .bulk(let info) = try client.command("INFO", "stats") else {
                Issue.record("INFO did not answer a bulk string")
                continue
            }
            #expect(info.contains("polled_reads:\(polledReads())"))
        }
    }

    @Test("After a request the loop waited for, the sleeping follower is woken to poll; with a busy-poll budget of 0 it is not")
    func followerWokenOnQuietServer() throws {
        for (budget, wakes) in [(1, true), (0, false)] {
            let gate = Gate()
            let server = try InProcessServer(configure: { $0.busyPollMicroseconds = budget },
                                             engine: Self.engine(gate: gate))
            defer { server.stop() }
            let wakeUps = { server.context.statistics.followerWakeUps.load(ordering: .relaxed) }
            let client = try server.client()
            _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
            // A read run by a loop thread starts the follower's thread.
            try client.send(RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "CALL test.wait() YIELD released RETURN released"]))
            #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == 1 })
            gate.open(1)
            #expect(try client.readReply().rows == [[.integer(1)]])
            // Then PINGs only, no reads: with a budget of 1 µs the leader waits for each, and the
            // follower, asleep again by then, is woken to poll after it.
            let before = wakeUps()
            var pings = 0
            if wakes {
                #expect(waitUntil {
                    pings += 1
                    return (try? client.command("PING")) == .simple("PONG") && wakeUps() > before
                })
            } else {
                for _ in 0..<20 where try client.command("PING") == .simple("PONG") { pings += 1 }
                #expect(pings == 20)
                #expect(wakeUps() == 0)
            }
            // INFO's own request may wake the follower once more before it is counted.
            let counted = wakeUps()
            guard case .bulk(let info) = try client.command("INFO", "stats") else {
                Issue.record("INFO did not answer a bulk string")
                continue
            }
            let line = info.split(separator: "\r\n").first { $0.hasPrefix("follower_wakeups:") }
            let reported = line.flatMap { Int($0.dropFirst("follower_wakeups:".count)) }
            #expect(reported.map { $0 >= counted && $0 <= wakeUps() } == true, "\(line ?? "no follower_wakeups line")")
        }
    }

    @Test("Hundreds of pipelined quick reads are answered in order, on the I/O thread or past its share on a worker")
    func pipelinedQuickReads() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client()
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        let count = 3 * Server.quickRunsPerTurn + 7
        var batch: [UInt8] = []
        for i in 0..<count { batch += RESPTestClient.encode(["GRAPH.RO_QUERY", "g", "CYPHER i=\(i) RETURN $i"]) }
        try client.send(batch)
        var inOrder = 0
        for i in 0..<count where try client.readReply().rows == [[.integer(Int64(i))]] { inOrder += 1 }
        #expect(inOrder == count)
        let quick = server.context.statistics.quickQueries.load(ordering: .relaxed)
        // Past quickRunsPerTurn in one batch of input, the rest of it goes to a worker; how the
        // bytes were split into reads decides how many, so only the lower bound is certain.
        #expect(quick >= Server.quickRunsPerTurn)
    }

    @Test("With MAX_QUEUED_QUERIES pending, a new query is refused at once; PING still answers")
    func loadShedding() throws {
        let gate = Gate()
        var limits = QueryLimits()
        limits.maxQueuedQueries = 2
        let server = try InProcessServer(table: Self.table(gate: gate), limits: limits)
        defer { server.stop() }
        let a = try server.client(), b = try server.client(), c = try server.client()
        try a.send(RESPTestClient.encode(["TEST.BLOCK"]))
        try b.send(RESPTestClient.encode(["TEST.BLOCK"]))
        #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == 2 })
        #expect(try c.command("GRAPH.QUERY", "g", "RETURN 1") == .error("Max pending queries exceeded"))
        #expect(try c.command("PING") == .simple("PONG"))
        #expect(server.context.statistics.shedQueries.load(ordering: .relaxed) == 1)
        gate.open(2)
        #expect(try a.readReply() == .simple("RELEASED"))
        #expect(try b.readReply() == .simple("RELEASED"))
        // Once they finish the queue has room again.
        #expect(waitUntil { server.context.statistics.pendingQueries.load(ordering: .relaxed) == 0 })
        #expect(try c.command("GRAPH.QUERY", "g", "RETURN 1").rows == [[.integer(1)]])
    }

    @Test("A client that never reads does not block the others")
    func stalledClient() throws {
        let server = try InProcessServer(table: Self.table(gate: Gate()))
        defer { server.stop() }
        let stalled = try server.client()
        // 64 replies of 1 MiB, never read: far more than the socket buffers hold.
        var burst: [UInt8] = []
        for _ in 0..<64 { burst += RESPTestClient.encode(["TEST.BIG", String(1024 * 1024)]) }
        try stalled.send(burst)
        let other = try server.client()
        for i in 0..<100 {
            #expect(try other.command("ECHO", "m\(i)") == .bulk("m\(i)"))
        }
        #expect(try other.command("GRAPH.QUERY", "g", "RETURN 2").rows == [[.integer(2)]])
    }

    @Test("A client whose unsent replies pass the output limit is closed, with a log line")
    func outputLimit() throws {
        let server = try InProcessServer(table: Self.table(gate: Gate())) { configuration in
            configuration.clientOutputLimit = 4 * 1024 * 1024
        }
        defer { server.stop() }
        let greedy = try server.client()
        try greedy.send(RESPTestClient.encode(["TEST.BIG", String(8 * 1024 * 1024)]))
        // The 8 MiB reply is dropped and the connection closed: the client sees the end.
        #expect(try greedy.readUntilClosed().count < 8 * 1024 * 1024)
        #expect(server.logLines.withLock { $0 }.contains { $0.contains("exceed the output limit") })
        #expect(server.context.statistics.outputLimitDisconnections.load(ordering: .relaxed) == 1)
        #expect(try server.client().command("PING") == .simple("PONG"))
    }

    @Test("Past --max-clients a new connection gets Redis's error and is closed")
    func maxClients() throws {
        let server = try InProcessServer { configuration in configuration.maxClients = 2 }
        defer { server.stop() }
        let a = try server.client(), b = try server.client()
        #expect(try a.command("PING") == .simple("PONG"))
        #expect(try b.command("PING") == .simple("PONG"))
        #expect(try server.client().readUntilClosed() == "-ERR max number of clients reached\r\n")
        #expect(server.context.statistics.rejectedConnections.load(ordering: .relaxed) == 1)
    }

    @Test("A stop does not wait forever for a command that does not finish: the loop returns after the grace")
    func boundedStop() throws {
        let gate = Gate()
        let server = try InProcessServer(table: Self.table(gate: gate)) { configuration in
            configuration.stopGraceMilliseconds = 100
        }
        let client = try server.client()
        try client.send(RESPTestClient.encode(["TEST.BLOCK"]))
        #expect(waitUntil { gate.arrived.load(ordering: .relaxed) == 1 })
        server.stop()   // returns although TEST.BLOCK is still waiting at the gate
        #expect(server.logLines.withLock { $0 }.contains { $0.contains("stopping with 1 command(s) still running") })
        gate.open(1)
    }

    static let unauthenticatedCases: [(name: String, request: String, reply: String)] = [
        ("more than 10 arguments", "*11\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n"),
        ("a bulk over 16 KiB", "*2\r\n$16385\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n"),
    ]

    @Test("Before AUTH, requests are capped hard and a violation closes the connection",
          arguments: unauthenticatedCases.indices)
    func unauthenticatedCaps(_ i: Int) throws {
        let server = try InProcessServer(password: "s3cret")
        defer { server.stop() }
        let client = try server.client()
        try client.send(Self.unauthenticatedCases[i].request)
        #expect(try client.readUntilClosed() == Self.unauthenticatedCases[i].reply, "\(Self.unauthenticatedCases[i].name)")
    }

    @Test("Before AUTH only AUTH, HELLO and QUIT run; a pipelined AUTH lifts the caps for what follows")
    func authenticationGate() throws {
        let server = try InProcessServer(password: "s3cret")
        defer { server.stop() }
        let client = try server.client()
        #expect(try client.command("PING") == .error("NOAUTH Authentication required."))
        #expect(try client.command("GRAPH.LIST") == .error("NOAUTH Authentication required."))
        #expect(try client.command("NOSUCH") == .error("ERR unknown command 'NOSUCH', with args beginning with: "))
        #expect(try client.command("AUTH", "wrong") == .error("WRONGPASS invalid username-password pair or user is disabled."))
        // AUTH and a 100 KiB ECHO in one write: the ECHO is framed after AUTH has run.
        let big = String(repeating: "y", count: 100 * 1024)
        try client.send(RESPTestClient.encode(["AUTH", "s3cret"]) + RESPTestClient.encode(["ECHO", big]))
        #expect(try client.readReply() == .simple("OK"))
        #expect(try client.readReply() == .bulk(big))
        #expect(try client.command("PING") == .simple("PONG"))
        let other = try server.client()
        #expect(try other.command("QUIT") == .simple("OK"))
    }
}
