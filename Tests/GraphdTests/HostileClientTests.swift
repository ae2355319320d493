// HostileClientTests.swift — clients that try to hurt the server or each other, against the
// real event loop on loopback: an over-long query, memory bombs, buffered input past the
// server's memory ceiling, a pipelined flood that never reads. Each gets its documented
// error or close, nothing is half-written, and the other clients are still answered, in order.
// (Their latency figures come from the harness, `graphd-bench hostile`, not from tests.)

import Foundation
import GraphQuery
import GraphStore
import Testing
@testable import graphd

@Suite("Hostile clients")
struct HostileClientTests {
    @Test("An over-long query gets the MAX_QUERY_LENGTH error from its declared length, and the connection answers what follows")
    func overLongQuery() throws {
        let server = try InProcessServer()
        let client = try server.client()
        let length = 1_100_000
        // The header alone: the error comes when the bytes have been read past, never buffered.
        try client.send("*3\r\n$11\r\nGRAPH.QUERY\r\n$1\r\ng\r\n$\(length)\r\n")
        let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 100_000)
        for _ in 0..<(length / chunk.count) { try client.send(chunk) }
        try client.send("\r\n" + String(decoding: RESPTestClient.encode(["PING"]), as: UTF8.self))
        #expect(try client.readReply() == .error("ERR query is \(length) bytes, longer than MAX_QUERY_LENGTH (1048576 bytes)"))
        #expect(try client.readReply() == .simple("PONG"))
        #expect(try client.command("GRAPH.QUERY", "g", "RETURN 1") != .null)
    }

    @Test("Memory bombs are refused by the default per-query cap, and a write among them leaves nothing")
    func memoryBombs() throws {
        let server = try InProcessServer()
        let client = try server.client()
        let doubled = (0..<32).map { _ in "WITH s + s AS s" }.joined(separator: " ")
        for bomb in [
            "WITH range(1, 200000000) AS xs RETURN size(xs)",
            "WITH 'xxxxxxxxxxxxxxxx' AS s \(doubled) RETURN size(s)",
            "CREATE (:Bomb) WITH range(1, 100000000) AS xs RETURN size(xs)",
        ] {
            guard case .error(let message) = try client.command("GRAPH.QUERY", "g", bomb) else {
                Issue.record("not refused: \(bomb)")
                continue
            }
            #expect(message.hasPrefix("Query's memory consumption exceeded capacity"), "\(bomb): \(message)")
        }
        guard case .array(let parts) = try client.command("GRAPH.QUERY", "g", "MATCH (n:Bomb) RETURN count(n)"),
              case .array(let rows) = parts[1] else {
            Issue.record("no result")
            return
        }
        #expect(rows == [.array([.integer(0)])])
    }

    @Test("Past the memory ceiling the clients buffering most are closed, and the others are served")
    func ceilingClosesLargestBuffers() throws {
        let ceiling = MemoryCeiling(limit: 2 << 20)
        let server = try InProcessServer(engine: QueryEngine(configuration: QueryConfiguration(memoryCeiling: ceiling)))
        let bystander = try server.client()
        #expect(try bystander.command("PING") == .simple("PONG"))
        // Three clients each send 900 KB of a 1,000,000-byte query (under MAX_QUERY_LENGTH,
        // so it is buffered) and stop: 2.7 MB in all, past the 2 MiB ceiling.
        var hoarders: [RESPTestClient] = []
        for _ in 0..<3 {
            let hoarder = try server.client()
            try hoarder.send("*3\r\n$11\r\nGRAPH.QUERY\r\n$1\r\ng\r\n$1000000\r\n")
            try hoarder.send([UInt8](repeating: UInt8(ascii: " "), count: 900_000))
            hoarders.append(hoarder)
        }
        // The server reads the hoarders' bytes as they come: ask until it has closed one
        // (bounded: a few seconds of INFO calls, no sleeping).
        let deadline = ContinuousClock.now + .seconds(10)
        var disconnected = false
        while !disconnected && ContinuousClock.now < deadline {
            guard case .bulk(let info) = try bystander.command("INFO", "stats") else { break }
            disconnected = info.contains("memory_ceiling_disconnections:") && !info.contains("memory_ceiling_disconnections:0")
        }
        #expect(disconnected)
        #expect(server.logLines.withLock { $0.contains { $0.contains("past its memory ceiling") } })
        #expect(try bystander.command("PING") == .simple("PONG"))
        withExtendedLifetime(hoarders) {}
    }

    @Test("A query past the ceiling is refused at once, and a query's charges leave the ceiling when it ends")
    func ceilingRefusesQueries() throws {
        let store = GraphStore.inMemory()
        let ceiling = MemoryCeiling(limit: 1 << 20)
        let engine = QueryEngine(configuration: QueryConfiguration(memoryCeiling: ceiling))
        #expect(throws: QueryError.self) { try engine.execute("UNWIND range(1, 200000) AS x RETURN size(collect(x))", on: store) }
        #expect(ceiling.bytesInUse == 0)
        ceiling.add(2 << 20)
        let refused = #expect(throws: QueryError.self) { try engine.execute("RETURN 1", on: store) }
        #expect(refused?.message.hasPrefix("Server memory ceiling reached") == true)
        ceiling.add(-(2 << 20))
        #expect(try engine.execute("RETURN 1", on: store).rows == [[.integer(1)]])
    }

    @Test("A client pipelining thousands of commands without reading shares the loop, and gets every reply in order")
    func floodSharesTheLoop() throws {
        let server = try InProcessServer()
        let flooder = try server.client()
        let victim = try server.client()
        let count = 20_000
        var flood: [UInt8] = []
        for i in 0..<count { flood += RESPTestClient.encode(["ECHO", "\(i)"]) }
        try flooder.send(flood)
        for i in 0..<10 { #expect(try victim.command("ECHO", "victim \(i)") == .bulk("victim \(i)")) }
        for i in 0..<count {
            let reply = try flooder.readReply()
            guard reply == .bulk("\(i)") else {
                Issue.record("reply \(i) of the flood is \(reply)")
                return
            }
        }
        #expect(try flooder.command("PING") == .simple("PONG"))
    }

    @Test("Half-requests, garbage frames and reconnect storms cost the others nothing, and every acknowledged write stays")
    func slowGarbageAndStorms() throws {
        let server = try InProcessServer()
        // Slowloris: fifty connections each hold a request they never finish.
        var holders: [RESPTestClient] = []
        for _ in 0..<50 {
            let holder = try server.client()
            try holder.send("*3\r\n$11\r\nGRAPH.QUERY\r\n$1")
            holders.append(holder)
        }
        let writer = try server.client()
        var acknowledged = 0
        for k in 0..<200 {
            if case .array = try writer.command("GRAPH.QUERY", "g", "CREATE (:W {k: \(k)})") { acknowledged += 1 }
            if k % 20 == 0 {
                // Garbage: a bad multibulk count gets the protocol error, then the close.
                let garbage = try server.client()
                try garbage.send([UInt8(ascii: "*"), UInt8(ascii: "x"), 13, 10] + (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) })
                #expect(try garbage.readUntilClosed().hasPrefix("-ERR Protocol error: invalid multibulk length"))
                // A reconnect storm: connect, PING, close.
                for _ in 0..<10 { #expect(try server.client().command("PING") == .simple("PONG")) }
                // Each holder trickles one more byte of its bulk's length.
                for holder in holders { try holder.send("0") }
            }
        }
        #expect(acknowledged == 200)
        guard case .array(let parts) = try writer.command("GRAPH.QUERY", "g", "MATCH (n:W) RETURN count(n)"),
              case .array(let rows) = parts[1] else {
            Issue.record("no result")
            return
        }
        #expect(rows == [.array([.integer(Int64(acknowledged))])])
        withExtendedLifetime(holders) {}
    }
}
