// BatchProgram.swift — the form of a plan stretch that the batched executor (BatchExecutor)
// runs: MATCH steps (scans, seeks, expansions, label, property and node comparisons, adjacency
// checks) and pass-through WITHs, ending in an aggregation that counts rows grouped by node.
// Every variable the stretch binds is a node, held as a column of node ids; nothing else can
// be read, so a row is a few integers and needs no RuntimeValue until its group is output.
// A stretch with any other operator or expression keeps the row-at-a-time executor.

/// A column of node ids: one per node variable the stretch binds or takes from its input rows.
typealias BatchColumn = Int

/// One operator of a batched stretch.
enum BatchOperator: Sendable {
    /// For every row, every node of `source` (evaluated once per run) into column `to`.
    case scan(to: BatchColumn, source: BatchSource)
    /// For every row, every relationship of `types` (all when empty) from the node in `from`
    /// (in `direction`), its far node into `to`; when `into`, `to` already holds a node and
    /// only the relationships reaching it count. `hop` numbers the expansion for the
    /// uniqueness checks of later hops; `exclude` are the earlier hops whose relationship this
    /// one's must differ from (openCypher's relationship uniqueness within a MATCH).
    case expand(from: BatchColumn, to: BatchColumn, types: [String], direction: PatternDirection, into: Bool,
                hop: Int, exclude: [Int])
    /// Rows for which `condition` holds.
    case filter(BatchCondition)
}

/// Where a scan's nodes come from.
enum BatchSource: Sendable {
    case allNodes
    case label(String)
    /// Nodes whose `key` equals `value` (a run constant: evaluated once per run), with `label`
    /// when one is given.
    case seek(label: String?, key: String, value: Expression)
}

/// A row condition over node columns; two-valued, since a column never holds null.
indirect enum BatchCondition: Sendable {
    /// The nodes in the two columns are the same node (`a = b`).
    case same(BatchColumn, BatchColumn)
    /// `id(a) ⊙ id(b)` or `id(a) ⊙ constant`: the operands' node ids compared.
    case idComparison(BinaryOperator, BatchOperand, BatchOperand)
    /// The node in the column has every label.
    case labels(BatchColumn, [String])
    /// The node's property `key` equals `value` (a run constant: evaluated once per run).
    case property(BatchColumn, key: String, value: Expression)
    /// A relationship of `types` joins the two columns' nodes in `direction`.
    case adjacent(BatchColumn, BatchColumn, types: [String], direction: PatternDirection)
    case not(BatchCondition)
    case and(BatchCondition, BatchCondition)
    case or(BatchCondition, BatchCondition)
}

/// An operand of `id(…)` comparisons: a column's node id or a constant, evaluated once per run.
enum BatchOperand: Sendable {
    case column(BatchColumn)
    case constant(Expression)
}

/// A batched stretch of a plan: steps `steps` run by BatchExecutor, folded into the aggregation
/// at `steps.upperBound`.
struct BatchProgram: Sendable {
    /// The plan steps the program replaces (the stretch), not counting the aggregation.
    var steps: Range<Int>
    /// Input row slots read as node columns, in column order from 0.
    var inputSlots: [Int]
    var operators: [BatchOperator]
    var columnCount: Int
    var hopCount: Int
    /// For each operator, the columns read at or after it (the sink's included): an expansion
    /// copies only these into the rows it makes.
    var liveColumns: [[BatchColumn]]
    /// Per hop, the columns of its two ends: a later hop checks uniqueness against them.
    var hopEnds: [(from: BatchColumn, to: BatchColumn)]
    /// The aggregation's grouping columns (at most two), each with every slot of the
    /// aggregation's input row that holds it.
    var keyColumns: [BatchColumn]
    /// Slots of the aggregation's input row, by column: what a group's input row is made of.
    var slotsOfColumn: [BatchColumn: [Int]]
    /// The aggregation's input row width.
    var inputWidth: Int
    /// Per aggregate: nil for a count of rows (`count(*)`, or `count(x)` of a node, never
    /// null), else the column a `count(DISTINCT x)` counts.
    var distinctColumns: [BatchColumn?]
    /// True when each grouping item names its node alone (`c`, `id(c)`): groups need no
    /// merging by value.
    var keysAreColumns: Bool
}

