// QueryEngine.swift — the entry point of the query layer, calling the phases top to bottom:
// parameter header → lexer/parser → binder (semantic checks) → planner → executor, with the
// plan cached by query body text. The server and embedding apps call only `execute`.

import GraphStore
import Synchronization

/// Parses, plans (plans cached by query text) and runs queries. Thread-safe.
public final class QueryEngine: Sendable {
    /// Plans by query body text (the text after any `CYPHER` header, so that parameter values
    /// do not defeat the cache). Cleared whole when it reaches `cacheCapacity` entries.
    private let cache = Mutex<[String: LogicalPlan]>([:])
    private let cacheCapacity: Int

    /// - Parameter cacheCapacity: how many plans to keep before the cache is cleared.
    public init(cacheCapacity: Int = 1024) {
        self.cacheCapacity = max(1, cacheCapacity)
    }

    /// `text` may start with FalkorDB's parameter header: `CYPHER name=value name2=value2 <query>`
    /// (values are Cypher literals; names may be backticked). `parameters` adds to/overrides them.
    /// readOnly: a query that would write fails with QueryError(.semantic,
    ///   "graph.RO_QUERY is to be executed only on read-only queries") before anything happens.
    /// Read queries run under store.read; writing queries under store.write (one transaction).
    public func execute(_ text: String, on store: GraphStore, parameters: [String: Value] = [:],
                        readOnly: Bool = false) throws(QueryError) -> QueryResult {
        let clock = ContinuousClock()
        let started = clock.now
        let header = try ParameterHeader.split(text)
        let (plan, cached) = try compile(header.body)
        if readOnly && plan.isUpdating {
            throw QueryError(.semantic, "graph.RO_QUERY is to be executed only on read-only queries")
        }
        var bound: [String: RuntimeValue] = [:]
        for (name, value) in header.parameters { bound[name] = RuntimeValue(value) }
        for (name, value) in parameters { bound[name] = RuntimeValue(value) }
        if !plan.parameterNames.isSubset(of: bound.keys) {
            throw QueryError(.semantic, "Missing parameters")
        }
        var result: QueryResult
        do {
            if plan.isUpdating {
                result = try store.write { graph in try Executor.run(plan, graph: &graph, parameters: bound) }
            } else {
                result = try store.read { graph in
                    var view = graph  // never mutated: shares the store's storage
                    return try Executor.run(plan, graph: &view, parameters: bound)
                }
            }
        } catch let error as QueryError {
            throw error
        } catch let error as GraphError {
            throw ExecutionContext.queryError(error)
        } catch let error as StoreError {
            throw QueryError(.storage, error.message)
        } catch {
            throw QueryError(.runtime, "\(error)")
        }
        result.statistics.cachedExecution = cached
        let elapsed = clock.now - started
        result.statistics.executionTimeMilliseconds =
            Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return result
    }

    /// The plan for a query body, from the cache when present; the Bool says which.
    func compile(_ body: String) throws(QueryError) -> (LogicalPlan, Bool) {
        if let plan = cache.withLock({ $0[body] }) { return (plan, true) }
        let query = try Parser.parse(body)
        let plan = Planner.plan(try Binder.bind(query))
        cache.withLock { plans in
            if plans.count >= cacheCapacity { plans.removeAll(keepingCapacity: true) }
            plans[body] = plan
        }
        return (plan, false)
    }
}
