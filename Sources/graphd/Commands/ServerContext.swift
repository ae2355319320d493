// ServerContext.swift — what a command handler may touch: the data directory and the
// query engine. Passed explicitly to every handler (no globals), so tests can hand in an
// in-memory directory and the server owns exactly one of each.

import GraphQuery
import GraphStore

/// The shared, thread-safe state command handlers run against.
struct ServerContext: Sendable {
    /// The graphs, one store per name.
    let dataDirectory: DataDirectory
    /// Parses, plans and runs queries; caches plans by text.
    let engine: QueryEngine

    init(dataDirectory: DataDirectory, engine: QueryEngine) {
        self.dataDirectory = dataDirectory
        self.engine = engine
    }
}
