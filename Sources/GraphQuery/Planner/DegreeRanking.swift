// DegreeRanking.swift — the degree-ranking rule: "the k users with the most friends" is every
// candidate's stored degree and a histogram, not a row per node hashed into groups and sorted
// whole. It reads the query after the degree rule (GetDegree) and the Normalizer have put a
// degree into the expansion-count function, so `count(f)` grouped by u, `count(*)` from the
// other end, and `size([(u)-[:T]-(x) | x])` all reach it the same way.

/// The degree-ranking rule, on a query's leading clauses.
enum DegreeRanking {
    /// An expansion count `(x)-[:type]-(:label?)` in `direction` (ScalarFunction.expansionCount).
    struct Degree: Equatable {
        var node: Int
        var type: String
        var direction: Int64
        var neighbourLabel: String?

        init?(_ e: Expression) {
            guard case .function(let call) = e, call.scalar == .expansionCount, call.arguments.count >= 3,
                  case .slot(let node) = call.arguments[0], case .literal(.string(let type)) = call.arguments[1],
                  case .literal(.integer(let direction)) = call.arguments[2] else { return nil }
            (self.node, self.type, self.direction) = (node, type, direction)
            if call.arguments.count > 3 {
                guard case .literal(.string(let label)) = call.arguments[3] else { return nil }
                neighbourLabel = label
            }
        }
    }