extension BatchProgram {
    /// The programs of a plan's aggregations that can run batched, by the aggregation's step.
    static func programs(of steps: [(step: PlanStep, width: Int)]) -> [Int: BatchProgram] {
        var programs: [Int: BatchProgram] = [:]
        var start = 0
        for (end, entry) in steps.enumerated() {
            guard Executor.isBreaker(entry.step) else { continue }
            if case .projection(let projection) = entry.step, projection.isAggregating, start < end,
               let program = BatchCompiler.compile(steps, start..<end, projection, inputWidth: steps[end - 1].width) {
                programs[end] = program
            }
            start = end + 1
        }
        return programs
    }
}

/// Builds a BatchProgram from a stretch, or nil when a step or an expression is one it cannot
/// hold (anything but nodes read, optional matches, variable lengths, paths, unwinds, calls).
struct BatchCompiler {
    var columnOfSlot: [Int: BatchColumn] = [:]
    var inputSlots: [Int] = []
    var columnCount = 0
    var operators: [BatchOperator] = []
    var hopOfRelationshipSlot: [Int: Int] = [:]
    var hopEnds: [(from: BatchColumn, to: BatchColumn)] = []
    /// Columns the operators read, by operator (for liveness).
    var reads: [[BatchColumn]] = []

    static func compile(_ steps: [(step: PlanStep, width: Int)], _ range: Range<Int>, _ aggregation: BoundProjection,
                        inputWidth: Int) -> BatchProgram? {
        var compiler = BatchCompiler()
        for i in range {
            switch steps[i].step {
            case .match(let ops, let predicate, let isOptional, _):
                guard !isOptional, compiler.add(ops) else { return nil }
                if let predicate {
                    guard let condition = compiler.condition(predicate) else { return nil }
                    compiler.append(.filter(condition))
                }
            case .projection(let projection):
                guard compiler.pass(projection) else { return nil }
            default: return nil
            }
        }
        return compiler.finish(range, aggregation, inputWidth: inputWidth)
    }

    mutating func append(_ op: BatchOperator) {
        operators.append(op)
        reads.append(Self.columns(read: op))
    }

    /// The column holding `slot`, reading it from the input row when the stretch has not bound it.
    mutating func column(_ slot: Int, bindIfInput: Bool = true) -> BatchColumn? {
        if let c = columnOfSlot[slot] { return c }
        // Only before the first operator can a slot come from the input row: later, a slot
        // the stretch has not bound is a relationship, a path or another value.
        guard bindIfInput, operators.isEmpty || operators.allSatisfy(\.isInputCheck) else { return nil }
        let c = newColumn(slot)
        inputSlots.append(slot)
        return c
    }

    mutating func newColumn(_ slot: Int) -> BatchColumn {
        let c = columnCount
        columnCount += 1
        columnOfSlot[slot] = c
        return c
    }

    /// Adds a MATCH step's operators; false when one cannot be batched.
    mutating func add(_ ops: [PatternOperator]) -> Bool {
        for op in ops {
            switch op {
            case .argument(let slot):
                guard column(slot) != nil else { return false }
            case .allNodesScan(let slot):
                guard columnOfSlot[slot] == nil else { return false }
                append(.scan(to: newColumn(slot), source: .allNodes))
            case .labelScan(let slot, let label):
                guard columnOfSlot[slot] == nil else { return false }
                append(.scan(to: newColumn(slot), source: .label(label)))
            case .propertySeek(let slot, let label, let key, let value):
                guard columnOfSlot[slot] == nil, value.isRunConstant else { return false }
                append(.scan(to: newColumn(slot), source: .seek(label: label, key: key, value: value)))
            case .nodeFilter(let slot, let labels, let properties):
                guard let c = column(slot, bindIfInput: false) else { return false }
                if !labels.isEmpty { append(.filter(.labels(c, labels))) }
                for (key, value) in properties {
                    guard value.isRunConstant else { return false }
                    append(.filter(.property(c, key: key, value: value)))
                }
            case .expand(let from, let relationship, let to, let types, let direction, let toIsBound,
                         let relationshipIsBound, let exclude, _):
                guard !relationshipIsBound, let f = column(from, bindIfInput: false) else { return false }
                var excluded: [Int] = []
                for slot in exclude {
                    guard let hop = hopOfRelationshipSlot[slot] else { return false }
                    excluded.append(hop)
                }
                let t: BatchColumn
                if toIsBound {
                    guard let bound = column(to, bindIfInput: false) else { return false }
                    t = bound
                } else {
                    guard columnOfSlot[to] == nil else { return false }
                    t = newColumn(to)
                }
                let hop = hopEnds.count
                hopEnds.append((f, t))
                hopOfRelationshipSlot[relationship] = hop
                append(.expand(from: f, to: t, types: types, direction: direction, into: toIsBound, hop: hop, exclude: excluded))
            case .adjacencyCheck(let from, let to, let types, let direction):
                guard let f = column(from, bindIfInput: false), let t = column(to, bindIfInput: false) else { return false }
                append(.filter(.adjacent(f, t, types: types, direction: direction)))
            case .filter(let expression):
                guard let condition = condition(expression) else { return false }
                append(.filter(condition))
            case .relationshipFilter, .variableExpand, .bindPath, .reverseList, .shortestPath, .followList, .idSeek,
                 .propertyListSeek:
                return false
            }
        }
        return true
    }

