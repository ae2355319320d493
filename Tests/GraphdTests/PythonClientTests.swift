// PythonClientTests.swift — the real client libraries against the real graphd: the
// official `falkordb` Python client (RESP2 and RESP3) and the `redis` Python client, each
// running a script from Tests/clients/ against a fresh server on a free loopback port.
// .ci/run installs the packages into .build/client-venv and sets GRAPHD_REQUIRE_CLIENTS=1,
// so in CI a missing client fails the run instead of skipping it.

import Foundation
import Glibc
import Testing
import GraphTestSupport

/// Where the Python with `falkordb` and `redis` installed is, if anywhere.
enum PythonClients {
    /// The package root, from this file's path (Tests/GraphdTests/…).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.path
    }()

    /// `$GRAPHD_CLIENT_PYTHON`, else the virtual environment .ci/run creates.
    static let python: String? = {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["GRAPHD_CLIENT_PYTHON"], packageRoot + "/.build/client-venv/bin/python"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// True when the clients must be present (CI): their absence is then a failure.
    static let required = ProcessInfo.processInfo.environment["GRAPHD_REQUIRE_CLIENTS"] == "1"

    /// Whether to run the tests: with the clients, or in CI (to fail loudly without them).
    static let enabled = python != nil || required

    static let missingMessage = "the Python clients are not installed: run .ci/run, or "
        + "python3 -m venv .build/client-venv && .build/client-venv/bin/pip install falkordb redis"

    /// Runs `script` with `arguments`; returns its exit status and output.
    static func run(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let python else { throw TestClientError(description: missingMessage) }
        let directory = try TemporaryDirectory("graphd-py")
        defer { directory.remove() }
        let outputPath = directory.path + "/out"
        let child = try ChildProcess(executable: python,
                                     arguments: [packageRoot + "/Tests/clients/" + script] + arguments,
                                     outputPath: outputPath)
        let status = child.wait()
        return (status, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }
}

@Suite("Real clients: falkordb-py and redis-py", .serialized, .enabled(if: PythonClients.enabled, "\(PythonClients.missingMessage)"))
struct PythonClientTests {
    func withServer(_ extraArguments: [String] = [], _ body: (GraphdProcess) throws -> Void) throws {
        let directory = try TemporaryDirectory("graphd-py")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data", extraArguments: extraArguments)
        defer { server.kill9() }
        try body(server)
    }

    @Test("falkordb client, unmodified: scalars, lists, maps, parameters, timeout, errors, config, copy, slowlog, list, delete",
          arguments: [2, 3])
    func falkordbBasics(protocol version: Int) throws {
        try withServer { server in
            let (status, output) = try PythonClients.run("falkordb_client.py", ["basics", String(server.port), String(version)])
            #expect(status == 0, "\(output)")
            #expect(output.contains("checks passed"), "\(output)")
        }
    }

    @Test("falkordb client, unmodified: nodes, relationships and paths, schema ids through CALL DB.LABELS() and co.",
          arguments: [2, 3])
    func falkordbEntities(protocol version: Int) throws {
        try withServer { server in
            let (status, output) = try PythonClients.run("falkordb_client.py", ["entities", String(server.port), String(version)])
            #expect(status == 0, "\(output)")
            #expect(output.contains("checks passed"), "\(output)")
        }
    }

    @Test("falkordb client, unmodified: the change feed through db.connection.pubsub(), and GRAPH.CHANGES", arguments: [2, 3])
    func falkordbFeed(protocol version: Int) throws {
        try withServer { server in
            let (status, output) = try PythonClients.run("falkordb_client.py", ["feed", String(server.port), String(version)])
            #expect(status == 0, "\(output)")
            #expect(output.contains("checks passed"), "\(output)")
        }
    }

    @Test("The falkordb client authenticates with a password over RESP2 and RESP3", arguments: [2, 3])
    func falkordbClientWithPassword(protocol version: Int) throws {
        try withServer(["--requirepass", "s3cret"]) { server in
            let (status, output) = try PythonClients.run("falkordb_client.py",
                                                         ["basics", String(server.port), String(version), "s3cret"])
            #expect(status == 0, "\(output)")
        }
    }

    @Test("The redis client's generic commands work, with and without a password", arguments: [2, 3])
    func redisClient(protocol version: Int) throws {
        try withServer { server in
            let (status, output) = try PythonClients.run("redis_client.py", [String(server.port), String(version)])
            #expect(status == 0, "\(output)")
        }
        try withServer(["--requirepass", "s3cret"]) { server in
            let (status, output) = try PythonClients.run("redis_client.py", [String(server.port), String(version), "s3cret"])
            #expect(status == 0, "\(output)")
        }
    }
}
