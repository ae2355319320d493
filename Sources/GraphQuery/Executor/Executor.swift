// Executor.swift — runs a logical plan against a graph. Steps between breakers (the updating
// clauses, writing procedures, and projections that aggregate, sort or deduplicate) stream one
// row at a time, so a LIMIT stops the MATCH feeding it; a breaker takes all its input rows at
// once and starts the next stretch. Every row ticks the watchdog, which enforces the deadline.

import Dispatch
import GraphStore

/// Runs plans. Called inside `GraphStore.read`/`write`; the graph never leaves the call.
enum Executor {
    static func run(_ plan: LogicalPlan, graph: inout Graph, parameters: [String: RuntimeValue],
                    registry: ProcedureRegistry = .standard, watchdog: Watchdog = Watchdog(timeout: nil, memoryLimit: nil),
                    profiler: Profiler? = nil, resultRowLimit: Int? = nil, importDirectory: String? = nil,
                    groupCounters: GroupCounterPool? = nil, traversalScratch: TraversalScratchPool? = nil,
                    changeStore: GraphStore? = nil) throws(QueryError) -> QueryResult {
        try withUnsafeMutablePointer(to: &graph) { (pointer) throws(QueryError) -> QueryResult in
            try run(plan, graphStorage: pointer, parameters: parameters, registry: registry, watchdog: watchdog,
                    profiler: profiler, resultRowLimit: resultRowLimit, importDirectory: importDirectory,
                    groupCounters: groupCounters, traversalScratch: traversalScratch, changeStore: changeStore)
        }
    }

    /// Runs a plan on the graph at `graphStorage` in place: for a read, the store's own graph
    /// under its read lock (nothing is copied or retained); for a write, the write transaction's.
    static func run(_ plan: LogicalPlan, graphStorage: UnsafeMutablePointer<Graph>, parameters: [String: RuntimeValue],
                    registry: ProcedureRegistry = .standard, watchdog: Watchdog = Watchdog(timeout: nil, memoryLimit: nil),
                    profiler: Profiler? = nil, resultRowLimit: Int? = nil, importDirectory: String? = nil,
                    groupCounters: GroupCounterPool? = nil, traversalScratch: TraversalScratchPool? = nil,
                    changeStore: GraphStore? = nil) throws(QueryError) -> QueryResult {
        if profiler == nil, let lookup = plan.pointLookup, let columns = plan.columns {
            var result = try lookup.run(graph: &graphStorage.pointee, parameters: parameters, watchdog: watchdog,
                                        resultRowLimit: resultRowLimit)
            result.columns = columns
            return result
        }
        let context = ExecutionContext(graph: graphStorage, parameters: parameters, registry: registry, watchdog: watchdog,
                                       profiler: profiler, resultRowLimit: resultRowLimit)
        context.importDirectory = importDirectory
        context.groupCounters = groupCounters
        context.traversalScratch = traversalScratch
        context.changeStore = changeStore
        context.socialRun.mayKeepFriendLists = !plan.isUpdating
        context.isReadOnly = !plan.isUpdating
        // The rows the plan returns go straight into the result as they come (ResultCollector):
        // no array per row, and a result-row limit stops the run early. Under UNION the parts'
        // rows are merged (and deduplicated) first, so the collector takes them afterwards.
        let collector = plan.columns.map { ResultCollector(width: $0.count, limit: resultRowLimit) }
        if plan.unions.isEmpty { context.collector = collector }

        var rows = try context.rows(of: plan)
        if !plan.unions.isEmpty {
            rows = rows.map { Array($0.prefix(plan.columns?.count ?? 0)) }
            context.profiler = nil  // PROFILE's counters describe the first part, the plan it prints
            for (_, part) in plan.unions {
                rows += try context.rows(of: part).map { Array($0.prefix(part.columns?.count ?? 0)) }
            }
            if plan.unions.contains(where: { !$0.all }) {
                var seen = DistinctRows()
                rows = rows.filter { seen.insert($0) }
            }
            context.collector = collector
        }
        guard let columns = plan.columns, var filled = context.collector else {
            return QueryResult(statistics: context.statistics)
        }
        context.collector = nil
        // Rows a breaker returned last (ORDER BY, aggregation, UNION) were not streamed.
        try context.withGraph { (graph) throws(QueryError) in
            for row in rows {
                try watchdog.tick()
                try filled.append(row, in: graph)
            }
        }
        // A query past its deadline answers with the timeout, never with its rows, however
        // close to the end it got (the last rows may have come without a clock check).
        try watchdog.checkDeadline()
        var result = filled.result
        result.columns = columns
        result.hasResultSet = true
        result.statistics = context.statistics
        return result
    }
}

