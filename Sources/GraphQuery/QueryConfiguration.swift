// QueryConfiguration.swift — the engine's run-time limits and settings (FalkorDB's GRAPH.CONFIG
// values): default and maximum query time, result-row limit, per-query memory cap, and the
// directory LOAD CSV may read. Set at init, changeable while the engine runs.

/// Limits and settings of one QueryEngine. Nil means "no limit".
public struct QueryConfiguration: Sendable, Equatable {
    /// Applied to a query that passes no `timeout` (FalkorDB's TIMEOUT_DEFAULT).
    public var defaultTimeout: Duration?
    /// No query may run longer, whatever it asks for (FalkorDB's TIMEOUT_MAX).
    public var maximumTimeout: Duration?
    /// A query whose result has more rows fails, changing nothing (the server's RESULTSET_SIZE).
    public var resultRowLimit: Int?
    /// Bytes of intermediate results (buffered rows, collected lists) one query may hold
    /// (FalkorDB's QUERY_MEM_CAPACITY); an estimate, counted by the breakers and big builders.
    public var memoryLimit: Int?
    /// The only directory `LOAD CSV FROM 'file:///…'` may read; nil disables LOAD CSV of files.
    public var importDirectory: String?
    /// The server-wide count every query's charges also go to (MemoryCeiling); nil: none.
    public var memoryCeiling: MemoryCeiling?

    public init(defaultTimeout: Duration? = nil, maximumTimeout: Duration? = nil, resultRowLimit: Int? = nil,
                memoryLimit: Int? = nil, importDirectory: String? = nil, memoryCeiling: MemoryCeiling? = nil) {
        self.defaultTimeout = defaultTimeout
        self.maximumTimeout = maximumTimeout
        self.resultRowLimit = resultRowLimit
        self.memoryLimit = memoryLimit
        self.importDirectory = importDirectory
        self.memoryCeiling = memoryCeiling
    }

    /// The limit a query runs under: its own (or the default), capped by the maximum.
    func effectiveTimeout(_ requested: Duration?) -> Duration? {
        guard let limit = requested ?? defaultTimeout else { return maximumTimeout }
        guard let maximumTimeout else { return limit }
        return min(limit, maximumTimeout)
    }
}
