// REPLCommand.swift — `graphd repl`: opens the backend (the data directory in-process, or a
// server with --connect), then runs -e statements, a script from standard input, or the
// interactive loop with line editing and history. Exit status 1 when a statement failed.

import Glibc
import GraphQuery
import GraphStore

/// The `graphd repl` subcommand.
enum REPLCommand {
    static func run(_ options: REPLOptions) -> Int32 {
        let backend: any QueryBackend
        switch openBackend(options) {
        case .success(let opened): backend = opened
        case .failure(let message):
            GraphdMain.printError(message)
            return 1
        }
        let interactive = options.execute.isEmpty && Terminal.isTerminal(STDIN_FILENO)
        let tableWidth = Terminal.isTerminal(STDOUT_FILENO)
        let output = REPLOutput(
            output: { Terminal.write($0) },
            diagnostics: { Terminal.write($0, to: STDERR_FILENO) },
            width: { tableWidth ? Terminal.width() : Int.max / 4 })
        let session = REPLSession(backend: backend, graph: options.graph, format: options.format,
                                  timing: options.timing, output: output)
        // Each -e is a script of its own: its last statement needs no ';'.
        for text in options.execute {
            let status = runScript(text, session: session)
            if status != 0 { return status }
        }
        if !options.execute.isEmpty { return 0 }
        if !interactive {
            return runScript(readAll(STDIN_FILENO), session: session)
        }
        return runInteractive(session: session, options: options)
    }

    private enum Opened {
        case success(any QueryBackend)
        case failure(String)
    }

    private static func openBackend(_ options: REPLOptions) -> Opened {
        if let address = options.connect {
            do throws(REPLError) {
                return .success(try RemoteBackend(address: address, password: options.password))
            } catch {
                return .failure("graphd repl: \(error.description)")
            }
        }
        do throws(StoreError) {
            let directory = try DataDirectory(path: options.dataDirectory)
            // Open the chosen graph now, so that what recovery repaired (a torn tail cut
            // off) is said before the first prompt, as the server says it at start.
            _ = try directory.graph(named: options.graph)
            for message in directory.recoveryMessages { GraphdMain.printError(message) }
            return .success(EmbeddedBackend(directory: directory))
        } catch {
            if error.kind == .locked {
                let port = ProcessEnvironment.value("GRAPHD_PORT") ?? String(ServeOptions.defaultPort)
                return .failure("graphd repl: \(error.description)\n"
                                + "A server holds this data directory; talk to it instead: graphd repl --connect 127.0.0.1:\(port)")
            }
            return .failure("graphd repl: cannot open data directory \(options.dataDirectory): \(error.description)")
        }
    }

    /// Runs every statement of `text`, stopping at the first that fails.
    static func runScript(_ text: String, session: REPLSession) -> Int32 {
        for input in StatementBuffer.split(text) {
            switch session.handle(input) {
            case .succeeded: continue
            case .failed: return 1
            case .quit: return 0
            }
        }
        return 0
    }

    private static func runInteractive(session: REPLSession, options: REPLOptions) -> Int32 {
        Terminal.write("graphd repl (\(CommandLineOptions.version)), \(session.backend.summary), graph '\(session.graph)'.\n"
                       + "Statements end with ';'. :help for help, :quit or Ctrl-D to leave.\n")
        session.interruptible = InterruptibleCall()
        let editor = LineEditor(history: LineHistory(path: options.historyFile))
        var buffer = StatementBuffer()
        while true {
            let prompt = buffer.isEmpty
                ? "\(session.graph)> "
                : String(repeating: " ", count: max(0, session.graph.count - 1)) + "-> "
            switch editor.readLine(prompt: prompt) {
            case .endOfInput:
                return 0
            case .interrupted:
                buffer.clear()
            case .line(let line):
                let inputs = buffer.add(line: line)
                if !inputs.isEmpty { editor.suspend() }
                for input in inputs {
                    switch session.handle(input) {
                    case .succeeded: break
                    case .failed: break  // at a prompt a failure is shown, not fatal
                    case .quit: return 0
                    }
                }
            }
        }
    }

    static func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
