// GraphdMain.swift — the executable's entry point: parse the command line, open the data
// directory (replaying each graph's log), bind the socket, print where we are, serve until
// SIGINT/SIGTERM. The only place that creates the long-lived objects; everything below
// receives them explicitly.

import Dispatch
import Glibc
import GraphQuery
import GraphStore

/// `graphd` and `graphd serve …`.
@main
enum GraphdMain {
    static func main() {
        let command: CommandLineCommand
        do {
            command = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError(error.description)
            exit(2)
        }
        switch command {
        case .help:
            print(CommandLineOptions.usage)
            exit(0)
        case .serve(let options):
            exit(serve(options))
        }
    }

    /// Runs the server; returns the process exit status.
    static func serve(_ options: ServeOptions) -> Int32 {
        // A client that disconnects mid-reply must not kill the server.
        signal(SIGPIPE, SIG_IGN)

        let dataDirectory: DataDirectory
        do throws(StoreError) {
            dataDirectory = try DataDirectory(path: options.dataDirectory)
        } catch {
            printError("graphd: cannot open data directory \(options.dataDirectory): \(error)")
            return 1
        }
        // Open (replay) every graph now rather than on first use, so that recovery
        // messages (a torn tail cut off) appear at start and a damaged log stops the start
        // with a clear error instead of failing the first query.
        for name in dataDirectory.graphNames() {
            do throws(StoreError) {
                _ = try dataDirectory.graph(named: name)
            } catch {
                printError("graphd: cannot open graph '\(name)': \(error)")
                return 1
            }
        }
        for message in dataDirectory.recoveryMessages { printError(message) }

        let context = ServerContext(dataDirectory: dataDirectory, engine: QueryEngine())
        var configuration = ServerConfiguration()
        configuration.bindAddress = options.bindAddress
        configuration.port = options.port
        let server: Server
        do {
            server = try Server(configuration: configuration, context: context)
        } catch {
            printError("graphd: cannot listen on \(options.bindAddress):\(options.port): \(error)")
            return 1
        }
        let watcher = SignalWatcher(stop: server.stopSignal, queue: DispatchQueue(label: "graphd.signals"))
        let shownAddress = options.bindAddress.contains(":") ? "[\(options.bindAddress)]" : options.bindAddress
        print("graphd listening on \(shownAddress):\(server.port), data in \(options.dataDirectory)")
        fflush(nil)
        do {
            try server.run()
        } catch {
            printError("graphd: \(error)")
            return 1
        }
        _ = consume watcher
        print("graphd stopped")
        fflush(nil)
        return 0
    }

    /// One line on standard error (written directly: the C `stderr` global is not
    /// concurrency-safe to reference in Swift 6).
    static func printError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}
