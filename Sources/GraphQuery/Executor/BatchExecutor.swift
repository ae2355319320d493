// BatchExecutor.swift — runs a BatchProgram: rows are node ids in column buffers of up to
// `BatchRun.batchSize` rows, one buffer per expansion level. A filter compacts its level in
// place; an expansion walks each row's adjacency lists by pointer and writes its rows into the
// next level, handing the level on whenever it fills, so rows reach the groups in exactly the
// order the row-at-a-time matcher makes them (groups come out in the same order). Nothing is
// allocated per row and no RuntimeValue exists until a group is output.

import GraphStore

extension ExecutionContext {
    /// The groups of `aggregation` over the rows `program`'s stretch makes from `input`, as
    /// GroupAggregator.finish gives them; nil when the program cannot run on these rows and
    /// parameters (an input slot that is not a node, a constant that is not an integer), so
    /// the row-at-a-time executor runs the stretch instead, errors and all.
    func runBatched(_ program: BatchProgram, aggregation: BoundProjection,
                    input: [Row]) throws(QueryError) -> [(output: Row, input: Row)]? {
        for row in input {
            for slot in program.inputSlots {
                guard slot < row.count else { return nil }
                switch row[slot] {
                case .node, .null: continue
                default: return nil
                }
            }
        }
        guard let operators = resolve(program) else { return nil }
        let run = BatchRun(program, operators, graph: graphPointer, watchdog: watchdog)
        defer { run.deallocate() }
        run.groups.reserve(for: program, nodeIDBound: withGraph { $0.nodeIDBound }, pool: groupCounters)
        try run.feed(input)
        return try run.groups.finish(program, aggregation, context: self)
    }

    /// The program's operators with names resolved to ids and constants evaluated, or nil
    /// when a constant cannot be compared as the batched operators compare it.
    func resolve(_ program: BatchProgram) -> [ResolvedBatchOperator]? {
        var resolved: [ResolvedBatchOperator] = []
        for (i, op) in program.operators.enumerated() {
            switch op {
            case .scan(let to, let source):
                guard let nodes = scanned(source) else { return nil }
                resolved.append(.scan(to: to, nodes: nodes, copy: program.liveColumns[i].filter { $0 != to }))
            case .expand(let from, let to, let types, let direction, let into, let hop, let exclude):
                var lists: [(RelationshipTypeID, Direction)] = []
                for type in typeIDs(types) {
                    if direction != .rightToLeft { lists.append((type, .outgoing)) }
                    if direction != .leftToRight { lists.append((type, .incoming)) }
                }
                resolved.append(.expand(from: from, to: to, lists: lists, either: direction == .either, into: into,
                                        hop: hop, exclude: exclude,
                                        copy: program.liveColumns[i].filter { $0 != to || into }))
            case .filter(let condition):
                guard let c = resolve(condition) else { return nil }
                resolved.append(.filter(c, keep: program.liveColumns[i]))
            }
        }
        return resolved
    }

    /// The nodes a scan walks, or nil when a seek's value is an error to raise on the row path.
    func scanned(_ source: BatchSource) -> [NodeID]? {
        switch source {
        case .allNodes: return withGraph { $0.nodeIDs() }
        case .label(let label):
            guard let id = labelID(label) else { return [] }
            return withGraph { $0.nodeIDs(withLabel: id) }
        case .seek(let label, let key, let expression):
            guard let value = try? evaluate(expression, []) else { return nil }
            guard let keyID = propertyKeyID(key), !value.isNull, let stored = value.storable else { return [] }
            guard let label else { return withGraph { $0.nodeIDs(key: keyID, equalTo: stored) } }
            guard let labelID = labelID(label) else { return [] }
            return withGraph { $0.nodeIDs(withLabel: labelID, key: keyID, equalTo: stored) }
        }
    }

