// CommandLineOptions.swift — parses graphd's command line into what to do: serve (the
// default), repl, import or demo, each with options from its flag table (OptionSpec), or
// print help or the version. Pure and typed, so it is unit tested; `GraphdMain` turns a
// `UsageError` into one line on stderr and exit status 2.
//
// To add a flag: add a field (with its default) to the subcommand's options struct and one
// `OptionSpec` line to its table; help and environment lookup follow from the table.

import GraphStore

/// What the command line asked for.
enum CommandLineCommand: Equatable, Sendable {
    case serve(ServeOptions)
    case repl(REPLOptions)
    case importGraph(ImportOptions)
    case demo(DemoOptions)
    /// Print this text (the overview or a subcommand's help) and exit 0.
    case help(String)
    case version
}

/// Options of `graphd serve`.
struct ServeOptions: Equatable, Sendable, DataDirectoryOption {
    static let defaultPort = 6479
    static let defaultBindAddress = "127.0.0.1"
    static let defaultDataDirectory = "./graphd-data"

    var port = ServeOptions.defaultPort
    var bindAddress = ServeOptions.defaultBindAddress
    var dataDirectory = ServeOptions.defaultDataDirectory
    /// Authentication and limits (flags in Server/ServerFlags.swift).
    var server = ServerFlags()
    /// --fsync, --compaction-ratio, --repair, --change-retention: how graphs are made durable
    /// and repaired, and how much log they keep for reading commits back.
    var durability = DataDirectory.Options(changeRetention: ServeOptions.defaultChangeRetention)
    /// A subscriber or replica away for up to an hour resumes from the log, not from scratch.
    static let defaultChangeRetention = ChangeRetention.age(seconds: 3600)
    /// --replica-of, --sentinel, …: the server's place in a replicated set.
    var replication = ReplicationFlags()
}

/// Options structs that hold a data directory, so the shared `--data` flag can set it.
protocol DataDirectoryOption: SendableMetatype {
    var dataDirectory: String { get set }
}

/// A command line graphd does not understand. The description is the one-line message.
struct UsageError: Error, Equatable, CustomStringConvertible, Sendable {
    var description: String
}

/// The parser: `graphd [serve|repl|import|demo] [flags]`, `graphd --help`, `graphd --version`.
enum CommandLineOptions {
    static let version = "graphd 0.3.0"

    /// `--data DIR` [GRAPHD_DATA], shared by every subcommand.
    static func dataOption<O: DataDirectoryOption>(_ help: String = "data directory, created if missing (default \(ServeOptions.defaultDataDirectory))") -> OptionSpec<O> {
        OptionSpec("--data", value: "DIR", environment: "GRAPHD_DATA", help: help) { options, text throws(UsageError) in
            options.dataDirectory = try OptionValue.nonEmpty(text, flag: "--data", what: "a directory")
        }
    }

