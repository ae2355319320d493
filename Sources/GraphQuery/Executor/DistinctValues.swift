// DistinctValues.swift — what DISTINCT has seen (RETURN DISTINCT, count(DISTINCT …)), by
// openCypher's equivalence (RuntimeValue+Equivalence.swift): integers, the floats equal to them
// and nodes in open-addressing tables of their bits, everything else in a Set. Most distinct
// values in a social query are ids and nodes; through a Set each cost a SipHash of the enum
// and, for a one-column row, the row's array.

/// The distinct rows seen so far. A one-column row (`RETURN DISTINCT m.id`) is kept by its
/// value: keeping the row kept its array, and the projection's next row then copied its buffer.
struct DistinctRows {
    private var rows = DistinctSet<Row>()
    private var values = DistinctValues()

    /// Adds `row`; false when an equivalent row was already there.
    mutating func insert(_ row: Row) -> Bool {
        row.count == 1 ? values.insert(row[0]) : rows.insert(row)
    }
}

/// Distinct values, each kind where it is cheapest to look up: integers (and whole floats,
/// which are equivalent to them) and nodes by their bits, the rest hashed.
struct DistinctValues {
    private var integers = IntegerKeySet()
    private var nodes = IntegerKeySet()
    private var others = DistinctSet<RuntimeValue>()

    /// Adds `value`; false when an equivalent value was already there.
    mutating func insert(_ value: RuntimeValue) -> Bool {
        switch value {
        case .integer(let i):
            return integers.insert(UInt64(bitPattern: i))
        case .double(let d):
            if let i = d.exactInteger { return integers.insert(UInt64(bitPattern: i)) }
            return others.insert(value)
        case .node(let n):
            return nodes.insert(UInt64(n.rawValue))
        default:
            return others.insert(value)
        }
    }
}

/// Distinct elements: a short list compared one by one while there are few (cheaper than
/// hashing), a set beyond that.
struct DistinctSet<Element: Hashable> {
    private var few: [Element] = []
    private var many: Set<Element>?

    /// Adds `element`; false when an equal one was already there.
    mutating func insert(_ element: Element) -> Bool {
        if many != nil { return many!.insert(element).inserted }
        if few.contains(element) { return false }
        few.append(element)
        if few.count > 16 {
            many = Set(few)
            few = []
        }
        return true
    }
}

/// A set of 64-bit keys: open addressing with linear probing, at most half full. The slot
/// index comes from a seeded 64-bit finalizer (MurmurHash3's fmix64) of the key, so runs of
/// consecutive ids spread out and a key's slot differs from process to process; one key value
/// marks an empty slot, and whether that key itself is in the set is kept aside.
struct IntegerKeySet {
    private static let empty = UInt64.max
    private var slots: [UInt64] = []
    private var seed: UInt64 = 0
    private var holdsEmptyKey = false
    /// How many keys the set holds.
    private(set) var count = 0

    /// Adds `key`; false when it was already there.
    mutating func insert(_ key: UInt64) -> Bool {
        if key == Self.empty {
            if holdsEmptyKey { return false }
            holdsEmptyKey = true
            count += 1
            return true
        }
        if 2 * (count + 1) > slots.count { grow() }
        let mask = slots.count - 1
        return slots.withUnsafeMutableBufferPointer { slots in
            var i = Self.slot(of: key, seed: seed) & mask
            while true {
                let held = slots[i]
                if held == key { return false }
                if held == Self.empty {
                    slots[i] = key
                    count += 1
                    return true
                }
                i = (i + 1) & mask
            }
        }
    }

    /// Whether `key` is in the set.
    func contains(_ key: UInt64) -> Bool {
        if key == Self.empty { return holdsEmptyKey }
        guard !slots.isEmpty else { return false }
        let mask = slots.count - 1
        return slots.withUnsafeBufferPointer { slots in
            var i = Self.slot(of: key, seed: seed) & mask
            while true {
                let held = slots[i]
                if held == key { return true }
                if held == Self.empty { return false }
                i = (i + 1) & mask
            }
        }
    }

    @inline(__always)
    private static func slot(of key: UInt64, seed: UInt64) -> Int {
        var h = key ^ seed
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h &*= 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return Int(truncatingIfNeeded: h)
    }

    /// Doubles the table (16 slots to begin with) and places every key again.
    private mutating func grow() {
        if slots.isEmpty {
            // The process's hashing seed, through Hasher: no system call per set.
            var hasher = Hasher()
            hasher.combine(0 as UInt8)
            seed = UInt64(bitPattern: Int64(hasher.finalize()))
        }
        let old = slots
        slots = [UInt64](repeating: Self.empty, count: Swift.max(16, 2 * old.count))
        let mask = slots.count - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for key in old where key != Self.empty {
                var i = Self.slot(of: key, seed: seed) & mask
                while slots[i] != Self.empty { i = (i + 1) & mask }
                slots[i] = key
            }
        }
    }
}
