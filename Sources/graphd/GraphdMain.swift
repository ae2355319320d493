// GraphdMain.swift — the executable's entry point: parse the command line and run the
// subcommand. `serve` lives in Server/ServeCommand.swift; repl, import and demo live in
// REPL/, Import/ and Demo/. The only place that creates the long-lived objects; everything
// below receives them explicitly.

import Dispatch
import Glibc
import GraphQuery
import GraphStore

/// `graphd`, `graphd serve|repl|import|demo …`.
@main
enum GraphdMain {
    static func main() {
        let command: CommandLineCommand
        do {
            command = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()),
                                                   environment: ProcessEnvironment.all())
        } catch {
            printError(error.description)
            exit(2)
        }
        switch command {
        case .help(let text):
            print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            exit(0)
        case .version:
            print(CommandLineOptions.version)
            exit(0)
        case .serve(let options):
            exit(ServeCommand.run(options))
        case .repl(let options):
            exit(REPLCommand.run(options))
        case .importGraph(let options):
            exit(ImportCommand.run(options))
        case .demo(let options):
            exit(DemoCommand.run(options))
        }
    }

    /// One line on standard error (written directly: the C `stderr` global is not
    /// concurrency-safe to reference in Swift 6).
    static func printError(_ line: String) {
        Terminal.write(line + "\n", to: STDERR_FILENO)
    }
}
