// ChangeFunctions.swift — graph.token() and graph.changedSince(), and reading a client's "since".
// A "since" is a change token (`<history>-<sequence>`) or a time (ISO-8601 text, a datetime, or
// epoch milliseconds); null means "never fetched". Anything else is an error that says so,
// never an answer: a malformed "since" must not read as "unchanged".

import GraphStore

extension ExecutionContext {
    /// `graph.token()`: the token of the last commit, as this query sees the graph. In a query
    /// that has written something, the token of the commit it is about to make (its writes are
    /// one commit, the next one), so `CREATE … RETURN graph.token()` hands back a bookmark of
    /// the write itself, for GRAPHD.WAITSEQ on a replica or social.changedSince.
    func changeToken(function: String) throws(QueryError) -> RuntimeValue {
        guard let changeStore else { throw ChangeArguments.noStore(function) }
        var token = changeStore.tokenHoldingLock
        if withGraph({ $0.hasPendingWrites }) { token.sequence += 1 }
        return .string(token.description)
    }

    /// `graph.changedSince(node, since)` and `graph.changedSince(node, type, since)`: whether the
    /// node's own labels and properties (or its relationships of `type`, either direction)
    /// changed after `since`. A node that no longer exists has changed.
    func changedSince(_ arguments: [RuntimeValue], function: String) throws(QueryError) -> RuntimeValue {
        guard case .node(let node) = arguments[0] else {
            throw QueryError(.type, "Type mismatch: \(function) expects a Node as its first argument, but was \(arguments[0].typeName)")
        }
        let baseline = try ChangeArguments.baseline(arguments[arguments.count - 1], store: changeStore, function: function)
        return withGraph { graph in
            guard graph.contains(node) else { return .bool(true) }
            let versions = graph.changeVersions
            guard arguments.count == 3 else { return .bool(versions.changed(node, after: baseline)) }
            guard case .string(let typeName) = arguments[1] else { return .bool(true) }
            // A type the graph has never seen has no relationships to change.
            guard let type = graph.relationshipTypeID(named: typeName) else { return .bool(baseline == .unknown) }
            return .bool(versions.changed(node, type, after: baseline))
        }
    }
}

/// Reading change arguments, shared by the functions and `social.changedSince`.
enum ChangeArguments {
    static func noStore(_ function: String) -> QueryError {
        QueryError(.runtime, "\(function): this graph is not in a store, so it has no change tokens")
    }

    /// Places `value` (a token, a time, or null) in the store's history.
    static func baseline(_ value: RuntimeValue, store: GraphStore?, function: String) throws(QueryError) -> ChangeBaseline {
        guard let store else { throw noStore(function) }
        switch value {
        case .null:
            return .unknown
        case .string(let text):
            if let token = ChangeToken(text) { return store.baselineHoldingLock(token) }
            guard let milliseconds = epochMilliseconds(parsing: text) else {
                throw QueryError(.runtime, "\(function): '\(text)' is neither a change token (<history>-<sequence>, as "
                                 + "graph.token() returns) nor an ISO-8601 date and time such as 2026-04-01T10:00:00Z")
            }
            return milliseconds < 0 ? .unknown : store.baselineHoldingLock(time: UInt64(milliseconds))
        case .integer(let milliseconds):
            return milliseconds < 0 ? .unknown : store.baselineHoldingLock(time: UInt64(milliseconds))
        case .temporal(.dateTime(let instant)):
            guard let milliseconds = epochMilliseconds(of: instant), milliseconds >= 0 else { return .unknown }
            return store.baselineHoldingLock(time: UInt64(milliseconds))
        default:
            throw QueryError(.type, "\(function): expected a change token, an ISO-8601 time, a datetime or epoch "
                             + "milliseconds, but was \(value.typeName)")
        }
    }

    /// Milliseconds since 1970 UTC of an ISO-8601 date and time with `Z` or an offset (a time
    /// without either is read as UTC); nil when the text is not one.
    static func epochMilliseconds(parsing text: String) -> Int64? {
        guard let instant = try? TemporalParser.parseDateTime(text, defaultZone: { () throws(TemporalError) in (0, nil) }) else {
            return nil
        }
        return epochMilliseconds(of: instant)
    }

    /// Milliseconds since 1970 UTC of `instant`; nil when they overflow.
    static func epochMilliseconds(of instant: ZonedDateTime) -> Int64? {
        let (seconds, nanos) = instant.epochSecondAndNano
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        return milliseconds.overflow ? nil : milliseconds.partialValue + nanos / 1_000_000
    }
}
