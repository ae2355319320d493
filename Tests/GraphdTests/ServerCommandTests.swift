// ServerCommandTests.swift — the connection and server commands and the query limits,
// through the command table with a real data directory: HELLO/AUTH/CLIENT/SELECT with
// Redis's wording, INFO's figures, CONFIG GET, COMMAND, GRAPH.CONFIG, the GRAPH.QUERY
// flags, TIMEOUT against TIMEOUT_MAX, the query-length and row caps, and a read of a
// missing graph that creates nothing.

import GraphQuery
import GraphStore
import Testing
@testable import graphd
import GraphTestSupport

private func request(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }

/// A context over a fresh data directory, a session, and a helper that runs one command.
private final class Harness {
    let directory: TemporaryDirectory
    let context: ServerContext
    let table = CommandTable.standard()
    var session: ClientSession

    init(password: String? = nil, limits: QueryLimits = QueryLimits(), in existing: TemporaryDirectory? = nil) throws {
        directory = try existing ?? TemporaryDirectory()
        ownsDirectory = existing == nil
        context = ServerContext(dataDirectory: try DataDirectory(path: directory.path), engine: QueryEngine(),
                                configuration: RuntimeConfiguration(limits), password: password, port: 6479)
        session = ClientSession(id: 7, peerAddress: "127.0.0.1:5000", isAuthenticated: password == nil)
    }

    deinit { if ownsDirectory { directory.remove() } }
    /// False when the test owns the directory (to reopen it after this harness is gone).
    private let ownsDirectory: Bool

    /// The reply text of one command, the session updated.
    func run(_ words: String...) -> String {
        let (reply, _) = table.execute(words.map { Array($0.utf8) }, session: &session, context: context)
        return String(decoding: reply, as: UTF8.self)
    }
}

@Suite("Server commands and limits")
struct ServerCommandTests {
    @Test("HELLO 3 switches to RESP3 with a map; HELLO 2 back to a flat array; HELLO 4 is refused")
    func hello() throws {
        let h = try Harness()
        let three = h.run("HELLO", "3")
        #expect(three.hasPrefix("%7\r\n$6\r\nserver\r\n$6\r\ngraphd\r\n$7\r\nversion\r\n"))
        #expect(three.contains("$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:7\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n"))
        #expect(h.session.protocolVersion == .resp3)
        #expect(h.run("CLIENT", "GETNAME") == "_\r\n")
        #expect(h.run("HELLO").hasPrefix("%7\r\n"), "HELLO without arguments keeps RESP3")
        #expect(h.run("HELLO", "2").hasPrefix("*14\r\n$6\r\nserver\r\n"))
        #expect(h.session.protocolVersion == .resp2)
        #expect(h.run("CLIENT", "GETNAME") == "$-1\r\n")
        #expect(h.run("HELLO", "4") == "-NOPROTO unsupported protocol version\r\n")
        #expect(h.run("HELLO", "x") == "-ERR Protocol version is not an integer or out of range\r\n")
        #expect(h.run("HELLO", "3", "BOGUS") == "-ERR Syntax error in HELLO option 'BOGUS'\r\n")
        _ = h.run("HELLO", "3", "SETNAME", "graphclient")
        #expect(h.session.name == "graphclient")
    }

