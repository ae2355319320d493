// Aggregation.swift — the running state of one aggregate (count, collect, sum, avg, min, max)
// over one group, with DISTINCT. Nulls are skipped, as openCypher says, except by count(*).

/// One aggregate's state for one group.
struct Accumulator {
    let function: String
    let isDistinct: Bool
    var seen: Set<RuntimeValue> = []
    var count: Int64 = 0
    var values: [RuntimeValue] = []
    var integerSum: Int64 = 0
    var doubleSum: Double = 0
    var sawDouble = false
    var best: RuntimeValue = .null

    init(_ aggregate: BoundAggregate) {
        function = aggregate.function
        isDistinct = aggregate.isDistinct
    }

    /// Adds one row's argument value (`count(*)` passes a non-null placeholder for every row).
    mutating func add(_ value: RuntimeValue) throws(QueryError) {
        if value.isNull { return }
        if isDistinct, !seen.insert(value).inserted { return }
        count += 1
        switch function {
        case "collect": values.append(value)
        case "sum", "avg":
            switch value {
            case .integer(let i): integerSum = integerSum &+ i; doubleSum += Double(i)
            case .double(let d): sawDouble = true; doubleSum += d
            default: throw RuntimeValue.typeMismatch(expected: "Integer, Float, or Null", value)
            }
        case "min":
            if best.isNull || RuntimeValue.order(value, best) < 0 { best = value }
        case "max":
            if best.isNull || RuntimeValue.order(value, best) > 0 { best = value }
        default: break
        }
    }

    /// The aggregate's value for the group.
    var result: RuntimeValue {
        switch function {
        case "count": return .integer(count)
        case "collect": return .list(values)
        case "sum": return sawDouble ? .double(doubleSum) : .integer(integerSum)
        case "avg": return count == 0 ? .null : .double(doubleSum / Double(count))
        default: return best
        }
    }
}
