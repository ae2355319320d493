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
    /// The TCP port served, for INFO (and announced to a primary by a replica).
    let port: Int
    /// This server's role in a replicated set, its followers and knobs.
    let replication: ReplicationState
    /// Where server events go (stderr in graphd).
    let log: @Sendable (String) -> Void
    /// Unsent reply bytes a client may accumulate (`--client-output-limit`): a reply larger
    /// than this closes the connection, so replication sends no copy larger than it.
    let clientOutputLimit: Int
    /// The change feed of every graph (Pub/Sub's `graphd:` channels, GRAPH.CHANGES).
    let changeFeed: ChangeFeed

    init(dataDirectory: DataDirectory, engine: QueryEngine,
         configuration: RuntimeConfiguration = RuntimeConfiguration(),
         statistics: ServerStatistics = ServerStatistics(), slowLog: SlowLog = SlowLog(),
         password: String? = nil, port: Int = 0, replication: ReplicationState = ReplicationState(),
         log: @escaping @Sendable (String) -> Void = { _ in }, clientOutputLimit: Int = Connection.defaultOutputLimit) {
        self.dataDirectory = dataDirectory
        self.engine = engine
        self.configuration = configuration
        self.statistics = statistics
        self.slowLog = slowLog
        self.password = password
        self.port = port
        self.replication = replication
        self.log = log
        self.clientOutputLimit = clientOutputLimit
        changeFeed = ChangeFeed(dataDirectory: dataDirectory)
        applyConfiguration()
    }

    /// Starts following the primary that `replication`'s role names, for the role change that
    /// made `generation` (the link stops by itself once another change happens).
    func startReplicaLink(_ generation: UInt64) {
        ReplicaLink.start(context: self, generation: generation)
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
