// REPLEndToEndTests.swift — `graphd repl` as a person and a script use it: through a
// pseudo-terminal (a multi-line statement, a syntax error with its caret, Up-arrow history
// kept across runs, Ctrl-C on the input and on a running query, Ctrl-D), through standard
// input and -e (exit status 1 on a failed statement), and the message when a server holds
// the data directory. Also the binary's exit status 2 on a bad flag.

import Foundation
import Glibc
import GraphTestSupport
import Testing

@Suite("graphd repl end to end")
struct REPLEndToEndTests {
    func startREPL(_ data: String, history: String) throws -> PseudoTerminalProcess {
        try PseudoTerminalProcess(executable: try GraphdProcess.executablePath(),
                                  arguments: ["repl", "--data", data, "--history", history, "--graph", "t"])
    }

    @Test("At a terminal: a multi-line statement, a caret under a syntax error, Ctrl-C on input, Ctrl-D to leave")
    func terminalSession() throws {
        try withTemporaryDirectory { path in
            let repl = try startREPL(path + "/data", history: path + "/history")
            // Each read consumes the output up to what it waited for; waiting for a fresh
            // prompt ("\n\rt> ") before typing means the editor is reading keys again.
            try repl.read(until: Self.prompt)
            repl.type("CREATE (:User {name: 'Ann'}),\r")
            try repl.read(until: "-> ")
            repl.type("(:User {name: 'Bo'});\r")
            try repl.read(until: "Nodes created: 2")
            try repl.read(until: Self.prompt)
            repl.type("MATCH (u:User)\r")
            try repl.read(until: "-> ")
            repl.type("RETURN u.name ORDER BY u.name;\r")
            let table = try repl.read(until: "2 rows")
            #expect(table.contains("| \"Ann\"  |") && table.contains("| \"Bo\"   |"))
            try repl.read(until: Self.prompt)
            repl.type("MATCH (u:User)\r")
            try repl.read(until: "-> ")
            repl.type("RETRN u;\r")
            let error = try repl.read(until: "^")
            #expect(error.contains("Syntax error"))
            #expect(error.contains("at line 2, column 1:\r\n  RETRN u\r\n  ^"))
            try repl.read(until: Self.prompt)
            // Ctrl-C drops the unfinished statement: the next one runs on its own.
            repl.type("MATCH (n\r")
            try repl.read(until: "-> ")
            repl.type("\u{3}")
            try repl.read(until: "^C")
            try repl.read(until: Self.prompt)
            repl.type("RETURN 40 + 2 AS answer;\r")
            #expect(try repl.read(until: "1 row").contains("42"))
            try repl.read(until: Self.prompt)
            repl.type("\u{4}")
            #expect(try repl.waitForExit() == 0)
        }
    }

    static let prompt = "\n\rt> "

    @Test("Up arrow recalls earlier lines, also from the previous run's history file")
    func history() throws {
        try withTemporaryDirectory { path in
            let first = try startREPL(path + "/data", history: path + "/history")
            try first.read(until: Self.prompt)
            first.type("RETURN 'remembered' AS word;\r")
            try first.read(until: "1 row")
            try first.read(until: Self.prompt)
            first.type(":quit\r")
            #expect(try first.waitForExit() == 0)

            let second = try startREPL(path + "/data", history: path + "/history")
            try second.read(until: Self.prompt)
            // Up twice passes ":quit" to reach the query.
            second.type("\u{1B}[A\u{1B}[A")
            try second.read(until: "RETURN 'remembered' AS word;")
            second.type("\r")
            #expect(try second.read(until: "1 row").contains("\"remembered\""))
            try second.read(until: Self.prompt)
            second.type("RETURN 1 AS a;\r")
            try second.read(until: "1 row")
            try second.read(until: Self.prompt)
            // Up recalls it; six Lefts land after "1", Backspace and "2" edit it in the middle.
            second.type("\u{1B}[A" + String(repeating: "\u{1B}[D", count: 6) + "\u{7F}2\r")
            #expect(try second.read(until: "1 row").contains("| 2 |"))
            try second.read(until: Self.prompt)
            second.type("\u{4}")
            #expect(try second.waitForExit() == 0)
            let saved = try String(contentsOfFile: path + "/history", encoding: .utf8)
            #expect(saved.contains("RETURN 'remembered' AS word;\n"))
            #expect(saved.contains("RETURN 2 AS a;\n"))
        }
    }

