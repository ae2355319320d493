// ProcedureCallOperator.swift — runs CALL for one input row: evaluates and type-checks the
// arguments, calls the procedure (read-only ones on the read view, writing ones on the write
// transaction's graph), and emits one row per output row that passes YIELD … WHERE.

import GraphStore

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
        var emitted = false
        let width = outputs.width
        for r in 0..<outputs.count {
            try watchdog.tick()
            for (column, slot) in call.outputs { current[slot] = column < width ? outputs[r, column] : .null }
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
        let resolved = try lookup(call)
        let arguments = try procedureArguments(call, resolved, row)
        // The run's own graph, not a copy: a copy retains and releases every buffer of the
        // graph, shared with the other readers' copies, on every call. A read-only procedure
        // does not mutate it (its signature says so, and the query runs under the read lock).
        // The cache moves into the context and back (swaps, not copies: no reference counting).
        var context = ProcedureContext(statistics: QueryStatistics(), watchdog: watchdog, socialRun: SocialRunCache())
        swap(&context.socialRun, &socialRun)
        defer { swap(&context.socialRun, &socialRun) }
        let outputs = try resolved.procedure.call(arguments, graph: &graph, context: &context)
        try emitOutputs(call, outputs, row, emit)
    }

    /// A writing procedure for every input row, on the write transaction's graph.
    func callWritingProcedure(_ call: BoundCall, rows: [Row], width: Int) throws(QueryError) -> [Row] {
        let resolved = try lookup(call)
        var output: [Row] = []
        for input in rows {
            let row = Executor.padded(input, to: width)
            let arguments = try procedureArguments(call, resolved, row)
            var context = ProcedureContext(statistics: statistics, watchdog: watchdog, socialRun: socialRun)
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
