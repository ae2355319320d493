// BatchGroups.swift — the groups a batched stretch (BatchExecutor) folds its rows into: with
// one grouping node, a dense counter per node id and the nodes in first-row order; with two,
// a table of node pairs; with none, one counter. `count(DISTINCT x)` keeps the (group, x)
// pairs it has seen. At the end the groups become the aggregation's output rows, as
// GroupAggregator.finish makes them (merged by value when a grouping item is not a plain node
// variable, e.g. `c.name`).

import Synchronization
import GraphStore

/// Lends dense per-node counter arrays to batched runs, so a run pays for the nodes it
/// touches, not for zeroing an array as large as the graph. An array is returned zeroed, and
/// only by a run that finished (a run that threw drops its array).
final class GroupCounterPool: Sendable {
    private let idle = Mutex<[[Int64]]>([])
    private let keep: Int

    init(keep: Int = 4) { self.keep = keep }

    /// A zeroed array of at least `capacity` counters.
    func checkOut(capacity: Int) -> [Int64] {
        var counts = idle.withLock { $0.popLast() } ?? []
        if counts.count < capacity { counts.append(contentsOf: repeatElement(0, count: capacity - counts.count)) }
        return counts
    }

    /// Takes back an array whose counters are all zero again.
    func checkIn(_ counts: consuming [Int64]) {
        let returned = counts
        idle.withLock { if $0.count < keep { $0.append(returned) } }
    }
}

/// The groups of one batched run.
struct BatchGroups {
    /// Rows per group: by node id with one grouping column, by group number with two, at
    /// index 0 without grouping.
    var rows: [Int64] = []
    /// The groups in the order their first row came: node ids (one grouping column), or
    /// `first << 32 | second` (two).
    var order: [UInt64] = []
    /// Group numbers of node pairs (two grouping columns).
    var pairGroups: [UInt64: Int] = [:]
    /// Per `count(DISTINCT x)`: the `group << 32 | x` seen (group: the node id, or 0).
    var distinctSeen: [Set<UInt64>] = []
    /// Groups charged to the watchdog so far.
    var charged = 0
    var pool: GroupCounterPool?
    /// Whether `rows` came from the pool (a dense array by node id).
    var dense = false

    /// Sizes the counters for the program's grouping before any row comes.
    mutating func reserve(for program: BatchProgram, nodeIDBound: Int, pool: GroupCounterPool?) {
        distinctSeen = program.distinctColumns.map { _ in [] }
        switch program.keyColumns.count {
        case 0: rows = [0]
        case 1:
            rows = pool?.checkOut(capacity: nodeIDBound) ?? Array(repeating: 0, count: nodeIDBound)
            self.pool = pool
            // The engine's scratch, as the kernels' counters are: each group is charged as it
            // comes (add), not the array.
            dense = true
        default: rows = []
        }
    }

    /// Folds `n` rows of a level (`columns`, BatchRun's layout) into their groups.
    mutating func add(_ program: BatchProgram, _ columns: UnsafeMutablePointer<UInt32>, _ n: Int,
                      watchdog: Watchdog) throws(QueryError) {
        let size = BatchRun.batchSize
        let keys = program.keyColumns
        switch keys.count {
        case 0:
            rows[0] += Int64(n)
            for (a, column) in program.distinctColumns.enumerated() {
                guard let column else { continue }
                for r in 0..<n { distinctSeen[a].insert(UInt64(columns[column * size + r])) }
            }
        case 1:
            let key = columns + keys[0] * size
            rows.withUnsafeMutableBufferPointer { counts in
                for r in 0..<n {
                    let k = Int(key[r])
                    if counts[k] == 0 { order.append(UInt64(k)) }
                    counts[k] &+= 1
                }
            }
            for (a, column) in program.distinctColumns.enumerated() {
                guard let column else { continue }
                for r in 0..<n { distinctSeen[a].insert(UInt64(key[r]) << 32 | UInt64(columns[column * size + r])) }
            }
        default:
            let first = columns + keys[0] * size, second = columns + keys[1] * size
            for r in 0..<n {
                let pair = UInt64(first[r]) << 32 | UInt64(second[r])
                if let g = pairGroups[pair] {
                    rows[g] += 1
                } else {
                    pairGroups[pair] = rows.count
                    rows.append(1)
                    order.append(pair)
                }
            }
        }
        let seen = distinctSeen.reduce(0) { $0 + $1.count }
        if order.count + seen > charged + 1024 {
            try watchdog.charge((order.count + seen - charged) * 16)
            charged = order.count + seen
        }
    }

