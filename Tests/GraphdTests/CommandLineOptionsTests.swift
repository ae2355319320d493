// CommandLineOptionsTests.swift — graphd's command line: subcommands and their defaults,
// overrides, flags from GRAPHD_* environment variables (a flag wins), help that lists every
// flag, --version, and one-line errors for anything it does not understand.

import Testing
@testable import graphd

@Suite("Command line")
struct CommandLineOptionsTests {
    @Test("No arguments serves on 127.0.0.1:6479 with data in ./graphd-data")
    func defaults() throws {
        #expect(try CommandLineOptions.parse([]) ==
            .serve(ServeOptions(port: 6479, bindAddress: "127.0.0.1", dataDirectory: "./graphd-data")))
        #expect(try CommandLineOptions.parse(["serve"]) == CommandLineOptions.parse([]))
    }

    @Test("serve takes --port, --data and --bind, with a space or an equals sign")
    func overrides() throws {
        #expect(try CommandLineOptions.parse(["serve", "--port", "7000", "--data", "/tmp/d", "--bind", "0.0.0.0"]) ==
            .serve(ServeOptions(port: 7000, bindAddress: "0.0.0.0", dataDirectory: "/tmp/d")))
        #expect(try CommandLineOptions.parse(["--port=7001", "--data=x"]) ==
            .serve(ServeOptions(port: 7001, bindAddress: "127.0.0.1", dataDirectory: "x")))
    }

    @Test("GRAPHD_PORT, GRAPHD_DATA and GRAPHD_BIND supply flags; a flag on the command line wins")
    func environment() throws {
        let environment = ["GRAPHD_PORT": "7100", "GRAPHD_DATA": "/env/data", "GRAPHD_BIND": "::1"]
        #expect(try CommandLineOptions.parse([], environment: environment) ==
            .serve(ServeOptions(port: 7100, bindAddress: "::1", dataDirectory: "/env/data")))
        #expect(try CommandLineOptions.parse(["--port", "7200"], environment: environment) ==
            .serve(ServeOptions(port: 7200, bindAddress: "::1", dataDirectory: "/env/data")))
        guard case .repl(let repl) = try CommandLineOptions.parse(["repl", "--graph", "g2"],
                                                                  environment: ["GRAPHD_DATA": "/e", "GRAPHD_GRAPH": "g1"]) else {
            Issue.record("expected repl"); return
        }
        #expect(repl.dataDirectory == "/e")
        #expect(repl.graph == "g2")
    }

    @Test("A bad value in the environment names the variable")
    func badEnvironment() {
        #expect(throws: UsageError(description: "graphd: invalid port 'x' (expected 0-65535) (from GRAPHD_PORT)")) {
            try CommandLineOptions.parse([], environment: ["GRAPHD_PORT": "x"])
        }
    }

    @Test("repl parses --connect, --password, -e (repeatable), --format and --graph")
    func repl() throws {
        let command = try CommandLineOptions.parse(["repl", "--connect", "localhost:7000", "--password", "pw",
                                                    "-e", "RETURN 1;", "-e", ":graphs", "--format", "csv", "-g", "fb"])
        guard case .repl(let options) = command else { Issue.record("expected repl"); return }
        #expect(options.connect == ServerAddress(host: "localhost", port: 7000))
        #expect(options.password == "pw")
        #expect(options.execute == ["RETURN 1;", ":graphs"])
        #expect(options.format == .csv)
        #expect(options.graph == "fb")
        guard case .repl(let bare) = try CommandLineOptions.parse(["repl", "--connect", "6500"]) else { return }
        #expect(bare.connect == ServerAddress(host: "127.0.0.1", port: 6500))
        guard case .repl(let v6) = try CommandLineOptions.parse(["repl", "--connect", "[::1]:6500"]) else { return }
        #expect(v6.connect == ServerAddress(host: "::1", port: 6500))
    }

    @Test("import collects its inputs in order and checks that a graph and an input are given")
    func importOptions() throws {
        let command = try CommandLineOptions.parse(["import", "--data", "d", "--graph", "social",
                                                    "--nodes", "User=users.csv", "--relationships", "FRIEND=f.csv",
                                                    "--edge-list", "KNOWS=e.txt", "--node-label", "Person",
                                                    "--skip-bad-rows", "10", "--delimiter", "tab"])
        guard case .importGraph(let options) = command else { Issue.record("expected import"); return }
        #expect(options.nodes == [.init(name: "User", path: "users.csv")])
        #expect(options.relationships == [.init(name: "FRIEND", path: "f.csv")])
        #expect(options.edgeLists == [.init(name: "KNOWS", path: "e.txt")])
        #expect(options.nodeLabel == "Person")
        #expect(options.badRows == .skip(limit: 10))
        #expect(options.delimiter == 9)
        #expect(throws: UsageError(description: "graphd import: --graph NAME is required")) {
            try CommandLineOptions.parse(["import", "--nodes", "User=u.csv"])
        }
        #expect(throws: UsageError(description: "graphd import: nothing to import (give --nodes, --relationships or --edge-list)")) {
            try CommandLineOptions.parse(["import", "--graph", "g"])
        }
    }

    @Test("demo takes --users, --seed and --graph")
    func demo() throws {
        guard case .demo(let options) = try CommandLineOptions.parse(["demo", "--users", "500", "--seed", "7"]) else {
            Issue.record("expected demo"); return
        }
        #expect(options.users == 500)
        #expect(options.seed == 7)
        #expect(options.graph == "demo")
    }

    @Test("--help, -h and help print the overview; <subcommand> --help lists every flag of it")
    func help() throws {
        guard case .help(let overview) = try CommandLineOptions.parse(["--help"]) else { Issue.record("no help"); return }
        for subcommand in ["serve", "repl", "import", "demo", "--version"] { #expect(overview.contains(subcommand)) }
        #expect(try CommandLineOptions.parse(["-h"]) == .help(overview))
        #expect(try CommandLineOptions.parse(["help"]) == .help(overview))
        let tables: [(String, [String])] = [
            ("serve", CommandLineOptions.serve.options.map(\.name)),
            ("repl", CommandLineOptions.repl.options.map(\.name)),
            ("import", CommandLineOptions.importCommand.options.map(\.name)),
            ("demo", CommandLineOptions.demo.options.map(\.name)),
        ]
        for (subcommand, flags) in tables {
            guard case .help(let text) = try CommandLineOptions.parse([subcommand, "--help"]) else {
                Issue.record("\(subcommand) --help"); continue
            }
            #expect(text.hasPrefix("graphd \(subcommand)"))
            for flag in flags { #expect(text.contains(flag), "\(subcommand) --help lacks \(flag)") }
            #expect(try CommandLineOptions.parse(["help", subcommand]) == .help(text))
        }
        guard case .help(let serveHelp) = try CommandLineOptions.parse(["serve", "--help"]) else { return }
        #expect(serveHelp.contains("[env GRAPHD_PORT]"))
    }

    @Test("--version")
    func version() throws {
        #expect(try CommandLineOptions.parse(["--version"]) == .version)
        #expect(try CommandLineOptions.parse(["-V"]) == .version)
    }

    static let bad: [(arguments: [String], message: String)] = [
        (["--nope"], "graphd: unknown option '--nope' (try graphd --help)"),
        (["serve", "--port"], "graphd: option '--port' needs a value"),
        (["--port", "abc"], "graphd: invalid port 'abc' (expected 0-65535)"),
        (["--port", "70000"], "graphd: invalid port '70000' (expected 0-65535)"),
        (["frobnicate"], "graphd: unknown command 'frobnicate' (try graphd --help)"),
        (["--data="], "graphd: --data needs a directory"),
        (["repl", "--format", "xml"], "graphd: invalid value 'xml' for --format (expected table, csv, json)"),
        (["repl", "--connect", "host:"], "graphd: invalid value 'host:' for --connect (expected HOST:PORT)"),
        (["repl", "stray"], "graphd repl: unexpected argument 'stray' (try graphd repl --help)"),
        (["repl", "--no-timing=yes"], "graphd repl: option '--no-timing' takes no value (got 'yes')"),
        (["import", "--graph", "g", "--nodes", "users.csv"], "graphd: invalid value 'users.csv' for --nodes (expected NAME=FILE)"),
        (["import", "--skip-bad-rows", "-1"], "graphd: invalid value '-1' for --skip-bad-rows (expected an integer in 0...2147483647)"),
        (["demo", "--users", "many"], "graphd: invalid value 'many' for --users (expected an integer in 2...10000000)"),
        (["help", "nope"], "graphd: unknown command 'nope' (try graphd --help)"),
    ]

    @Test("Bad command lines give one line of error", arguments: bad.indices)
    func errors(_ i: Int) {
        let (arguments, message) = Self.bad[i]
        #expect(throws: UsageError(description: message)) { try CommandLineOptions.parse(arguments) }
        #expect(!message.contains("\n"))
    }
}