extension ExecutionContext {
    /// Runs one plan's steps (not its UNION parts) on `input` (one empty row for a query; the
    /// outer row for a subquery) and returns its final rows.
    func rows(of plan: LogicalPlan, input: [Row] = [[]]) throws(QueryError) -> [Row] {
        var rows = input
        var start = 0
        while start < plan.steps.count {
            var end = plan.steps[start...].firstIndex { Executor.isBreaker($0.step) } ?? plan.steps.count
            // A call that gathers its input begins a stretch of its own, fed the rows before
            // it folded into one (gather).
            if start + 1 < end, let gathering = plan.steps[(start + 1)..<end].firstIndex(where: { $0.step.gathersInput }) {
                end = gathering
            }
            // An aggregation at the end of a streamed stretch takes its rows as they come:
            // they are folded into their groups, never held.
            var groups: GroupAggregator? = nil
            if start < end, end < plan.steps.count, case .projection(let projection) = plan.steps[end].step,
               projection.isAggregating {
                groups = GroupAggregator(projection)
            }
            // A stretch the planner compiled for the batched executor runs there, unless PROFILE
            // asks for each step's rows, or the run finds a value the program cannot hold.
            if let projection = groups?.projection, profiler == nil, let program = plan.batchPrograms[end],
               program.steps == start..<end {
                let projected: [(output: Row, input: Row)]?
                do {
                    projected = try runBatched(program, aggregation: projection, input: rows)
                } catch {
                    Executor.discardInBackground(&rows)
                    throw error
                }
                if let projected {
                    rows = try finish(projection, projected)
                    start = end + 1
                    continue
                }
            }
            do {
                if start < end { rows = try stream(rows, plan, start..<end, into: &groups) }
            } catch {
                Executor.discardInBackground(&rows)
                throw error
            }
            guard end < plan.steps.count else { break }
            if case .call(let call) = plan.steps[end].step, call.gathersInput, !Executor.isBreaker(plan.steps[end].step) {
                rows = Executor.gather(rows, for: call)
                start = end
                continue
            }
            let started = profiler != nil ? ContinuousClock.now : nil
            do {
                if let groups {
                    rows = try finish(groups.projection, try groups.finish(in: self))
                } else {
                    rows = try runBreaker(plan.steps[end].step, width: plan.steps[end].width, rows: rows)
                }
            } catch {
                Executor.discardInBackground(&rows)
                throw error
            }
            if let profiler, let started {
                profiler.rows[end] += rows.count
                profiler.time[end] += ContinuousClock.now - started
            }
            start = end + 1
        }
        return rows
    }
}

/// Rows handed to another thread to be freed there (Executor.discardInBackground).
private final class GarbageBox<Element>: @unchecked Sendable {
    // @unchecked: the rows move to one background closure, which alone touches them.
    private var rows: [Element]
    init(_ rows: [Element]) { self.rows = rows }
    func release() { rows = [] }
}