    @Test("AUTH and HELLO AUTH follow Redis's rules and wording")
    func authentication() throws {
        let open = try Harness()
        #expect(open.run("AUTH", "x") == "-ERR AUTH <password> called without any password configured for the default user. "
                + "Are you sure your configuration is correct?\r\n")
        let h = try Harness(password: "s3cret")
        #expect(h.run("PING") == "-NOAUTH Authentication required.\r\n")
        #expect(h.run("HELLO", "3").hasPrefix("-NOAUTH HELLO must be called with the client already authenticated"))
        #expect(h.run("HELLO", "3", "AUTH", "default", "bad") == "-WRONGPASS invalid username-password pair or user is disabled.\r\n")
        #expect(h.session.protocolVersion == .resp2 && !h.session.isAuthenticated)
        #expect(h.run("AUTH", "someone", "s3cret") == "-WRONGPASS invalid username-password pair or user is disabled.\r\n")
        #expect(h.run("HELLO", "3", "AUTH", "default", "s3cret").hasPrefix("%7\r\n"))
        #expect(h.session.isAuthenticated && h.session.protocolVersion == .resp3)
        let plain = try Harness(password: "s3cret")
        #expect(plain.run("AUTH", "s3cret") == "+OK\r\n")
        #expect(plain.run("PING") == "+PONG\r\n")
    }

    @Test("CLIENT SETINFO/SETNAME/GETNAME/ID/INFO; other subcommands get Redis's error")
    func client() throws {
        let h = try Harness()
        #expect(h.run("CLIENT", "SETINFO", "LIB-NAME", "redis-py(FalkorDB_v1.8.1)") == "+OK\r\n")
        #expect(h.run("CLIENT", "SETINFO", "LIB-VER", "1.8.1") == "+OK\r\n")
        #expect(h.run("CLIENT", "SETNAME", "bad name") == "-ERR Client names cannot contain spaces, newlines or special characters.\r\n")
        #expect(h.run("CLIENT", "SETNAME", "app") == "+OK\r\n")
        #expect(h.run("CLIENT", "GETNAME") == "$3\r\napp\r\n")
        #expect(h.run("CLIENT", "ID") == ":7\r\n")
        #expect(h.run("CLIENT", "INFO").contains("lib-name=redis-py(FalkorDB_v1.8.1) lib-ver=1.8.1"))
        #expect(h.run("CLIENT", "MAINT_NOTIFICATIONS", "ON") == "-ERR unknown subcommand 'MAINT_NOTIFICATIONS'. Try CLIENT HELP.\r\n")
    }

    @Test("SELECT 0 is accepted; graphd has one database, so other indexes are refused")
    func select() throws {
        let h = try Harness()
        #expect(h.run("SELECT", "0") == "+OK\r\n")
        #expect(h.run("SELECT", "1").hasPrefix("-ERR DB index is out of range"))
    }

    @Test("INFO reports graphd's own figures in Redis's layout; RESP3 gets a verbatim string")
    func info() throws {
        let h = try Harness()
        _ = h.run("GRAPH.QUERY", "social", "CREATE (:User {id: 1})-[:FRIEND]->(:User {id: 2})")
        let server = h.run("INFO", "server")
        #expect(server.contains("# Server\r\n") && server.contains("redis_mode:standalone\r\n") && server.contains("tcp_port:6479"))
        #expect(!server.contains("# Graphs"))
        let all = h.run("INFO", "all")
        for field in ["graphs:1", "nodes:2", "relationships:1", "graph_social:nodes=2,relationships=1,log_bytes=",
                      "used_memory_rss:", "graphd_log_bytes:", "connected_clients:", "total_commands_processed:",
                      "cmdstat_graph.query:calls=1,usec="] {
            #expect(all.contains(field), "INFO all lacks \(field)")
        }
        _ = h.run("HELLO", "3")
        #expect(h.run("INFO", "server").hasPrefix("="))
    }

    @Test("CONFIG GET answers redis-benchmark's probe; CONFIG SET is refused with a pointer to GRAPH.CONFIG")
    func config() throws {
        let h = try Harness()
        #expect(h.run("CONFIG", "GET", "save") == "*2\r\n$4\r\nsave\r\n$0\r\n\r\n")
        #expect(h.run("CONFIG", "GET", "appendonly") == "*2\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n")
        #expect(h.run("CONFIG", "GET", "nosuch") == "*0\r\n")
        #expect(h.run("CONFIG", "GET", "requirepass") == "*0\r\n", "the password is never echoed")
        #expect(h.run("CONFIG", "SET", "save", "").hasPrefix("-ERR CONFIG SET is not supported"))
        _ = h.run("HELLO", "3")
        #expect(h.run("CONFIG", "GET", "port") == "%1\r\n$4\r\nport\r\n$4\r\n6479\r\n")
    }

    @Test("COMMAND COUNT, LIST, INFO and DOCS describe the command table")
    func command() throws {
        let h = try Harness()
        let count = h.table.allSpecs.count
        #expect(h.run("COMMAND", "COUNT") == ":\(count)\r\n")
        #expect(h.run("COMMAND", "DOCS", "ping").hasPrefix("*2\r\n$4\r\nping\r\n*6\r\n$7\r\nsummary\r\n"))
        #expect(h.run("COMMAND", "DOCS").hasPrefix("*\(2 * count)\r\n"))
        #expect(h.run("COMMAND", "INFO", "graph.query").hasPrefix("*1\r\n*10\r\n$11\r\ngraph.query\r\n:-3\r\n"))
        #expect(h.run("COMMAND", "INFO", "nosuch") == "*1\r\n$-1\r\n")
    }

    @Test("GRAPH.CONFIG GET/SET with FalkorDB's names, shapes and errors")
    func graphConfig() throws {
        let h = try Harness()
        #expect(h.run("GRAPH.CONFIG", "GET", "timeout_max") == "*2\r\n$11\r\nTIMEOUT_MAX\r\n:300000\r\n")
        #expect(h.run("GRAPH.CONFIG", "SET", "RESULTSET_SIZE", "1000") == "+OK\r\n")
        #expect(h.run("GRAPH.CONFIG", "GET", "RESULTSET_SIZE") == "*2\r\n$14\r\nRESULTSET_SIZE\r\n:1000\r\n")
        #expect(h.run("GRAPH.CONFIG", "GET", "NOPE") == "-Unknown configuration field\r\n")
        #expect(h.run("GRAPH.CONFIG", "SET", "THREAD_COUNT", "4") == "-This configuration parameter cannot be set at run-time\r\n")
        #expect(h.run("GRAPH.CONFIG", "SET", "TIMEOUT_DEFAULT", "abc") == "-Failed to set config value TIMEOUT_DEFAULT to abc\r\n")
        #expect(h.run("GRAPH.CONFIG", "FOO", "x") == "-Unknown subcommand for GRAPH.CONFIG\r\n")
        #expect(h.run("GRAPH.CONFIG", "GET", "*").hasPrefix("*\(ConfigParameter.all.count)\r\n*2\r\n$7\r\nTIMEOUT\r\n"))
    }

    @Test("GRAPH.QUERY flags: --compact and TIMEOUT in any order and case; bad or unknown ones are errors")
    func queryFlags() throws {
        let h = try Harness()
        #expect(h.run("GRAPH.QUERY", "g", "RETURN 1", "timeout", "500", "--compact").hasPrefix("*3\r\n*1\r\n*2\r\n:1\r\n$1\r\n1\r\n"))
        #expect(h.run("GRAPH.QUERY", "g", "RETURN 1", "--compact", "TIMEOUT", "500").hasPrefix("*3\r\n*1\r\n*2\r\n:1\r\n"))
        #expect(h.run("GRAPH.QUERY", "g", "RETURN 1", "TIMEOUT", "abc") == "-Failed to parse query timeout value\r\n")
        #expect(h.run("GRAPH.QUERY", "g", "RETURN 1", "TIMEOUT") == "-Failed to parse query timeout value\r\n")
        #expect(h.run("GRAPH.QUERY", "g", "RETURN 1", "version", "3").hasPrefix("-ERR unknown argument 'version'"))
        #expect(h.run("GRAPH.CONFIG", "SET", "TIMEOUT_MAX", "100") == "+OK\r\n")
        #expect(h.run("GRAPH.QUERY", "g", "RETURN 1", "TIMEOUT", "200")
                == "-The query TIMEOUT parameter value cannot exceed the TIMEOUT_MAX configuration parameter value\r\n")
    }

    @Test("A query longer than MAX_QUERY_LENGTH, or with more rows than RESULTSET_SIZE, gets a clear error")
    func sizeLimits() throws {
        var limits = QueryLimits()
        limits.maxQueryLength = 64
        limits.resultSetSize = 2
        let h = try Harness(limits: limits)
        let long = "RETURN " + String(repeating: "1 + ", count: 20) + "1"
        #expect(h.run("GRAPH.QUERY", "g", long) == "-ERR query is \(long.utf8.count) bytes, longer than MAX_QUERY_LENGTH (64 bytes)\r\n")
        #expect(h.run("GRAPH.QUERY", "g", "UNWIND [1, 2, 3] AS x RETURN x").hasPrefix("-Query result has more than 2 rows, the result-row limit"))
        // A write whose result is over the cap is rolled back, not committed.
        #expect(h.run("GRAPH.QUERY", "g", "UNWIND [1, 2, 3] AS x CREATE (n:N {x: x}) RETURN n").hasPrefix("-Query result has more than 2 rows, the result-row limit"))
        #expect(h.run("GRAPH.CONFIG", "SET", "RESULTSET_SIZE", "-1") == "+OK\r\n")
        #expect(h.run("GRAPH.QUERY", "g", "MATCH (n:N) RETURN count(n)").contains(":0\r\n"))
        #expect(h.run("GRAPH.QUERY", "g", "UNWIND [1, 2, 3] AS x RETURN x").hasPrefix("*3\r\n"))
        #expect(h.run("GRAPH.QUERY", "g", "UNWIND [1, 2] AS x RETURN x").hasPrefix("*3\r\n"))
    }

    @Test("Reading a missing graph answers as an empty graph and creates nothing; a write creates it")
    func missingGraph() throws {
        let h = try Harness()
        #expect(h.run("GRAPH.QUERY", "ghost", "MATCH (n) RETURN count(n)") .contains(":0\r\n"))
        #expect(h.context.dataDirectory.graphNames() == [])
        #expect(h.run("GRAPH.RO_QUERY", "ghost", "MATCH (n) RETURN n") == "-ERR Invalid graph operation on empty key\r\n")
        #expect(h.run("GRAPH.QUERY", "ghost", "MATCH (n RETURN n").hasPrefix("-errMsg: "))
        #expect(h.context.dataDirectory.graphNames() == [])
        #expect(h.run("GRAPH.QUERY", "ghost", "CREATE (:A)").contains("Nodes created: 1"))
        #expect(h.context.dataDirectory.graphNames() == ["ghost"])
    }

    @Test("Graph names with path separators, '..' or too long are refused before touching the disk")
    func graphNames() throws {
        let h = try Harness()
        #expect(h.run("GRAPH.QUERY", "../etc", "CREATE (:A)").hasPrefix("-ERR invalid graph name '../etc'"))
        #expect(h.run("GRAPH.QUERY", "a/b", "CREATE (:A)").hasPrefix("-ERR invalid graph name 'a/b'"))
        #expect(h.run("GRAPH.DELETE", String(repeating: "x", count: 300)).hasPrefix("-ERR invalid graph name"))
        #expect(h.context.dataDirectory.graphNames() == [])
    }

    @Test("GRAPH.SLOWLOG lists a graph's queries slowest first, and RESET empties it")
    func slowLog() throws {
        let h = try Harness()
        _ = h.run("GRAPH.QUERY", "g", "CREATE (:A)")
        _ = h.run("GRAPH.QUERY", "g", "MATCH (a:A) RETURN a")
        let log = h.run("GRAPH.SLOWLOG", "g")
        #expect(log.hasPrefix("*2\r\n*5\r\n"))
        #expect(log.contains("$11\r\nGRAPH.QUERY\r\n") && log.contains("MATCH (a:A) RETURN a"))
        #expect(h.run("GRAPH.SLOWLOG", "g", "RESET") == "+OK\r\n")
        #expect(h.run("GRAPH.SLOWLOG", "g") == "*0\r\n")
    }

    @Test("GRAPH.COPY makes an independent copy with the same ids, survives a restart, and refuses to overwrite")
    func copy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let query = "MATCH (a)-[r]->(b) RETURN id(a), a.v, id(r), r.w, id(b), b.v"
        /// The reply without its statistics (which differ in timing and caching).
        func rows(_ reply: String) -> Substring { reply.prefix { $0 != "C" } }
        var copied = ""
        do {
            let h = try Harness(in: directory)
            _ = h.run("GRAPH.QUERY", "src", "CREATE (:A {v: 1})-[:R {w: 2}]->(:B {v: 3}), (:A {v: 4})")
            #expect(h.run("GRAPH.COPY", "src", "dst") == "$2\r\nOK\r\n")
            copied = h.run("GRAPH.QUERY", "dst", query)
            #expect(rows(copied) == rows(h.run("GRAPH.QUERY", "src", query)))
            #expect(copied.contains(":2\r\n") && copied.contains(":3\r\n"))
            _ = h.run("GRAPH.QUERY", "dst", "CREATE (:C)")
            #expect(h.run("GRAPH.QUERY", "src", "MATCH (n) RETURN count(n)").contains(":3\r\n"))
            #expect(h.run("GRAPH.QUERY", "dst", "MATCH (n) RETURN count(n)").contains(":4\r\n"))
            #expect(h.run("GRAPH.COPY", "src", "dst") == "-ERR graph 'dst' already exists; delete it first or copy to a new name\r\n")
            #expect(h.run("GRAPH.COPY", "nosuch", "x") == "-ERR Invalid graph operation on empty key\r\n")
        }
        // The copy has its own log: opening the directory again replays it.
        let reopened = try Harness(in: directory)
        #expect(rows(reopened.run("GRAPH.QUERY", "dst", query)) == rows(copied))
    }

    @Test("DEL, EXISTS and TYPE treat graphs as keys")
    func keyCommands() throws {
        let h = try Harness()
        _ = h.run("GRAPH.QUERY", "a", "CREATE (:A)")
        _ = h.run("GRAPH.QUERY", "b", "CREATE (:B)")
        #expect(h.run("TYPE", "a") == "+graphdata\r\n")
        #expect(h.run("TYPE", "zz") == "+none\r\n")
        #expect(h.run("EXISTS", "a", "b", "zz", "a") == ":3\r\n")
        #expect(h.run("DEL", "a", "zz") == ":1\r\n")
        #expect(h.context.dataDirectory.graphNames() == ["b"])
        #expect(h.run("DEL", "../x").hasPrefix("-ERR invalid graph name"))
    }

    @Test("GRAPH.EXPLAIN lists the plan without running it; GRAPH.PROFILE runs it and adds counts; neither creates a graph for a read")
    func explainAndProfile() throws {
        let h = try Harness()
        _ = h.run("GRAPH.QUERY", "g", "CREATE (:Person {name: 'a'}), (:Person {name: 'b'})")
        let plan = h.run("GRAPH.EXPLAIN", "g", "MATCH (n:Person) RETURN n")
        #expect(plan.hasPrefix("*3\r\n$7\r\nResults\r\n"), "\(plan)")
        let profile = h.run("GRAPH.PROFILE", "g", "MATCH (n:Person) RETURN n")
        #expect(profile.contains("Records produced: 2"), "\(profile)")
        #expect(h.run("GRAPH.EXPLAIN", "g", "MATCH (n RETURN n").hasPrefix("-errMsg: "))
        _ = h.run("GRAPH.EXPLAIN", "ghost", "MATCH (n) RETURN n")
        _ = h.run("GRAPH.PROFILE", "ghost", "MATCH (n) RETURN n")
        #expect(h.context.dataDirectory.graphNames() == ["g"])
        #expect(h.run("GRAPH.PROFILE", "ghost", "CREATE (:X)").hasPrefix("*"))
        #expect(h.context.dataDirectory.graphNames() == ["g", "ghost"])
    }

    @Test("TIMEOUT stops a runaway read and a runaway write (rolled back); TIMEOUT_DEFAULT applies when none is given")
    func timeouts() throws {
        let h = try Harness()
        _ = h.run("GRAPH.QUERY", "g", "CREATE (:Seed)")
        #expect(h.run("GRAPH.QUERY", "g", "UNWIND range(1, 2000000000) AS x RETURN count(x)", "TIMEOUT", "20")
                .hasPrefix("-Query timed out"))
        #expect(h.run("GRAPH.QUERY", "g", "UNWIND range(1, 2000000000) AS x CREATE (:T {x: x})", "TIMEOUT", "20")
                .hasPrefix("-Query timed out"))
        #expect(h.run("GRAPH.QUERY", "g", "MATCH (t:T) RETURN count(t)").contains(":0\r\n"), "the timed-out write left nothing")
        #expect(h.run("GRAPH.CONFIG", "SET", "TIMEOUT_DEFAULT", "20") == "+OK\r\n")
        #expect(h.run("GRAPH.QUERY", "g", "UNWIND range(1, 2000000000) AS x RETURN count(x)").hasPrefix("-Query timed out"))
    }
}