    func resolve(_ condition: BatchCondition) -> ResolvedBatchCondition? {
        switch condition {
        case .same(let a, let b): return .same(a, b)
        case .labels(let c, let labels):
            var ids: [LabelID] = []
            for label in labels {
                guard let id = labelID(label) else { return .constant(false) }
                ids.append(id)
            }
            return .labels(c, ids)
        case .property(let c, let key, let expression):
            guard let value = try? evaluate(expression, []) else { return nil }
            guard let keyID = propertyKeyID(key), !value.isNull else { return .constant(false) }
            return .property(c, keyID, value)
        case .idComparison(let op, let a, let b):
            guard let x = resolve(a), let y = resolve(b) else { return nil }
            return .idComparison(op, x, y)
        case .adjacent(let a, let b, let types, let direction):
            var lists: [(RelationshipTypeID, Direction)] = []
            for type in typeIDs(types) {
                if direction != .rightToLeft { lists.append((type, .outgoing)) }
                if direction != .leftToRight { lists.append((type, .incoming)) }
            }
            return .adjacent(a, b, lists)
        case .not(let c): return resolve(c).map { .not($0) }
        case .and(let l, let r):
            guard let a = resolve(l), let b = resolve(r) else { return nil }
            return .and(a, b)
        case .or(let l, let r):
            guard let a = resolve(l), let b = resolve(r) else { return nil }
            return .or(a, b)
        }
    }

    /// An id operand: a column, or an integer constant (anything else: nil, the row path's).
    func resolve(_ operand: BatchOperand) -> ResolvedBatchOperand? {
        switch operand {
        case .column(let c): return .column(c)
        case .constant(let expression):
            guard case .integer(let i)? = try? evaluate(expression, []) else { return nil }
            return .constant(i)
        }
    }
}

/// A BatchOperator with its names resolved and constants evaluated for one run; `copy` and
/// `keep` are the columns live after it (what it moves with a row).
enum ResolvedBatchOperator {
    case scan(to: BatchColumn, nodes: [NodeID], copy: [BatchColumn])
    case expand(from: BatchColumn, to: BatchColumn, lists: [(RelationshipTypeID, Direction)], either: Bool, into: Bool,
                hop: Int, exclude: [Int], copy: [BatchColumn])
    case filter(ResolvedBatchCondition, keep: [BatchColumn])
}

/// A BatchCondition for one run.
indirect enum ResolvedBatchCondition {
    case constant(Bool)
    case same(BatchColumn, BatchColumn)
    case idComparison(BinaryOperator, ResolvedBatchOperand, ResolvedBatchOperand)
    case labels(BatchColumn, [LabelID])
    case property(BatchColumn, PropertyKeyID, RuntimeValue)
    case adjacent(BatchColumn, BatchColumn, [(RelationshipTypeID, Direction)])
    case not(ResolvedBatchCondition)
    case and(ResolvedBatchCondition, ResolvedBatchCondition)
    case or(ResolvedBatchCondition, ResolvedBatchCondition)
}

enum ResolvedBatchOperand {
    case column(BatchColumn)
    case constant(Int64)
}

/// One run of a batched program: the level buffers, the operators and the groups.
final class BatchRun {
    /// Rows per level buffer: a level's columns stay in the first-level cache.
    static let batchSize = 1024

    let program: BatchProgram
    let operators: [ResolvedBatchOperator]
    let graph: UnsafePointer<Graph>
    let watchdog: Watchdog
    /// Level l's column c is columns[l][c * batchSize ..< (c + 1) * batchSize]; its hop h's
    /// relationship handle (BatchRun.handle) is handles[l][h * batchSize + row].
    let columns: [UnsafeMutablePointer<UInt32>]
    let handles: [UnsafeMutablePointer<UInt64>]
    /// The level each operator reads, and the level the groups read.
    let levelOf: [Int]
    let sinkLevel: Int
    /// Per expansion operator, the earlier hops whose handles a later uniqueness check reads.
    let liveHops: [[Int]]
    /// Hops some later expansion checks against: only they record handles.
    let comparedHops: Set<Int>
    var groups = BatchGroups()

    init(_ program: BatchProgram, _ operators: [ResolvedBatchOperator], graph: UnsafePointer<Graph>, watchdog: Watchdog) {
        self.program = program
        self.operators = operators
        self.graph = graph
        self.watchdog = watchdog
        var levels = [0]
        for op in operators {
            switch op {
            case .scan, .expand: levels.append(levels.last! + 1)
            case .filter: levels.append(levels.last!)
            }
        }
        levelOf = Array(levels.dropLast())
        sinkLevel = levels.last!
        let count = levels.last! + 1
        let width = max(program.columnCount, 1) * Self.batchSize
        columns = (0..<count).map { _ in
            let p = UnsafeMutablePointer<UInt32>.allocate(capacity: width)
            p.initialize(repeating: 0, count: width)
            return p
        }
        let hopWidth = max(program.hopCount, 1) * Self.batchSize
        handles = (0..<count).map { _ in
            let p = UnsafeMutablePointer<UInt64>.allocate(capacity: hopWidth)
            p.initialize(repeating: 0, count: hopWidth)
            return p
        }
        var compared = Set<Int>()
        var live: [[Int]] = Array(repeating: [], count: operators.count)
        var later = Set<Int>()
        for i in operators.indices.reversed() {
            if case .expand(_, _, _, _, _, let hop, let exclude, _) = operators[i] {
                live[i] = later.filter { $0 < hop }.sorted()
                later.formUnion(exclude)
                compared.formUnion(exclude)
            } else {
                live[i] = later.sorted()
            }
        }
        liveHops = live
        comparedHops = compared
    }

