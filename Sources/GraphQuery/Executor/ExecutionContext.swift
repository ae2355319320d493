// ExecutionContext.swift — what one run of a plan carries: the graph (moved in, never copied,
// so writes do not trigger copy-on-write of the whole graph), the bound parameters, the
// statistics counters, the engine's procedures, the watchdog (deadline and memory cap) and,
// for PROFILE, the per-step counters. It lives only inside the store's read or write closure.

import GraphStore

/// A row: one value per slot of the current scope.
typealias Row = [RuntimeValue]

/// The state of one query run. A final class, used by one thread only: the operators are
/// methods on it and recurse for every row, and a struct this size was copied (every field
/// retained and released) on every call of the matcher.
final class ExecutionContext {
    var graph: Graph
    let parameters: [String: RuntimeValue]
    var statistics = QueryStatistics()
    let registry: ProcedureRegistry
    let watchdog: Watchdog
    /// Non-nil under PROFILE.
    var profiler: Profiler?
    /// Result rows allowed before the query fails (nil: no limit).
    let resultRowLimit: Int?
    /// The only directory LOAD CSV may read (nil: LOAD CSV of files is disabled).
    var importDirectory: String? = nil

    init(graph: Graph, parameters: [String: RuntimeValue], registry: ProcedureRegistry = .standard,
         watchdog: Watchdog = Watchdog(timeout: nil, memoryLimit: nil), profiler: Profiler? = nil,
         resultRowLimit: Int? = nil) {
        self.graph = graph
        self.parameters = parameters
        self.registry = registry
        self.watchdog = watchdog
        self.profiler = profiler
        self.resultRowLimit = resultRowLimit
    }

    /// Maps a store error to the query layer's: constraint violations keep their category.
    static func queryError(_ error: GraphError) -> QueryError {
        QueryError(error.kind == .constraintViolation ? .constraint : .runtime, error.message)
    }
}

/// PROFILE's counters: rows each plan step produced and the time spent in it (excluding the
/// steps it fed). A class shared by the recursive streaming calls of one run.
final class Profiler {
    var rows: [Int]
    var time: [Duration]
    init(steps: Int) {
        rows = Array(repeating: 0, count: steps)
        time = Array(repeating: .zero, count: steps)
    }
}
