// CommandLineOptionsTests.swift — graphd's command line: defaults, overrides, help, and
// one-line errors for anything it does not understand.

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

    @Test("--help, -h and help print the usage")
    func help() throws {
        #expect(try CommandLineOptions.parse(["--help"]) == .help)
        #expect(try CommandLineOptions.parse(["-h"]) == .help)
        #expect(try CommandLineOptions.parse(["help"]) == .help)
        #expect(try CommandLineOptions.parse(["serve", "--help"]) == .help)
    }

    static let bad: [(arguments: [String], message: String)] = [
        (["--nope"], "graphd: unknown option '--nope' (try graphd --help)"),
        (["serve", "--port"], "graphd: option '--port' needs a value"),
        (["--port", "abc"], "graphd: invalid port 'abc' (expected 0-65535)"),
        (["--port", "70000"], "graphd: invalid port '70000' (expected 0-65535)"),
        (["frobnicate"], "graphd: unknown command 'frobnicate' (try graphd --help)"),
        (["--data="], "graphd: --data needs a directory"),
    ]

    @Test("Bad command lines give one line of error", arguments: bad.indices)
    func errors(_ i: Int) {
        let (arguments, message) = Self.bad[i]
        #expect(throws: UsageError(description: message)) { try CommandLineOptions.parse(arguments) }
    }
}
