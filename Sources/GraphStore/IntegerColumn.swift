// IntegerColumn.swift — the integer values of one unique index, held so that both directions
// cost one memory access: node → value is a dense column by node slot, value → node an
// open-addressing table of 4-byte node ids whose keys are read back from the column.
//
// Why: apps name users by their own integer id. Every query starts with "the user whose id is
// N" and most end with "the ids of these nodes". Through the general index (a Dictionary of
// normalised keys) and the node's property array those are three and two dependent cache
// misses; here they are two and one, and the table takes 4 bytes a slot instead of ~40.
//
// Layout:
// - `values[n]` is node slot n's integer value, or `absent` (Int64.min) when the node holds
//   none (not in the index, or a non-integer value). A real Int64.min is stored as absent and
//   found through the property read instead: the column is a cache, never the only copy.
// - `slots` has a power-of-two count; each is a node id, `empty`, or `deleted` (a tombstone,
//   so a probe run stays unbroken). A key's home is the high bits of key × 2^64/φ (Fibonacci
//   hashing); probing is linear. Several nodes may hold one key (the table does not enforce
//   uniqueness; the index's constraint check does), each in its own slot.
// - The run is one range of node slots whose values are their slot plus a constant
//   (`runStart ..< runStart + runCount`, value = slot + `runOffset`): what a bulk import of
//   rows numbered in order leaves, and what auto-increment ids keep extending. Reading a
//   value there is arithmetic, no memory access, and so is finding a unique index's node of a
//   value (`uniqueNode(holding:)`): answers map thousands of friends back to
//   app ids, and the column (8 bytes a node) is far out of cache on a large graph. The run
//   only speeds reads up: `values` holds every value too, and a write that disagrees with the
//   run cuts it short (O(1)); once cut, it grows again only at its new end.

/// Integer values by node and nodes by integer value, for one unique index.
struct IntegerColumn: Sendable, Equatable {
    static let absent = Int64.min
    private static let empty = UInt32.max
    private static let deleted = UInt32.max - 1

    private(set) var values: [Int64] = []
    private var slots: [UInt32] = []
    private var used = 0        // slots holding a node or a tombstone
    private var live = 0        // slots holding a node
    /// The affine run: slots `runStart ..< runStart + runCount` hold slot + `runOffset`.
    private var runStart = 0
    private var runCount = 0
    private var runOffset: Int64 = 0

    /// The table's size in slots (for tests: churn must not grow it).
    var slotCount: Int { slots.count }

    /// Whether slot `i` is in the run. One unsigned compare covers both ends.
    @inline(__always) private func inRun(_ i: Int) -> Bool {
        UInt(bitPattern: i &- runStart) < UInt(bitPattern: runCount)
    }

    /// The integer `node` holds, or nil (none, not an integer, or Int64.min).
    @inline(__always) func value(of node: NodeID) -> Int64? {
        let i = node.index
        if inRun(i) { return Int64(i) &+ runOffset }
        guard i < values.count else { return nil }
        let v = values[i]
        return v == Self.absent ? nil : v
    }

    /// Node slot `i`'s stored value (`absent` included), by arithmetic inside the run:
    /// a lookup by value then costs the table's cache miss alone, not a second one in `values`.
    @inline(__always) private func storedValue(_ i: Int) -> Int64 {
        inRun(i) ? Int64(i) &+ runOffset : values[i]
    }

    /// Calls `body` with each node holding `key`, in table order (one, for a unique index).
    /// - Complexity: O(1) expected.
    func forEachNode(holding key: Int64, _ body: (NodeID) -> Void) {
        guard live > 0, key != Self.absent else { return }
        let mask = slots.count - 1
        var i = Self.home(key, mask)
        while true {
            let s = slots[i]
            if s == Self.empty { return }
            if s != Self.deleted, storedValue(Int(s)) == key { body(NodeID(rawValue: s)) }
            i = (i + 1) & mask
        }
    }

