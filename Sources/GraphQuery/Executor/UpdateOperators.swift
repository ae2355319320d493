// UpdateOperators.swift — SET, REMOVE and [DETACH] DELETE for one input row (DELETE: for all
// rows at once), inside the store's write transaction, counting what changed in FalkorDB's
// statistics. A failure anywhere throws, and the transaction rolls everything back.

import GraphStore

/// A node or relationship a SET or REMOVE acts on.
enum UpdateTarget {
    case node(NodeID), relationship(Relationship)
}

extension ExecutionContext {
    /// The entity `value` names, nil for null (SET on null does nothing), else a type error.
    func updateTarget(_ value: RuntimeValue, clause: String) throws(QueryError) -> UpdateTarget? {
        switch value {
        case .null: return nil
        case .node(let n): return .node(n)
        case .relationship(let r): return .relationship(r)
        default: throw QueryError(.type, "Type mismatch: \(clause) expects a Node or Relationship but was \(value.typeName)")
        }
    }

    func currentProperty(_ key: PropertyKeyID, of target: UpdateTarget) -> Value {
        switch target {
        case .node(let n): return graph.contains(n) ? graph.property(key, of: n) : .null
        case .relationship(let r): return graph.contains(r.id) ? graph.property(key, of: r.id) : .null
        }
    }

    /// Sets (or, with null, removes) one property, counting it.
    func write(_ key: String, _ value: RuntimeValue, to target: UpdateTarget) throws(QueryError) {
        guard let stored = value.storable else {
            throw QueryError(.type, "Property values can only be of primitive types or arrays of primitive types")
        }
        if case .list(let elements) = stored, elements.contains(where: { if case .map = $0 { true } else if case .list = $0 { true } else { false } }) {
            throw QueryError(.type, "Property values can only be of primitive types or arrays of primitive types")
        }
        if case .map = stored {
            throw QueryError(.type, "Property values can only be of primitive types or arrays of primitive types")
        }
        let id = graph.internPropertyKey(key)
        let old = currentProperty(id, of: target)
        if stored == .null && old == .null { return }
        do {
            switch target {
            case .node(let n): try graph.setProperty(id, to: stored, of: n)
            case .relationship(let r): try graph.setProperty(id, to: stored, of: r)
            }
        } catch { throw ExecutionContext.queryError(error) }
        if stored == .null { statistics.propertiesRemoved += 1 } else { statistics.propertiesSet += 1 }
    }

    /// The entries of a map given to `=`/`+=` (a map, or a node's or relationship's properties).
    func entries(of value: RuntimeValue) throws(QueryError) -> [(String, RuntimeValue)] {
        switch value {
        case .map(let keys, let values): return Array(zip(keys, values))
        case .node(let n): return graph.properties(of: n).map { (graph.name(of: $0.key), RuntimeValue($0.value)) }
        case .relationship(let r): return graph.properties(of: r.id).map { (graph.name(of: $0.key), RuntimeValue($0.value)) }
        case .null: return []
        default: throw QueryError(.type, "Type mismatch: expected Map but was \(value.typeName)")
        }
    }

    func applySet(_ items: [SetItem], _ row: Row) throws(QueryError) {
        for item in items {
            switch item {
            case .property(let targetExpression, let key, let valueExpression):
                let value = try evaluate(valueExpression, row)
                guard let target = try updateTarget(try evaluate(targetExpression, row), clause: "SET") else { continue }
                try write(key, value, to: target)
            case .replaceProperties(let variable, let valueExpression):
                let value = try evaluate(valueExpression, row)
                guard let target = try updateTarget(try evaluate(variable, row), clause: "SET") else { continue }
                let new = try entries(of: value)
                let existing: [PropertyKeyID] = switch target {
                case .node(let n): graph.properties(of: n).map(\.key)
                case .relationship(let r): graph.properties(of: r.id).map(\.key)
                }
                for key in existing where !new.contains(where: { $0.0 == graph.name(of: key) }) {
                    try write(graph.name(of: key), .null, to: target)
                }
                for (key, v) in new { try write(key, v, to: target) }
            case .mergeProperties(let variable, let valueExpression):
                let value = try evaluate(valueExpression, row)
                guard let target = try updateTarget(try evaluate(variable, row), clause: "SET") else { continue }
                for (key, v) in try entries(of: value) { try write(key, v, to: target) }
            case .labels(let variable, let labels):
                guard let target = try updateTarget(try evaluate(variable, row), clause: "SET") else { continue }
                guard case .node(let node) = target else {
                    throw QueryError(.type, "Type mismatch: labels can only be set on a Node")
                }
                for label in labels {
                    let id = graph.internLabel(label)
                    if graph.node(node, hasLabel: id) { continue }
                    do { try graph.addLabel(id, to: node) } catch { throw ExecutionContext.queryError(error) }
                    statistics.labelsAdded += 1
                }
            }
        }
    }

