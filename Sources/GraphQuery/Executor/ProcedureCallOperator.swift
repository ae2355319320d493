// ProcedureCallOperator.swift — runs CALL for one input row: evaluates and type-checks the
// arguments, calls the procedure (read-only ones on the read view, writing ones on the write
// transaction's graph), and emits one row per output row that passes YIELD … WHERE.

import GraphStore

extension BoundCall {
    /// True when the aggregation `next` only counts this call's rows: it groups by nothing and
    /// each of its items is a `count(*)` or a plain `count` of a yielded column. Such a call may
    /// ask its procedure for the number (Procedure.count) instead of its rows.
    func rowsAreOnlyCounted(by next: PlanStep) -> Bool {
        guard isReadOnly, predicate == nil, !isOptional, case .projection(let projection) = next,
              projection.isAggregating, !projection.items.isEmpty else { return false }
        let yielded = Set(outputs.map(\.slot))
        return projection.items.allSatisfy { if case .aggregateResult = $0.expression { true } else { false } }
            && projection.aggregates.allSatisfy { aggregate in
                guard aggregate.function == .count, !aggregate.isDistinct else { return false }
                switch aggregate.argument {
                case nil: return true
                case .slot(let slot)?: return yielded.contains(slot)
                default: return false
                }
            }
    }

    /// Places output row `r`'s yielded columns into their slots of `row` (a column past the
    /// procedure's width is null; a slot yielded twice keeps the last).
    @inline(__always)
    func place(_ outputs: ProcedureRows, row r: Int, into row: inout Row) {
        let width = outputs.width
        for (column, slot) in self.outputs { row[slot] = column < width ? outputs[r, column] : .null }
    }
}

/// A procedure found in the registry, with its declared arguments read once.
struct ResolvedProcedure {
    let name: String
    let procedure: any Procedure
    let arguments: [ProcedureField]
}

extension ExecutionContext {
    /// Arguments of `call` for `row`, checked against the procedure's declared types.
    func procedureArguments(_ call: BoundCall, _ resolved: ResolvedProcedure, _ row: Row) throws(QueryError) -> [RuntimeValue] {
        var arguments: [RuntimeValue] = []
        arguments.reserveCapacity(call.arguments.count)
        let fields = resolved.arguments
        for (i, expression) in call.arguments.enumerated() {
            let value = try evaluate(expression, row)
            // Arguments past the signature come only from the planner's rewrites (a user's CALL
            // is held to the signature by the binder): passed on unchecked, for the procedure to read.
            if i < fields.count, !fields[i].type.accepts(value) {
                throw QueryError(.type, "Type mismatch: argument '\(fields[i].name)' of `\(call.name)` expects \(fields[i].type.rawValue) but was \(value.typeName)")
            }
            arguments.append(value)
        }
        return arguments
    }

    /// The procedure `call` names, with its declared arguments: looked up once for a run of
    /// calls to the same one (a signature is built afresh each time it is read).
    func lookup(_ call: BoundCall) throws(QueryError) -> ResolvedProcedure {
        if let recent = recentProcedure, recent.name == call.name { return recent }
        guard let procedure = registry.procedure(named: call.name) else {
            throw QueryError(.semantic, "Procedure `\(call.name)` is not registered")
        }
        let resolved = ResolvedProcedure(name: call.name, procedure: procedure, arguments: procedure.signature.arguments)
        recentProcedure = resolved
        return resolved
    }

    /// Places a procedure's output rows into `row` and hands those passing the WHERE to `emit`.
    func emitOutputs(_ call: BoundCall, _ outputs: ProcedureRows, _ row: Row,
                     _ emit: (Row) throws(QueryError) -> Bool) throws(QueryError) {
        var current = row
        if call.isVoid {
            _ = try emit(current)
            return
        }
        var emitted = false
        for r in 0..<outputs.count {
            try watchdog.tick()
            call.place(outputs, row: r, into: &current)
            if let predicate = call.predicate, try evaluate(predicate, current) != .bool(true) { continue }
            emitted = true
            guard try emit(current) else { return }
        }
        if call.isOptional, !emitted {
            for (_, slot) in call.outputs { current[slot] = .null }
            _ = try emit(current)
        }
    }

    /// A read-only procedure for one row. Writing procedures go through the mutating variant.
    func callProcedure(_ call: BoundCall, _ row: Row, _ emit: (Row) throws(QueryError) -> Bool) throws(QueryError) {
        try emitOutputs(call, try readOnlyOutputs(call, row), row, emit)
    }

    /// The output rows of a read-only procedure for one input row.
    func readOnlyOutputs(_ call: BoundCall, _ row: Row) throws(QueryError) -> ProcedureRows {
        try withReadOnlyProcedure(call, row) { (procedure, arguments, graph, context) throws(QueryError) in
            try procedure.call(arguments, graph: &graph, context: &context)
        }
    }

