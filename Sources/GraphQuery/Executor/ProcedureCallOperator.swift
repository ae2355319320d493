// ProcedureCallOperator.swift — runs CALL for one input row: evaluates and type-checks the
// arguments, calls the procedure (read-only ones on the read view, writing ones on the write
// transaction's graph), and emits one row per output row that passes YIELD … WHERE.

import GraphStore

extension ExecutionContext {
    /// Arguments of `call` for `row`, checked against the procedure's declared types.
    func procedureArguments(_ call: BoundCall, _ procedure: any Procedure, _ row: Row) throws(QueryError) -> [RuntimeValue] {
        var arguments: [RuntimeValue] = []
        for (expression, field) in zip(call.arguments, procedure.signature.arguments) {
            let value = try evaluate(expression, row)
            guard field.type.accepts(value) else {
                throw QueryError(.type, "Type mismatch: argument '\(field.name)' of `\(call.name)` expects \(field.type.rawValue) but was \(value.typeName)")
            }
            arguments.append(value)
        }
        // Arguments past the signature come only from the planner's rewrites (a user's CALL is
        // held to the signature by the binder): passed on unchecked, for the procedure to read.
        for expression in call.arguments.dropFirst(procedure.signature.arguments.count) {
            arguments.append(try evaluate(expression, row))
        }
        return arguments
    }

    func lookup(_ call: BoundCall) throws(QueryError) -> any Procedure {
        if let recent = recentProcedure, recent.name == call.name { return recent.procedure }
        guard let procedure = registry.procedure(named: call.name) else {
            throw QueryError(.semantic, "Procedure `\(call.name)` is not registered")
        }
        recentProcedure = (call.name, procedure)
        return procedure
    }

    /// Places a procedure's output rows into `row` and hands those passing the WHERE to `emit`.
    func emitOutputs(_ call: BoundCall, _ outputs: [[RuntimeValue]], _ row: Row,
                     _ emit: (Row) throws(QueryError) -> Bool) throws(QueryError) {
        var current = row
        var emitted = false
        for output in outputs {
            try watchdog.tick()
            for (column, slot) in call.outputs { current[slot] = column < output.count ? output[column] : .null }
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
        let procedure = try lookup(call)
        let arguments = try procedureArguments(call, procedure, row)
        // The run's own graph, not a copy: a copy retains and releases every buffer of the
        // graph, shared with the other readers' copies, on every call. A read-only procedure
        // does not mutate it (its signature says so, and the query runs under the read lock).
        // The cache moves into the context and back (swaps, not copies: no reference counting).
        var context = ProcedureContext(statistics: QueryStatistics(), watchdog: watchdog, socialRun: SocialRunCache())
        swap(&context.socialRun, &socialRun)
        defer { swap(&context.socialRun, &socialRun) }
        let outputs = try procedure.call(arguments, graph: &graph, context: &context)
        try emitOutputs(call, outputs, row, emit)
    }

    /// A writing procedure for every input row, on the write transaction's graph.
    func callWritingProcedure(_ call: BoundCall, rows: [Row], width: Int) throws(QueryError) -> [Row] {
        let procedure = try lookup(call)
        var output: [Row] = []
        for input in rows {
            let row = Executor.padded(input, to: width)
            let arguments = try procedureArguments(call, procedure, row)
            var context = ProcedureContext(statistics: statistics, watchdog: watchdog, socialRun: socialRun)
            let outputs = try procedure.call(arguments, graph: &graph, context: &context)
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
