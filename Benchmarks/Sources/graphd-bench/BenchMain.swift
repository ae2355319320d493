// BenchMain.swift — `graphd-bench`: the benchmark harness's entry point and subcommand dispatch.
// Build and run in release: `swift run -c release --package-path Benchmarks graphd-bench <command>`.

import Foundation

@main
enum BenchMain {
    static let usage = """
    usage: graphd-bench <command> [--flag value]…
      generate   write a synthetic social graph as CSV (gen_social.py's layout)
      embedded   load a data set in-process and run the checked social mix
      server     drive a running graphd over RESP with the mix plus writes
      recovery   restart time of a graph from its log and from its snapshot
      build      bulk build speed (GraphBuilder) and the cost of inserts into a hub
      phrasings  seeded plain-Cypher phrasings of each social question timed beside its procedure, rows checked
      executor   expand + count grouped by node without the rules: the batched and the row executor beside the kernel
      hostile    a victim's reads timed against a running graphd while attackers try to hurt it, one kind a phase
      search     people search: index build, memory, global and social typeahead, checked against a brute force
      changes    cache validation: changedSince checked over random social operations, and its time
    `graphd-bench <command> --help` lists the command's flags.
    """

    static func main() {
        var args = Array(CommandLine.arguments.dropFirst())
        guard let command = args.first else { print(usage); exit(2) }
        args.removeFirst()
        let table: [String: [String: String]] = ["generate": GenerateCommand.flags, "embedded": EmbeddedCommand.flags,
                                                 "server": ServerCommand.flags, "recovery": RecoveryCommand.flags,
                                                 "build": BuildCommand.flags, "phrasings": PhrasingsCommand.flags,
                                                 "executor": ExecutorCommand.flags, "hostile": HostileCommand.flags,
                                                 "search": SearchCommand.flags, "changes": ChangesCommand.flags]
        guard let flags = table[command] else {
            FileHandle.standardError.write(Data("graphd-bench: unknown command '\(command)'\n\(usage)\n".utf8))
            exit(2)
        }
        do {
            if args == ["--help"] || args == ["-h"] {
                print("graphd-bench \(command)\n" + (try Options(command: command, arguments: [], known: flags)).help)
                exit(0)
            }
            let options = try Options(command: command, arguments: args, known: flags)
            let passed: Bool
            switch command {
            case "generate": passed = try GenerateCommand.run(options)
            case "embedded": passed = try EmbeddedCommand.run(options, arguments: args)
            case "server": passed = try ServerCommand.run(options, arguments: args)
            case "build": passed = try BuildCommand.run(options)
            case "phrasings": passed = try PhrasingsCommand.run(options, arguments: args)
            case "executor": passed = try ExecutorCommand.run(options, arguments: args)
            case "hostile": passed = try HostileCommand.run(options, arguments: args)
            case "search": passed = try SearchCommand.run(options)
            case "changes": passed = try ChangesCommand.run(options)
            default: passed = try RecoveryCommand.run(options, arguments: args)
            }
            exit(passed ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("graphd-bench \(command): \(error)\n".utf8))
            exit(2)
        }
    }
}
