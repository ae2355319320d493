// QueryBackend.swift — what the REPL runs statements against, so the same session works
// embedded on a data directory (EmbeddedBackend) or connected to a server over RESP
// (RemoteBackend). Also the REPL's error and the schema summary behind `:schema`.

import GraphQuery
import GraphStore

/// Why a REPL action failed.
enum REPLError: Error, Sendable, CustomStringConvertible {
    /// The query was rejected or failed; carries its location for the caret display.
    case query(QueryError)
    /// A server's error reply, as text.
    case server(String)
    /// Anything else (connection lost, graph name invalid).
    case other(String)

    var description: String {
        switch self {
        case .query(let error): return error.description
        case .server(let message), .other(let message): return message
        }
    }
}

/// Labels, relationship types, property keys and indexes of one graph.
struct GraphSchema: Sendable {
    var labels: [(name: String, count: Int?)] = []
    var relationshipTypes: [(name: String, count: Int?)] = []
    var propertyKeys: [String] = []
    /// e.g. "User(id) UNIQUE".
    var indexes: [String] = []
    var nodeCount: Int?
    var relationshipCount: Int?
}

/// Runs statements for the REPL.
protocol QueryBackend: AnyObject, Sendable {
    /// "embedded on ./graphd-data" or "connected to 127.0.0.1:6479".
    var summary: String { get }
    /// `cancellation`, cancelled on Ctrl-C, stops an in-process query where it is.
    func execute(_ query: String, graph: String, parameters: [String: Value],
                 cancellation: QueryCancellation?) throws(REPLError) -> QueryResult
    /// The plan as operator lines (EXPLAIN), or with row counts after running it (PROFILE).
    func plan(_ query: String, graph: String, parameters: [String: Value], profile: Bool) throws(REPLError) -> [String]
    func graphNames() throws(REPLError) -> [String]
    func schema(graph: String) throws(REPLError) -> GraphSchema
    /// Called from another thread on Ctrl-C while `execute` runs: make it return soon.
    func interrupt()
}
