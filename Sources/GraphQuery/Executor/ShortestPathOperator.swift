// ShortestPathOperator.swift — runs `shortestPath(…)` / `allShortestPaths(…)` for one row: the
// store's bidirectional breadth-first search (Graph+ShortestPaths.swift) when nothing but the
// pattern constrains the path, else, for a WHERE on the path or a minimum above one hop, every
// path of each length in turn from the least one up, keeping those the WHERE passes (Neo4j's
// semantics: the shortest of the paths that satisfy the predicate, not a filtered shortest).

import GraphStore

extension ExecutionContext {
    /// Binds each shortest path between the row's two ends and goes on with `operators[index…]`.
    func shortestPath(_ step: ShortestPathStep, _ operators: [PatternOperator], _ index: Int, _ row: inout Row,
                      _ emit: (Row) throws(QueryError) -> Bool) throws(QueryError) -> Bool {
        guard case .node(let start) = row[step.from], case .node(let end) = row[step.to] else { return true }
        let search = ShortestPathSearch(types: typeIDs(step.types), direction: step.direction.storeDirection,
                                        minHops: Swift.min(step.min, 1), maxHops: step.max, all: step.kind == .all)
        // The pattern's relationship properties, evaluated once for the row: key id and value.
        var wanted: [(key: PropertyKeyID, value: RuntimeValue)] = []
        var nonePass = false
        for (key, expression) in step.properties {
            let value = try evaluate(expression, row)
            if let id = propertyKeyID(key) { wanted.append((id, value)) } else { nonePass = true }
        }
        // Conditions on every step read their element from a slot of a row of their own.
        var local = Executor.padded(row, to: (step.stepConditions.map(\.slot).max() ?? 0) + 1)
        func passes(_ element: RuntimeValue, onNodes: Bool) throws(QueryError) -> Bool {
            for condition in step.stepConditions where condition.onNodes == onNodes {
                local[condition.slot] = element
                guard try evaluate(condition.predicate, local) == .bool(condition.expected) else { return false }
            }
            return true
        }
        let checksNodes = step.stepConditions.contains(where: \.onNodes)
        if checksNodes {
            guard try passes(.node(start), onNodes: true), try passes(.node(end), onNodes: true) else { return true }
        }
        let filtered = !step.properties.isEmpty || !step.stepConditions.isEmpty
        var paths: [[Relationship]] = []
        let streams = isReadOnly
        var going = true
        let walksEveryPath = step.predicate != nil || step.min > 1
        // Through the pointer, not `withGraph`: the filter reads properties as the search runs.
        let graph = graphPointer
        let length = try withScratch { (scratch) throws(QueryError) -> Int? in
            try graph.pointee.shortestPaths(from: start, to: end, search: search, scratch: &scratch, filtered: filtered,
                                            accept: { (r: Relationship) throws(QueryError) -> Bool in
                guard !nonePass else { return false }
                for (key, value) in wanted where RuntimeValue.equals(RuntimeValue(property(key, of: r.id)), value) != true {
                    return false
                }
                if try !passes(.relationship(r), onNodes: false) { return false }
                guard checksNodes else { return true }
                guard try passes(.node(r.start), onNodes: true) else { return false }
                return try passes(.node(r.end), onNodes: true)
            }) { (path: [Relationship]) throws(QueryError) -> Bool in
                // With a WHERE or a minimum, only the least length is wanted here (the walk
                // below starts from it).
                if walksEveryPath { return false }
                // A read goes on with each path as it is rebuilt, so a LIMIT stops the search
                // (`allShortestPaths(…) … LIMIT 1`); a write could change the graph the search
                // holds, so its paths are kept and go on afterwards.
                if streams {
                    bind(path, from: start, step, &row)
                    going = try match(operators, index + 1, &row, emit)
                    return going
                }
                try watchdog.charge(16 * path.count + 32)
                paths.append(path)
                return true
            }
        }
        guard let length, going else { return going }
        if walksEveryPath {
            return try shortestByWalking(step, from: start, shortest: Swift.max(length, step.min), operators, index, &row, emit)
        }
        for path in paths {
            bind(path, from: start, step, &row)
            guard try match(operators, index + 1, &row, emit) else { return false }
        }
        return true
    }

