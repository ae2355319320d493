// DirectProjection.swift — a row-producing step (a read-only CALL, a MATCH) and the plain
// projection after it, run as one step: each row's projected values are computed where the row
// is found and handed straight to the step after the projection (usually the end of the
// stretch: the result, an aggregation, or the stretch's output).

import GraphStore

/// The plain projection after a read-only CALL (`CALL social.friends($u, {}) YIELD friend
/// RETURN friend.id`, and the plain-Cypher forms the social planner turns into calls) or after
/// a MATCH (`MATCH (u:User {id: $u})-[:FRIEND]-(f:User) RETURN f.id`), with its items sorted
/// by what they read. Through the general path a row costs about 250 ns of placing, pushing and
/// evaluating, ten times the kernel's work per row, and a hub's friends or an audience are
/// thousands of rows.
struct DirectProjection: Sendable {
    enum Item: Sendable {
        /// A column of the step's rows, as is: a procedure's output column, a match's slot.
        case column(Int)
        /// A property of a column (a node's, usually).
        case property(column: Int, key: String)
        /// An expression over the input row alone (a literal, a parameter, an earlier variable):
        /// evaluated once for each input row, with the first row it projects.
        case input(Expression)
        /// Any other expression: evaluated for each row, on the row as the general path holds it.
        case general(Expression)
    }

    let items: [Item]
    /// Whether some item needs the whole row (`general`).
    let needsRow: Bool
    /// `RETURN DISTINCT`: a row goes on only if it is new (StreamState.seen, as when streamed).
    let isDistinct: Bool

    /// The direct form of `step` followed by `next`, or nil when the pair does not qualify: a
    /// step other than a read-only, unfiltered, non-optional call or a match, or a projection
    /// that aggregates, sorts or filters.
    init?(_ step: PlanStep, then next: PlanStep) {
        guard case .projection(let projection) = next, !projection.isAggregating, projection.orderBy.isEmpty,
              projection.predicate == nil else { return nil }
        let columnOfSlot: (Int) -> Int?
        switch step {
        case .call(let call):
            guard call.isReadOnly, call.predicate == nil, !call.isOptional, !call.isVoid else { return nil }
            // A slot yielded twice holds the last column placed into it (emitOutputs).
            let columns = Dictionary(call.outputs.map { ($0.slot, $0.column) }, uniquingKeysWith: { _, last in last })
            columnOfSlot = { columns[$0] }
        case .match:
            // A match's rows hold every slot of the scope.
            columnOfSlot = { $0 }
        default:
            return nil
        }
        var items: [Item] = []
        for (_, expression) in projection.items {
            switch expression {
            case .slot(let slot):
                items.append(columnOfSlot(slot).map { .column($0) } ?? .input(expression))
            case .property(.slot(let slot), let key):
                items.append(columnOfSlot(slot).map { .property(column: $0, key: key) } ?? .input(expression))
            case .literal, .parameter:
                items.append(.input(expression))
            default:
                items.append(.general(expression))
            }
        }
        self.items = items
        isDistinct = projection.isDistinct
        needsRow = items.contains { if case .general = $0 { true } else { false } }
    }
}

/// A direct projection at work in one stream: its property keys resolved to ids once, and the
/// cells of the row being projected, reused from row to row and from one input row to the next
/// (StepProgress.projector holds it between them).
struct DirectProjector {
    let direct: DirectProjection
    /// What each item reads, by item: switched on for every row, where switching on the item
    /// itself copied its payload (an expression, a key's string) and released it after.
    let reads: [DirectRead]
    var cells: Row
    /// No row projected yet: the `input` items are still to be evaluated.
    var first = true
    /// The end of the projection's stretch: its rows go on through the steps up to there.
    var end = 0
}

/// What an item of a direct projection reads (DirectProjection.Item), its property key
/// resolved: nothing to retain when it is copied.
enum DirectRead {
    /// The item's expression over the input row, kept in the projector's cells.
    case input
    /// A column of the step's rows.
    case column(Int)
    /// A property of a column; `key` is nil when the graph has no such key.
    case property(column: Int, key: PropertyKeyID?)
    /// An expression over the whole row.
    case general
}

