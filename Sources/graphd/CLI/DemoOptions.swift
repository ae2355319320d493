// DemoOptions.swift — the options of `graphd demo` and its flag table: how big and which
// seed the generated social graph is, and which graph it goes into.

/// Options of `graphd demo`.
struct DemoOptions: Equatable, Sendable, DataDirectoryOption {
    var dataDirectory = ServeOptions.defaultDataDirectory
    var graph = "demo"
    var users = 1_000
    var seed: UInt64 = 42

    init() {}
}

extension CommandLineOptions {
    /// `graphd demo`'s flags.
    static let demo = SubcommandSpec<DemoOptions>(
        name: "demo",
        summary: "create a realistic fake social graph to explore (graph 'demo', replaced if it exists)",
        usage: "graphd demo [--data DIR] [--users N] [--seed S] [--graph NAME]",
        options: [
            dataOption(),
            OptionSpec("--users", value: "N", help: "how many users (default 1000)") { o, t throws(UsageError) in
                o.users = try OptionValue.integer(t, flag: "--users", in: 2...10_000_000)
            },
            OptionSpec("--seed", value: "S", help: "random seed; the same seed gives the same graph (default 42)") { o, t throws(UsageError) in
                guard let seed = UInt64(t) else {
                    throw UsageError(description: "graphd: invalid value '\(t)' for --seed (expected a non-negative integer)")
                }
                o.seed = seed
            },
            OptionSpec("--graph", short: "-g", value: "NAME", help: "graph to create (default demo)") { o, t throws(UsageError) in
                o.graph = try OptionValue.nonEmpty(t, flag: "--graph", what: "a name")
            },
        ],
        epilogue: "Then: graphd repl --graph demo   (or graphd serve, and GRAPH.QUERY demo \"…\")")
}