    @Test("Ctrl-C while a query runs returns to the prompt")
    func interruptQuery() throws {
        try withTemporaryDirectory { path in
            let repl = try startREPL(path + "/data", history: path + "/history")
            try repl.read(until: Self.prompt)
            // Ten to the twelfth rows: it would run far longer than the test.
            let digits = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"
            let unwinds = (0..<12).map { "UNWIND \(digits) AS x\($0)" }.joined(separator: " ")
            repl.type(unwinds + " RETURN count(*);\r")
            try repl.read(until: "\r\n")
            // The REPL leaves raw mode while the query runs, and Ctrl-C becomes SIGINT. A
            // Ctrl-C typed in the instant before that is a key for the next prompt instead,
            // so keep pressing it until the REPL reports the interruption.
            var interrupted = false
            for _ in 0..<50 where !interrupted {
                repl.type("\u{3}")
                interrupted = (try? repl.read(until: "Interrupted", seconds: 1)) != nil
            }
            #expect(interrupted)
            try repl.read(until: Self.prompt)
            // The query itself stopped, not only the wait for it: a write needs the graph's
            // write lock, which the 10^12-row read would otherwise hold for hours.
            repl.type("CREATE (:After);\r")
            let created = try repl.read(until: "Nodes created: 1")
            #expect(created.contains("Nodes created: 1"), "\(created.debugDescription)")
            try repl.read(until: Self.prompt)
            repl.type("RETURN 7 AS seven;\r")
            let seven = try repl.read(until: "1 row")
            #expect(seven.contains("|     7 |"), "\(seven.debugDescription)")
            try repl.read(until: Self.prompt)
            repl.type("\u{4}")
            #expect(try repl.waitForExit() == 0)
        }
    }