    /// `graphd serve`'s flags.
    static let serve = SubcommandSpec<ServeOptions>(
        name: "serve",
        summary: "serve the graphs over Redis's protocol (the default subcommand)",
        usage: "graphd [serve] [--port N] [--data DIR] [--bind ADDR]",
        options: [
            OptionSpec("--port", value: "N", environment: "GRAPHD_PORT",
                       help: "TCP port to listen on (default \(ServeOptions.defaultPort); 0 picks a free one)") { o, t throws(UsageError) in
                o.port = try OptionValue.port(t)
            },
            dataOption(),
            OptionSpec("--bind", value: "ADDR", environment: "GRAPHD_BIND",
                       help: "IPv4 or IPv6 address to listen on (default \(ServeOptions.defaultBindAddress))") { o, t throws(UsageError) in
                o.bindAddress = try OptionValue.nonEmpty(t, flag: "--bind", what: "an address")
            },
            OptionSpec("--fsync", value: "always|everysec|no", environment: "GRAPHD_FSYNC",
                       help: "when writes reach the disk: before each reply, sharing fsyncs between concurrent writers (always, the default); once a second (everysec); when the OS decides (no)") { o, t throws(UsageError) in
                o.durability.fsync = try OptionValue.choice(t, flag: "--fsync", FsyncPolicy.allCases.map { ($0.rawValue, $0) })
            },
            OptionSpec("--compaction-ratio", value: "R", environment: "GRAPHD_COMPACTION_RATIO",
                       help: "snapshot a graph when the log after its snapshot outgrows R × the snapshot (and 16 MiB); 0 turns it off (default 1; GRAPH.SAVE graph compacts now)") { o, t throws(UsageError) in
                guard let ratio = Double(t), ratio >= 0, ratio <= 1000 else {
                    throw UsageError(description: "graphd: invalid value '\(t)' for --compaction-ratio (expected a number from 0 to 1000)")
                }
                o.durability.compactionRatio = ratio
            },
            OptionSpec("--change-retention", value: "DURATION|SIZE", environment: "GRAPHD_CHANGE_RETENTION",
                       help: "how much log to keep past the newest snapshot for subscribers and replicas resuming from a position: a duration (90s, 15m, 24h, 7d), a size (512kb, 64mb, 1gb) or 0 (default 1h)") { o, t throws(UsageError) in
                guard let retention = ChangeRetention(t) else {
                    throw UsageError(description: "graphd: invalid value '\(t)' for --change-retention (expected a duration such as 24h or a size such as 1gb)")
                }
                o.durability.changeRetention = retention
            },
            OptionSpec("--repair", environment: "GRAPHD_REPAIR",
                       help: "open damaged graphs: cut a log at its last good record (keeping a copy of the cut bytes) or fall back from a damaged snapshot, instead of refusing to start") { o, _ throws(UsageError) in
                o.durability.repair = true
            },
        ] + ServerFlags.options + ReplicationFlags.options,
        epilogue: "Connect with: redis-cli -p \(ServeOptions.defaultPort)   or   graphd repl --connect 127.0.0.1:\(ServeOptions.defaultPort)")

    /// `graphd --help`: the subcommands, then serve's flags (serve is the default).
    static var overview: String {
        """
        graphd — a social graph engine speaking Redis's protocol and FalkorDB's GRAPH.* commands

        Usage:
          graphd [serve] [flags]       \(serve.summary)
          graphd repl [flags]          \(repl.summary)
          graphd import [flags]        \(importCommand.summary)
          graphd demo [flags]          \(demo.summary)
          graphd <subcommand> --help   the flags of one subcommand
          graphd --version             print the version

        Every flag can also come from the environment variable named in [env …]; a flag on
        the command line wins over the environment.

        """ + serve.helpText
    }

    /// Parses the arguments after the program name; `environment` supplies flags the
    /// command line leaves out (GRAPHD_PORT, GRAPHD_DATA, …).
    static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError) -> CommandLineCommand {
        var rest = arguments[...]
        var subcommand = "serve"
        if let first = rest.first {
            switch first {
            case "--version", "-V", "version":
                return .version
            case "--help", "-h":
                return .help(overview)
            case "help":
                guard let topic = rest.dropFirst().first else { return .help(overview) }
                return .help(try helpText(for: topic))
            default:
                if !first.hasPrefix("-") {
                    subcommand = first
                    rest = rest.dropFirst()
                }
            }
        }
        switch subcommand {
        case "serve":
            return try serve.parse(rest, defaults: ServeOptions(), environment: environment).map { .serve($0) } ?? .help(serve.helpText)
        case "repl":
            return try repl.parse(rest, defaults: REPLOptions(), environment: environment).map { .repl($0) } ?? .help(repl.helpText)
        case "import":
            guard let options = try importCommand.parse(rest, defaults: ImportOptions(), environment: environment) else {
                return .help(importCommand.helpText)
            }
            try options.validate()
            return .importGraph(options)
        case "demo":
            return try demo.parse(rest, defaults: DemoOptions(), environment: environment).map { .demo($0) } ?? .help(demo.helpText)
        default:
            throw UsageError(description: "graphd: unknown command '\(subcommand)' (try graphd --help)")
        }
    }

    private static func helpText(for subcommand: String) throws(UsageError) -> String {
        switch subcommand {
        case "serve": return serve.helpText
        case "repl": return repl.helpText
        case "import": return importCommand.helpText
        case "demo": return demo.helpText
        default: throw UsageError(description: "graphd: unknown command '\(subcommand)' (try graphd --help)")
        }
    }
}
