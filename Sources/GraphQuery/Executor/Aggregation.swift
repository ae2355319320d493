// Aggregation.swift — the running state of one aggregate (count, collect, sum, avg, min, max)
// over one group, with DISTINCT, and the table that finds a row's group. sum and avg take numbers
// or durations. Nulls are skipped, as
// openCypher says, except by count(*).

/// The aggregating functions (FunctionCatalog lists them as `.aggregate`), by catalog name.
enum AggregateFunction: String, Sendable {
    case count, collect, sum, avg, min, max
    /// The value at a percentile (the nearest one), and the interpolated one (Neo4j's).
    case percentileDisc = "percentiledisc", percentileCont = "percentilecont"
    /// The value of the group's only row, for a planner rewrite that expects one row a group
    /// (SocialPlanner); a second row throws `QueryEngine.rewriteDoesNotHold`. Its name cannot
    /// be written in a query.
    case onlyRow = " only row"
}

/// One aggregate's state for one group.
struct Accumulator {
    let function: AggregateFunction
    let isDistinct: Bool
    var seen = DistinctValues()
    var count: Int64 = 0
    var values: [RuntimeValue] = []
    var integerSum: Int64 = 0
    var doubleSum: Double = 0
    var sawDouble = false
    var best: RuntimeValue = .null
    /// The percentile asked for (percentileDisc, percentileCont), from the group's first row.
    var percentile: Double?

    init(_ aggregate: BoundAggregate) {
        function = aggregate.function
        isDistinct = aggregate.isDistinct
    }

    /// Adds one row's argument value (`count(*)` passes a non-null placeholder for every row).
    mutating func add(_ value: RuntimeValue) throws(QueryError) {
        if value.isNull { return }
        if isDistinct, !seen.insert(value) { return }
        count += 1
        switch function {
        case .count: break
        case .collect, .percentileDisc, .percentileCont:
            if function != .collect, value.numeric == nil {
                throw RuntimeValue.typeMismatch(expected: "Integer, Float, or Null", value)
            }
            values.append(value)
        case .sum, .avg:
            switch value {
            case .integer(let i) where best.isNull: integerSum = integerSum &+ i; doubleSum += Double(i)
            case .double(let d) where best.isNull: sawDouble = true; doubleSum += d
            case .temporal(.duration(let d)):
                // Durations add up among themselves (as in Neo4j); `best`, unused by sum and avg,
                // holds their running sum, so a group pays nothing for it.
                if case .temporal(.duration(let sum)) = best {
                    guard let total = sum.plus(d) else { throw QueryError(.runtime, "Duration is too large to represent") }
                    best = .temporal(.duration(total))
                } else if count == 1 {
                    best = value
                } else {
                    throw RuntimeValue.typeMismatch(expected: "Integer, Float, or Null", value)
                }
            default: throw RuntimeValue.typeMismatch(expected: best.isNull ? "Integer, Float, Duration, or Null" : "Duration or Null", value)
            }
        case .onlyRow:
            if count > 1 { throw QueryEngine.rewriteDoesNotHold }
            best = value
        case .min:
            if best.isNull || RuntimeValue.order(value, best) < 0 { best = value }
        case .max:
            if best.isNull || RuntimeValue.order(value, best) > 0 { best = value }
        }
    }

    /// Adds `n` rows whose argument is not null to a plain `count` (rows a procedure counted
    /// without making them: Procedure.count).
    mutating func addCounted(_ n: Int) {
        precondition(function == .count && !isDistinct, "only a plain count takes rows by number")
        count += Int64(n)
    }

    /// The aggregate's value for the group.
    var result: RuntimeValue {
        switch function {
        case .count: return .integer(count)
        case .collect: return .list(values)
        case .sum:
            if case .temporal = best { return best }
            return sawDouble ? .double(doubleSum) : .integer(integerSum)
        case .avg:
            if case .temporal(.duration(let sum)) = best {
                return (try? sum.divided(by: Double(count))).map { .temporal(.duration($0)) } ?? .null
            }
            return count == 0 ? .null : .double(doubleSum / Double(count))
        case .min, .max, .onlyRow: return best
        case .percentileDisc, .percentileCont:
            guard !values.isEmpty, let p = percentile else { return .null }
            let sorted = values.sorted { RuntimeValue.order($0, $1) < 0 }
            if function == .percentileDisc {
                // The nearest value at or above the percentile's rank (Neo4j's rule).
                guard p < 1, sorted.count > 1 else { return sorted[sorted.count - 1] }
                let rank = p * Double(sorted.count)
                var index = Int(rank)
                if Double(index) == rank && index > 0 { index -= 1 }
                return sorted[Swift.min(index, sorted.count - 1)]
            }
            let rank = p * Double(sorted.count - 1)
            let low = Int(rank.rounded(.down)), high = Int(rank.rounded(.up))
            let a = sorted[low].numeric ?? 0, b = sorted[high].numeric ?? 0
            return .double(a + (b - a) * (rank - Double(low)))
        }
    }

    /// Takes the percentile of a percentile aggregate from a row: a number from 0 to 1.
    mutating func setPercentile(_ value: RuntimeValue) throws(QueryError) {
        guard percentile == nil else { return }
        guard let p = value.numeric else { throw RuntimeValue.typeMismatch(expected: "Integer or Float", value) }
        guard p >= 0 && p <= 1 else {
            throw QueryError(.runtime, "Invalid input for \(function == .percentileDisc ? "percentileDisc" : "percentileCont")(): "
                             + "the percentile must be a number from 0.0 to 1.0, not \(value.plainText)")
        }
        percentile = p
    }
}

/// The groups of an aggregation, by key: each group's key row, kept once, and an open-addressing
/// table of group numbers by the key's hash. Looking a row's key up takes it from a buffer the
/// caller reuses, so a row of an existing group allocates nothing (a dictionary keyed by rows
/// would need a fresh key array per row, and hash it twice for a new group).
struct GroupTable {
    /// Each group's key, in the order groups were first seen.
    private(set) var keys: [Row] = []
    private var hashes: [Int] = []
    /// Group number + 1 per slot, 0 when empty; the count is a power of two, at least twice the groups.
    private var slots: [Int] = Array(repeating: 0, count: 16)

    var count: Int { keys.count }

    /// The number of the group whose key equals `key`, and whether this call made it.
    mutating func group(for key: Row) -> (index: Int, isNew: Bool) {
        var hasher = Hasher()
        for value in key { hasher.combine(value) }
        let hash = hasher.finalize()
        let mask = slots.count - 1
        var i = hash & mask
        while slots[i] != 0 {
            let g = slots[i] - 1
            if hashes[g] == hash && keys[g] == key { return (g, false) }
            i = (i + 1) & mask
        }
        let g = keys.count
        keys.append(key)
        hashes.append(hash)
        slots[i] = g + 1
        if keys.count * 2 > slots.count { rehash(capacity: slots.count * 2) }
        return (g, true)
    }

    private mutating func rehash(capacity: Int) {
        slots = Array(repeating: 0, count: capacity)
        let mask = capacity - 1
        for (g, hash) in hashes.enumerated() {
            var i = hash & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = g + 1
        }
    }
}