    func deallocate() {
        for p in columns { p.deallocate() }
        for p in handles { p.deallocate() }
    }

    /// Runs every input row through the program, a level-0 batch at a time.
    func feed(_ input: [Row]) throws(QueryError) {
        let level = columns[0]
        var n = 0
        for row in input {
            var isNull = false
            for (c, slot) in program.inputSlots.enumerated() {
                guard case .node(let node) = row[slot] else { isNull = true; break }
                level[c * Self.batchSize + n] = node.rawValue
            }
            if isNull { continue }
            n += 1
            if n == Self.batchSize {
                try process(0, n)
                n = 0
            }
        }
        if n > 0 { try process(0, n) }
    }

    /// Runs operators from `index` on the `n` rows of operator `index`'s level (the sink's
    /// level when `index` is past the last operator).
    func process(_ index: Int, _ count: Int) throws(QueryError) {
        // The clock once a batch (a row tick would check it only every 256 batches).
        try watchdog.checkNow()
        var n = count
        var i = index
        let size = Self.batchSize
        while i < operators.count {
            let level = levelOf[i]
            let current = columns[level]
            switch operators[i] {
            case .filter(let condition, let keep):
                let hops = liveHops[i]
                var w = 0
                for r in 0..<n where holds(condition, current, r) {
                    if w != r {
                        for c in keep { current[c * size + w] = current[c * size + r] }
                        for h in hops { handles[level][h * size + w] = handles[level][h * size + r] }
                    }
                    w += 1
                }
                n = w
                if n == 0 { return }
                i += 1
            case .scan(let to, let nodes, let copy):
                let next = columns[level + 1]
                let hops = liveHops[i]
                var m = 0
                for r in 0..<n {
                    for node in nodes {
                        for c in copy { next[c * size + m] = current[c * size + r] }
                        for h in hops { handles[level + 1][h * size + m] = handles[level][h * size + r] }
                        next[to * size + m] = node.rawValue
                        m += 1
                        if m == size {
                            try process(i + 1, m)
                            m = 0
                        }
                    }
                }
                if m > 0 { try process(i + 1, m) }
                return
            case .expand(let from, let to, let lists, let either, let into, let hop, let exclude, let copy):
                try expand(i, level, n, from: from, to: to, lists: lists, either: either, into: into, hop: hop,
                           exclude: exclude, copy: copy)
                return
            }
        }
        try groups.add(program, columns[sinkLevel], n, watchdog: watchdog)
    }

    /// An expansion of the `n` rows of `level` into level + 1, handed on a full batch at a time.
    func expand(_ i: Int, _ level: Int, _ n: Int, from: BatchColumn, to: BatchColumn,
                lists: [(RelationshipTypeID, Direction)], either: Bool, into: Bool, hop: Int, exclude: [Int],
                copy: [BatchColumn]) throws(QueryError) {
        let size = Self.batchSize
        let current = columns[level], next = columns[level + 1]
        let currentHandles = handles[level], nextHandles = handles[level + 1]
        let hops = liveHops[i]
        let records = comparedHops.contains(hop)
        var m = 0
        for r in 0..<n {
            let start = current[from * size + r]
            for (type, way) in lists {
                let list = Graph.adjacency(of: NodeID(rawValue: start), type: type, direction: way, in: graph)
                var range = 0..<list.count
                if into { range = list.positions(ofNeighbor: NodeID(rawValue: current[to * size + r])) }
                var p = range.lowerBound
                while p < range.upperBound {
                    // As many entries as the next level has room for; then it is handed on.
                    let end = min(range.upperBound, p + (size - m))
                    list.neighborIDs.withUnsafeBufferPointer { neighbors in
                        for q in p..<end {
                            let neighbor = neighbors[q]
                            // Undirected: a self-loop is in both lists of its node; take it once.
                            if either, way == .incoming, neighbor == start { continue }
                            if !exclude.isEmpty,
                               clashes(start, neighbor, type, way, q, exclude, current, currentHandles, r) { continue }
                            for c in copy { next[c * size + m] = current[c * size + r] }
                            for h in hops { nextHandles[h * size + m] = currentHandles[h * size + r] }
                            if !into { next[to * size + m] = neighbor }
                            if records { nextHandles[hop * size + m] = BatchRun.handle(q, type, way) }
                            m += 1
                        }
                    }
                    p = end
                    if m == size {
                        try process(i + 1, m)
                        m = 0
                    }
                }
            }
        }
        if m > 0 { try process(i + 1, m) }
    }