extension Executor {
    /// Steps that need all their input before producing output.
    static func isBreaker(_ step: PlanStep) -> Bool {
        switch step {
        case .create, .set, .remove, .delete, .merge, .schema: return true
        case .call(let call): return !call.isReadOnly
        // DISTINCT alone streams (StreamState.seen): a row goes on as soon as it is new, so a
        // LIMIT after it stops the match early, and a few rows cost no buffering.
        case .projection(let p): return p.isAggregating || !p.orderBy.isEmpty
        case .match, .unwind, .loadCSV: return false
        }
    }

    /// Hands a large row buffer to a background queue to be freed: a query stopped by its
    /// deadline (or an error) answers at once instead of after tearing down millions of rows,
    /// which takes longer than the 50 ms a deadline may be overrun.
    static func discardInBackground<Element: Sendable>(_ rows: inout [Element]) {
        guard rows.count > 4096 else { return }
        var taken: [Element] = []
        swap(&taken, &rows)
        let garbage = GarbageBox(taken)
        taken = []
        DispatchQueue.global(qos: .utility).async {
            garbage.release()
            Watchdog.returnFreedMemory()
        }
    }

    /// The input of a gathering call (BoundCall.gathersInput): one row or none as it is; more
    /// folded into one whose first argument's slot holds the list of their values there, nulls
    /// dropped (the call then answers for all of them at once).
    static func gather(_ rows: [Row], for call: BoundCall) -> [Row] {
        guard rows.count > 1, case .slot(let slot)? = call.arguments.first else { return rows }
        var values: [RuntimeValue] = []
        for row in rows where slot < row.count && !row[slot].isNull { values.append(row[slot]) }
        var folded = Row(repeating: .null, count: max(rows[0].count, slot + 1))
        folded[slot] = .list(values)
        return [folded]
    }

    static func padded(_ row: Row, to width: Int) -> Row {
        row.count < width ? row + repeatElement(.null, count: width - row.count) : row
    }
}

extension ExecutionContext {
    /// Runs one breaker over all its input rows. A breaker sees the whole input: updating
    /// clauses are eager (a MATCH never sees the writes of its own query's later clauses), and
    /// sorting, grouping and DISTINCT need every row.
    func runBreaker(_ step: PlanStep, width: Int, rows: [Row]) throws(QueryError) -> [Row] {
        for (i, row) in rows.enumerated() { try watchdog.charge(Watchdog.size(of: row, besides: i > 0 ? rows[i - 1] : nil)) }
        switch step {
        case .create(let create): return try self.create(create, rows: rows.map { Executor.padded($0, to: width) })
        case .projection(let projection): return try project(projection, rows: rows)
        case .set(let items):
            for row in rows { try applySet(items, row) }
            return rows
        case .remove(let items):
            for row in rows { try applyRemove(items, row) }
            return rows
        case .delete(let detach, let targets):
            try delete(targets, detach: detach, rows: rows)
            return rows
        case .merge(let operators, let merge):
            return try self.merge(operators, merge, rows: rows.map { Executor.padded($0, to: width) })
        case .schema(let command):
            try runSchema(command)
            return rows
        case .call(let call):
            return try callWritingProcedure(call, rows: rows, width: width)
        case .match, .unwind, .loadCSV: return rows  // never breakers
        }
    }
}

/// The query's result as its last rows arrive: each row's first `width` values are
/// materialised into one flat buffer (QueryResult.cells) while the graph is at hand.
struct ResultCollector {
    private(set) var result = QueryResult()
    let width: Int
    /// Rows allowed (nil: no limit); one more is an error, so a write returning too much is
    /// rolled back (the server's RESULTSET_SIZE relies on this), and nobody waits for the rest.
    let limit: Int?

    init(width: Int, limit: Int?) {
        self.width = width
        self.limit = limit
    }

    mutating func append(_ row: Row, in graph: borrowing Graph) throws(QueryError) {
        try checkLimit()
        for i in 0..<Swift.min(width, row.count) { result.appendCell(ResultValue(row[i], in: graph)) }
        result.endRow()
    }