    /// A WITH that only passes node variables on (and may filter them): the columns stay, the
    /// slots are renumbered.
    mutating func pass(_ projection: BoundProjection) -> Bool {
        guard !projection.isAggregating, !projection.isDistinct, projection.orderBy.isEmpty,
              projection.skip == nil, projection.limit == nil else { return false }
        var renumbered: [Int: BatchColumn] = [:]
        for (i, item) in projection.items.enumerated() {
            guard case .slot(let slot) = item.expression, let c = column(slot, bindIfInput: false) else { return false }
            renumbered[i] = c
        }
        columnOfSlot = renumbered
        hopOfRelationshipSlot = [:]  // a WITH ends the MATCH whose relationships must differ
        if let predicate = projection.predicate {
            guard let condition = condition(predicate) else { return false }
            append(.filter(condition))
        }
        return true
    }

    /// The condition `expression` states, when it reads node columns only in the forms batched.
    func condition(_ expression: Expression) -> BatchCondition? {
        switch expression {
        case .binary(.and, let l, let r):
            guard let a = condition(l), let b = condition(r) else { return nil }
            return .and(a, b)
        case .binary(.or, let l, let r):
            guard let a = condition(l), let b = condition(r) else { return nil }
            return .or(a, b)
        case .unary(.not, let operand):
            return condition(operand).map { .not($0) }
        case .binary(let op, .slot(let a), .slot(let b)) where op == .equal || op == .notEqual:
            guard let x = columnOfSlot[a], let y = columnOfSlot[b] else { return nil }
            return op == .equal ? .same(x, y) : .not(.same(x, y))
        case .binary(let op, let l, let r) where [.equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual].contains(op):
            guard let a = operand(l), let b = operand(r) else { return nil }
            if case .constant = a, case .constant = b { return nil }
            return .idComparison(op, a, b)
        case .hasLabels(.slot(let slot), let labels):
            return columnOfSlot[slot].map { .labels($0, labels) }
        case .patternPredicate(let pattern):
            return pattern.predicate == nil ? boundPattern(pattern.plan) : nil
        default:
            return nil
        }
    }

    /// `id(x)` of a node column, or a constant (a literal or a parameter).
    func operand(_ expression: Expression) -> BatchOperand? {
        switch expression {
        case .function(let call) where call.scalar == .id && call.arguments.count == 1:
            guard case .slot(let slot) = call.arguments[0], let c = columnOfSlot[slot] else { return nil }
            return .column(c)
        case .literal(.integer), .parameter: return .constant(expression)
        default: return nil
        }
    }

    /// A pattern predicate between nodes the row binds (`(a)-[:T]-(b)`, `(a)-[:T]-(b:L)`): its
    /// adjacency and label checks.
    func boundPattern(_ plan: [PatternOperator]) -> BatchCondition? {
        var parts: [BatchCondition] = []
        for op in plan {
            switch op {
            case .argument(let slot):
                guard columnOfSlot[slot] != nil else { return nil }
            case .nodeFilter(let slot, let labels, let properties) where properties.isEmpty:
                guard let c = columnOfSlot[slot] else { return nil }
                if !labels.isEmpty { parts.append(.labels(c, labels)) }
            case .adjacencyCheck(let from, let to, let types, let direction):
                guard let f = columnOfSlot[from], let t = columnOfSlot[to] else { return nil }
                parts.append(.adjacent(f, t, types: types, direction: direction))
            default: return nil
            }
        }
        guard let first = parts.first else { return nil }
        return parts.dropFirst().reduce(first) { .and($0, $1) }
    }

