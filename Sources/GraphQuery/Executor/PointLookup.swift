// PointLookup.swift — the plan of a point lookup (`MATCH (u:User {id: $id}) RETURN u.name, …`),
// run without the general executor: one index seek, the found nodes' properties read straight
// into the result. An app's most frequent query, it spent more on the executor's set-up (its
// context object, row streams and per-step state, each allocated and freed) than on its answer.

import GraphStore

/// A plan that is exactly one labelled node found by one property (a seek, no other pattern, no
/// WHERE) and a RETURN of that node or its properties (no DISTINCT, ORDER BY, SKIP, LIMIT or
/// aggregate). Any other plan has none, and runs on the general executor, which answers these
/// the same way (the tests compare the two).
struct PointLookup: Sendable {
    var label: String
    var key: String
    /// What the property must equal: a parameter or a literal.
    var value: Expression
    /// Per RETURN column: a property's key, or nil for the node itself.
    var columns: [String?]

    /// The point lookup `plan` is, or nil.
    init?(_ plan: LogicalPlan) {
        guard plan.unions.isEmpty, !plan.isUpdating, plan.steps.count == 2,
              case .match(let operators, nil, false, _) = plan.steps[0].step,
              case .propertySeek(let slot, let label, let key, let value) = operators.first,
              operators.dropFirst().allSatisfy({ PointLookup.checksNothing($0, on: slot) }),
              case .projection(let projection) = plan.steps[1].step,
              projection.aggregates.isEmpty, !projection.isDistinct, projection.orderBy.isEmpty,
              projection.skip == nil, projection.limit == nil, projection.predicate == nil,
              let columns = plan.columns, columns.count == projection.items.count
        else { return nil }
        switch value {
        case .parameter, .literal: break
        default: return nil
        }
        var read: [String?] = []
        for (_, expression) in projection.items {
            switch expression {
            case .slot(slot): read.append(nil)
            case .property(.slot(slot), let key): read.append(key)
            default: return nil
            }
        }
        (self.label, self.key, self.value, self.columns) = (label, key, value, read)
    }

    /// True for the filter the planner leaves after a seek whose node pattern has nothing more
    /// to check (no other label, no other property).
    private static func checksNothing(_ step: PatternOperator, on slot: Int) -> Bool {
        guard case .nodeFilter(slot, let labels, let properties) = step else { return false }
        return labels.isEmpty && properties.isEmpty
    }

    /// The lookup's rows, as the general executor would return them: every node with `label`
    /// whose `key` equals the value (Cypher equality; null equals nothing), under a unique
    /// index the one node.
    ///
    /// `graph` is inout only so that it is read in place: a copy retains every buffer it has.
    func run(graph: inout Graph, parameters: [String: RuntimeValue], watchdog: Watchdog,
             resultRowLimit: Int?) throws(QueryError) -> QueryResult {
        var collector = ResultCollector(width: columns.count, limit: resultRowLimit)
        try watchdog.tick()
        if let stored = try storedValue(parameters), let labelID = graph.labelID(named: label),
           let keyID = graph.propertyKeyID(named: key) {
            let keys = columns.map { $0.flatMap { graph.propertyKeyID(named: $0) } }
            var row: Row = []
            row.reserveCapacity(columns.count)
            func emit(_ node: NodeID) throws(QueryError) {
                row.removeAll(keepingCapacity: true)
                for (column, key) in zip(columns, keys) {
                    if column == nil {
                        row.append(.node(node))
                    } else if let key {
                        row.append(RuntimeValue(graph.property(key, of: node)))
                    } else {
                        row.append(.null)  // a key no node has
                    }
                }
                try collector.append(row, in: graph)
            }
            if graph.isUniquelyIndexed(label: labelID, key: keyID) {
                if let node = graph.firstNodeID(withLabel: labelID, key: keyID, equalTo: stored) { try emit(node) }
            } else {
                for node in graph.nodeIDs(withLabel: labelID, key: keyID, equalTo: stored) {
                    try watchdog.tick()
                    try emit(node)
                }
            }
        }
        var result = collector.result
        result.hasResultSet = true
        return result
    }

    /// The value to look for as stored, or nil when nothing can equal it (null, a node).
    private func storedValue(_ parameters: [String: RuntimeValue]) throws(QueryError) -> Value? {
        let value: RuntimeValue
        switch self.value {
        case .parameter(let name):
            guard let bound = parameters[name] else { throw QueryError(.semantic, "Missing parameters") }
            value = bound
        case .literal(let literal): value = RuntimeValue(literal)
        default: return nil
        }
        return value.isNull ? nil : value.storable
    }
}
