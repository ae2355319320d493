// ServerFlagsTests.swift — `graphd serve`'s authentication and limit flags: parsed into
// ServeOptions.server, taken from the environment, checked with one-line errors; and the
// loopback rule for --bind.

import Testing
@testable import graphd

@Suite("Serve flags for authentication and limits")
struct ServerFlagsTests {
    @Test("Each limit flag sets its value")
    func flags() throws {
        let command = try CommandLineOptions.parse([
            "serve", "--requirepass", "s3cret", "--max-clients", "50", "--timeout", "100", "--timeout-max", "2000",
            "--max-result-rows", "-1", "--max-queued-queries", "8", "--max-query-bytes", "4096",
            "--max-bulk-bytes", "65536", "--client-output-limit", "1048576", "--import-folder", "/srv/csv",
            "--busy-poll", "0"])
        guard case .serve(let options) = command else {
            Issue.record("expected serve, got \(command)")
            return
        }
        var expected = ServerFlags()
        expected.password = "s3cret"
        expected.maxClients = 50
        expected.timeoutDefaultMilliseconds = 100
        expected.timeoutMaxMilliseconds = 2000
        expected.maxResultRows = -1
        expected.maxQueuedQueries = 8
        expected.maxQueryBytes = 4096
        expected.maxBulkBytes = 65536
        expected.clientOutputLimitBytes = 1_048_576
        expected.importFolder = "/srv/csv"
        expected.busyPollMicroseconds = 0
        #expect(options.server == expected)
    }

    @Test("GRAPHD_PASSWORD supplies the password; bad values name the flag")
    func environmentAndErrors() throws {
        guard case .serve(let options) = try CommandLineOptions.parse([], environment: ["GRAPHD_PASSWORD": "pw"]) else {
            Issue.record("expected serve")
            return
        }
        #expect(options.server.password == "pw")
        #expect(throws: UsageError.self) { try CommandLineOptions.parse(["--max-clients", "0"]) }
        #expect(throws: UsageError.self) { try CommandLineOptions.parse(["--timeout", "soon"]) }
        #expect(throws: UsageError.self) { try CommandLineOptions.parse(["--requirepass", ""]) }
        #expect(throws: UsageError.self) { try CommandLineOptions.parse(["--busy-poll", "-1"]) }
    }

    @Test("Only loopback addresses may be bound without a password")
    func loopbackRule() {
        #expect(ServeCommand.isLoopback("127.0.0.1") && ServeCommand.isLoopback("127.1.2.3") && ServeCommand.isLoopback("::1"))
        #expect(!ServeCommand.isLoopback("0.0.0.0") && !ServeCommand.isLoopback("::") && !ServeCommand.isLoopback("192.168.1.5"))
        #expect(ServeCommand.bindProblem(address: "127.0.0.1", password: nil) == nil)
        #expect(ServeCommand.bindProblem(address: "0.0.0.0", password: "x") == nil)
        #expect(ServeCommand.bindProblem(address: "0.0.0.0", password: nil)?.contains("--requirepass") == true)
    }
}
