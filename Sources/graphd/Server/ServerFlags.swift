// ServerFlags.swift — `graphd serve`'s flags for authentication and limits, as data in
// the CLI's flag-table form (OptionSpec). Kept beside the server they configure; the CLI's
// serve table appends `ServerFlags.options`.

import Foundation

/// The serve options that configure the server's safety and limits.
struct ServerFlags: Equatable, Sendable {
    /// `--requirepass`: clients must AUTH with it before anything but AUTH/HELLO/QUIT.
    var password: String?
    var maxClients = 10_000
    var timeoutDefaultMilliseconds = QueryLimits().timeoutDefault
    var timeoutMaxMilliseconds = QueryLimits().timeoutMax
    var maxResultRows = QueryLimits().resultSetSize
    var maxQueuedQueries = QueryLimits().maxQueuedQueries
    var maxQueryBytes = QueryLimits().maxQueryLength
    var clientOutputLimitBytes = Connection.defaultOutputLimit
    /// `--import-folder`: the only directory LOAD CSV may read files from; nil: none.
    var importFolder: String?
    /// `--busy-poll`: microseconds an idle event loop polls before it sleeps.
    var busyPollMicroseconds = ServerConfiguration.defaultBusyPollMicroseconds
    /// Largest bulk argument a client may send, in bytes.
    var maxBulkBytes = ProtocolLimits.defaultMaxBulkLength
    /// `--memory-ceiling`: bytes running queries and client buffers may hold in all.
    var memoryCeilingBytes = ServerFlags.defaultMemoryCeiling

    /// Half of the machine's memory (at least 256 MiB): the graphs, which the ceiling does not
    /// count, keep the other half.
    static let defaultMemoryCeiling: Int = max(256 << 20, Int(clamping: ProcessInfo.processInfo.physicalMemory / 2))

    init() {}

    /// The flags, for the serve subcommand's table.
    static var options: [OptionSpec<ServeOptions>] {
        [
            OptionSpec("--requirepass", value: "PASSWORD", environment: "GRAPHD_PASSWORD",
                       help: "require AUTH with this password (needed to --bind a non-loopback address)") { o, t throws(UsageError) in
                o.server.password = try OptionValue.nonEmpty(t, flag: "--requirepass", what: "a password")
            },
            OptionSpec("--max-clients", value: "N", environment: "GRAPHD_MAX_CLIENTS",
                       help: "connections served at once (default 10000)") { o, t throws(UsageError) in
                o.server.maxClients = try OptionValue.integer(t, flag: "--max-clients", in: 1...1_000_000)
            },
            OptionSpec("--timeout", value: "MS", environment: "GRAPHD_TIMEOUT",
                       help: "default query timeout in ms, 0 for none (default \(QueryLimits().timeoutDefault); GRAPH.CONFIG TIMEOUT_DEFAULT)") { o, t throws(UsageError) in
                o.server.timeoutDefaultMilliseconds = Int64(try OptionValue.integer(t, flag: "--timeout", in: 0...Int(Int32.max)))
            },
            OptionSpec("--timeout-max", value: "MS", environment: "GRAPHD_TIMEOUT_MAX",
                       help: "largest per-query TIMEOUT in ms, 0 for no cap (default \(QueryLimits().timeoutMax); GRAPH.CONFIG TIMEOUT_MAX)") { o, t throws(UsageError) in
                o.server.timeoutMaxMilliseconds = Int64(try OptionValue.integer(t, flag: "--timeout-max", in: 0...Int(Int32.max)))
            },
            OptionSpec("--max-result-rows", value: "N", environment: "GRAPHD_MAX_RESULT_ROWS",
                       help: "rows a result may hold, -1 for no cap (default \(QueryLimits().resultSetSize); GRAPH.CONFIG RESULTSET_SIZE)") { o, t throws(UsageError) in
                o.server.maxResultRows = Int64(try OptionValue.integer(t, flag: "--max-result-rows", in: -1...Int(Int32.max)))
            },
            OptionSpec("--max-queued-queries", value: "N", environment: "GRAPHD_MAX_QUEUED_QUERIES",
                       help: "queries waiting or running before new ones are refused (default \(QueryLimits().maxQueuedQueries))") { o, t throws(UsageError) in
                o.server.maxQueuedQueries = Int64(try OptionValue.integer(t, flag: "--max-queued-queries", in: 1...Int(UInt32.max)))
            },
            OptionSpec("--max-query-bytes", value: "N", environment: "GRAPHD_MAX_QUERY_BYTES",
                       help: "longest query text in bytes (default \(QueryLimits().maxQueryLength))") { o, t throws(UsageError) in
                o.server.maxQueryBytes = Int64(try OptionValue.integer(t, flag: "--max-query-bytes", in: 1...512 * 1024 * 1024))
            },
            OptionSpec("--max-bulk-bytes", value: "N", environment: "GRAPHD_MAX_BULK_BYTES",
                       help: "largest request argument in bytes (default \(ProtocolLimits.defaultMaxBulkLength))") { o, t throws(UsageError) in
                o.server.maxBulkBytes = try OptionValue.integer(t, flag: "--max-bulk-bytes", in: 1024...ProtocolLimits.defaultMaxBulkLength)
            },
            OptionSpec("--import-folder", value: "DIR", environment: "GRAPHD_IMPORT_FOLDER",
                       help: "the only directory LOAD CSV may read files from (default: none, LOAD CSV of files is off)") { o, t throws(UsageError) in
                o.server.importFolder = try OptionValue.nonEmpty(t, flag: "--import-folder", what: "a directory")
            },
            OptionSpec("--busy-poll", value: "MICROSECONDS", environment: "GRAPHD_BUSY_POLL",
                       help: "how long an idle event loop polls for requests before it sleeps, 0 to always sleep "
                             + "(default \(ServerConfiguration.defaultBusyPollMicroseconds); trades CPU for latency)") { o, t throws(UsageError) in
                o.server.busyPollMicroseconds = try OptionValue.integer(t, flag: "--busy-poll", in: 0...1_000_000)
            },
            OptionSpec("--memory-ceiling", value: "BYTES", environment: "GRAPHD_MEMORY_CEILING",
                       help: "bytes running queries and client buffers may hold in all; past it new queries are refused and the "
                           + "clients buffering most are closed (default half the machine's memory)") { o, t throws(UsageError) in
                o.server.memoryCeilingBytes = try OptionValue.integer(t, flag: "--memory-ceiling", in: 16 << 20...Int.max)
            },
            OptionSpec("--client-output-limit", value: "BYTES", environment: "GRAPHD_CLIENT_OUTPUT_LIMIT",
                       help: "unsent reply bytes after which a client is disconnected (default \(Connection.defaultOutputLimit))") { o, t throws(UsageError) in
                o.server.clientOutputLimitBytes = try OptionValue.integer(t, flag: "--client-output-limit", in: 64 * 1024...Int(Int32.max) * 16)
            },
        ]
    }
}
