// EndToEndToolsTests.swift — the Redis tools against the real graphd: redis-benchmark with
// -r and __rand_int__ (its CONFIG GET probe must not warn), redis-cli in stdin mode (which
// sends COMMAND DOCS first), in RESP3 mode (-3) and with a password; and the safety rules
// of `graphd serve`: no non-loopback bind without a password, SIGINT exits 0.
// Skipped when the tools are not installed (.ci/run installs redis-tools).

import Foundation
import Glibc
import Testing
import GraphTestSupport

/// `name` on PATH, if any.
private func tool(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// Runs `executable` with `arguments` and `input` on stdin; returns status and output.
private func run(_ executable: String, _ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
    let directory = try TemporaryDirectory("graphd-tool")
    defer { directory.remove() }
    try writeFileBytes(directory.path + "/in", Array(input.utf8))
    let quoted = ([executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let child = try ChildProcess(executable: "/bin/sh",
                                 arguments: ["-c", quoted.joined(separator: " ") + " <'\(directory.path)/in'"],
                                 outputPath: directory.path + "/out")
    let status = child.wait()
    return (status, (try? String(contentsOfFile: directory.path + "/out", encoding: .utf8)) ?? "")
}

@Suite("End to end: redis-cli, redis-benchmark and serve's safety rules", .serialized)
struct EndToEndToolsTests {
    func withServer(_ extra: [String] = [], _ body: (GraphdProcess) throws -> Void) throws {
        let directory = try TemporaryDirectory("graphd-tools")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data", extraArguments: extra)
        defer { server.kill9() }
        try body(server)
    }

    @Test("redis-benchmark -r with __rand_int__ in the CYPHER header runs without errors or warnings",
          .enabled(if: tool("redis-benchmark") != nil, "redis-benchmark is not installed"))
    func benchmark() throws {
        try withServer { server in
            let client = try server.client()
            #expect(try client.command("GRAPH.QUERY", "bench", "UNWIND [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] AS i CREATE (:Person {id: i})")
                .statistics.contains("Nodes created: 10"))
            let (status, output) = try run(tool("redis-benchmark")!, [
                "-p", String(server.port), "-n", "300", "-c", "4", "-r", "10",
                "GRAPH.QUERY", "bench", "CYPHER id=__rand_int__ MATCH (p:Person {id: $id}) RETURN p.id"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("requests per second"), "\(output)")
            #expect(!output.contains("WARNING") && !output.contains("Error"), "\(output)")
        }
    }

    @Test("redis-cli in stdin mode (COMMAND DOCS first), in RESP3 mode and with a password",
          .enabled(if: tool("redis-cli") != nil, "redis-cli is not installed"))
    func redisCLI() throws {
        let cli = tool("redis-cli")!
        try withServer { server in
            let port = String(server.port)
            let piped = try run(cli, ["-p", port], input: "GRAPH.QUERY g \"CREATE (:A {v: 1})\"\nGRAPH.LIST\nPING\n")
            #expect(piped.status == 0)
            #expect(piped.output.contains("Nodes created: 1") && piped.output.contains("g\nPONG"), "\(piped.output)")
            // After HELLO 3, CONFIG GET is a RESP3 map, which redis-cli prints as `key => value`.
            let resp3 = try run(cli, ["-3", "--no-raw", "-p", port, "CONFIG", "GET", "port"])
            #expect(resp3.status == 0 && resp3.output.contains("\"port\" => \"\(port)\""), "\(resp3.output)")
        }
        try withServer(["--requirepass", "s3cret"]) { server in
            let port = String(server.port)
            let denied = try run(cli, ["-p", port, "GRAPH.LIST"])
            #expect(denied.output.contains("NOAUTH Authentication required."), "\(denied.output)")
            let allowed = try run(cli, ["-p", port, "-a", "s3cret", "--no-auth-warning", "PING"])
            #expect(allowed.output == "PONG\n", "\(allowed.output)")
        }
    }

    @Test("serve refuses a non-loopback address without a password, and says why")
    func openBindRefused() throws {
        let refused = try GraphdProcess.runToExit(["serve", "--bind", "0.0.0.0", "--port", "0", "--data", "/nonexistent/x"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("refusing to listen on 0.0.0.0 without a password"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--requirepass"))
    }

    @Test("SIGINT stops the server with exit status 0 and the data is still there")
    func interruptStops() throws {
        let directory = try TemporaryDirectory("graphd-sigint")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data")
        #expect(try server.client().command("GRAPH.QUERY", "g", "CREATE (:A)").statistics.contains("Nodes created: 1"))
        server.process.send(SIGINT)
        #expect(server.process.wait() == 0)
        #expect(server.output.contains("graphd stopped"), "\(server.output)")
        let restarted = try GraphdProcess(dataDirectory: directory.path + "/data")
        defer { restarted.kill9() }
        #expect(try restarted.client().command("GRAPH.QUERY", "g", "MATCH (a:A) RETURN count(a)").rows == [[.integer(1)]])
    }

    @Test("Out of file descriptors: graphd keeps serving, says so, and accepts again once clients leave")
    func descriptorExhaustion() throws {
        let directory = try TemporaryDirectory("graphd-fds")
        defer { directory.remove() }
        let port = try GraphdProcess.freePort()
        let output = directory.path + "/out"
        // A hard limit of 40 descriptors that graphd cannot raise.
        let child = try ChildProcess(executable: "/bin/sh", arguments: [
            "-c", "ulimit -n 40 && exec '\(try GraphdProcess.executablePath())' serve --port \(port) --data '\(directory.path)/data'"],
            outputPath: output)
        defer { child.send(SIGKILL); child.wait() }
        var first: RESPTestClient? = nil
        for _ in 0..<3000 where first == nil {
            first = try? RESPTestClient(port: port)
            if first == nil { usleep(10_000) }   // polling for the listener, not timing
        }
        guard let first else {
            Issue.record("graphd did not start: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
            return
        }
        #expect(try first.command("PING") == .simple("PONG"))
        var clients: [RESPTestClient] = []
        for _ in 0..<60 { clients.append(try RESPTestClient(port: port)) }   // the kernel's backlog takes them
        #expect(try first.command("PING") == .simple("PONG"), "the loop still serves (it does not spin)")
        let log = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        #expect(waitUntil { log().contains("out of file descriptors") }, "\(log())")
        let last = clients.removeLast()
        try last.send(RESPTestClient.encode(["PING"]))
        clients.removeAll()   // closes 59 connections: descriptors come back
        #expect(try last.readReply() == .simple("PONG"), "accepted once descriptors were free")
    }

    @Test("--import-folder lets LOAD CSV read files from that folder; without it LOAD CSV of files is refused")
    func importFolder() throws {
        let directory = try TemporaryDirectory("graphd-csv")
        defer { directory.remove() }
        try writeFileBytes(directory.path + "/people.csv", Array("id,name\n1,Ann\n2,Bo\n".utf8))
        let query = "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row RETURN row.name"
        try withServer(["--import-folder", directory.path]) { server in
            let reply = try server.client().command("GRAPH.QUERY", "g", query)
            #expect(reply.rows == [[.bulk("Ann")], [.bulk("Bo")]], "\(reply)")
        }
        try withServer { server in
            guard case .error = try server.client().command("GRAPH.QUERY", "g", query) else {
                Issue.record("LOAD CSV read a file without --import-folder")
                return
            }
        }
    }
}