    /// The aggregation's output rows, each with its group's input row, in first-row order;
    /// returns the dense counters to the pool, zeroed.
    mutating func finish(_ program: BatchProgram, _ aggregation: BoundProjection,
                         context: ExecutionContext) throws(QueryError) -> [(output: Row, input: Row)] {
        let keys = program.keyColumns
        let keyItems = aggregation.items.indices.filter { !aggregation.items[$0].expression.containsAggregate }
        // Each group's row count, distinct counts and grouping nodes.
        var groupRows: [Int64] = []
        var nodes: [[UInt32]] = []
        switch keys.count {
        case 0:
            // Without grouping items there is a group even for no rows (`count(*)` of nothing
            // is 0); with constant ones (`RETURN 'x', count(*)`) only when a row came.
            if keyItems.isEmpty || rows[0] > 0 {
                groupRows = [rows[0]]
                nodes = [[]]
            }
        case 1:
            for k in order {
                groupRows.append(rows[Int(k)])
                nodes.append([UInt32(k)])
                rows[Int(k)] = 0
            }
            if dense, let pool { pool.checkIn(rows) }
            rows = []
        default:
            groupRows = rows
            nodes = order.map { [UInt32($0 >> 32), UInt32(truncatingIfNeeded: $0)] }
        }
        var inputs: [Row] = []
        inputs.reserveCapacity(nodes.count)
        for group in nodes {
            var row = Row(repeating: .null, count: program.inputWidth)
            for (i, column) in keys.enumerated() {
                for slot in program.slotsOfColumn[column] ?? [] { row[slot] = .node(NodeID(rawValue: group[i])) }
            }
            inputs.append(row)
        }
        // Groups by value: a grouping item that is not a plain node variable may give two
        // nodes the same key (`c.name`), and their rows then form one group.
        var merged = Array(groupRows.indices)
        var outputKeys: [Row] = []
        var firstOfGroup: [Int] = []
        if program.keysAreColumns {
            for (g, input) in inputs.enumerated() {
                var key: Row = []
                for i in keyItems { key.append(try context.evaluate(aggregation.items[i].expression, input)) }
                outputKeys.append(key)
                firstOfGroup.append(g)
            }
        } else {
            var table = GroupTable()
            var key: Row = []
            for (g, input) in inputs.enumerated() {
                key.removeAll(keepingCapacity: true)
                for i in keyItems { key.append(try context.evaluate(aggregation.items[i].expression, input)) }
                let found = table.group(for: key)
                merged[g] = found.index
                if found.isNew {
                    outputKeys.append(key)
                    firstOfGroup.append(g)
                }
            }
        }
        let count = firstOfGroup.count
        var totals = Array(repeating: Int64(0), count: count)
        for (g, n) in groupRows.enumerated() { totals[merged[g]] += n }
        // Distinct counts per output group: the pairs re-keyed by output group.
        var distinct: [[Int64]] = []
        for (a, column) in program.distinctColumns.enumerated() {
            guard column != nil else { distinct.append([]); continue }
            var counts = Array(repeating: Int64(0), count: count)
            if keys.isEmpty {
                counts[0] = Int64(distinctSeen[a].count)
            } else {
                var outputOfNode: [UInt32: Int] = [:]
                for (g, group) in nodes.enumerated() { outputOfNode[group[0]] = merged[g] }
                var seen = Set<UInt64>()
                for pair in distinctSeen[a] {
                    let output = outputOfNode[UInt32(pair >> 32)]!
                    if seen.insert(UInt64(output) << 32 | (pair & 0xFFFF_FFFF)).inserted { counts[output] += 1 }
                }
            }
            distinct.append(counts)
        }
        var projected: [(output: Row, input: Row)] = []
        projected.reserveCapacity(count)
        var results: [RuntimeValue] = []
        for o in 0..<count {
            results.removeAll(keepingCapacity: true)
            for (a, column) in program.distinctColumns.enumerated() {
                results.append(.integer(column == nil ? totals[o] : distinct[a][o]))
            }
            let input = inputs[firstOfGroup[o]]
            var row: Row = []
            row.reserveCapacity(aggregation.items.count)
            var k = 0
            for (i, item) in aggregation.items.enumerated() {
                if k < keyItems.count && keyItems[k] == i { row.append(outputKeys[o][k]); k += 1 }
                else { row.append(try context.evaluate(item.expression, input, aggregates: results)) }
            }
            projected.append((row, input))
        }
        return projected
    }
}
