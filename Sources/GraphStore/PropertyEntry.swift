// PropertyEntry.swift — one (key, value) pair of an entity's property set.
// An entity's properties are a small array of entries in insertion order; no dictionaries.

/// A property key with its (non-null) value, as stored on a node or relationship and logged.
public struct PropertyEntry: Sendable, Hashable {
    // Value first: its 17 bytes leave room for the 4-byte key before the 8-byte stride boundary
    // (24 bytes an entry; key first, the value is pushed to offset 8 and the stride is 32).
    public var value: Value
    public var key: PropertyKeyID

    public init(key: PropertyKeyID, value: Value) {
        self.key = key
        self.value = value
    }
}

extension Array where Element == PropertyEntry {
    /// - Complexity: O(n); property sets are small.
    func position(of key: PropertyKeyID) -> Int? {
        firstIndex { $0.key == key }
    }

    func value(of key: PropertyKeyID) -> Value {
        position(of: key).map { self[$0].value } ?? .null
    }

    var tuples: [(key: PropertyKeyID, value: Value)] {
        map { (key: $0.key, value: $0.value) }
    }

    /// Builds an entry list from caller tuples: nulls dropped, a later duplicate key wins in place.
    init(normalizing tuples: [(key: PropertyKeyID, value: Value)]) {
        self.init()
        reserveCapacity(tuples.count)
        for (key, value) in tuples {
            if let i = position(of: key) {
                if case .null = value { remove(at: i) } else { self[i].value = value }
            } else if value != .null {
                append(PropertyEntry(key: key, value: value))
            }
        }
    }
}