    /// A walked relationship, to find its id again only when a uniqueness check needs it:
    /// its entry's position in its list, the type and the way walked.
    @inline(__always)
    static func handle(_ position: Int, _ type: RelationshipTypeID, _ way: Direction) -> UInt64 {
        UInt64(position) << 32 | UInt64(type.rawValue & 0xFF_FFFF) << 8 | UInt64(way.rawValue)
    }

    /// Whether the relationship at `position` of `node`'s list is one an earlier hop of the
    /// row walked (openCypher's relationship uniqueness). It can only be if it joins the same
    /// two nodes with the same type, so ids are looked up only then.
    func clashes(_ node: UInt32, _ neighbor: UInt32, _ type: RelationshipTypeID, _ way: Direction, _ position: Int,
                 _ exclude: [Int], _ current: UnsafeMutablePointer<UInt32>, _ handles: UnsafeMutablePointer<UInt64>,
                 _ r: Int) -> Bool {
        let size = Self.batchSize
        for h in exclude {
            let ends = program.hopEnds[h]
            let a = current[ends.from * size + r], b = current[ends.to * size + r]
            guard (a == node && b == neighbor) || (a == neighbor && b == node) else { continue }
            let held = handles[h * size + r]
            let heldType = RelationshipTypeID(rawValue: UInt32(truncatingIfNeeded: held >> 8) & 0xFF_FFFF)
            guard heldType == type else { continue }
            let heldWay = Direction(rawValue: UInt8(truncatingIfNeeded: held & 0xFF)) ?? .outgoing
            if relationship(a, heldType, heldWay, Int(held >> 32)) == relationship(node, type, way, position) { return true }
        }
        return false
    }

    func relationship(_ node: UInt32, _ type: RelationshipTypeID, _ way: Direction, _ position: Int) -> RelationshipID {
        let list = Graph.adjacency(of: NodeID(rawValue: node), type: type, direction: way, in: graph)
        if list.hasRelationshipIDs { return list.relationship(at: position) }
        return graph.pointee.incomingRelationship(of: NodeID(rawValue: node), type: type, in: list, at: position)
    }

    /// Whether `condition` holds for row `r` of a level.
    func holds(_ condition: ResolvedBatchCondition, _ level: UnsafeMutablePointer<UInt32>, _ r: Int) -> Bool {
        let size = Self.batchSize
        switch condition {
        case .constant(let b): return b
        case .same(let a, let b): return level[a * size + r] == level[b * size + r]
        case .idComparison(let op, let a, let b):
            let x = value(a, level, r), y = value(b, level, r)
            switch op {
            case .equal: return x == y
            case .notEqual: return x != y
            case .less: return x < y
            case .lessEqual: return x <= y
            case .greater: return x > y
            default: return x >= y
            }
        case .labels(let c, let labels):
            let node = NodeID(rawValue: level[c * size + r])
            return labels.allSatisfy { Graph.node(node, hasLabel: $0, in: graph) }
        case .property(let c, let key, let expected):
            let stored = Graph.property(key, of: NodeID(rawValue: level[c * size + r]), in: graph)
            return RuntimeValue.equals(RuntimeValue(stored), expected) == true
        case .adjacent(let a, let b, let lists):
            let start = NodeID(rawValue: level[a * size + r]), end = NodeID(rawValue: level[b * size + r])
            return lists.contains { Graph.adjacency(of: start, type: $0.0, direction: $0.1, in: graph).contains(neighbor: end) }
        case .not(let c): return !holds(c, level, r)
        case .and(let a, let b): return holds(a, level, r) && holds(b, level, r)
        case .or(let a, let b): return holds(a, level, r) || holds(b, level, r)
        }
    }

    @inline(__always)
    func value(_ operand: ResolvedBatchOperand, _ level: UnsafeMutablePointer<UInt32>, _ r: Int) -> Int64 {
        switch operand {
        case .column(let c): return Int64(level[c * Self.batchSize + r])
        case .constant(let i): return i
        }
    }
}
