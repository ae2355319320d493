// Planner.swift — turns a bound query into a logical plan. Each pattern chain starts from a bound
// node, else a (label, property) seek, else a label scan, else all nodes, and expands along
// adjacency lists to both ends, filtering each node and relationship as soon as it is bound.

/// Builds plans.
enum Planner {
    static func plan(_ query: BoundQuery) -> LogicalPlan {
        var steps: [(step: PlanStep, width: Int)] = []
        for (clause, width) in query.clauses {
            switch clause {
            case .match(let match):
                steps.append((planMatch(match), width))
            case .create(let create):
                steps.append((.create(create), width))
            case .unwind(let list, let slot):
                steps.append((.unwind(list: list, slot: slot), width))
            case .projection(let projection):
                steps.append((.projection(projection), width))
            }
        }
        return LogicalPlan(steps: steps, columns: query.columns, isUpdating: query.isUpdating,
                           parameterNames: query.parameterNames)
    }

    static func planMatch(_ match: BoundMatch) -> PlanStep {
        var bound = match.boundBefore
        var operators: [PatternOperator] = []
        var relationshipsOfClause: [Int] = []
        for pattern in match.patterns {
            let start = startIndex(of: pattern, bound: bound)
            let node = pattern.nodes[start]
            if bound.contains(node.slot) {
                operators.append(.argument(slot: node.slot))
                operators.append(.nodeFilter(slot: node.slot, labels: node.labels, properties: node.properties))
            } else if let (label, key, value) = seekable(node, bound: bound) {
                operators.append(.propertySeek(slot: node.slot, label: label, key: key, value: value))
                operators.append(.nodeFilter(slot: node.slot, labels: node.labels.filter { $0 != label },
                                             properties: node.properties.filter { $0.key != key }))
            } else if let label = node.labels.first {
                operators.append(.labelScan(slot: node.slot, label: label))
                operators.append(.nodeFilter(slot: node.slot, labels: Array(node.labels.dropFirst()), properties: node.properties))
            } else {
                operators.append(.allNodesScan(slot: node.slot))
                operators.append(.nodeFilter(slot: node.slot, labels: [], properties: node.properties))
            }
            bound.insert(node.slot)
            // Rightwards from the start, then leftwards: relationship i joins node i and i + 1.
            let steps = Array(start..<pattern.relationships.count).map { ($0, true) }
                + Array((0..<start).reversed()).map { ($0, false) }
            for (i, rightwards) in steps {
                let relationship = pattern.relationships[i]
                let from = pattern.nodes[rightwards ? i : i + 1]
                let to = pattern.nodes[rightwards ? i + 1 : i]
                var direction = relationship.direction
                if !rightwards {
                    switch direction {
                    case .leftToRight: direction = .rightToLeft
                    case .rightToLeft: direction = .leftToRight
                    case .either: break
                    }
                }
                let relationshipIsBound = bound.contains(relationship.slot)
                operators.append(.expand(from: from.slot, relationship: relationship.slot, to: to.slot,
                                         types: relationship.types, direction: direction,
                                         toIsBound: bound.contains(to.slot), relationshipIsBound: relationshipIsBound,
                                         exclude: relationshipIsBound ? [] : relationshipsOfClause))
                if !relationship.properties.isEmpty {
                    operators.append(.relationshipFilter(slot: relationship.slot, properties: relationship.properties))
                }
                if !to.labels.isEmpty || !to.properties.isEmpty {
                    operators.append(.nodeFilter(slot: to.slot, labels: to.labels, properties: to.properties))
                }
                bound.insert(to.slot)
                if !relationshipIsBound { relationshipsOfClause.append(relationship.slot) }
                bound.insert(relationship.slot)
            }
        }
        return .match(operators: operators, predicate: match.predicate, isOptional: match.isOptional,
                      introduced: match.introduced)
    }

    /// The node to start a chain from: bound > seek > label scan > the first node.
    static func startIndex(of pattern: BoundPattern, bound: Set<Int>) -> Int {
        if let i = pattern.nodes.firstIndex(where: { bound.contains($0.slot) }) { return i }
        if let i = pattern.nodes.firstIndex(where: { seekable($0, bound: bound) != nil }) { return i }
        if let i = pattern.nodes.firstIndex(where: { !$0.labels.isEmpty }) { return i }
        return 0
    }

    /// A (label, key, value) to seek on: a labelled node with a property value known before the
    /// pattern runs (a literal, a parameter, or an expression over already bound variables).
    static func seekable(_ node: BoundNodePattern, bound: Set<Int>) -> (String, String, Expression)? {
        guard let label = node.labels.first else { return nil }
        for (key, value) in node.properties {
            if case .literal(.null) = value { continue }
            if let slots = value.referencedSlots, slots.isSubset(of: bound) { return (label, key, value) }
        }
        return nil
    }
}

extension Expression {
    /// The slots the expression reads, or nil when it holds something a plan cannot precompute
    /// (an aggregate result).
    var referencedSlots: Set<Int>? {
        switch self {
        case .literal, .parameter: return []
        case .slot(let s): return [s]
        case .variable, .aggregateResult: return nil
        case .property(let base, _), .unary(_, let base), .isNull(let base, _), .hasLabels(let base, _):
            return base.referencedSlots
        case .binary(_, let l, let r), .subscriptIndex(let l, let r):
            guard let a = l.referencedSlots, let b = r.referencedSlots else { return nil }
            return a.union(b)
        case .list(let elements): return Expression.union(elements)
        case .map(let entries): return Expression.union(entries.map(\.value))
        case .function(let call): return Expression.union(call.arguments)
        }
    }

    static func union(_ expressions: [Expression]) -> Set<Int>? {
        var all: Set<Int> = []
        for e in expressions {
            guard let s = e.referencedSlots else { return nil }
            all.formUnion(s)
        }
        return all
    }
}
