// PropertyIndex.swift — equality indexes on (label, property key), optionally unique.
// Values are normalised to an IndexKey that follows Cypher equality (integer 1 equals 1.0;
// NaN and null never equal anything), so an index lookup and a label scan agree.

/// Names one index: nodes with `label`, keyed by the value of property `key`.
public struct IndexDescriptor: Sendable, Hashable {
    public var label: LabelID
    public var key: PropertyKeyID
    /// A unique index is also a constraint: no two nodes with `label` share a value of `key`.
    public var isUnique: Bool

    public init(label: LabelID, key: PropertyKeyID, isUnique: Bool) {
        self.label = label
        self.key = key
        self.isUnique = isUnique
    }
}

/// A property value in the form Cypher equality compares: doubles with an integral value
/// become integers, so hashing 1 and 1.0 gives the same key.
enum IndexKey: Hashable, Sendable {
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case list([IndexKey])
    case map([String: IndexKey])
    /// Temporal values are equal when all their fields are (the same instant in another zone is
    /// another value, as in Neo4j).
    case temporal(TemporalValue)

    /// nil when the value can never be equal to anything (null, NaN, or containing them).
    init?(_ value: Value) {
        switch value {
        case .null: return nil
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d):
            if d.isNaN { return nil }
            // Exactly representable as Int64 (the range check excludes 2^63, which rounds up).
            if d == d.rounded(), d >= -9.223372036854775808e18, d < 9.223372036854775808e18 {
                self = .integer(Int64(d))
            } else {
                self = .double(d)
            }
        case .string(let s): self = .string(s)
        case .list(let items):
            var keys: [IndexKey] = []
            keys.reserveCapacity(items.count)
            for item in items {
                guard let k = IndexKey(item) else { return nil }
                keys.append(k)
            }
            self = .list(keys)
        case .map(let map):
            var keys: [String: IndexKey] = [:]
            for (name, item) in map {
                guard let k = IndexKey(item) else { return nil }
                keys[name] = k
            }
            self = .map(keys)
        case .temporal(let t): self = .temporal(t)
        }
    }
}

extension Value {
    /// Cypher equality for property matching: 1 == 1.0; null and NaN match nothing.
    func cypherEquals(_ other: Value) -> Bool {
        guard let a = IndexKey(self), let b = IndexKey(other) else { return false }
        return a == b
    }
}

/// The nodes holding one value in an index, ascending. Most values (an id, a username) are held
/// by exactly one node, so that case is stored inline: no array allocation per indexed node.
enum IndexPostings: Sendable, Equatable {
    case one(NodeID)
    case many([NodeID])   // two or more, ascending

    var nodes: [NodeID] {
        switch self {
        case .one(let node): [node]
        case .many(let nodes): nodes
        }
    }

    func first(where predicate: (NodeID) -> Bool) -> NodeID? {
        switch self {
        case .one(let node): predicate(node) ? node : nil
        case .many(let nodes): nodes.first(where: predicate)
        }
    }

    /// Adds `node` (already present: unchanged). In place: the array is released from `self`
    /// before it changes, so a value shared by many nodes is not copied on every insert.
    mutating func insert(_ node: NodeID) {
        switch self {
        case .one(let existing):
            if existing != node { self = .many(existing < node ? [existing, node] : [node, existing]) }
        case .many(var nodes):
            self = .one(node)
            nodes.insertSorted(node)
            self = .many(nodes)
        }
    }

    /// Removes `node`; returns false when none are left (the caller drops the entry).
    mutating func remove(_ node: NodeID) -> Bool {
        switch self {
        case .one(let existing):
            return existing != node
        case .many(var nodes):
            self = .one(node)
            nodes.removeSorted(node)
            self = nodes.count == 1 ? .one(nodes[0]) : .many(nodes)
            return true
        }
    }
}

/// One equality index: normalised value → the nodes holding it, ascending. A unique index keeps
/// its integer values in an `IntegerColumn` (one memory access each way) and everything else
/// in `entries`.
struct PropertyIndex: Sendable, Equatable {
    let descriptor: IndexDescriptor
    private(set) var entries: [IndexKey: IndexPostings] = [:]
    private(set) var integers: IntegerColumn?

    init(_ descriptor: IndexDescriptor) {
        self.descriptor = descriptor
        if descriptor.isUnique { integers = IntegerColumn() }
    }

    /// Room for `count` distinct values without rehashing (bulk builds).
    mutating func reserveCapacity(_ count: Int) {
        if integers != nil { integers!.reserveCapacity(count) } else { entries.reserveCapacity(count) }
    }

    /// The integer `node` holds for this index's key, when the column has it (nil means "read
    /// the property", not "no value").
    @inline(__always) func integer(of node: NodeID) -> Int64? { integers?.value(of: node) }

    func nodes(equalTo value: Value) -> [NodeID] {
        guard let key = IndexKey(value) else { return [] }
        var result: [NodeID] = []
        if case .integer(let i) = key, let integers {
            integers.forEachNode(holding: i) { result.append($0) }
        }
        if !entries.isEmpty, let postings = entries[key] {
            if result.isEmpty { return postings.nodes }
            result.append(contentsOf: postings.nodes)
        }
        if result.count > 1 { result.sort() }
        return result
    }

    /// The lowest node holding `value`, without building a list (a unique index has one).
    func firstNode(equalTo value: Value) -> NodeID? {
        guard let key = IndexKey(value) else { return nil }
        var first: NodeID?
        if case .integer(let i) = key {
            first = integers?.uniqueNode(holding: i)  // the index is unique: one holder at most
        }
        if !entries.isEmpty, let postings = entries[key], let n = postings.nodes.first, first == nil || n < first! { first = n }
        return first
    }

    /// A node other than `node` that already holds `value`, if any.
    func holder(of value: Value, other node: NodeID) -> NodeID? {
        guard let key = IndexKey(value) else { return nil }
        var found: NodeID?
        if case .integer(let i) = key, let integers {
            integers.forEachNode(holding: i) { n in if n != node && found == nil { found = n } }
            if found != nil { return found }
        }
        guard let postings = entries[key] else { return nil }
        return postings.first { $0 != node }
    }

    /// - Complexity: O(1) expected; a value shared by many nodes adds the shift of their array.
    mutating func insert(_ node: NodeID, value: Value) {
        if integers != nil, case .integer(let i) = value, i != IntegerColumn.absent {
            integers!.insert(node, i)
            return
        }
        guard let key = IndexKey(value) else { return }
        if entries[key] == nil {
            entries[key] = .one(node)
        } else {
            entries[key]!.insert(node)
        }
    }

    mutating func remove(_ node: NodeID, value: Value) {
        if integers != nil, case .integer(let i) = value, i != IntegerColumn.absent {
            if integers!.value(of: node) == i { integers!.remove(node) }
            return
        }
        guard let key = IndexKey(value), entries[key] != nil else { return }
        if !entries[key]!.remove(node) { entries[key] = nil }
    }
}

extension Array where Element == NodeID {
    mutating func insertSorted(_ node: NodeID) {
        if let last, last < node { append(node); return }
        var low = 0, high = count
        while low < high {
            let mid = (low + high) >> 1
            if self[mid] < node { low = mid + 1 } else { high = mid }
        }
        if low < count, self[low] == node { return }
        insert(node, at: low)
    }

    mutating func removeSorted(_ node: NodeID) {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) >> 1
            if self[mid] < node { low = mid + 1 } else { high = mid }
        }
        if low < count, self[low] == node { remove(at: low) }
    }
}