    /// A row written cell by cell (`beginRow`, `appendCell` for each of `width` cells,
    /// `endRow`), by a caller that reads its values straight from the graph (PointLookup).
    mutating func beginRow() throws(QueryError) { try checkLimit() }
    mutating func appendCell(_ cell: ResultValue) { result.appendCell(cell) }
    mutating func endRow() { result.endRow() }

    /// `append(_:in:)` for the executor, which holds the graph by pointer: scalar cells (ids,
    /// counts, names: most of what social queries return) are converted without the graph.
    /// Passing `graph.pointee` on for every cell made the optimizer copy the whole `Graph`
    /// (264 bytes, two dozen references retained and released) for every row.
    mutating func append(_ row: Row, graph: UnsafeMutablePointer<Graph>) throws(QueryError) {
        try checkLimit()
        for i in 0..<Swift.min(width, row.count) { appendCell(row[i], graph: graph) }
        result.endRow()
    }

    /// One cell of a row begun with `beginRow`, converted as `append(_:graph:)` converts it.
    @inline(__always)
    mutating func appendCell(_ value: RuntimeValue, graph: UnsafeMutablePointer<Graph>) {
        result.appendCell(ResultValue(scalar: value) ?? Self.entity(value, &graph.pointee))
    }

    /// A node's, relationship's, path's or collection's result. The graph comes `inout` (it is
    /// only read): borrowed straight from the pointer, it was copied first.
    private static func entity(_ value: RuntimeValue, _ graph: inout Graph) -> ResultValue {
        ResultValue(value, in: graph)
    }

    /// Throws when the result already holds `limit` rows. Inlined and reading the two fields
    /// alone: called as a method, it was handed a copy of the whole collector (161 bytes) on
    /// every row.
    @inline(__always)
    private func checkLimit() throws(QueryError) {
        if let limit, result.rowCount >= limit { throw Self.limitExceeded(limit) }
    }

    @inline(never)
    private static func limitExceeded(_ limit: Int) -> QueryError {
        QueryError(.runtime, "Query result has more than \(limit) row\(limit == 1 ? "" : "s"), the result-row limit")
    }

    /// Room for `rows` more rows (at most the limit's), when a step knows how many it will hand
    /// over: the buffer then grows once instead of doubling its way up, copying every row so far.
    mutating func reserve(rows: Int) {
        let room = Swift.min(rows, (limit ?? Int.max) - result.rowCount)
        guard room > 0 else { return }
        // Never less than double: a call per input row must not regrow the buffer on each.
        result.reserveCapacity(rows: Swift.max(result.rowCount + room, 2 * result.rowCount), width: width)
    }
}

/// Per-stretch counters of the streaming projections' SKIP and LIMIT.
struct StreamState {
    /// By step index: rows still to skip and to pass, and a streamed projection's row buffer
    /// (one array for the three: an array's allocation is most of what a stream of a point
    /// lookup allocates).
    var progress: [StepProgress]
    /// The plan's steps, each in a box: every row dispatches on its step, and reading a
    /// step out of the plan's array copies it (each array of its payload retained and
    /// released, through the generic witnesses), where a box's `let` is borrowed in place.
    let steps: [StepBox]
    /// By step index, the rows a streamed DISTINCT projection has passed (empty when the
    /// stretch has none: no allocation for the common plan).
    var seen: [DistinctRows] = []
    /// The context's result collector, while this stretch is the plan's last: rows leaving
    /// the stretch go there instead of into its output.
    var collector: ResultCollector?
    /// The aggregation the stretch feeds, when one follows it: rows go in here, not to the output.
    var groups: GroupAggregator?
    init(_ plan: LogicalPlan) {
        progress = Array(repeating: StepProgress(), count: plan.steps.count)
        steps = plan.stepBoxes.count == plan.steps.count ? plan.stepBoxes : StepBox.boxes(plan.steps)
        if steps.contains(where: \.projectionIsDistinct) { seen = Array(repeating: DistinctRows(), count: steps.count) }
    }
}

