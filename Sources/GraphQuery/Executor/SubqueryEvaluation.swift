// SubqueryEvaluation.swift — `EXISTS { … }` and `COUNT { … }` over a whole query: the
// subquery's plan runs with the current row as its only input row, in the same run (its
// graph, parameters, watchdog), and its rows are counted, never returned.

extension ExecutionContext {
    /// Whether the subquery returns a row for `row` (EXISTS), or how many it returns (COUNT).
    func evaluate(_ subquery: Subquery, _ row: Row) throws(QueryError) -> RuntimeValue {
        guard let plan = subquery.plan else {
            throw QueryError(.runtime, "\(subquery.kind.rawValue) subquery was not bound before it ran")
        }
        var input = Array(row.prefix(subquery.outerWidth))
        if input.count < subquery.outerWidth { input += Array(repeating: .null, count: subquery.outerWidth - input.count) }
        // The subquery's rows are its own: the outer run's result collector and PROFILE counters
        // (indexed by the outer plan's steps) stay out of its way.
        let (heldCollector, heldProfiler) = (collector, profiler)
        collector = nil
        profiler = nil
        defer { collector = heldCollector; profiler = heldProfiler }
        let rows = try self.rows(of: plan, input: [input])
        switch subquery.kind {
        case .exists: return .bool(!rows.isEmpty)
        case .count: return .integer(Int64(rows.count))
        }
    }
}
