// CommandTableTests.swift — the command table: case-insensitive lookup, arity checked in
// one place with Redis's wording, the unknown-command text, and the GRAPH.* handlers
// against a real data directory in a temporary folder.

import GraphQuery
import GraphStore
import Testing
@testable import graphd
import GraphTestSupport

private func request(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }
private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite("Command table")
struct CommandTableTests {
    let table = CommandTable.standard()

    /// Runs `body` with a context over a fresh data directory.
    func withContext(_ body: (ServerContext) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let context = ServerContext(dataDirectory: try DataDirectory(path: directory.path), engine: QueryEngine())
        try body(context)
    }

    @Test("Command names are looked up case-insensitively")
    func caseInsensitive() {
        #expect(table.spec(named: Array("graph.query".utf8))?.name == "graph.QUERY")
        #expect(table.spec(named: Array("GRAPH.RO_QUERY".utf8))?.name == "graph.RO_QUERY")
        #expect(table.spec(named: Array("PiNg".utf8))?.name == "ping")
        #expect(table.spec(named: Array("nosuch".utf8)) == nil)
        #expect(table.spec(named: Array("PINGÉ".utf8)) == nil)
        #expect(table.spec(named: Array(repeating: UInt8(ascii: "a"), count: 100_000)) == nil)
    }

    @Test("Query text is checked to be UTF-8 wherever a stray byte falls")
    func queryTextValidation() throws {
        for text in ["RETURN 1", "", "RETURN 'é' AS accented, '日本' AS kanji", String(repeating: "x", count: 17)] {
            #expect(CommandInvocation.validText(Array(text.utf8)) == text)
        }
        let ascii = Array("MATCH (u:User {id: $id}) RETURN u.name".utf8)
        // A lone continuation byte, a truncated sequence and an overlong one, in the words
        // checked eight at a time and in the tail.
        for bad: [UInt8] in [[0x80], [0xC3], [0xC0, 0xAF]] {
            for at in [0, 3, 8, 17, ascii.count] {
                var bytes = ascii
                bytes.insert(contentsOf: bad, at: at)
                #expect(CommandInvocation.validText(bytes) == nil, "\(bad) at \(at)")
            }
        }
        try withContext { context in
            var query = Array("RETURN 'x".utf8)
            query.append(0xFF)
            query.append(contentsOf: "' AS v".utf8)
            let (reply, _) = table.execute([Array("GRAPH.QUERY".utf8), Array("g".utf8), query], context: context)
            #expect(String(decoding: reply, as: UTF8.self) == "-ERR query text is not valid UTF-8\r\n")
        }
    }

    @Test("Arity follows Redis's convention: n exactly, -n at least")
    func arity() {
        let query = table.spec(named: Array("GRAPH.QUERY".utf8))!
        #expect(!query.accepts(argumentCount: 2))
        #expect(query.accepts(argumentCount: 3))
        #expect(query.accepts(argumentCount: 5))
        let list = table.spec(named: Array("GRAPH.LIST".utf8))!
        #expect(list.accepts(argumentCount: 1))
        #expect(!list.accepts(argumentCount: 2))
    }

