// EndToEndProtocolTests.swift — the real graphd binary over a socket: bad input gets
// Redis's error replies and the server keeps serving; inline commands as typed at `nc`;
// pipelining; two clients at once; graceful stop; the command line's exit statuses.

import Foundation
import Synchronization
import Testing
import GraphTestSupport

@Suite("End to end: protocol", .serialized)
struct EndToEndProtocolTests {
    /// Runs `body` against a fresh server, then stops it.
    func withServer(_ body: (GraphdProcess) throws -> Void) throws {
        let directory = try TemporaryDirectory("graphd-proto")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data")
        defer { server.kill9() }
        try body(server)
    }

    static let badInput: [(name: String, bytes: [UInt8], reply: String)] = [
        ("garbage multibulk count", Array("*abc\r\n".utf8), "-ERR Protocol error: invalid multibulk length\r\n"),
        ("element without $", Array("*1\r\nPING\r\n".utf8), "-ERR Protocol error: expected '$', got 'P'\r\n"),
        ("negative bulk length", Array("*1\r\n$-5\r\n".utf8), "-ERR Protocol error: invalid bulk length\r\n"),
        ("unbalanced quotes", Array("GRAPH.QUERY g \"MATCH (n) RETURN n\r\n".utf8),
         "-ERR Protocol error: unbalanced quotes in request\r\n"),
        ("oversized inline line", [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024 + 100),
         "-ERR Protocol error: too big inline request\r\n"),
    ]

    @Test("Bad input gets Redis's protocol error and a close, and the server still answers PING",
          arguments: badInput.indices)
    func badInputIsAnswered(_ i: Int) throws {
        let (name, bytes, expected) = Self.badInput[i]
        try withServer { server in
            let client = try server.client()
            try client.send(bytes)
            #expect(try client.readUntilClosed() == expected, "\(name)")
            #expect(try server.client().command("PING") == .simple("PONG"))
        }
    }

    @Test("Replies before a protocol error in the same write still arrive, in order")
    func repliesBeforeProtocolError() throws {
        try withServer { server in
            let client = try server.client()
            try client.send("PING\r\nECHO hi\r\n*x\r\nPING\r\n")
            #expect(try client.readUntilClosed() == "+PONG\r\n$2\r\nhi\r\n-ERR Protocol error: invalid multibulk length\r\n")
        }
    }

    @Test("Unknown commands and wrong arity get Redis's wording and the connection stays open")
    func unknownCommandAndArity() throws {
        try withServer { server in
            let client = try server.client()
            #expect(try client.command("FOO", "bar", "baz") == .error("ERR unknown command 'FOO', with args beginning with: 'bar' 'baz' "))
            #expect(try client.command("GRAPH.QUERY", "g") == .error("ERR wrong number of arguments for 'graph.QUERY' command"))
            #expect(try client.command("GRAPH.RO_QUERY", "missing", "RETURN 1") == .error("ERR Invalid graph operation on empty key"))
            #expect(try client.command("ping") == .simple("PONG"))
        }
    }

