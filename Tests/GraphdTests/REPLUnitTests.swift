// REPLUnitTests.swift — the REPL's pure parts: key decoding, line editing, statement
// splitting, result formatting, and a session on an embedded data directory (parameters,
// :use, :schema, errors with a caret).

import GraphQuery
import GraphStore
import GraphTestSupport
import Testing
@testable import graphd

@Suite("REPL parts")
struct REPLUnitTests {
    @Test("Arrow keys, Home/End, Delete, control keys and UTF-8 decode from raw bytes")
    func keys() {
        var decoder = KeyDecoder()
        let keys = decoder.keys(Array("a\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}OH\u{1B}[4~\u{1B}[3~\u{3}\u{4}\u{7F}\r é".utf8))
        #expect(keys == [.character("a"), .up, .down, .right, .left, .home, .end, .delete,
                         .interrupt, .endOfFile, .backspace, .enter, .character(" "), .character("é")])
    }

    @Test("The edit buffer inserts at the cursor and deletes words and line ends")
    func editing() {
        var buffer = EditBuffer("MATCH (n) RETURN n")
        buffer.move(by: -9)
        buffer.insert("X")
        #expect(buffer.text == "MATCH (n)X RETURN n")
        buffer.backspace()
        buffer.killToEnd()
        #expect(buffer.text == "MATCH (n)")
        buffer.deleteWord()
        #expect(buffer.text == "MATCH ")
        buffer.killToStart()
        #expect(buffer.text == "" && buffer.cursor == 0)
    }

    @Test("Statements end at ';' outside strings, names and comments, across lines")
    func statements() {
        var buffer = StatementBuffer()
        #expect(buffer.add(line: "MATCH (n)") == [])
        #expect(!buffer.isEmpty)
        #expect(buffer.add(line: "RETURN 'a;b', `x;y` // c;") == [])
        #expect(buffer.add(line: "/* ; */ ; RETURN 2;") == [.statement("MATCH (n)\nRETURN 'a;b', `x;y` // c;\n/* ; */"),
                                                             .statement("RETURN 2")])
        #expect(buffer.isEmpty)
        #expect(buffer.add(line: "  :use fb;") == [.command("use fb")])
        #expect(buffer.add(line: "RETURN 1; :schema") == [.statement("RETURN 1"), .command("schema")])
        #expect(buffer.add(line: "RETURN 1; :explain RETURN 2; RETURN 3;")
                == [.statement("RETURN 1"), .command("explain RETURN 2"), .statement("RETURN 3")])
        #expect(StatementBuffer.split("RETURN 'it\\'s;';\nRETURN 3") == [.statement("RETURN 'it\\'s;'"), .statement("RETURN 3")])
    }

    @Test("Tables align columns, right-align numbers and cut long cells to the width")
    func table() {
        let result = QueryResult(columns: ["name", "n"], rows: [[.string("Ann"), .integer(7)],
                                                              [.string(String(repeating: "x", count: 100)), .integer(12)]],
                                 hasResultSet: true)
        let text = ResultFormatter.table(result, width: 40)
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 40 })
        #expect(lines[1] == "| name" + String(repeating: " ", count: 27) + " | n  |")
        #expect(lines[3].hasPrefix("| \"Ann\""))
        #expect(lines[3].hasSuffix("|  7 |"))
        #expect(lines[4].contains("…"))
        #expect(ResultFormatter.summary(result, milliseconds: nil) == "2 rows")
    }

    @Test("CSV quotes what needs it; JSON lines keep types")
    func csvAndJSON() {
        let node = ResultNode(id: 3, labels: [SchemaName(id: 0, name: "User")],
                              properties: [ResultProperty(key: SchemaName(id: 0, name: "name"), value: .string("A \"B\""))])
        let result = QueryResult(columns: ["n", "s"], rows: [[.node(node), .string("x,y")]], hasResultSet: true)
        #expect(ResultFormatter.csv(result) == "n,s\n\"(3:User {name: \"\"A \\\"\"B\\\"\"\"\"})\",\"x,y\"\n")
        #expect(ResultFormatter.json(result)
                == "{\"n\":{\"id\":3,\"labels\":[\"User\"],\"properties\":{\"name\":\"A \\\"B\\\"\"}},\"s\":\"x,y\"}\n")
    }

    /// A session on a fresh data directory, collecting what it prints.
    final class Capture {
        var output = ""
        var errors = ""
    }

    func session(_ path: String, capture: Capture) throws -> REPLSession {
        let backend = EmbeddedBackend(directory: try DataDirectory(path: path))
        let out = REPLOutput(output: { capture.output += $0 }, diagnostics: { capture.errors += $0 }, width: { 80 })
        return REPLSession(backend: backend, graph: "g", format: .table, timing: false, output: out)
    }

    @Test("A session runs statements with :param values, switches graphs and describes the schema")
    func sessionCommands() throws {
        try withTemporaryDirectory { path in
            let capture = Capture()
            let repl = try session(path, capture: capture)
            #expect(repl.handle(.command("param who => 'A' + 'nn'")) == .succeeded)
            #expect(repl.handle(.statement("CREATE (:User {name: $who})")) == .succeeded)
            #expect(repl.handle(.statement("MATCH (u:User) RETURN u.name")) == .succeeded)
            #expect(capture.output.contains("| \"Ann\"  |"))
            #expect(repl.handle(.command("schema")) == .succeeded)
            #expect(capture.output.contains("Labels:              User (1)"))
            let before = capture.output.count
            #expect(repl.handle(.command("explain MATCH (u:User) RETURN u.name")) == .succeeded)
            #expect(repl.handle(.statement("PROFILE MATCH (u:User) RETURN u.name")) == .succeeded)
            let plans = String(capture.output.dropFirst(before))
            #expect(plans.contains("Results") && plans.contains("Records produced"), "\(plans)")
            #expect(repl.handle(.command("use other")) == .succeeded)
            #expect(repl.graph == "other")
            #expect(repl.handle(.statement("MATCH (u:User) RETURN count(u) AS c")) == .succeeded)
            #expect(capture.output.contains("| 0 |"))
            #expect(repl.handle(.command("graphs")) == .succeeded)
            #expect(capture.output.contains("  g\n* other\n"))
            #expect(repl.handle(.command("timing maybe")) == .failed)
            #expect(repl.handle(.command("nope")) == .failed)
            #expect(capture.errors.contains("unknown command ':nope'"))
            #expect(repl.handle(.command("quit")) == .quit)
        }
    }

    @Test("A syntax error prints the line of the statement with a caret under the column")
    func caret() throws {
        try withTemporaryDirectory { path in
            let capture = Capture()
            let repl = try session(path, capture: capture)
            #expect(repl.handle(.statement("MATCH (n)\nRETRN n")) == .failed)
            let lines = capture.errors.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[0].hasPrefix("Syntax error: "))
            #expect(lines[1] == "  at line 2, column 1:")
            #expect(lines[2] == "  RETRN n")
            #expect(lines[3] == "  ^")
        }
    }

    @Test("A compact GRAPH.QUERY reply decodes with its types, and schema ids resolve to names")
    func remoteReply() throws {
        let node: RESPClientReply = .array([.integer(8), .array([.integer(4), .array([.integer(0)]),
                                                                 .array([.array([.integer(1), .integer(2), .bulk("Ann")])])])])
        let reply: RESPClientReply = .array([.array([.array([.integer(1), .bulk("n")]), .array([.integer(1), .bulk("x")])]),
                                             .array([.array([node, .array([.integer(5), .bulk("1.5")])])]),
                                             .array([.bulk("Nodes created: 1"), .bulk("Query internal execution time: 0.5 milliseconds")])])
        var decoder = CompactReplyDecoder()
        let result = try decoder.result(from: reply)
        #expect(result.columns == ["n", "x"])
        #expect(result.rows[0][1] == .double(1.5))
        #expect(result.statistics.nodesCreated == 1)
        #expect(decoder.needsNames && decoder.maximumIDs.key == 1)
        let names = SchemaNameCache(labels: ["User"], types: [], keys: ["id", "name"])
        #expect(!decoder.maximumIDs.exceeds(names))
        #expect(ValueText.readable(names.resolve(result.rows[0][0])) == "(4:User {name: \"Ann\"})")
        #expect(RemoteBackend.withParameters("RETURN $a", ["a": .string("it's")]) == "CYPHER a='it\\'s' RETURN $a")
        #expect(RemoteBackend.syntaxError("errMsg: Invalid input 'R' line: 1, column: 10, offset: 9 errCtx: MATCH (n RETRN n errCtxOffset: 9")
                == QueryError(.syntax, "Invalid input 'R'", location: SourceLocation(line: 1, column: 10, offset: 9),
                              contextLine: "MATCH (n RETRN n"))
    }
}
