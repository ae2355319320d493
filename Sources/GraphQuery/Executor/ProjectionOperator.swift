// ProjectionOperator.swift — WITH and RETURN: evaluates the items (grouping by the
// non-aggregate items when there are aggregates, openCypher's implicit GROUP BY), then
// DISTINCT, ORDER BY, SKIP, LIMIT, and WITH's WHERE, in that order.

extension ExecutionContext {
    func project(_ projection: BoundProjection, rows: [Row]) throws(QueryError) -> [Row] {
        // Each output row, with the input row it came from (for ORDER BY on input variables).
        var projected: [(output: Row, input: Row)] = []
        if projection.isAggregating {
            var groups = GroupAggregator(projection)
            for row in rows { try groups.add(row, in: self) }
            projected = try groups.finish(in: self)
        } else {
            projected.reserveCapacity(rows.count)
            for row in rows {
                var output: Row = []
                output.reserveCapacity(projection.items.count)
                for item in projection.items { output.append(try evaluate(item.expression, row)) }
                projected.append((output, row))
            }
        }
        return try finish(projection, projected)
    }

    /// The rest of a projection once its rows are projected (or grouped and folded, as the
    /// stream does for an aggregation it feeds): DISTINCT, ORDER BY, SKIP, LIMIT, WHERE.
    func finish(_ projection: BoundProjection, _ projected: [(output: Row, input: Row)]) throws(QueryError) -> [Row] {
        var projected = projected
        if projection.isDistinct {
            var kept: [(output: Row, input: Row)] = []
            if projected.count <= 16 {
                // A few rows (a pair's mutual friends): comparing them costs less than hashing.
                for entry in projected where !kept.contains(where: { $0.output == entry.output }) { kept.append(entry) }
            } else {
                var seen = DistinctRows()
                for entry in projected where seen.insert(entry.output) {
                    try watchdog.tick()
                    kept.append(entry)
                }
            }
            projected = kept
        }
        if !projection.orderBy.isEmpty {
            // The sort keys of every row in one array, row after row (no array per row); a
            // key that is a variable is read from its row, not evaluated on a joined copy.
            let width = projection.orderBy.count
            var keys: [RuntimeValue] = []
            keys.reserveCapacity(projected.count * width)
            var sortRow: Row = []
            /// Slot `slot` of the row the key is evaluated on, read where it lies: as `evaluate`
            /// reads the joined row (past its end is null).
            func slotValue(_ slot: Int, _ entry: (output: Row, input: Row)) -> RuntimeValue {
                let j = slot - entry.output.count
                return slot < entry.output.count ? entry.output[slot]
                    : projection.sortSeesInput && j < entry.input.count ? entry.input[j] : .null
            }
            for entry in projected {
                for sort in projection.orderBy {
                    if case .slot(let slot) = sort.expression {
                        keys.append(slotValue(slot, entry))
                    } else if case .function(let call) = sort.expression, let function = call.scalar, call.arguments.count == 1,
                              case .slot(let slot) = call.arguments[0] {
                        // A built-in function of one variable (`id(c)`, the social rankings'
                        // tie-break): its argument read the same way, no joined copy of the row.
                        keys.append(try callScalar(function, [slotValue(slot, entry)]))
                    } else if projection.sortSeesInput {
                        if sortRow.isEmpty { sortRow = entry.output + entry.input }
                        keys.append(try evaluate(sort.expression, sortRow))
                    } else {
                        keys.append(try evaluate(sort.expression, entry.output))
                    }
                }
                sortRow.removeAll(keepingCapacity: true)
            }
            let directions = projection.orderBy.map(\.ascending)
            func before(_ a: Int, _ b: Int) -> Bool {
                for (i, ascending) in directions.enumerated() {
                    let c = RuntimeValue.order(keys[a * width + i], keys[b * width + i])
                    if c != 0 { return ascending ? c < 0 : c > 0 }
                }
                return a < b  // stable
            }
            var order = Array(projected.indices)
            // ORDER BY … LIMIT k (k small): keep only the best skip + k in a sorted buffer,
            // O(n log k) instead of sorting every row (the "top 20 by mutual friends" shape).
            if let limit = projection.limit {
                let k = try count(limit, clause: "LIMIT") &+ (try projection.skip.map { e throws(QueryError) in try count(e, clause: "SKIP") } ?? 0)
                if k < order.count / 4 {
                    var best: [Int] = []
                    best.reserveCapacity(k + 1)
                    for entry in order {
                        try watchdog.tick()
                        if best.count == k, let last = best.last, !before(entry, last) { continue }
                        var low = 0, high = best.count
                        while low < high {
                            let mid = (low + high) / 2
                            if before(best[mid], entry) { low = mid + 1 } else { high = mid }
                        }
                        best.insert(entry, at: low)
                        if best.count > k { best.removeLast() }
                    }
                    order = best
                }
            }
            // The sort cannot throw: it polls the deadline itself and, once past it, finishes
            // with trivial comparisons so that the error comes out promptly.
            var comparisons = 0
            var expired = false
            let deadline = [watchdog.deadline, watchdog.budgetEnd].compactMap { $0 }.min()
            order.sort { a, b in
                comparisons &+= 1
                if comparisons & 0xFFF == 0, let deadline, ContinuousClock.now >= deadline { expired = true }
                if expired { return false }
                return before(a, b)
            }
            if expired { try watchdog.checkNow() }
            projected = order.map { projected[$0] }
        }
        var outputs = projected.map(\.output)
        if let skip = projection.skip {
            let n = try count(skip, clause: "SKIP")
            outputs = Array(outputs.dropFirst(n))
        }
        if let limit = projection.limit {
            let n = try count(limit, clause: "LIMIT")
            outputs = Array(outputs.prefix(n))
        }
        if let predicate = projection.predicate {
            var kept: [Row] = []
            for row in outputs where try evaluate(predicate, row) == .bool(true) { kept.append(row) }
            outputs = kept
        }
        return outputs
    }