extension ExecutionContext {
    /// The projector of projection `index` for a new input row: the stream's, taken out of its
    /// state (so that its buffers stay uniquely referenced; the caller swaps it back), or a new
    /// one (the ids of its property keys resolved now: none is created during a read).
    func projector(_ direct: DirectProjection, projection index: Int, end: Int, _ state: inout StreamState) -> DirectProjector {
        if var p = state.progress[index].projector.take() {
            p.first = true
            p.end = end
            return p
        }
        let reads = direct.items.map { item -> DirectRead in
            switch item {
            case .input: .input
            case .column(let c): .column(c)
            case .property(let c, let key): .property(column: c, key: propertyKeyID(key))
            case .general: .general
            }
        }
        return DirectProjector(direct: direct, reads: reads, cells: Row(repeating: .null, count: direct.items.count), end: end)
    }

    /// Projects one row found by the step before projection `index` and hands it on through the
    /// rest of the stretch, counting DISTINCT, SKIP and LIMIT as the streamed projection does (SKIP
    /// counts distinct rows under DISTINCT): `column` reads the found row's columns, `input` is
    /// the step's input row and `general` the found row as the general path holds it. Returns
    /// false when the LIMIT is reached.
    @inline(__always)
    func project(_ p: inout DirectProjector, input: Row, general: Row, column: (Int) -> RuntimeValue,
                 projection index: Int, _ state: inout StreamState, _ output: inout [Row]) throws(QueryError) -> Bool {
        let distinct = p.direct.isDistinct
        if !distinct, let remaining = state.progress[index].skip, remaining > 0 {
            state.progress[index].skip = remaining - 1
            return true
        }
        for i in p.reads.indices {
            switch p.reads[i] {
            case .input:
                if p.first, case .input(let expression) = p.direct.items[i] { p.cells[i] = try evaluate(expression, input) }
            case .general:
                if case .general(let expression) = p.direct.items[i] { p.cells[i] = try evaluate(expression, general) }
            case .column(let c): p.cells[i] = column(c)
            case .property(let c, let key): p.cells[i] = try directProperty(p, item: i, of: column(c), key: key)
            }
        }
        p.first = false
        guard let going = try pass(p.cells, projection: index, distinct: distinct, &state) else { return true }
        // On through the rest of the stretch (usually nothing: into the result, an aggregation
        // or the stretch's output). A step there that keeps the row copies the cells first.
        guard try push(p.cells, index + 1, p.end, &state, &output) else { return false }
        return going
    }

    /// Whether projection `index`'s rows may go straight into the result (`collectRow`): it ends
    /// the plan's last stretch, and has nothing to skip, no DISTINCT and no item needing the
    /// whole row.
    @inline(__always)
    func collectsDirectly(_ direct: DirectProjection, projection index: Int, end: Int, _ state: inout StreamState) -> Bool {
        index + 1 == end && state.collector != nil && state.groups == nil && !direct.needsRow && !direct.isDistinct
            && (state.progress[index].skip ?? 0) == 0
    }

    /// `project` and `push` for a row going straight into the result (`collectsDirectly`): the
    /// row's cells, read through `p`'s reads from the row `column` reads, are written into
    /// `collector` (the stream's, taken out by the caller) as they are read, with no projected
    /// row kept and pushed on. The same cells, LIMIT, result-row limit and memory charge;
    /// returns false when the LIMIT is reached.
    @inline(__always)
    func collectRow(_ p: inout DirectProjector, input: Row, column: (Int) -> RuntimeValue, projection index: Int,
                    into collector: inout ResultCollector, _ state: inout StreamState) throws(QueryError) -> Bool {
        if p.first {
            // The input items, with the first row projected, as `project` evaluates them: a
            // step that finds nothing evaluates nothing.
            for i in p.reads.indices {
                if case .input(let expression) = p.direct.items[i] { p.cells[i] = try evaluate(expression, input) }
            }
            p.first = false
        }
        try collector.beginRow()
        let cellCount = Swift.min(p.reads.count, collector.width)
        var bytes = Watchdog.rowOverhead
        for i in p.reads.indices {
            let value: RuntimeValue
            switch p.reads[i] {
            case .input: value = p.cells[i]
            case .column(let c): value = column(c)
            case .property(let c, let key): value = try directProperty(p, item: i, of: column(c), key: key)
            case .general: preconditionFailure("collectRow: an item needing the whole row (needsRow said no)")
            }
            bytes &+= Watchdog.size(of: value)
            if i < cellCount { collectCell(value, into: &collector) }
        }
        collector.endRow()
        try watchdog.charge(bytes)
        if let remaining = state.progress[index].limit {
            state.progress[index].limit = remaining - 1
            return remaining > 1
        }
        return true
    }