    /// The node holding `key`, for a column whose writes keep keys unique (a unique index's,
    /// whose constraint is checked before every write): inside the run that node is `key`
    /// minus the run's offset, found by arithmetic, where the table costs a cache miss on a
    /// large graph. Every query that starts from "the user whose id is N" starts here.
    /// - Complexity: O(1) expected.
    @inline(__always) func uniqueNode(holding key: Int64) -> NodeID? {
        guard key != Self.absent else { return nil }
        let (slot, overflow) = key.subtractingReportingOverflow(runOffset)
        if !overflow, inRun(Int(truncatingIfNeeded: slot)) { return NodeID(rawValue: UInt32(truncatingIfNeeded: slot)) }
        var found: NodeID?
        forEachNode(holding: key) { n in if found == nil || n < found! { found = n } }
        return found
    }

    /// Records that `node` holds `key` (nothing for Int64.min, which stays absent).
    mutating func insert(_ node: NodeID, _ key: Int64) {
        guard key != Self.absent else { return }
        if value(of: node) != nil { remove(node) }
        extendRun(node.index, key)
        if node.index >= values.count {
            values.append(contentsOf: repeatElement(Self.absent, count: node.index + 1 - values.count))
        }
        values[node.index] = key
        if (used + 1) * 4 > slots.count * 3 { rehash(minimumLive: live + 1) }
        let mask = slots.count - 1
        var i = Self.home(key, mask)
        while slots[i] != Self.empty && slots[i] != Self.deleted { i = (i + 1) & mask }
        if slots[i] == Self.empty { used += 1 }
        slots[i] = node.rawValue
        live += 1
    }

    /// Forgets `node`'s value, if it has one.
    mutating func remove(_ node: NodeID) {
        guard let key = value(of: node) else { return }
        let mask = slots.count - 1
        var i = Self.home(key, mask)
        while slots[i] != node.rawValue {
            precondition(slots[i] != Self.empty, "IntegerColumn: a node's value is missing from its table")
            i = (i + 1) & mask
        }
        slots[i] = Self.deleted
        live -= 1
        values[node.index] = Self.absent
        cutRun(at: node.index)
    }

    /// Keeps the run true after `slot` takes `key`. The slot holds nothing now (a slot inside
    /// the run had a value, whose removal cut the run there), so only two cases matter: the
    /// slot just past the run joins it when its value continues the sequence, and the first
    /// value of an empty column starts it.
    @inline(__always) private mutating func extendRun(_ slot: Int, _ key: Int64) {
        let (offset, overflow) = key.subtractingReportingOverflow(Int64(slot))
        guard !overflow else { return }
        if runCount == 0 && live == 0 {
            (runStart, runCount, runOffset) = (slot, 1, offset)
        } else if runCount > 0 && slot == runStart + runCount && offset == runOffset {
            runCount += 1
        }
    }

    /// Ends the run before `slot` when `slot` is in it (its value is going or changing).
    @inline(__always) private mutating func cutRun(at slot: Int) {
        if slot >= runStart && slot < runStart + runCount { runCount = slot - runStart }
    }

    /// Room for `count` values without rehashing (bulk builds).
    mutating func reserveCapacity(_ count: Int) {
        if count * 4 > slots.count * 3 { rehash(minimumLive: count) }
    }

    /// Rebuilds the table without tombstones, at most half full with `minimumLive` nodes, so
    /// a quarter of the table is inserted (or deleted and reinserted) before the next rehash.
    private mutating func rehash(minimumLive: Int) {
        var capacity = 16
        while minimumLive * 2 > capacity { capacity <<= 1 }
        let old = slots
        slots = [UInt32](repeating: Self.empty, count: capacity)
        used = 0
        let mask = capacity - 1
        for s in old where s != Self.empty && s != Self.deleted {
            var i = Self.home(values[Int(s)], mask)
            while slots[i] != Self.empty { i = (i + 1) & mask }
            slots[i] = s
            used += 1
        }
        live = used
    }

    @inline(__always) private static func home(_ key: Int64, _ mask: Int) -> Int {
        let h = UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 32) & mask
    }

    /// The same values and nodes, whatever the slot layout (rollbacks leave tombstones).
    static func == (a: IntegerColumn, b: IntegerColumn) -> Bool {
        func trimmed(_ v: [Int64]) -> ArraySlice<Int64> {
            var end = v.count
            while end > 0 && v[end - 1] == absent { end -= 1 }
            return v[..<end]
        }
        return a.live == b.live && trimmed(a.values) == trimmed(b.values)
    }
}
