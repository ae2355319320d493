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
              case .propertySeek(let slot, let label?, let key, let value) = operators.first,
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
            // The columns' keys, resolved once when several nodes may come; for the one node of
            // a unique index, as its cells are written (no array for them, nor for a row: the
            // cells go straight into the result).
            let unique = graph.isUniquelyIndexed(label: labelID, key: keyID)
            let keys = unique ? [] : columns.map { $0.flatMap { graph.propertyKeyID(named: $0) } }
            if unique {
                if let node = graph.firstNodeID(withLabel: labelID, key: keyID, equalTo: stored) {
                    try emit(node, keys: keys, into: &collector, graph: &graph)
                }
            } else {
                for node in graph.nodeIDs(withLabel: labelID, key: keyID, equalTo: stored) {
                    try watchdog.tick()
                    try emit(node, keys: keys, into: &collector, graph: &graph)
                }
            }
        }
        var result = collector.result
        result.hasResultSet = true
        return result
    }

    /// The node's row, written cell by cell into the result; `keys` are the columns' keys,
    /// or empty to resolve them here. A method with the graph `inout`, not a closure over it:
    /// through a capture, the graph was copied whole (two dozen references retained and
    /// released) for every row.
    private func emit(_ node: NodeID, keys: [PropertyKeyID?], into collector: inout ResultCollector,
                      graph: inout Graph) throws(QueryError) {
        try collector.beginRow()
        for (i, column) in columns.enumerated() {
            guard let column else {
                collector.appendCell(PointLookup.cell(.node(node), &graph))
                continue
            }
            if let key = keys.isEmpty ? graph.propertyKeyID(named: column) : keys[i] {
                collector.appendCell(PointLookup.cell(RuntimeValue(graph.property(key, of: node)), &graph))
            } else {
                collector.appendCell(.null)  // a key no node has
            }
        }
        collector.endRow()
    }

    /// A cell's result value. The graph comes `inout` (it is only read): borrowed, it was
    /// copied first (as ResultCollector's `entity` explains).
    private static func cell(_ value: RuntimeValue, _ graph: inout Graph) -> ResultValue {
        ResultValue(scalar: value) ?? ResultValue(value, in: graph)
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