    /// The program, given the aggregation that ends the stretch; nil when its grouping or
    /// aggregates read anything but node columns, or it aggregates anything but counts.
    func finish(_ range: Range<Int>, _ aggregation: BoundProjection, inputWidth: Int) -> BatchProgram? {
        var distinctColumns: [BatchColumn?] = []
        for aggregate in aggregation.aggregates {
            guard aggregate.function == .count else { return nil }
            switch aggregate.argument {
            case nil: distinctColumns.append(nil)
            case .slot(let slot)?:
                guard let c = columnOfSlot[slot] else { return nil }
                distinctColumns.append(aggregate.isDistinct ? c : nil)
            default: return nil
            }
        }
        var keyColumns: [BatchColumn] = []
        var keysAreColumns = true
        for item in aggregation.items {
            // An aggregate's result reads no slot of the input row.
            let read = item.expression.rewritten { if case .aggregateResult = $0 { .literal(.null) } else { nil } }
            guard let slots = read.referencedSlots else { return nil }
            for slot in slots {
                guard let c = columnOfSlot[slot] else { return nil }
                if !keyColumns.contains(c) { keyColumns.append(c) }
            }
            if !item.expression.containsAggregate, !item.expression.namesOneNode { keysAreColumns = false }
        }
        // A pair set holds one group column beside the counted node (BatchGroups).
        guard keyColumns.count <= 2, distinctColumns.allSatisfy({ $0 == nil }) || keyColumns.count <= 1 else { return nil }
        if let predicate = aggregation.predicate, predicate.referencedSlots == nil { return nil }
        var slotsOfColumn: [BatchColumn: [Int]] = [:]
        for (slot, c) in columnOfSlot where keyColumns.contains(c) { slotsOfColumn[c, default: []].append(slot) }
        // Liveness: what each operator and everything after it read.
        var live = Set(keyColumns + distinctColumns.compactMap { $0 })
        var liveColumns = Array(repeating: [BatchColumn](), count: operators.count)
        for i in operators.indices.reversed() {
            live.formUnion(reads[i])
            if case .expand(_, _, _, _, _, _, let exclude) = operators[i] {
                for hop in exclude { live.insert(hopEnds[hop].from); live.insert(hopEnds[hop].to) }
            }
            liveColumns[i] = live.sorted()
        }
        return BatchProgram(steps: range, inputSlots: inputSlots, operators: operators, columnCount: columnCount,
                            hopCount: hopEnds.count, liveColumns: liveColumns, hopEnds: hopEnds, keyColumns: keyColumns,
                            slotsOfColumn: slotsOfColumn, inputWidth: inputWidth, distinctColumns: distinctColumns,
                            keysAreColumns: keysAreColumns)
    }

    /// The columns an operator reads.
    static func columns(read op: BatchOperator) -> [BatchColumn] {
        switch op {
        case .scan: return []
        case .expand(let from, let to, _, _, let into, _, _): return into ? [from, to] : [from]
        case .filter(let condition): return condition.columns
        }
    }
}

extension Expression {
    /// A value the same for every row of a run (literals and parameters, and lists, maps and
    /// operators of them): evaluated once. A function may not be (`rand()`).
    var isRunConstant: Bool {
        switch self {
        case .literal, .parameter: return true
        case .list, .map, .unary, .binary: return children.allSatisfy(\.isRunConstant)
        default: return false
        }
    }

    /// A node variable or its id: a value that two nodes never share.
    var namesOneNode: Bool {
        switch self {
        case .slot: return true
        case .function(let call): return call.scalar == .id && call.arguments.count == 1 && call.arguments[0].namesOneNode
        default: return false
        }
    }
}

extension BatchOperator {
    /// A check of an input node (labels, properties) that may come before more input slots are read.
    var isInputCheck: Bool {
        if case .filter = self { return true } else { return false }
    }
}

extension BatchCondition {
    /// The columns the condition reads.
    var columns: [BatchColumn] {
        switch self {
        case .same(let a, let b), .adjacent(let a, let b, _, _): return [a, b]
        case .labels(let c, _), .property(let c, _, _): return [c]
        case .idComparison(_, let a, let b):
            return [a, b].compactMap { if case .column(let c) = $0 { c } else { nil } }
        case .not(let c): return c.columns
        case .and(let a, let b), .or(let a, let b): return a.columns + b.columns
        }
    }
}
