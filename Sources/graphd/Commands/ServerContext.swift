// ServerContext.swift — what a command handler may touch: the data directory, the query
// engine, the run-time configuration, the statistics and the slow log, and the fixed facts
// about this server (password, port, version). Passed explicitly to every handler (no
// globals), so tests can hand in an in-memory directory and the server owns one of each.

import GraphQuery
import GraphStore

/// The shared, thread-safe state command handlers run against.
struct ServerContext: Sendable {
    /// The graphs, one store per name.
    let dataDirectory: DataDirectory
    /// Parses, plans and runs queries; caches plans by text.
    let engine: QueryEngine
    /// GRAPH.CONFIG values (timeouts, row limit, queue limit).
    let configuration: RuntimeConfiguration
    /// Counters for INFO.
    let statistics: ServerStatistics
    /// GRAPH.SLOWLOG.
    let slowLog: SlowLog
    /// The password clients must give (`--requirepass`); nil: none required.
    let password: String?
    /// The TCP port served, for INFO.
    let port: Int
    /// The change feed of every graph (Pub/Sub's `graphd:` channels, GRAPH.CHANGES).
    let changeFeed: ChangeFeed

    init(dataDirectory: DataDirectory, engine: QueryEngine,
         configuration: RuntimeConfiguration = RuntimeConfiguration(),
         statistics: ServerStatistics = ServerStatistics(), slowLog: SlowLog = SlowLog(),
         password: String? = nil, port: Int = 0) {
        self.dataDirectory = dataDirectory
        self.engine = engine
        self.configuration = configuration
        self.statistics = statistics
        self.slowLog = slowLog
        self.password = password
        self.port = port
        changeFeed = ChangeFeed(dataDirectory: dataDirectory)
        applyConfiguration()
    }

    /// Hands the row and memory caps to the engine, which enforces them while the query
    /// runs (before a write commits). Timeouts go with each query (`GraphCommands.execute`).
    /// Called at start and after every GRAPH.CONFIG SET.
    func applyConfiguration() {
        let limits = configuration.limits
        var settings = engine.configuration
        settings.resultRowLimit = limits.resultSetSize < 0 ? nil : Int(limits.resultSetSize)
        settings.memoryLimit = limits.queryMemoryCapacity > 0 ? Int(limits.queryMemoryCapacity) : nil
        engine.configuration = settings
    }
}