/// One step's progress through a stream (StreamState's `progress`).
struct StepProgress {
    /// Rows still to skip and to pass (nil: no SKIP, no LIMIT).
    var skip: Int?
    var limit: Int?
    /// A streamed projection's row buffer, reused from row to row while nothing downstream
    /// keeps the row (the result collector copies it out).
    var projected: Row = []
    /// A direct projection's state, kept from one input row to the next (a MATCH after an
    /// UNWIND runs once per element: making it afresh cost two allocations each time).
    var projector: DirectProjector?
}

/// One plan step, boxed for the row-at-a-time dispatch (StreamState.steps).
final class StepBox: Sendable {
    let step: PlanStep
    let width: Int
    /// A streamed projection's expressions and filter, taken out of `step` once: binding
    /// `case .projection(let p)` on every row copied the whole BoundProjection (its arrays
    /// retained and released through the value witnesses), a tenth of a procedure's row.
    let projectionItems: [Expression]
    let projectionPredicate: Expression?
    /// A DISTINCT projection that streams (no aggregation, no ORDER BY: Executor.isBreaker).
    let projectionIsDistinct: Bool
    /// A read-only call or a match and the plain projection after it, run as one step
    /// (callThroughProjection, matchThroughProjection).
    let directProjection: DirectProjection?
    /// A read-only call whose rows the aggregation after it only counts
    /// (BoundCall.rowsAreOnlyCounted).
    let callIsOnlyCounted: Bool

    /// The steps of a plan, boxed.
    static func boxes(_ steps: [(step: PlanStep, width: Int)]) -> [StepBox] {
        steps.indices.map { i in
            let next = i + 1 < steps.count ? steps[i + 1].step : nil
            var counted = false
            if case .call(let call) = steps[i].step, let next { counted = call.rowsAreOnlyCounted(by: next) }
            return StepBox(step: steps[i].step, width: steps[i].width,
                           directProjection: next.flatMap { DirectProjection(steps[i].step, then: $0) },
                           callIsOnlyCounted: counted)
        }
    }

    init(step: PlanStep, width: Int, directProjection: DirectProjection? = nil, callIsOnlyCounted: Bool = false) {
        self.step = step
        self.width = width
        self.directProjection = directProjection
        self.callIsOnlyCounted = callIsOnlyCounted
        if case .projection(let projection) = step {
            projectionItems = projection.items.map(\.expression)
            projectionPredicate = projection.predicate
            projectionIsDistinct = projection.isDistinct && !Executor.isBreaker(step)
        } else {
            projectionItems = []
            projectionPredicate = nil
            projectionIsDistinct = false
        }
    }
}

extension ExecutionContext {
    /// What streamed projection `index` does with a row it has projected (its streamed and its
    /// direct form alike): under DISTINCT a row seen before goes no further, and SKIP counts the
    /// new ones (without DISTINCT, SKIP counts the rows before they are projected); then LIMIT.
    /// Nil when the row goes no further, else whether rows may follow it.
    @inline(__always)
    func pass(_ row: Row, projection index: Int, distinct: Bool, _ state: inout StreamState) throws(QueryError) -> Bool? {
        if distinct {
            guard state.seen[index].insert(row) else { return nil }
            try watchdog.charge(Watchdog.size(of: row))
            if let remaining = state.progress[index].skip, remaining > 0 {
                state.progress[index].skip = remaining - 1
                return nil
            }
        }
        var going = true
        if let remaining = state.progress[index].limit {
            state.progress[index].limit = remaining - 1
            going = remaining > 1
        }
        return going
    }