    /// The number of rows a read-only procedure would return for one input row, when it can
    /// count them without making them (Procedure.count), or nil.
    func readOnlyCount(_ call: BoundCall, _ row: Row) throws(QueryError) -> Int? {
        try withReadOnlyProcedure(call, row) { (procedure, arguments, graph, context) throws(QueryError) in
            try procedure.count(arguments, graph: &graph, context: &context)
        }
    }

    /// Runs `body` with `call`'s procedure, its arguments for `row`, the run's graph and a
    /// procedure context holding the run's social cache.
    private func withReadOnlyProcedure<T>(
        _ call: BoundCall, _ row: Row,
        _ body: (any Procedure, [RuntimeValue], inout Graph, inout ProcedureContext) throws(QueryError) -> T
    ) throws(QueryError) -> T {
        let resolved = try lookup(call)
        let arguments = try procedureArguments(call, resolved, row)
        // The run's own graph, not a copy: a copy retains and releases every buffer of the
        // graph, shared with the other readers' copies, on every call. A read-only procedure
        // does not mutate it (its signature says so, and the query runs under the read lock).
        // The cache moves into the context and back (swaps, not copies: no reference counting).
        var context = ProcedureContext(statistics: QueryStatistics(), watchdog: watchdog, socialRun: SocialRunCache(),
                                       changeStore: changeStore)
        swap(&context.socialRun, &socialRun)
        defer { swap(&context.socialRun, &socialRun) }
        return try body(resolved.procedure, arguments, &graph, &context)
    }

    /// A read-only procedure and the projection after it (`direct`), the stretch ending at `end`:
    /// each output row's projected values are computed from the procedure's rows and handed on
    /// to the step after the projection (ExecutionContext.push), with no row placed and pushed through
    /// the projection step. Same rows, SKIP, LIMIT, deadline and memory charge as the streamed
    /// path; returns false when the LIMIT is reached.
    func callThroughProjection(_ call: BoundCall, _ row: Row, _ direct: DirectProjection, projection index: Int, end: Int,
                               _ state: inout StreamState, _ output: inout [Row]) throws(QueryError) -> Bool {
        let outputs = try readOnlyOutputs(call, row)
        var p: DirectProjector? = projector(direct, projection: index, end: end, &state)
        defer { swap(&p, &state.progress[index].projector) }
        let width = outputs.width
        var current = row  // the general items' row: the input with the outputs placed
        // Rows going straight into the result: how many is known now (SKIP and LIMIT applied).
        if index + 1 == end, state.collector != nil, state.groups == nil {
            let rows = Swift.max(0, outputs.count - (state.progress[index].skip ?? 0))
            state.collector!.reserve(rows: Swift.min(rows, state.progress[index].limit ?? Int.max))
            if collectsDirectly(direct, projection: index, end: end, &state) {
                return try collectDirectly(outputs, &p!, input: row, projection: index, &state)
            }
        }
        for r in 0..<outputs.count {
            try watchdog.tick()
            if direct.needsRow, direct.isDistinct || (state.progress[index].skip ?? 0) == 0 {
                call.place(outputs, row: r, into: &current)
            }
            guard try project(&p!, input: row, general: current, column: { c in c < width ? outputs[r, c] : .null },
                              projection: index, &state, &output) else { return false }
        }
        return true
    }

    /// `callThroughProjection` for rows going straight into the result (`collectsDirectly`):
    /// each of the procedure's rows is written into it cell by cell (`collectRow`).
    @inline(__always)
    private func collectDirectly(_ outputs: ProcedureRows, _ p: inout DirectProjector, input: Row, projection index: Int,
                                 _ state: inout StreamState) throws(QueryError) -> Bool {
        let width = outputs.width
        // Taken out of the stream's state for the call: a plain variable, where each access
        // through the optional moved the collector.
        var collector = state.collector.take()!
        defer { state.collector = collector }
        for r in 0..<outputs.count {
            try watchdog.tick()
            guard try collectRow(&p, input: input, column: { c in c < width ? outputs[r, c] : .null }, projection: index,
                                 into: &collector, &state) else { return false }
        }
        return true
    }

    /// A writing procedure for every input row, on the write transaction's graph.
    func callWritingProcedure(_ call: BoundCall, rows: [Row], width: Int) throws(QueryError) -> [Row] {
        let resolved = try lookup(call)
        var output: [Row] = []
        for input in rows {
            let row = Executor.padded(input, to: width)
            let arguments = try procedureArguments(call, resolved, row)
            var context = ProcedureContext(statistics: statistics, watchdog: watchdog, socialRun: socialRun, changeStore: changeStore)
            let outputs = try resolved.procedure.call(arguments, graph: &graph, context: &context)
            statistics = context.statistics
            socialRun = context.socialRun
            try emitOutputs(call, outputs, row) { (r: Row) throws(QueryError) -> Bool in
                output.append(r)
                return true
            }
        }
        return output
    }
}