    /// The exhaustive search: for each length from `shortest` up to the step's maximum, every
    /// path of exactly that length (relationships distinct, as a variable-length pattern
    /// walks), bound and tested by the step's predicate; the first length with a passing path
    /// is the answer (its first passing path for `shortestPath`, all of them for
    /// `allShortestPaths`). Stops when no path of a length exists at all.
    private func shortestByWalking(_ step: ShortestPathStep, from start: NodeID, shortest: Int, _ operators: [PatternOperator],
                                   _ index: Int, _ row: inout Row,
                                   _ emit: (Row) throws(QueryError) -> Bool) throws(QueryError) -> Bool {
        let typeIDs = typeIDs(step.types)
        let longest = step.max ?? ExecutionContext.maximumPathLength
        guard shortest <= longest else { return true }
        for length in shortest...longest {
            var found: [[Relationship]] = []
            var reachedLength = false
            var path: [Relationship] = []
            let settings: WalkSettings = (step.relationship, step.to, typeIDs, step.direction, true, length, length, step.properties, [], true)
            let held = row[step.to]
            _ = try walk(from: start, depth: 0, path: &path, row: &row, settings: settings) { (r: inout Row) throws(QueryError) -> Bool in
                reachedLength = true
                guard case .list(let list) = r[step.relationship] else { return true }
                let relationships = list.compactMap { if case .relationship(let x) = $0 { x } else { nil } }
                self.bind(relationships, from: start, step, &r)
                guard try evaluate(step.predicate ?? .literal(.bool(true)), r) == .bool(true),
                      try self.everyStepPasses(step, relationships, from: start, r) else { return true }
                try watchdog.charge(16 * relationships.count + 32)
                found.append(relationships)
                return step.kind == .all
            }
            row[step.to] = held
            if !found.isEmpty {
                for relationships in found {
                    bind(relationships, from: start, step, &row)
                    guard try match(operators, index + 1, &row, emit) else { return false }
                }
                return true
            }
            // The walk only reports paths ending at the far node: a length none reached may
            // still have longer ones, so only the absence of any path that long ends the search.
            if !reachedLength, !hasPath(from: start, length: length, typeIDs, step) { return true }
        }
        return true
    }

    /// Whether any path of `length` relationships (distinct ones) leaves `start` as the step's
    /// pattern allows: when none does, no longer one does either.
    private func hasPath(from start: NodeID, length: Int, _ typeIDs: [RelationshipTypeID], _ step: ShortestPathStep) -> Bool {
        var row = Row(repeating: .null, count: Swift.max(step.relationship, step.to) + 1)
        var path: [Relationship] = []
        var any = false
        let settings: WalkSettings = (step.relationship, step.to, typeIDs, step.direction, false, length, length, step.properties, [], false)
        _ = try? walk(from: start, depth: 0, path: &path, row: &row, settings: settings) { (_: inout Row) throws(QueryError) -> Bool in
            any = true
            return false
        }
        return any
    }

    /// Whether each relationship and node of a path meets the step's conditions on every step.
    private func everyStepPasses(_ step: ShortestPathStep, _ relationships: [Relationship], from start: NodeID,
                                 _ row: Row) throws(QueryError) -> Bool {
        guard !step.stepConditions.isEmpty else { return true }
        var local = Executor.padded(row, to: (step.stepConditions.map(\.slot).max() ?? 0) + 1)
        var nodes = [start]
        for r in relationships { nodes.append(r.otherEnd(from: nodes[nodes.count - 1])) }
        for condition in step.stepConditions {
            let elements: [RuntimeValue] = condition.onNodes ? nodes.map { .node($0) } : relationships.map { .relationship($0) }
            for element in elements {
                local[condition.slot] = element
                guard try evaluate(condition.predicate, local) == .bool(condition.expected) else { return false }
            }
        }
        return true
    }

    /// Puts a found path into the step's slots: the path, and its relationship (list).
    private func bind(_ relationships: [Relationship], from start: NodeID, _ step: ShortestPathStep, _ row: inout Row) {
        var nodes = [start]
        nodes.reserveCapacity(relationships.count + 1)
        for r in relationships { nodes.append(r.otherEnd(from: nodes[nodes.count - 1])) }
        row[step.path] = .path(nodes: nodes, relationships: relationships)
        row[step.relationship] = step.singleHop && relationships.count == 1
            ? .relationship(relationships[0]) : .list(relationships.map { .relationship($0) })
    }

    /// Runs `body` with a traversal scratch of the engine's pool (a fresh one without a pool).
    func withScratch<R>(_ body: (inout TraversalScratch) throws(QueryError) -> R) throws(QueryError) -> R {
        if let traversalScratch { return try traversalScratch.withScratch(body) }
        var scratch = TraversalScratch()
        return try body(&scratch)
    }
}

extension PatternDirection {
    /// The store's direction for a relationship read from the pattern's left node.
    var storeDirection: Direction {
        switch self {
        case .leftToRight: .outgoing
        case .rightToLeft: .incoming
        case .either: .both
        }
    }
}