    /// The property item `i` of `p` reads, of `owner`: a node's through its resolved `key`,
    /// anything else's by the key's name (a relationship's, a map's; an error for other values).
    @inline(__always)
    func directProperty(_ p: DirectProjector, item i: Int, of owner: RuntimeValue, key: PropertyKeyID?) throws(QueryError) -> RuntimeValue {
        if case .node(let node) = owner { return key.map { id in RuntimeValue(property(id, of: node)) } ?? .null }
        guard case .property(_, let name) = p.direct.items[i] else { return .null }
        return try property(name, of: owner)
    }

    /// A MATCH step and the projection after it (`direct`), the stretch ending at `end`: each match's
    /// projected values are computed as it is found, with no row pushed through the projection
    /// step. Same rows, SKIP, LIMIT, deadline and memory charge as the streamed path; returns
    /// false when the LIMIT is reached.
    func matchThroughProjection(_ operators: [PatternOperator], _ predicate: Expression?, isOptional: Bool,
                                introduced: [Int], _ row: inout Row, _ direct: DirectProjection,
                                projection index: Int, end: Int, _ state: inout StreamState,
                                _ output: inout [Row]) throws(QueryError) -> Bool {
        // Taken from the stream at the first match (most input rows of a MATCH after an UNWIND
        // may find nothing), read from the match's box, not captured (see below); held in an
        // optional so that it goes back by a swap: a copy retained and released its buffers.
        var p: DirectProjector?
        defer { if p != nil { swap(&p, &state.progress[index].projector) } }
        // Rows going straight into the result are written into it (collectRow), the collector
        // taken out of the stream's state for the match.
        // (Not an optional: each access through one moved the collector.)
        let straight = collectsDirectly(direct, projection: index, end: end, &state)
        var collector = straight ? state.collector.take()! : ResultCollector(width: 0, limit: nil)
        defer { if straight { state.collector = collector } }
        var matched = false
        // As in runStep: the closures capture `self` unowned(unsafe) and nothing else by value
        // (a captured reference is retained and released at every level of the match, per row).
        // A match's input items read the input row's slots, which every found row holds as is.
        let going: Bool
        if let predicate {
            going = try match(operators, 0, &row) { [unowned(unsafe) self] (found: Row) throws(QueryError) -> Bool in
                if try evaluate(predicate, found) != .bool(true) { return true }
                matched = true
                if p == nil { p = projector(state.steps[index - 1].directProjection!, projection: index, end: end, &state) }
                if straight {
                    return try collectRow(&p!, input: found, column: { found[$0] }, projection: index, into: &collector, &state)
                }
                return try project(&p!, input: found, general: found, column: { found[$0] }, projection: index, &state, &output)
            }
        } else {
            going = try match(operators, 0, &row) { [unowned(unsafe) self] (found: Row) throws(QueryError) -> Bool in
                matched = true
                if p == nil { p = projector(state.steps[index - 1].directProjection!, projection: index, end: end, &state) }
                if straight {
                    return try collectRow(&p!, input: found, column: { found[$0] }, projection: index, into: &collector, &state)
                }
                return try project(&p!, input: found, general: found, column: { found[$0] }, projection: index, &state, &output)
            }
        }
        if going, !matched, isOptional {
            for slot in introduced { row[slot] = .null }
            if p == nil { p = projector(direct, projection: index, end: end, &state) }
            if straight { return try collectRow(&p!, input: row, column: { row[$0] }, projection: index, into: &collector, &state) }
            return try project(&p!, input: row, general: row, column: { row[$0] }, projection: index, &state, &output)
        }
        return going
    }
}
