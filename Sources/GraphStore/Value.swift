// Value.swift — the typed property value stored on nodes and relationships.
// The storable subset of Cypher's values: null, booleans, 64-bit integers, doubles,
// strings, temporal values (Temporal/), and lists and maps of these. Graph entities are not storable values; the
// query layer wraps them in its own value type.

/// A property value. `null` is never stored: setting a property to null removes it.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case list([Value])
    /// Keys in insertion order; keys are unique.
    case map(ValueMap)
    /// A date, time, date-time or duration (Temporal/TemporalValue.swift). Boxed: a zoned
    /// date-time is five words, and unboxed it would double every property entry.
    indirect case temporal(TemporalValue)
}

/// An insertion-ordered map with unique string keys, as written in a Cypher map literal.
/// Equality and hashing ignore order, as openCypher's map equality does.
public struct ValueMap: Sendable, Hashable, Sequence {
    public private(set) var keys: [String]
    public private(set) var values: [Value]

    public init() { keys = []; values = [] }

    /// Builds a map from pairs; a later duplicate key replaces the earlier value in place.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// - Complexity: O(n); maps in queries and properties are small.
    public subscript(key: String) -> Value? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let i = keys.firstIndex(of: key) {
                if let newValue { values[i] = newValue } else { keys.remove(at: i); values.remove(at: i) }
            } else if let newValue {
                keys.append(key); values.append(newValue)
            }
        }
    }

    public func makeIterator() -> Zip2Sequence<[String], [Value]>.Iterator { zip(keys, values).makeIterator() }

    public static func == (a: ValueMap, b: ValueMap) -> Bool {
        guard a.count == b.count else { return false }
        for (k, v) in a { guard let w = b[k], w == v else { return false } }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-entry hashes commutatively.
        var acc = 0
        for (k, v) in self {
            var h = Hasher(); h.combine(k); h.combine(v); acc ^= h.finalize()
        }
        hasher.combine(count); hasher.combine(acc)
    }
}