    @Test("Wrong arity gets Redis's wording with the module's spelling")
    func wrongArity() throws {
        try withContext { context in
            #expect(text(table.execute(request("GRAPH.QUERY", "g"), context: context).reply)
                == "-ERR wrong number of arguments for 'graph.QUERY' command\r\n")
            #expect(text(table.execute(request("graph.list", "x"), context: context).reply)
                == "-ERR wrong number of arguments for 'graph.LIST' command\r\n")
            #expect(text(table.execute(request("ECHO"), context: context).reply)
                == "-ERR wrong number of arguments for 'echo' command\r\n")
            #expect(text(table.execute(request("PING", "a", "b"), context: context).reply)
                == "-ERR wrong number of arguments for 'ping' command\r\n")
        }
    }

    @Test("An unknown command lists its first arguments, with a trailing space")
    func unknownCommand() throws {
        try withContext { context in
            #expect(text(table.execute(request("FOO", "bar", "baz"), context: context).reply)
                == "-ERR unknown command 'FOO', with args beginning with: 'bar' 'baz' \r\n")
            #expect(text(table.execute(request("%1"), context: context).reply)
                == "-ERR unknown command '%1', with args beginning with: \r\n")
        }
        let long = String(repeating: "a", count: 200)
        let message = CommandTable.unknownCommandMessage(request("X", long, "next"))
        // The argument list is cut to 128 bytes of content and stops there.
        #expect(message == "ERR unknown command 'X', with args beginning with: '\(String(repeating: "a", count: 128))' ")
    }

    @Test("PING, ECHO and QUIT reply as Redis does")
    func connectionCommands() throws {
        try withContext { context in
            #expect(text(table.execute(request("PING"), context: context).reply) == "+PONG\r\n")
            #expect(text(table.execute(request("ping", "hello"), context: context).reply) == "$5\r\nhello\r\n")
            #expect(text(table.execute(request("ECHO", "x y"), context: context).reply) == "$3\r\nx y\r\n")
            let quit = table.execute(request("QUIT"), context: context)
            #expect(text(quit.reply) == "+OK\r\n")
            #expect(quit.outcome == .close)
        }
    }

    @Test("GRAPH.LIST, GRAPH.DELETE and GRAPH.RO_QUERY on a missing graph")
    func graphCommandsOnMissingGraph() throws {
        try withContext { context in
            #expect(text(table.execute(request("GRAPH.LIST"), context: context).reply) == "*0\r\n")
            #expect(text(table.execute(request("GRAPH.DELETE", "nope"), context: context).reply)
                == "-ERR Invalid graph operation on empty key\r\n")
            #expect(text(table.execute(request("GRAPH.RO_QUERY", "nope", "RETURN 1"), context: context).reply)
                == "-ERR Invalid graph operation on empty key\r\n")
            // The failed read-only query did not create the graph.
            #expect(text(table.execute(request("GRAPH.LIST"), context: context).reply) == "*0\r\n")
        }
    }

    @Test("Unknown GRAPH.QUERY flags are refused, not ignored")
    func unknownQueryFlags() throws {
        try withContext { context in
            #expect(text(table.execute(request("GRAPH.QUERY", "g", "RETURN 1", "--bogus"), context: context).reply)
                == "-ERR unknown argument '--bogus' for 'graph.QUERY' (expected --compact or TIMEOUT <milliseconds>)\r\n")
        }
    }

    @Test("GRAPH.QUERY creates a missing graph, GRAPH.DELETE removes it")
    func queryCreatesAndDeleteRemoves() throws {
        try withContext { context in
            let created = table.execute(request("GRAPH.QUERY", "social", "CREATE (:User {id: 1})"), context: context)
            #expect(text(created.reply).hasPrefix("*1\r\n*5\r\n$15\r\nLabels added: 1\r\n$16\r\nNodes created: 1\r\n$17\r\nProperties set: 1\r\n"))
            #expect(text(table.execute(request("GRAPH.LIST"), context: context).reply) == "*1\r\n$6\r\nsocial\r\n")
            let read = table.execute(request("GRAPH.RO_QUERY", "social", "MATCH (u:User) RETURN u.id"), context: context)
            #expect(text(read.reply).hasPrefix("*3\r\n*1\r\n$4\r\nu.id\r\n*1\r\n*1\r\n:1\r\n*2\r\n"))
            #expect(text(table.execute(request("GRAPH.RO_QUERY", "social", "CREATE (:X)"), context: context).reply)
                == "-graph.RO_QUERY is to be executed only on read-only queries\r\n")
            #expect(text(table.execute(request("GRAPH.DELETE", "social"), context: context).reply) == "+OK\r\n")
            #expect(text(table.execute(request("GRAPH.LIST"), context: context).reply) == "*0\r\n")
        }
    }
}
