// PatternMatcher.swift — runs a MATCH step's pattern operators depth-first for one input row,
// handing each complete match on as soon as it is found: scans and seeks bind a start node,
// expansions walk adjacency lists (undirected = outgoing then incoming, a self-loop once).

import GraphStore

extension ExecutionContext {
    /// Hands every extension of `row` that satisfies `operators[index...]` to `emit`, which
    /// returns false to stop the search (a LIMIT was reached). Returns false once stopped.
    func match(_ operators: [PatternOperator], _ index: Int, _ row: inout Row,
               _ emit: (Row) throws(QueryError) -> Bool) throws(QueryError) -> Bool {
        guard index < operators.count else { return try emit(row) }
        switch operators[index] {
        case .allNodesScan(let slot):
            for node in graph.nodeIDs() {
                row[slot] = .node(node)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .labelScan(let slot, let label):
            guard let id = graph.labelID(named: label) else { return true }
            for node in graph.nodeIDs(withLabel: id) {
                row[slot] = .node(node)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .propertySeek(let slot, let label, let key, let expression):
            guard let labelID = graph.labelID(named: label), let keyID = graph.propertyKeyID(named: key) else { return true }
            let value = try evaluate(expression, row)
            // Null equals nothing; a node or relationship is never a stored property value.
            guard !value.isNull, let stored = value.storable else { return true }
            for node in graph.nodeIDs(withLabel: labelID, key: keyID, equalTo: stored) {
                row[slot] = .node(node)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .argument(let slot):
            switch row[slot] {
            case .null: return true
            case .node: return try match(operators, index + 1, &row, emit)
            default: throw RuntimeValue.typeMismatch(expected: "Node", row[slot])
            }
        case .nodeFilter(let slot, let labels, let properties):
            guard case .node(let node) = row[slot] else { return true }
            for label in labels {
                guard let id = graph.labelID(named: label), graph.node(node, hasLabel: id) else { return true }
            }
            guard try propertiesMatch(properties, of: row[slot], row) else { return true }
            return try match(operators, index + 1, &row, emit)
        case .relationshipFilter(let slot, let properties):
            guard try propertiesMatch(properties, of: row[slot], row) else { return true }
            return try match(operators, index + 1, &row, emit)
        case .expand(let from, let relationshipSlot, let to, let types, let direction, let toIsBound,
                     let relationshipIsBound, let exclude):
            guard case .node(let start) = row[from] else { return true }
            if toIsBound, !row[to].isNode { return true }
            let typeIDs: [RelationshipTypeID] = types.isEmpty
                ? (0..<graph.relationshipTypeNames.count).map { RelationshipTypeID($0) }
                : types.compactMap { graph.relationshipTypeID(named: $0) }
            let directions: [Direction] = switch direction {
            case .leftToRight: [.outgoing]
            case .rightToLeft: [.incoming]
            case .either: [.outgoing, .incoming]
            }
            for way in directions {
                for type in typeIDs {
                    for adjacency in graph.adjacency(of: start, type: type, direction: way) {
                        // Undirected: a self-loop is in both lists of its node; take it once.
                        if direction == .either, way == .incoming, adjacency.neighbor == start { continue }
                        let relationship = RuntimeValue.relationship(adjacency.relationship)
                        if exclude.contains(where: { row[$0] == relationship }) { continue }
                        if relationshipIsBound, row[relationshipSlot] != relationship { continue }
                        if toIsBound, row[to] != .node(adjacency.neighbor) { continue }
                        row[relationshipSlot] = relationship
                        row[to] = .node(adjacency.neighbor)
                        guard try match(operators, index + 1, &row, emit) else { return false }
                    }
                }
            }
        }
        return true
    }

    /// True when every `key: value` of a pattern's property map equals the entity's property.
    func propertiesMatch(_ properties: [(key: String, value: Expression)], of entity: RuntimeValue, _ row: Row) throws(QueryError) -> Bool {
        for (key, expression) in properties {
            let expected = try evaluate(expression, row)
            guard RuntimeValue.equals(try property(key, of: entity), expected) == true else { return false }
        }
        return true
    }
}

extension RuntimeValue {
    var isNode: Bool { if case .node = self { return true } else { return false } }
}
