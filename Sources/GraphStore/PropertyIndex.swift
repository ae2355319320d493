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

/// One equality index: normalised value → the nodes holding it, ascending.
struct PropertyIndex: Sendable, Equatable {
    let descriptor: IndexDescriptor
    private(set) var entries: [IndexKey: [NodeID]] = [:]

    init(_ descriptor: IndexDescriptor) { self.descriptor = descriptor }

    /// Room for `count` distinct values without rehashing (bulk builds).
    mutating func reserveCapacity(_ count: Int) { entries.reserveCapacity(count) }

    func nodes(equalTo value: Value) -> [NodeID] {
        guard let key = IndexKey(value) else { return [] }
        return entries[key] ?? []
    }

    /// A node other than `node` that already holds `value`, if any.
    func holder(of value: Value, other node: NodeID) -> NodeID? {
        guard let key = IndexKey(value), let nodes = entries[key] else { return nil }
        return nodes.first { $0 != node }
    }

    /// - Complexity: O(log n) search plus the shift of the node array for that value.
    mutating func insert(_ node: NodeID, value: Value) {
        guard let key = IndexKey(value) else { return }
        entries[key, default: []].insertSorted(node)
    }

    mutating func remove(_ node: NodeID, value: Value) {
        guard let key = IndexKey(value) else { return }
        entries[key]?.removeSorted(node)
        if entries[key]?.isEmpty == true { entries[key] = nil }
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
