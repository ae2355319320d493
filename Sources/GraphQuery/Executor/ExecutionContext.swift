// ExecutionContext.swift — what one run of a plan carries: the graph (moved in, never copied,
// so writes do not trigger copy-on-write of the whole graph), the bound parameters and the
// statistics counters. It lives only inside the store's read or write closure.

import GraphStore

/// A row: one value per slot of the current scope.
typealias Row = [RuntimeValue]

/// The state of one query run.
struct ExecutionContext {
    var graph: Graph
    let parameters: [String: RuntimeValue]
    var statistics = QueryStatistics()

    init(graph: Graph, parameters: [String: RuntimeValue]) {
        self.graph = graph
        self.parameters = parameters
    }

    /// Maps a store error to the query layer's: constraint violations keep their category.
    static func queryError(_ error: GraphError) -> QueryError {
        QueryError(error.kind == .constraintViolation ? .constraint : .runtime, error.message)
    }
}