    /// SKIP and LIMIT take a non-negative integer (a literal or a parameter).
    func count(_ expression: Expression, clause: String) throws(QueryError) -> Int {
        guard case .integer(let n) = try evaluate(expression, []), n >= 0 else {
            throw QueryError(.runtime, "\(clause) specified value of invalid type, must be a positive integer")
        }
        return Int(clamping: n)
    }
}

/// An aggregating projection's groups as its input rows arrive: rows are grouped by the
/// non-aggregate items and each group's aggregates folded at once, so the input is never
/// held (a million-row `count` keeps one group, not a million rows). With no grouping
/// items and no input there is still one group (`count(*)` of nothing is 0).
struct GroupAggregator {
    let projection: BoundProjection
    private let keyItems: [Int]
    private let fresh: [Accumulator]
    /// Group g's accumulators are accumulators[g * width ..< (g + 1) * width]: one array for
    /// every group, not an array per group.
    private var accumulators: [Accumulator] = []
    /// Each group's first input row: what its non-aggregate items are evaluated against.
    private var inputs: [Row] = []
    private var table = GroupTable()
    private var key: Row = []

    init(_ projection: BoundProjection) {
        self.projection = projection
        keyItems = projection.items.indices.filter { !projection.items[$0].expression.containsAggregate }
        fresh = projection.aggregates.map(Accumulator.init)
        key.reserveCapacity(keyItems.count)
        if keyItems.isEmpty {
            _ = table.group(for: key)
            inputs.append([])
            accumulators.append(contentsOf: fresh)
        }
    }

    /// Folds one input row into its group. A new group's row is charged against the query's
    /// memory cap, as is every value collect() keeps.
    mutating func add(_ row: Row, in context: ExecutionContext) throws(QueryError) {
        let width = fresh.count
        let g: Int
        if keyItems.isEmpty {
            g = 0
            if inputs[0].isEmpty { inputs[0] = row }
        } else {
            key.removeAll(keepingCapacity: true)
            for i in keyItems { key.append(try context.evaluate(projection.items[i].expression, row)) }
            let found = table.group(for: key)
            g = found.index
            if found.isNew {
                try context.watchdog.charge(Watchdog.size(of: row, besides: inputs.last) + Watchdog.size(of: key))
                inputs.append(row)
                accumulators.append(contentsOf: fresh)
            }
        }
        for a in 0..<width {
            let aggregate = projection.aggregates[a]
            let value = try aggregate.argument.map { e throws(QueryError) in try context.evaluate(e, row) } ?? .bool(true)
            if let percentile = aggregate.percentile {
                try accumulators[g * width + a].setPercentile(try context.evaluate(percentile, row))
            }
            try accumulators[g * width + a].add(value)
            if aggregate.function == .collect || aggregate.percentile != nil {
                try context.watchdog.charge(Watchdog.size(of: value) + Watchdog.collectedOverhead)
            } else {
                try context.watchdog.tick()
            }
        }
    }

    /// Adds `n` rows at once to an aggregation without grouping items whose aggregates are
    /// all plain counts of values that are never null (BoundCall.rowsAreOnlyCounted).
    mutating func addCounted(_ n: Int, in context: ExecutionContext) throws(QueryError) {
        precondition(keyItems.isEmpty, "rows are added by number only to an aggregation without groups")
        for a in accumulators.indices { accumulators[a].addCounted(n) }
        try context.watchdog.tick()
    }

    /// One output row per group (in the order groups first appeared), with its input row.
    func finish(in context: ExecutionContext) throws(QueryError) -> [(output: Row, input: Row)] {
        let width = fresh.count
        var output: [(output: Row, input: Row)] = []
        output.reserveCapacity(table.count)
        var results: [RuntimeValue] = []
        results.reserveCapacity(width)
        for (g, groupKey) in table.keys.enumerated() {
            results.removeAll(keepingCapacity: true)
            for a in 0..<width { results.append(accumulators[g * width + a].result) }
            var row: Row = []
            row.reserveCapacity(projection.items.count)
            var k = 0
            for (i, item) in projection.items.enumerated() {
                if k < keyItems.count && keyItems[k] == i { row.append(groupKey[k]); k += 1 }
                else { row.append(try context.evaluate(item.expression, inputs[g], aggregates: results)) }
            }
            output.append((row, inputs[g]))
        }
        return output
    }
}

extension Expression {
    /// True when an aggregate's result is part of the expression.
    var containsAggregate: Bool {
        switch self {
        case .aggregateResult: return true
        case .literal, .parameter, .variable, .slot: return false
        case .property(let base, _): return base.containsAggregate
        case .list(let elements): return elements.contains { $0.containsAggregate }
        case .map(let entries): return entries.contains { $0.value.containsAggregate }
        case .unary(_, let operand), .isNull(let operand, _), .hasLabels(let operand, _): return operand.containsAggregate
        case .binary(_, let l, let r), .subscriptIndex(let l, let r): return l.containsAggregate || r.containsAggregate
        case .function(let call): return call.arguments.contains { $0.containsAggregate }
        case .patternPredicate, .patternComprehension, .subquery: return false
        case .slice, .caseExpression, .listComprehension, .quantifier, .reduce, .mapProjection:
            return children.contains { $0.containsAggregate }
        }
    }
}