    /// `clauses` with a leading `MATCH (x[:L])` and the projections that rank x by a degree
    /// (highest first, then by `id(x)` or another key, with a LIMIT) replaced by a call of the
    /// ranking kernel and the projections without the grouping, or unchanged.
    ///
    /// Recognised: the MATCH the query's first clause, of x alone (no properties, at most one
    /// label), its WHERE none or `degree > 0`; the projection after it either grouping by x
    /// (x among its items, anything else of x alone) with every aggregate the sum of the degree
    /// (the degree rule's output), or not grouping, with the degree among its items (its WHERE
    /// none or `degree > 0`); and an ORDER BY whose first key is that degree column, descending,
    /// with a LIMIT, on that projection or on a plain one right after it.
    static func rewrite(_ clauses: [(clause: BoundClause, width: Int)]) -> [(clause: BoundClause, width: Int)] {
        guard clauses.count >= 2, case .match(let match) = clauses[0].clause, case .projection(var projection) = clauses[1].clause,
              match.boundBefore.isEmpty, !match.isOptional, match.patterns.count == 1 else { return clauses }
        let pattern = match.patterns[0]
        guard pattern.pathSlot == nil, pattern.relationships.isEmpty, pattern.nodes.count == 1 else { return clauses }
        let x = pattern.nodes[0]
        guard x.properties.isEmpty, x.labels.count <= 1 else { return clauses }
        let output = clauses[0].width  // the slot the call's degree goes into
        var degree: Degree?
        var minimum: Int64 = 0
        if let predicate = match.predicate {
            guard let d = positive(predicate) else { return clauses }
            degree = d
            minimum = 1
        }

        // The projection without its grouping or degree expressions: the degree read from `output`.
        var degreeColumns: [Int] = []
        if projection.isAggregating {
            guard !projection.sortSeesInput, projection.predicate == nil, !projection.isDistinct,
                  projection.items.contains(where: { if case .slot(x.slot) = $0.expression { true } else { false } }) else { return clauses }
            for aggregate in projection.aggregates {
                guard aggregate.function == .sum, !aggregate.isDistinct, let argument = aggregate.argument, let d = Degree(argument),
                      d.node == x.slot, degree == nil || degree == d else { return clauses }
                degree = d
            }
            for k in projection.items.indices {
                if case .aggregateResult = projection.items[k].expression {
                    projection.items[k].expression = .slot(output)
                    degreeColumns.append(k)
                } else if !(projection.items[k].expression.referencedSlots?.isSubset(of: [x.slot]) ?? false) {
                    return clauses
                }
            }
            projection.aggregates = []
        } else {
            var unknown = false
            let replace = { (e: Expression) -> Expression in
                e.rewritten { inner in
                    guard let d = Degree(inner), d.node == x.slot else { return nil }
                    if degree == nil { degree = d }
                    if degree != d { unknown = true }
                    return .slot(output)
                }
            }
            for k in projection.items.indices {
                let original = projection.items[k].expression
                projection.items[k].expression = replace(original)
                if Degree(original) != nil { degreeColumns.append(k) }
                guard projection.items[k].expression.referencedSlots?.isSubset(of: [x.slot, output]) ?? false else { return clauses }
            }
            if let predicate = projection.predicate {
                // `WITH x, degree AS d WHERE d > 0` before any ORDER BY or LIMIT: the kernel's minimum.
                guard projection.orderBy.isEmpty, projection.limit == nil, projection.skip == nil,
                      case .binary(.greater, .slot(let column), .literal(.integer(0))) = predicate,
                      degreeColumns.contains(column) else { return clauses }
                projection.predicate = nil
                minimum = 1
            }
            guard !unknown, !projection.sortSeesInput || projection.orderBy.allSatisfy({
                $0.expression.referencedSlots?.allSatisfy { $0 < projection.items.count } ?? false
            }) else { return clauses }
        }
        guard let degree, !degreeColumns.isEmpty else { return clauses }
        // x's column, for a tie-break by `id(x)` (a grouping has one; a plain projection need not).
        let xColumns = projection.items.indices.filter { if case .slot(x.slot) = projection.items[$0].expression { true } else { false } }

        // The ranking: on this projection, or on a plain one right after it.
        var result = clauses
        var limit: Expression
        var withTies: Bool
        if projection.limit != nil || !projection.orderBy.isEmpty {
            guard let (l, ties) = ranking(&projection, degreeColumns: degreeColumns, xColumns: xColumns) else { return clauses }
            (limit, withTies) = (l, ties)
        } else {
            guard clauses.count >= 3, case .projection(var next) = clauses[2].clause, !next.isAggregating, !next.isDistinct,
                  next.predicate == nil, projection.skip == nil, !projection.isDistinct else { return clauses }
            let degreeOutputs = degreeColumns.flatMap { SocialPlanner.countOutputs(next, count: $0) }
            var xOutputs = xColumns.flatMap { SocialPlanner.countOutputs(next, count: $0) }
            if next.sortSeesInput { xOutputs += xColumns.map { next.items.count + $0 } }
            guard let (l, ties) = ranking(&next, degreeColumns: degreeOutputs, xColumns: xOutputs) else { return clauses }
            (limit, withTies) = (l, ties)
            result[2].clause = .projection(next)
        }
        let call = BoundCall(name: DegreeRankingProcedure.name,
                             arguments: [x.labels.first.map { .literal(.string($0)) } ?? .literal(.null),
                                         .literal(.string(degree.type)), .literal(.integer(degree.direction)),
                                         degree.neighbourLabel.map { .literal(.string($0)) } ?? .literal(.null),
                                         .literal(.integer(minimum)), limit, .literal(.bool(withTies))],
                             outputs: [(column: 0, slot: x.slot), (column: 1, slot: output)],
                             predicate: nil, isReadOnly: true, rule: "degreeRanking")
        result[0] = (.call(call), output + 1)
        result[1].clause = .projection(projection)
        return result
    }

    /// `degree > 0` (or `0 < degree`).
    static func positive(_ e: Expression) -> Degree? {
        switch e {
        case .binary(.greater, let d, .literal(.integer(0))), .binary(.less, .literal(.integer(0)), let d): return Degree(d)
        default: return nil
        }
    }

    /// For a projection ranking by a degree column first, descending, with a LIMIT known before
    /// the query runs: how many rows the kernel must give, and whether with ties (another
    /// tie-break than `id(x)`, or a SKIP: the projection's sort and limit then stay and choose
    /// among them). The kernel's own order (`degree DESC, id(x)`) is dropped from the projection.
    static func ranking(_ projection: inout BoundProjection, degreeColumns: [Int], xColumns: [Int]) -> (Expression, Bool)? {
        guard let limit = projection.limit, let rows = SocialPlanner.rowsThrough(limit, skip: projection.skip),
              SocialPlanner.ranksByCountFirst(projection.orderBy, count: degreeColumns) else { return nil }
        if projection.skip == nil, degreeColumns.contains(where: { SocialPlanner.isKernelOrder(projection.orderBy, count: $0, c: xColumns) }) {
            projection.orderBy = []
            projection.sortSeesInput = false
            return (rows, false)
        }
        return (rows, true)
    }
}
