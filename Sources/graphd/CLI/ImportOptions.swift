// ImportOptions.swift — the options of `graphd import` and its flag table: which files
// become which labels and types, the graph to build, and what to do with bad rows.

/// What `graphd import` does with a row it cannot read.
enum BadRowPolicy: Equatable, Sendable {
    /// Fail the import at the first bad row (the default): nothing is imported.
    case stop
    /// Skip bad rows, reporting each, and fail only past `limit` of them.
    case skip(limit: Int)
}

/// Options of `graphd import`.
struct ImportOptions: Equatable, Sendable, DataDirectoryOption {
    /// One input file and the label or relationship type its rows get.
    struct Input: Equatable, Sendable {
        var name: String
        var path: String
    }

    var dataDirectory = ServeOptions.defaultDataDirectory
    var graph = ""
    var nodes: [Input] = []
    var relationships: [Input] = []
    var edgeLists: [Input] = []
    /// The label of nodes created from edge-list ids.
    var nodeLabel = "User"
    var delimiter: UInt8 = UInt8(ascii: ",")
    var badRows = BadRowPolicy.stop
    /// Progress bar: nil shows it when standard error is a terminal.
    var progress: Bool? = nil

    /// Checks what the flags cannot check one at a time.
    func validate() throws(UsageError) {
        if graph.isEmpty {
            throw UsageError(description: "graphd import: --graph NAME is required")
        }
        if nodes.isEmpty && relationships.isEmpty && edgeLists.isEmpty {
            throw UsageError(description: "graphd import: nothing to import (give --nodes, --relationships or --edge-list)")
        }
    }
}

extension CommandLineOptions {
    /// `graphd import`'s flags.
    static let importCommand = SubcommandSpec<ImportOptions>(
        name: "import",
        summary: "bulk-load CSV files or SNAP edge lists into a new graph (offline, no query per row)",
        usage: "graphd import --graph NEW_NAME [--data DIR] (--nodes LABEL=FILE | --relationships TYPE=FILE | --edge-list TYPE=FILE)... [flags]",
        options: [
            dataOption(),
            OptionSpec("--graph", short: "-g", value: "NAME", environment: "GRAPHD_GRAPH",
                       help: "graph to create (required; it must not exist yet)") { o, t throws(UsageError) in
                o.graph = try OptionValue.nonEmpty(t, flag: "--graph", what: "a name")
            },
            OptionSpec("--nodes", value: "LABEL=FILE", repeatable: true,
                       help: "CSV of nodes; header like id:ID,name,age:int,score:float,tags:string[]") { o, t throws(UsageError) in
                let (name, path) = try OptionValue.labelledPath(t, flag: "--nodes")
                o.nodes.append(.init(name: name, path: path))
            },
            OptionSpec("--relationships", value: "TYPE=FILE", repeatable: true,
                       help: "CSV of relationships; header like :START_ID,:END_ID,since:int") { o, t throws(UsageError) in
                let (name, path) = try OptionValue.labelledPath(t, flag: "--relationships")
                o.relationships.append(.init(name: name, path: path))
            },
            OptionSpec("--edge-list", value: "TYPE=FILE", repeatable: true,
                       help: "SNAP edge list: 'a b' per line (space, tab or comma); # lines skipped") { o, t throws(UsageError) in
                let (name, path) = try OptionValue.labelledPath(t, flag: "--edge-list")
                o.edgeLists.append(.init(name: name, path: path))
            },
            OptionSpec("--node-label", value: "LABEL",
                       help: "label of the nodes an edge list creates (default User)") { o, t throws(UsageError) in
                o.nodeLabel = try OptionValue.nonEmpty(t, flag: "--node-label", what: "a label")
            },
            OptionSpec("--delimiter", value: "CHAR", help: "CSV field separator (default ','; 'tab' for a tab)") { o, t throws(UsageError) in
                let text = t == "tab" || t == "\\t" ? "\t" : t
                guard text.utf8.count == 1, let byte = text.utf8.first, byte != UInt8(ascii: "\""), byte != 10, byte != 13 else {
                    throw UsageError(description: "graphd: invalid value '\(t)' for --delimiter (expected one character)")
                }
                o.delimiter = byte
            },
            OptionSpec("--skip-bad-rows", value: "N",
                       help: "skip up to N bad rows (reported) instead of stopping at the first") { o, t throws(UsageError) in
                o.badRows = .skip(limit: try OptionValue.integer(t, flag: "--skip-bad-rows", in: 0...Int(Int32.max)))
            },
            OptionSpec("--progress", value: "on|off", help: "progress bar (default: on when stderr is a terminal)") { o, t throws(UsageError) in
                o.progress = try OptionValue.choice(t, flag: "--progress", [("on", true), ("off", false)])
            },
        ],
        epilogue: """
            Headers follow neo4j-admin import: a column 'name:ID' holds the node's id (kept as property
            'name', as an integer when it is one), ':START_ID' and ':END_ID' the relationship's ends,
            'name:int|long|float|double|boolean|string' a typed property, 'name:TYPE[]' a list split on ';',
            ':LABEL' extra labels (split on ';'), ':IGNORE' a skipped column. Without an :ID column a
            column named 'id' is the id; without :START_ID/:END_ID the first two columns are the ends.
            Example: graphd import --graph social --nodes User=users.csv --relationships FRIEND=friendships.csv
            The server must not be running on the same data directory.
            """)
}
