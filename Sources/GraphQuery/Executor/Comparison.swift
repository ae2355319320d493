// Comparison.swift — openCypher's three comparison notions: equality with null propagation
// (`=`), comparability for `<` and friends (null when types differ), and the total
// orderability ORDER BY uses (mixed types in a fixed order, nulls last ascending).

extension RuntimeValue {
    /// `a = b`: nil stands for null (either side null, or a list holding null decides it).
    static func equals(_ a: RuntimeValue, _ b: RuntimeValue) -> Bool? {
        switch (a, b) {
        case (.null, _), (_, .null): return nil
        case (.integer(let x), .integer(let y)): return x == y
        case (.integer(let x), .double(let y)): return Double(x) == y
        case (.double(let x), .integer(let y)): return x == Double(y)
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.node(let x), .node(let y)): return x == y
        case (.relationship(let x), .relationship(let y)): return x == y
        case (.path(let xn, let xr), .path(let yn, let yr)): return xn == yn && xr == yr
        case (.temporal(let x), .temporal(let y)): return x == y
        case (.list(let x), .list(let y)):
            guard x.count == y.count else { return false }
            return allEqual(zip(x, y))
        case (.map(let xk, let xv), .map(let yk, let yv)):
            guard xk.count == yk.count, Set(xk) == Set(yk) else { return false }
            var pairs: [(RuntimeValue, RuntimeValue)] = []
            for (k, v) in zip(xk, xv) {
                // Same key sets, so the key is present.
                pairs.append((v, yv[yk.firstIndex(of: k)!]))
            }
            return allEqual(pairs)
        default: return false
        }
    }

    private static func allEqual<S: Sequence>(_ pairs: S) -> Bool? where S.Element == (RuntimeValue, RuntimeValue) {
        var sawNull = false
        for (x, y) in pairs {
            switch equals(x, y) {
            case .some(false): return false
            case .none: sawNull = true
            case .some(true): break
            }
        }
        return sawNull ? nil : true
    }

    /// `a < b` and friends: the sign of the comparison, or nil (null) when either side is null,
    /// the types are not comparable, or a NaN is involved.
    static func compare(_ a: RuntimeValue, _ b: RuntimeValue) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer, .double), (.double, .integer), (.double, .double):
            // Both are numbers here.
            let x = a.numeric!, y = b.numeric!
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.temporal(let x), .temporal(let y)): return TemporalOrder.compare(x, y)
        case (.list(let x), .list(let y)):
            for (p, q) in zip(x, y) {
                guard let c = compare(p, q) else { return nil }
                if c != 0 { return c }
            }
            return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
        default: return nil
        }
    }

    var numeric: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// Rank of the type in openCypher's global sort order.
    private var orderRank: Int {
        switch self {
        case .map: return 0
        case .node: return 1
        case .relationship: return 2
        case .list: return 3
        case .path: return 4
        case .temporal: return 5
        case .string: return 6
        case .bool: return 7
        case .integer, .double: return 8
        case .null: return 9
        }
    }

    /// The total order of ORDER BY: maps < nodes < relationships < lists < paths < temporal
    /// values (TemporalOrder.swift) < strings < booleans < numbers (NaN last among them) < null.
    static func order(_ a: RuntimeValue, _ b: RuntimeValue) -> Int {
        let ra = a.orderRank, rb = b.orderRank
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer, _), (.double, _):
            // Same rank: both numbers.
            let x = a.numeric!, y = b.numeric!
            if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? 1 : -1) }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.node(let x), .node(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.temporal(let x), .temporal(let y)): return TemporalOrder.order(x, y)
        case (.relationship(let x), .relationship(let y)): return x.id < y.id ? -1 : (x.id == y.id ? 0 : 1)
        case (.list(let x), .list(let y)):
            for (p, q) in zip(x, y) {
                let c = order(p, q)
                if c != 0 { return c }
            }
            return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
        case (.map(let xk, let xv), .map(let yk, let yv)):
            let x = zip(xk, xv).sorted { $0.0 < $1.0 }, y = zip(yk, yv).sorted { $0.0 < $1.0 }
            for (p, q) in zip(x, y) {
                if p.0 != q.0 { return p.0 < q.0 ? -1 : 1 }
                let c = order(p.1, q.1)
                if c != 0 { return c }
            }
            return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
        default:
            return compare(a, b) ?? 0
        }
    }
}