    /// Pushes each input row through `steps` (none of them a breaker) and collects what comes
    /// out, or folds it into `groups` when an aggregation follows (and returns no rows).
    func stream(_ input: [Row], _ plan: LogicalPlan, _ steps: Range<Int>,
                into groups: inout GroupAggregator?) throws(QueryError) -> [Row] {
        var state = StreamState(plan)
        swap(&state.groups, &groups)
        defer { swap(&state.groups, &groups) }
        for i in steps {
            guard case .projection(let projection) = plan.steps[i].step else { continue }
            if let skip = projection.skip { state.progress[i].skip = try count(skip, clause: "SKIP") }
            if let limit = projection.limit {
                let n = try count(limit, clause: "LIMIT")
                if n == 0 { return [] }
                state.progress[i].limit = n
            }
        }
        // The plan's last stretch hands its rows to the result collector, if there is one,
        // held in the state (passed inout, so appending works on it in place).
        if steps.upperBound == plan.steps.count { swap(&state.collector, &collector) }
        defer { if state.collector != nil { swap(&state.collector, &collector) } }
        var output: [Row] = []
        do {
            for row in input {
                guard try push(row, steps.lowerBound, steps.upperBound, &state, &output) else { break }
            }
        } catch {
            Executor.discardInBackground(&output)
            throw error
        }
        return output
    }

    /// Runs `row` through steps `index..<end` (boxed in `state`); returns false when a LIMIT
    /// says stop. The plan itself is not passed along: a struct of arrays, it was copied
    /// (field by field, through the generic witnesses) by every row's closure call.
    func push(_ row: Row, _ index: Int, _ end: Int, _ state: inout StreamState,
              _ output: inout [Row]) throws(QueryError) -> Bool {
        guard index < end else {
            // A row folded into its group is not kept: only new groups are charged (add).
            if state.groups != nil {
                try state.groups!.add(row, in: self)
                return true
            }
            if state.collector != nil {
                try watchdog.charge(Watchdog.size(of: row))
                try collect(row, into: &state)
            } else {
                try watchdog.charge(Watchdog.size(of: row, besides: output.last))
                output.append(row)
            }
            return true
        }
        try watchdog.tick()
        guard let profiler else { return try runStep(row, index, end, &state, &output) }
        // PROFILE: time this step excluding the steps it feeds (they time themselves).
        let started = ContinuousClock.now
        let before = profiler.time[(index + 1)...].reduce(Duration.zero, +)
        defer {
            let after = profiler.time[(index + 1)...].reduce(Duration.zero, +)
            profiler.time[index] += (ContinuousClock.now - started) - (after - before)
        }
        return try runStep(row, index, end, &state, &output)
    }

    /// Hands a row produced by step `index` to the next step.
    func forward(_ row: Row, _ index: Int, _ end: Int, _ state: inout StreamState,
                 _ output: inout [Row]) throws(QueryError) -> Bool {
        profiler?.rows[index] += 1
        return try push(row, index + 1, end, &state, &output)
    }