    @Test("Inline commands typed at nc work, quotes honoured")
    func inlineCommands() throws {
        try withServer { server in
            let client = try server.client()
            try client.send("GRAPH.QUERY social \"CREATE (:User {id: 1, name: 'Ann'})-[:FRIEND]->(:User {id: 2, name: 'Bo'})\"\r\n")
            let created = try client.readReply()
            #expect(created.statistics.prefix(4) == ["Labels added: 2", "Nodes created: 2", "Properties set: 4", "Relationships created: 1"],
                    "\(created)")
            try client.send("GRAPH.QUERY social \"MATCH (a:User {id: 1})-[:FRIEND]-(b:User) RETURN b.name, b.id\"\n")
            let friends = try client.readReply()
            #expect(friends.items.first == .array([.bulk("b.name"), .bulk("b.id")]), "\(friends)")
            #expect(friends.rows == [[.bulk("Bo"), .integer(2)]], "\(friends)")
            try client.send("PING\r\n\r\nECHO 'it\\'s'\r\n")
            #expect(try client.readReply() == .simple("PONG"))
            #expect(try client.readReply() == .bulk("it's"))
        }
    }

    @Test("A query error is an error reply without ERR, and the connection stays usable")
    func queryErrors() throws {
        try withServer { server in
            let client = try server.client()
            let syntax = try client.command("GRAPH.QUERY", "g", "MATCH (n RETURN n")
            guard case .error(let message) = syntax else {
                Issue.record("expected an error, got \(syntax)")
                return
            }
            #expect(message.hasPrefix("errMsg: "), "\(message)")
            #expect(message.contains(" line: 1, column: "), "\(message)")
            // A failed query creates no graph; a write does, and then RO_QUERY refuses writes.
            #expect(try client.command("GRAPH.RO_QUERY", "g", "CREATE (:X)") == .error("ERR Invalid graph operation on empty key"))
            _ = try client.command("GRAPH.QUERY", "g", "CREATE (:Y)")
            #expect(try client.command("GRAPH.RO_QUERY", "g", "CREATE (:X)")
                == .error("graph.RO_QUERY is to be executed only on read-only queries"))
            #expect(try client.command("PING") == .simple("PONG"))
        }
    }

    @Test("Pipelined requests are answered in order")
    func pipelining() throws {
        try withServer { server in
            let client = try server.client()
            var batch: [UInt8] = []
            for i in 0..<100 {
                batch += i % 2 == 0 ? RESPTestClient.encode(["ECHO", "\(i)"])
                                    : RESPTestClient.encode(["GRAPH.QUERY", "p", "RETURN \(i)"])
            }
            try client.send(batch)
            for i in 0..<100 {
                let reply = try client.readReply()
                if i % 2 == 0 {
                    #expect(reply == .bulk("\(i)"))
                } else {
                    #expect(reply.rows == [[.integer(Int64(i))]], "\(reply)")
                }
            }
        }
    }

    @Test("Two clients at once are both served, each in its own order")
    func twoClients() throws {
        try withServer { server in
            let a = try server.client()
            let b = try server.client()
            try a.send(RESPTestClient.encode(["GRAPH.QUERY", "shared", "CREATE (:N {owner: 'a'})"]))
            try b.send(RESPTestClient.encode(["GRAPH.QUERY", "shared", "CREATE (:N {owner: 'b'})"]))
            #expect(try b.readReply().statistics.contains("Nodes created: 1"))
            #expect(try a.readReply().statistics.contains("Nodes created: 1"))
            for i in 0..<20 {
                try a.send(RESPTestClient.encode(["ECHO", "a\(i)"]))
                try b.send(RESPTestClient.encode(["ECHO", "b\(i)"]))
            }
            for i in 0..<20 {
                #expect(try b.readReply() == .bulk("b\(i)"))
                #expect(try a.readReply() == .bulk("a\(i)"))
            }
            let count = try a.command("GRAPH.QUERY", "shared", "MATCH (n:N) RETURN count(n)")
            #expect(count.rows == [[.integer(2)]], "\(count)")
        }
    }

    @Test("Many clients at once each get their own replies, in order")
    func manyClients() throws {
        try withServer { server in
            let port = server.port
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 32) { n in
                do {
                    let client = try RESPTestClient(port: port)
                    var batch: [UInt8] = []
                    for i in 0..<20 { batch += RESPTestClient.encode(["ECHO", "\(n)-\(i)"]) }
                    batch += RESPTestClient.encode(["GRAPH.QUERY", "many", "CREATE (:C {n: \(n)})"])
                    try client.send(batch)
                    for i in 0..<20 where try client.readReply() != .bulk("\(n)-\(i)") {
                        failures.withLock { $0.append("client \(n): reply \(i) out of order") }
                    }
                    let write = try client.readReply()
                    if !write.statistics.contains("Nodes created: 1") {
                        failures.withLock { $0.append("client \(n): \(write)") }
                    }
                } catch {
                    failures.withLock { $0.append("client \(n): \(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let count = try server.client().command("GRAPH.QUERY", "many", "MATCH (c:C) RETURN count(c)")
            #expect(count.rows == [[.integer(32)]], "\(count)")
        }
    }

    @Test("A client that half-closes after writing still gets every reply, as with printf | nc -N")
    func halfClose() throws {
        try withServer { server in
            let client = try server.client()
            try client.send("GRAPH.QUERY hc \"CREATE (:H)\"\r\nPING\r\n")
            client.shutdownWrite()
            let text = try client.readUntilClosed()
            #expect(text.hasPrefix("*1\r\n"), "\(text)")
            #expect(text.contains("Nodes created: 1"), "\(text)")
            #expect(text.hasSuffix("+PONG\r\n"), "\(text)")
        }
    }

    @Test("QUIT replies OK and closes the connection")
    func quit() throws {
        try withServer { server in
            let client = try server.client()
            try client.send("PING\r\nQUIT\r\nPING\r\n")
            #expect(try client.readUntilClosed() == "+PONG\r\n+OK\r\n")
        }
    }

    @Test("SIGTERM stops the server with exit status 0")
    func gracefulStop() throws {
        let directory = try TemporaryDirectory("graphd-stop")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data")
        #expect(try server.client().command("PING") == .simple("PONG"))
        #expect(server.output.contains("graphd listening on 127.0.0.1:\(server.port)"), "\(server.output)")
        #expect(server.terminate() == 0)
    }

    @Test("SIGTERM during pipelined writes: exit 0, and every acknowledged write is there after restart")
    func stopDuringWrites() throws {
        let directory = try TemporaryDirectory("graphd-stop-writes")
        defer { directory.remove() }
        let data = directory.path + "/data"
        let server = try GraphdProcess(dataDirectory: data)
        let client = try server.client()
        var batch: [UInt8] = []
        for i in 0..<300 { batch += RESPTestClient.encode(["GRAPH.QUERY", "s", "CREATE (:S {n: \(i)})"]) }
        try client.send(batch)
        #expect(try client.readReply().statistics.contains("Nodes created: 1"))
        server.process.send(SIGTERM)
        var acknowledged = 1
        // Replies keep coming for what was running; then the server closes the connection.
        while let reply = try? client.readReply() {
            #expect(reply.statistics.contains("Nodes created: 1"), "\(reply)")
            acknowledged += 1
        }
        #expect(server.process.wait() == 0)

        let restarted = try GraphdProcess(dataDirectory: data)
        defer { restarted.kill9() }
        let count = try restarted.client().command("GRAPH.QUERY", "s", "MATCH (x:S) RETURN count(x)")
        guard case .integer(let stored)? = count.rows.first?.first else {
            Issue.record("unexpected \(count)")
            return
        }
        #expect(stored >= Int64(acknowledged), "acknowledged \(acknowledged), stored \(stored)")
    }

    @Test("Unknown flags and bad values exit with status 2 and one line on stderr")
    func commandLineErrors() throws {
        let unknown = try GraphdProcess.runToExit(["serve", "--bogus"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "graphd: unknown option '--bogus' (try graphd --help)\n")
        let badPort = try GraphdProcess.runToExit(["--port", "99999"])
        #expect(badPort.status == 2)
        #expect(badPort.stderr.split(separator: "\n").count == 1)
        let help = try GraphdProcess.runToExit(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("graphd [serve] [--port N] [--data DIR] [--bind ADDR]"))
    }
}
