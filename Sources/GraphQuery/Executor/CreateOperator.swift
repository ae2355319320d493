// CreateOperator.swift — runs CREATE for each input row: new nodes with their labels and
// properties, then relationships between the pattern's nodes (bound or just created), and
// counts what it did in FalkorDB's statistics. Runs inside the store's write transaction.

import GraphStore

extension ExecutionContext {
    func create(_ create: BoundCreate, rows: [Row]) throws(QueryError) -> [Row] {
        var output: [Row] = []
        output.reserveCapacity(rows.count)
        for var row in rows {
            try watchdog.tick()
            var createdHere: Set<Int> = []
            for pattern in create.patterns {
                var nodes: [NodeID] = []
                for node in pattern.nodes {
                    if create.boundBefore.contains(node.slot) || createdHere.contains(node.slot) {
                        guard case .node(let existing) = row[node.slot] else {
                            throw QueryError(.runtime, "Failed to create relationship; endpoint was not found.")
                        }
                        nodes.append(existing)
                        continue
                    }
                    let labels = node.labels.map { graph.internLabel($0) }
                    let properties = try storableProperties(node.properties, row)
                    let id: NodeID
                    do { id = try graph.createNode(labels: Array(Set(labels)).sorted(), properties: properties) }
                    catch { throw ExecutionContext.queryError(error) }
                    statistics.nodesCreated += 1
                    statistics.labelsAdded += Set(labels).count
                    statistics.propertiesSet += properties.count
                    row[node.slot] = .node(id)
                    createdHere.insert(node.slot)
                    nodes.append(id)
                }
                for (i, relationship) in pattern.relationships.enumerated() {
                    // The binder allows exactly one type and a direction in CREATE.
                    let type = graph.internRelationshipType(relationship.types[0])
                    let (from, to) = relationship.direction == .rightToLeft ? (nodes[i + 1], nodes[i]) : (nodes[i], nodes[i + 1])
                    let properties = try storableProperties(relationship.properties, row)
                    let created: Relationship
                    do { created = try graph.createRelationship(type: type, from: from, to: to, properties: properties) }
                    catch { throw ExecutionContext.queryError(error) }
                    statistics.relationshipsCreated += 1
                    statistics.propertiesSet += properties.count
                    row[relationship.slot] = .relationship(created)
                }
            }
            output.append(row)
        }
        return output
    }

    /// Evaluates a property map for storing: null values are left out (setting null is removing),
    /// a later duplicate key wins, and values a property cannot hold are refused.
    func storableProperties(_ properties: [(key: String, value: Expression)], _ row: Row) throws(QueryError) -> [(key: PropertyKeyID, value: Value)] {
        var out: [(key: PropertyKeyID, value: Value)] = []
        for (key, expression) in properties {
            let value = try evaluate(expression, row)
            guard let stored = value.storable else {
                throw QueryError(.type, "Property values can only be of primitive types or arrays of primitive types")
            }
            let id = graph.internPropertyKey(key)
            out.removeAll { $0.key == id }
            if stored != .null { out.append((id, stored)) }
        }
        return out
    }
}
