// ListMembership.swift — `x IN list` asked again and again of one long list (`WITH u,
// collect(f) AS fs UNWIND fs AS f MATCH (f)-[:FRIEND]-(c) WHERE NOT c IN fs`, FalkorDB's own
// phrasing of connections): the second time the same list is asked about, its integers and
// nodes go into hash sets, and every later test is a lookup instead of a scan of the list.

/// The last long list an `IN` was evaluated against, and once it comes back, its index.
///
/// A list is "the same" when it is the same buffer: the cache holds the list, so its buffer can
/// be neither freed (and its address reused by another list) nor changed in place (an array
/// shared with the cache is copied before it is written). The index answers only for what it
/// answers exactly by openCypher's rules: an integer or a node asked of a list holding nothing
/// but integers, nodes and nulls (a float in the list compares with integers through rounding,
/// so such a list is scanned). Everything else is left to the scan (nil).
struct ListMembership {
    /// Shorter lists are scanned: comparing a few values costs less than hashing one.
    static let minimumCount = 32

    private var list: [RuntimeValue] = []
    private var index: Index?
    /// Whether `index` was built for `list` (it stays nil for a list of other kinds).
    private var indexed = false

    private struct Index {
        var integers = IntegerKeySet()
        var nodes = IntegerKeySet()
        var holdsNull = false

        /// nil when `list` holds a value other than an integer, a node or null.
        init?(_ list: [RuntimeValue]) {
            for element in list {
                switch element {
                case .integer(let i): _ = integers.insert(UInt64(bitPattern: i))
                case .node(let n): _ = nodes.insert(UInt64(n.rawValue))
                case .null: holdsNull = true
                default: return nil
                }
            }
        }
    }

    /// `value IN list` (true, false or null), or nil when the caller must scan `list` itself.
    mutating func contains(_ value: RuntimeValue, in list: [RuntimeValue]) -> RuntimeValue? {
        guard list.count >= Self.minimumCount else { return nil }
        guard isRemembered(list) else {
            self.list = list
            index = nil
            indexed = false
            return nil
        }
        if !indexed {
            index = Index(list)
            indexed = true
        }
        guard let index else { return nil }
        let found: Bool
        switch value {
        case .integer(let i): found = index.integers.contains(UInt64(bitPattern: i))
        case .node(let n): found = index.nodes.contains(UInt64(n.rawValue))
        default: return nil
        }
        return found ? .bool(true) : (index.holdsNull ? .null : .bool(false))
    }

    private func isRemembered(_ other: [RuntimeValue]) -> Bool {
        list.count == other.count && list.withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { mine.baseAddress == $0.baseAddress }
        }
    }
}