    func runStep(_ row: Row, _ index: Int, _ end: Int, _ state: inout StreamState,
                 _ output: inout [Row]) throws(QueryError) -> Bool {
        let box = state.steps[index]
        let width = box.width
        switch box.step {
        case .match(let operators, let predicate, let isOptional, let introduced):
            var current = Executor.padded(row, to: width)
            // The match and the projection after it: run as one step. (PROFILE
            // counts each step's rows, so it takes the general path.)
            if let direct = box.directProjection, index + 1 < end, profiler == nil {
                return try matchThroughProjection(operators, predicate, isOptional: isOptional, introduced: introduced,
                                                  &current, direct, projection: index + 1, end: end, &state, &output)
            }
            var matched = false
            // The optimizer specialises `match` for this closure and copies what the closure
            // captures once per recursive call site on every call, i.e. per row: a captured
            // reference costs eight retains and releases a row. So `self` is captured
            // unowned(unsafe) (this method's own receiver, alive throughout), and only a step
            // with a predicate gets the closure that captures it.
            let going: Bool
            if let predicate {
                going = try match(operators, 0, &current) { [unowned(unsafe) self] (found: Row) throws(QueryError) -> Bool in
                    if try evaluate(predicate, found) != .bool(true) { return true }
                    matched = true
                    return try forward(found, index, end, &state, &output)
                }
            } else {
                going = try match(operators, 0, &current) { [unowned(unsafe) self] (found: Row) throws(QueryError) -> Bool in
                    matched = true
                    return try forward(found, index, end, &state, &output)
                }
            }
            if going, !matched, isOptional {
                for slot in introduced { current[slot] = .null }
                return try forward(current, index, end, &state, &output)
            }
            return going
        case .unwind(let list, let slot):
            var current = Executor.padded(row, to: width)
            if case .function(let call) = list, call.scalar == .range {
                // UNWIND range(…) counts through the range instead of building it first: no
                // memory for a billion-element list, and a deadline is met within a few rows.
                var arguments: [RuntimeValue] = []
                for argument in call.arguments { arguments.append(try evaluate(argument, current)) }
                if arguments.contains(where: \.isNull) { return true }   // range(null, …) is null: no rows
                let (start, step, count) = try ExecutionContext.rangeBounds(arguments)
                var value = start
                for _ in 0..<count {
                    try watchdog.tick()
                    current[slot] = .integer(value)
                    guard try forward(current, index, end, &state, &output) else { return false }
                    value &+= step
                }
                return true
            }
            let value = try evaluate(list, current)
            switch value {
            case .null: return true
            case .list(let elements):
                for element in elements {
                    try watchdog.tick()
                    current[slot] = element
                    guard try forward(current, index, end, &state, &output) else { return false }
                }
                return true
            default:
                current[slot] = value
                return try forward(current, index, end, &state, &output)
            }
        case .loadCSV(let url, let withHeaders, let slot, let terminator):
            var current = Executor.padded(row, to: width)
            let records = try loadCSV(try evaluate(url, current), withHeaders: withHeaders, terminator: terminator)
            for record in records {
                try watchdog.tick()
                current[slot] = record
                guard try forward(current, index, end, &state, &output) else { return false }
            }
            return true
        case .call(let call):
            // Rows only counted by the aggregation that ends the stretch: the procedure may
            // count them without making them. (PROFILE counts each step's rows, so it takes
            // the general path, as for the direct projection below.)
            if box.callIsOnlyCounted, index + 1 == end, state.groups != nil, profiler == nil,
               let n = try readOnlyCount(call, Executor.padded(row, to: width)) {
                try state.groups!.addCounted(n, in: self)
                return true
            }
            // The call and the projection after it: run as one step. (PROFILE
            // counts each step's rows, so it takes the general path.)
            if let direct = box.directProjection, index + 1 < end, profiler == nil {
                return try callThroughProjection(call, Executor.padded(row, to: width), direct, projection: index + 1, end: end,
                                                 &state, &output)
            }
            var going = true
            try callProcedure(call, Executor.padded(row, to: width)) { (r: Row) throws(QueryError) -> Bool in
                going = try forward(r, index, end, &state, &output)
                return going
            }
            return going
        case .projection:
            // SKIP counts distinct rows under DISTINCT, so it waits for the check below.
            let distinct = box.projectionIsDistinct
            if !distinct, let remaining = state.progress[index].skip, remaining > 0 {
                state.progress[index].skip = remaining - 1
                return true
            }
            let items = box.projectionItems
            // The step's buffer, taken out of the state so that it stays uniquely referenced
            // (its values are then replaced in place) and put back after the row has gone on.
            var projected: Row = []
            swap(&projected, &state.progress[index].projected)
            defer { swap(&projected, &state.progress[index].projected) }
            if projected.count != items.count { projected = Row(repeating: .null, count: items.count) }
            for i in items.indices { projected[i] = try evaluate(items[i], row) }
            guard let going = try pass(projected, projection: index, distinct: distinct, &state) else { return true }
            if let predicate = box.projectionPredicate, try evaluate(predicate, projected) != .bool(true) { return going }
            return try forward(projected, index, end, &state, &output) && going
        case .create, .set, .remove, .delete, .merge, .schema:
            // Breakers never reach a stream; run() handles them.
            return true
        }
    }
}
