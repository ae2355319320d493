// REPLOptions.swift — the options of `graphd repl` and its flag table: embedded on a data
// directory or connected to a server, which graph, one-shot statements, output format.

/// How `graphd repl` prints results.
enum OutputFormat: String, Equatable, Sendable {
    /// Aligned columns for a person (the default).
    case table
    /// RFC 4180 CSV with a header line, for spreadsheets and scripts.
    case csv
    /// One JSON object per row, one per line (JSON Lines), for scripts.
    case json
}

/// A `HOST:PORT` to connect to.
struct ServerAddress: Equatable, Sendable {
    var host: String
    var port: Int

    /// Parses `HOST:PORT`, `[IPv6]:PORT` or a bare `PORT` (meaning 127.0.0.1).
    init(parsing text: String) throws(UsageError) {
        let bad = UsageError(description: "graphd: invalid value '\(text)' for --connect (expected HOST:PORT)")
        if let port = Int(text) {
            host = "127.0.0.1"
            self.port = try OptionValue.port(String(port))
            return
        }
        guard let colon = text.lastIndex(of: ":") else { throw bad }
        var hostPart = String(text[..<colon])
        if hostPart.hasPrefix("[") && hostPart.hasSuffix("]") { hostPart = String(hostPart.dropFirst().dropLast()) }
        guard !hostPart.isEmpty, let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { throw bad }
        host = hostPart
        self.port = port
    }

    init(host: String, port: Int) { self.host = host; self.port = port }
}

/// Options of `graphd repl`.
struct REPLOptions: Equatable, Sendable, DataDirectoryOption {
    static let defaultGraph = "social"

    var dataDirectory = ServeOptions.defaultDataDirectory
    /// Set: talk to a running server instead of opening the data directory.
    var connect: ServerAddress? = nil
    var password: String? = nil
    var graph = REPLOptions.defaultGraph
    /// `-e` statements, run in order, then exit.
    var execute: [String] = []
    var format = OutputFormat.table
    /// Where line history is kept between runs; nil keeps none.
    var historyFile: String? = REPLOptions.defaultHistoryFile()
    var timing = true

    /// `$HOME/.graphd_history`, or nil without a HOME.
    static func defaultHistoryFile() -> String? {
        guard let home = ProcessEnvironment.value("HOME"), !home.isEmpty else { return nil }
        return home + "/.graphd_history"
    }
}

extension CommandLineOptions {
    /// `graphd repl`'s flags.
    static let repl = SubcommandSpec<REPLOptions>(
        name: "repl",
        summary: "ask questions in Cypher at a prompt, embedded or connected to a server",
        usage: "graphd repl [--data DIR | --connect HOST:PORT [--password P]] [--graph NAME] [-e QUERY]... [--format table|csv|json]",
        options: [
            dataOption("data directory to open in-process (default \(ServeOptions.defaultDataDirectory))"),
            OptionSpec("--connect", value: "HOST:PORT", environment: "GRAPHD_CONNECT",
                       help: "talk to a running graphd over RESP instead of opening a data directory") { o, t throws(UsageError) in
                o.connect = try ServerAddress(parsing: t)
            },
            OptionSpec("--password", value: "P", environment: "GRAPHD_PASSWORD",
                       help: "password sent with AUTH after connecting") { o, t throws(UsageError) in
                o.password = t
            },
            OptionSpec("--graph", short: "-g", value: "NAME", environment: "GRAPHD_GRAPH",
                       help: "graph to query (default \(REPLOptions.defaultGraph)); :use NAME switches") { o, t throws(UsageError) in
                o.graph = try OptionValue.nonEmpty(t, flag: "--graph", what: "a name")
            },
            OptionSpec("--execute", short: "-e", value: "QUERY", repeatable: true,
                       help: "run QUERY (statements or :commands) and exit instead of prompting") { o, t throws(UsageError) in
                o.execute.append(t)
            },
            OptionSpec("--format", value: "FORMAT", environment: "GRAPHD_FORMAT",
                       help: "table (default), csv or json (one object per line)") { o, t throws(UsageError) in
                o.format = try OptionValue.choice(t, flag: "--format", [("table", .table), ("csv", .csv), ("json", .json)])
            },
            OptionSpec("--history", value: "FILE", environment: "GRAPHD_HISTORY",
                       help: "line history file (default ~/.graphd_history; empty: none)") { o, t throws(UsageError) in
                o.historyFile = t.isEmpty ? nil : t
            },
            OptionSpec("--no-timing", help: "leave out the time after each result (as :timing off)") { o, _ throws(UsageError) in
                o.timing = false
            },
        ],
        epilogue: """
            Statements end with ';' and may span lines. At the prompt, :help lists the commands
            (:use, :param, :params, :explain, :profile, :graphs, :schema, :timing, :quit).
            Reads statements from standard input when it is not a terminal: graphd repl < script.cypher
            The exit status is 1 when a statement failed.
            """)
}