    /// Runs graphd with `input` on standard input; returns status, stdout, stderr.
    func run(_ arguments: [String], input: String, environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = try TemporaryDirectory("graphd-repl-stdin")
        defer { directory.remove() }
        try writeFileBytes(directory.path + "/in", Array(input.utf8))
        let assignments = environment.map { "\($0.key)='\($0.value)'" }
        let quoted = ["env"] + assignments + ([try GraphdProcess.executablePath()] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let child = try ChildProcess(executable: "/bin/sh",
                                     arguments: ["-c", quoted.joined(separator: " ")
                                                 + " <'\(directory.path)/in' >'\(directory.path)/out' 2>'\(directory.path)/err'"],
                                     outputPath: directory.path + "/sh")
        let status = child.wait()
        return (status,
                (try? String(contentsOfFile: directory.path + "/out", encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: directory.path + "/err", encoding: .utf8)) ?? "")
    }

    @Test("A script on standard input runs statement by statement and stops with status 1 at a failure")
    func script() throws {
        try withTemporaryDirectory { path in
            let script = """
                CREATE (:City {name: 'Oslo'}),
                       (:City {name: 'Rome'});
                MATCH (c:City) RETURN c.name ORDER BY c.name;
                MATCH (c:City RETURN c;
                RETURN 'never' AS x;
                """
            let result = try run(["repl", "--data", path, "--no-timing"], input: script)
            #expect(result.status == 1)
            #expect(result.stdout.contains("Nodes created: 2"))
            #expect(result.stdout.contains("| \"Oslo\" |"))
            #expect(!result.stdout.contains("never"))
            #expect(result.stderr.contains("Syntax error"))
            #expect(result.stderr.contains("^"))

            let ok = try run(["repl", "--data", path, "--format", "csv"], input: "MATCH (c:City) RETURN c.name ORDER BY c.name;\n")
            #expect(ok.status == 0)
            #expect(ok.stdout == "c.name\nOslo\nRome\n")

            let json = try run(["repl", "--data", path, "--format", "json", "-e", "MATCH (c:City) RETURN count(c) AS n"], input: "")
            #expect(json.status == 0)
            #expect(json.stdout == "{\"n\":2}\n")
            let two = try run(["repl", "--data", path, "--format", "csv", "-e", "RETURN 1 AS a", "-e", "RETURN 2 AS b"], input: "")
            #expect(two.stdout == "a\n1\nb\n2\n")
            // Flags from the environment; the command line wins.
            let fromEnvironment = try run(["repl", "-e", "MATCH (c:City) RETURN count(c) AS n"], input: "",
                                          environment: ["GRAPHD_DATA": path, "GRAPHD_FORMAT": "csv"])
            #expect(fromEnvironment.stdout == "n\n2\n", "\(fromEnvironment.stderr)")
            let overridden = try run(["repl", "--format", "json", "-e", "MATCH (c:City) RETURN count(c) AS n"], input: "",
                                     environment: ["GRAPHD_DATA": path, "GRAPHD_FORMAT": "csv"])
            #expect(overridden.stdout == "{\"n\":2}\n")
        }
    }

    @Test("The embedded REPL refuses a data directory a server holds and shows the --connect form")
    func lockedDirectory() throws {
        try withTemporaryDirectory { path in
            let server = try GraphdProcess(dataDirectory: path)
            defer { _ = server.terminate() }
            let result = try run(["repl", "--data", path, "-e", "RETURN 1"], input: "")
            #expect(result.status == 1)
            #expect(result.stderr.contains("in use by another graphd (pid \(server.process.pid))"))
            #expect(result.stderr.contains("graphd repl --connect 127.0.0.1:"))
            // And over RESP it works.
            let remote = try run(["repl", "--connect", "127.0.0.1:\(server.port)", "--graph", "r", "--no-timing",
                                  "-e", "CREATE (:T {v: 1.5}); MATCH (t:T) RETURN t, t.v"], input: "")
            #expect(remote.status == 0, "\(remote.stderr)")
            #expect(remote.stdout.contains("(0:T {v: "))
            let typo = try run(["repl", "--connect", "127.0.0.1:\(server.port)", "-e", "MATCH (t:T RETURN t"], input: "")
            #expect(typo.status == 1)
            #expect(typo.stderr.contains("at line 1, column 12:\n  MATCH (t:T RETURN t\n             ^"), "\(typo.stderr)")
        }
    }

    @Test("--connect with --password authenticates; without it the server's refusal is shown")
    func password() throws {
        try withTemporaryDirectory { path in
            let server = try GraphdProcess(dataDirectory: path, extraArguments: ["--requirepass", "s3cret"])
            defer { _ = server.terminate() }
            let address = "127.0.0.1:\(server.port)"
            let refused = try run(["repl", "--connect", address, "-e", "RETURN 1 AS one"], input: "")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("NOAUTH"), "\(refused.stderr)")
            let wrong = try run(["repl", "--connect", address, "--password", "nope", "-e", "RETURN 1 AS one"], input: "")
            #expect(wrong.status == 1)
            let allowed = try run(["repl", "--connect", address, "--password", "s3cret", "--format", "csv", "-e", "RETURN 1 AS one"],
                                  input: "")
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(allowed.stdout == "one\n1\n")
        }
    }

    @Test("An unknown flag or a bad value exits with status 2 and one line on stderr")
    func badFlags() throws {
        for arguments in [["--frobnicate"], ["repl", "--format", "xml"], ["import", "--graph"]] {
            let result = try GraphdProcess.runToExit(arguments)
            #expect(result.status == 2)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stdout.isEmpty)
        }
        let version = try GraphdProcess.runToExit(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("graphd "))
    }
}