    func applyRemove(_ items: [RemoveItem], _ row: Row) throws(QueryError) {
        for item in items {
            switch item {
            case .property(let targetExpression, let key):
                guard let target = try updateTarget(try evaluate(targetExpression, row), clause: "REMOVE") else { continue }
                try write(key, .null, to: target)
            case .labels(let variable, let labels):
                guard let target = try updateTarget(try evaluate(variable, row), clause: "REMOVE") else { continue }
                guard case .node(let node) = target else {
                    throw QueryError(.type, "Type mismatch: labels can only be removed from a Node")
                }
                for label in labels {
                    guard let id = graph.labelID(named: label), graph.node(node, hasLabel: id) else { continue }
                    do { try graph.removeLabel(id, from: node) } catch { throw ExecutionContext.queryError(error) }
                    statistics.labelsRemoved += 1
                }
            }
        }
    }

    /// Deletes every entity the targets name over all rows: relationships first (those of
    /// DETACH'ed nodes included), then nodes, so `DELETE r, n` works in any order.
    func delete(_ targets: [Expression], detach: Bool, rows: [Row]) throws(QueryError) {
        var nodes: [NodeID] = [], relationships: [Relationship] = []
        var seenNodes: Set<NodeID> = [], seenRelationships: Set<RelationshipID> = []
        func add(_ value: RuntimeValue) throws(QueryError) {
            switch value {
            case .null: break
            case .node(let n): if seenNodes.insert(n).inserted { nodes.append(n) }
            case .relationship(let r): if seenRelationships.insert(r.id).inserted { relationships.append(r) }
            case .path(let ns, let rs):
                for n in ns where seenNodes.insert(n).inserted { nodes.append(n) }
                for r in rs where seenRelationships.insert(r.id).inserted { relationships.append(r) }
            default:
                throw QueryError(.type, "Delete type mismatch, expecting either Node or Relationship, but was \(value.typeName)")
            }
        }
        for row in rows {
            for target in targets { try add(try evaluate(target, row)) }
        }
        hasDeleted = hasDeleted || !nodes.isEmpty || !relationships.isEmpty
        if detach {
            for node in nodes where graph.contains(node) {
                for direction in [Direction.outgoing, .incoming] {
                    for type in graph.relationshipTypes(of: node, direction: direction) {
                        for step in graph.steps(of: node, type: type, direction: direction)
                        where seenRelationships.insert(step.relationship).inserted {
                            relationships.append(Relationship(step.relationship, type: type, from: node, to: step.neighbor, direction: direction))
                        }
                    }
                }
            }
        }
        for relationship in relationships where graph.contains(relationship) {
            try watchdog.tick()
            do { try graph.deleteRelationship(relationship) } catch { throw ExecutionContext.queryError(error) }
            statistics.relationshipsDeleted += 1
        }
        for node in nodes where graph.contains(node) {
            try watchdog.tick()
            do { try graph.deleteNode(node, detach: false) } catch {
                if error.kind == .stillHasRelationships {
                    throw QueryError(.constraint, "Cannot delete node \(node.rawValue), because it still has relationships. To delete this node, you must first delete its relationships, or use DETACH DELETE.")
                }
                throw ExecutionContext.queryError(error)
            }
            statistics.nodesDeleted += 1
        }
    }

