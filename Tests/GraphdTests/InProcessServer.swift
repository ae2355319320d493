// InProcessServer.swift — runs the real `Server` event loop on a thread inside the test
// process, with a data directory in a temporary folder and, when a test needs one, its
// own command table (a command that blocks until released, one with a huge reply), so
// load shedding, parallelism and slow clients are tested deterministically.

import Foundation
import GraphQuery
import GraphStore
import Synchronization
@testable import graphd
import GraphTestSupport

/// Collects log lines from any thread.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func withLock<R>(_ body: ([String]) -> R) -> R { lines.withLock { body($0) } }
}

/// A server on a free loopback port, stopped and joined on `stop()` (or deinit).
final class InProcessServer: @unchecked Sendable {
    // @unchecked: `server` is used by the loop thread and, for `stopSignal`, from the test;
    // StopSignal is itself Sendable and the rest is not touched after start.
    let server: Server
    let context: ServerContext
    let directory: TemporaryDirectory
    private let finished = DispatchSemaphore(value: 0)
    private var stopped = false
    /// Log lines the server wrote.
    let logLines = LogCapture()

    var port: Int { server.port }

    init(table: CommandTable = .standard(), password: String? = nil,
         configure: (inout ServerConfiguration) -> Void = { _ in },
         limits: QueryLimits = QueryLimits(), engine: QueryEngine = QueryEngine()) throws {
        directory = try TemporaryDirectory("graphd-inproc")
        let dataDirectory = try DataDirectory(path: directory.path + "/data")
        var configuration = ServerConfiguration()
        configuration.port = 0
        let lines = logLines
        configuration.log = { line in lines.append(line) }
        configure(&configuration)
        var context: ServerContext? = nil
        server = try Server(configuration: configuration, table: table) { port in
            let made = ServerContext(dataDirectory: dataDirectory, engine: engine,
                                     configuration: RuntimeConfiguration(limits), password: password, port: port)
            context = made
            return made
        }
        self.context = context!
        let this = self
        let thread = Thread {
            try? this.server.run()
            this.finished.signal()
        }
        thread.start()
    }

    func client() throws -> RESPTestClient { try RESPTestClient(port: port) }

    /// Requests a stop and waits for the loop to return.
    func stop() {
        guard !stopped else { return }
        stopped = true
        server.stopSignal.request()
        finished.wait()
    }

    deinit {
        stop()
        directory.remove()
    }
}
