// Executor.swift — runs a logical plan against a graph. Steps between breakers (CREATE, and
// projections that aggregate, sort or deduplicate) stream one row at a time, so a LIMIT stops
// the MATCH feeding it; a breaker takes all its input rows at once and starts the next stretch.

import GraphStore

/// Runs plans. Called inside `GraphStore.read`/`write`; the graph never leaves the call.
enum Executor {
    static func run(_ plan: LogicalPlan, graph: inout Graph, parameters: [String: RuntimeValue]) throws(QueryError) -> QueryResult {
        // Move the graph into the context and back, so a write does not copy it (copy-on-write).
        var context = ExecutionContext(graph: Graph(), parameters: parameters)
        swap(&context.graph, &graph)
        defer { swap(&context.graph, &graph) }

        var rows: [Row] = [[]]
        var start = 0
        while start < plan.steps.count {
            let end = plan.steps[start...].firstIndex { isBreaker($0.step) } ?? plan.steps.count
            if start < end { rows = try context.stream(rows, plan, start..<end) }
            guard end < plan.steps.count else { break }
            // A breaker sees the whole input: CREATE is eager (its MATCH never sees its own
            // writes), and sorting, grouping and DISTINCT need every row.
            let (step, width) = plan.steps[end]
            switch step {
            case .create(let create):
                rows = try context.create(create, rows: rows.map { padded($0, to: width) })
            case .projection(let projection):
                rows = try context.project(projection, rows: rows)
            default:
                break  // isBreaker admits only the two cases above
            }
            start = end + 1
        }
        var result = QueryResult(statistics: context.statistics)
        if let columns = plan.columns {
            result.columns = columns
            result.hasResultSet = true
            result.rows = rows.map { row in row.map { ResultValue($0, in: context.graph) } }
        }
        return result
    }

    /// Steps that need all their input before producing output.
    static func isBreaker(_ step: PlanStep) -> Bool {
        switch step {
        case .create: return true
        case .projection(let p): return p.isAggregating || p.isDistinct || !p.orderBy.isEmpty
        case .match, .unwind: return false
        }
    }

    static func padded(_ row: Row, to width: Int) -> Row {
        row.count < width ? row + repeatElement(.null, count: width - row.count) : row
    }
}

/// Per-stretch counters of the streaming projections' SKIP and LIMIT.
struct StreamState {
    var skip: [Int: Int] = [:]
    var limit: [Int: Int] = [:]
}

extension ExecutionContext {
    /// Pushes each input row through `steps` (none of them a breaker) and collects what comes out.
    func stream(_ input: [Row], _ plan: LogicalPlan, _ steps: Range<Int>) throws(QueryError) -> [Row] {
        var state = StreamState()
        for i in steps {
            guard case .projection(let projection) = plan.steps[i].step else { continue }
            if let skip = projection.skip { state.skip[i] = try count(skip, clause: "SKIP") }
            if let limit = projection.limit {
                let n = try count(limit, clause: "LIMIT")
                if n == 0 { return [] }
                state.limit[i] = n
            }
        }
        var output: [Row] = []
        for row in input {
            guard try push(row, plan, steps.lowerBound, steps.upperBound, &state, &output) else { break }
        }
        return output
    }

    /// Runs `row` through `plan.steps[index..<end]`; returns false when a LIMIT says stop.
    func push(_ row: Row, _ plan: LogicalPlan, _ index: Int, _ end: Int, _ state: inout StreamState,
              _ output: inout [Row]) throws(QueryError) -> Bool {
        guard index < end else { output.append(row); return true }
        let (step, width) = plan.steps[index]
        switch step {
        case .match(let operators, let predicate, let isOptional, let introduced):
            var current = Executor.padded(row, to: width)
            var matched = false
            let going = try match(operators, 0, &current) { (found: Row) throws(QueryError) -> Bool in
                if let predicate, try evaluate(predicate, found) != .bool(true) { return true }
                matched = true
                return try push(found, plan, index + 1, end, &state, &output)
            }
            if going, !matched, isOptional {
                for slot in introduced { current[slot] = .null }
                return try push(current, plan, index + 1, end, &state, &output)
            }
            return going
        case .unwind(let list, let slot):
            var current = Executor.padded(row, to: width)
            let value = try evaluate(list, current)
            switch value {
            case .null: return true
            case .list(let elements):
                for element in elements {
                    current[slot] = element
                    guard try push(current, plan, index + 1, end, &state, &output) else { return false }
                }
                return true
            default:
                current[slot] = value
                return try push(current, plan, index + 1, end, &state, &output)
            }
        case .projection(let projection):
            if let remaining = state.skip[index], remaining > 0 {
                state.skip[index] = remaining - 1
                return true
            }
            var projected: Row = []
            projected.reserveCapacity(projection.items.count)
            for item in projection.items { projected.append(try evaluate(item.expression, row)) }
            var going = true
            if let remaining = state.limit[index] {
                state.limit[index] = remaining - 1
                going = remaining > 1
            }
            if let predicate = projection.predicate, try evaluate(predicate, projected) != .bool(true) { return going }
            return try push(projected, plan, index + 1, end, &state, &output) && going
        case .create:
            // Breakers never reach a stream; run() handles them.
            return true
        }
    }
}