    /// MERGE: for each row in order (so a later row sees what an earlier one created), either
    /// every match of the pattern (then ON MATCH SET) or one newly created instance (ON CREATE SET).
    func merge(_ operators: [PatternOperator], _ merge: BoundMerge, rows: [Row]) throws(QueryError) -> [Row] {
        var output: [Row] = []
        for row in rows {
            for pattern in merge.create.patterns {
                for node in pattern.nodes where !merge.create.boundBefore.contains(node.slot) {
                    for (key, expression) in node.properties where try evaluate(expression, row).isNull {
                        throw QueryError(.runtime, "Cannot merge node using null property value for '\(key)'")
                    }
                }
            }
            var current = row
            var matches: [Row] = []
            _ = try match(operators, 0, &current) { (found: Row) throws(QueryError) -> Bool in
                matches.append(found)
                return true
            }
            if matches.isEmpty {
                let created = try create(merge.create, rows: [row])
                for var r in created {
                    if let path = merge.pathSlot, let pattern = merge.create.patterns.first {
                        r[path] = Self.path(nodes: pattern.nodes.map(\.slot), relationships: pattern.relationships.map(\.slot), in: r)
                    }
                    try applySet(merge.onCreate, r)
                    output.append(r)
                }
            } else {
                for r in matches {
                    try applySet(merge.onMatch, r)
                    output.append(r)
                }
            }
        }
        return output
    }

    /// The path through a pattern's node and relationship slots of `row` (null when one is not
    /// bound): what `p = …` names once the pattern's elements are.
    static func path(nodes: [Int], relationships: [Int], in row: Row) -> RuntimeValue {
        guard case .node(let first) = row[nodes[0]] else { return .null }
        var pathNodes = [first], pathRelationships: [Relationship] = []
        for (i, slot) in relationships.enumerated() {
            guard case .relationship(let r) = row[slot], case .node(let next) = row[nodes[i + 1]] else { return .null }
            pathRelationships.append(r)
            pathNodes.append(next)
        }
        return .path(nodes: pathNodes, relationships: pathRelationships)
    }

    /// CREATE/DROP INDEX and CONSTRAINT. A unique constraint is a unique index in the store.
    func runSchema(_ command: SchemaCommand) throws(QueryError) {
        if let fullText = command.fullText { return try runFullTextSchema(fullText, command.action) }
        let what = ":\(command.label)(\(command.key))"
        switch command.action {
        case .create:
            let label = graph.internLabel(command.label)
            let key = graph.internPropertyKey(command.key)
            if let existing = graph.indexes.first(where: { $0.label == label && $0.key == key }) {
                if command.isConstraint && existing.isUnique || !command.isConstraint {
                    throw QueryError(.semantic, command.isConstraint
                        ? "A unique constraint on \(what) already exists"
                        : "An index on \(what) already exists")
                }
                // A plain index becomes the unique one the constraint needs.
                do { try graph.dropIndex(label: label, key: key) } catch { throw ExecutionContext.queryError(error) }
            }
            do { try graph.createIndex(label: label, key: key, unique: command.isConstraint) }
            catch { throw ExecutionContext.queryError(error) }
            if command.isConstraint { statistics.constraintsCreated += 1 } else { statistics.indicesCreated += 1 }
        case .drop:
            guard let label = graph.labelID(named: command.label), let key = graph.propertyKeyID(named: command.key),
                  let existing = graph.indexes.first(where: { $0.label == label && $0.key == key }),
                  existing.isUnique == command.isConstraint else {
                throw QueryError(.semantic, command.isConstraint
                    ? "Unable to drop constraint on \(what): no such constraint"
                    : "Unable to drop index on \(what): no such index")
            }
            do { try graph.dropIndex(label: label, key: key) } catch { throw ExecutionContext.queryError(error) }
            if command.isConstraint { statistics.constraintsDeleted += 1 } else { statistics.indicesDeleted += 1 }
        }
    }
}
