// RuntimeValue+Equivalence.swift — openCypher's equivalence, the equality DISTINCT, grouping
// keys and count(DISTINCT …) use: like `=` but total (null ≡ null, NaN ≡ NaN) and numeric
// across types (`1 ≡ 1.0`), so hashing maps a whole float to the same bucket as its integer.

extension RuntimeValue {
    public static func == (a: RuntimeValue, b: RuntimeValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)):
            return Double(x) == y && y.exactInteger == x
        case (.string(let x), .string(let y)): return x == y
        case (.list(let x), .list(let y)): return x == y
        case (.map(let xk, let xv), .map(let yk, let yv)):
            guard xk.count == yk.count else { return false }
            for (k, v) in zip(xk, xv) {
                guard let i = yk.firstIndex(of: k), yv[i] == v else { return false }
            }
            return true
        case (.node(let x), .node(let y)): return x == y
        case (.relationship(let x), .relationship(let y)): return x == y
        case (.path(let xn, let xr), .path(let yn, let yr)): return xn == yn && xr == yr
        case (.temporal(let x), .temporal(let y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .integer(let i): hasher.combine(2); hasher.combine(i)
        case .double(let d):
            if let i = d.exactInteger { hasher.combine(2); hasher.combine(i) }
            else if d.isNaN { hasher.combine(3) }
            else { hasher.combine(4); hasher.combine(d) }
        case .string(let s): hasher.combine(5); hasher.combine(s)
        case .list(let l): hasher.combine(6); hasher.combine(l)
        case .map(let keys, let values):
            // Order-independent: maps with the same entries in another order are equivalent.
            hasher.combine(7)
            var combined = 0
            for (k, v) in zip(keys, values) {
                var h = Hasher(); h.combine(k); h.combine(v)
                combined ^= h.finalize()
            }
            hasher.combine(combined)
        case .node(let n): hasher.combine(8); hasher.combine(n)
        case .relationship(let r): hasher.combine(9); hasher.combine(r)
        case .path(let n, let r): hasher.combine(10); hasher.combine(n); hasher.combine(r)
        case .temporal(let t): hasher.combine(11); hasher.combine(t)
        }
    }
}

extension Double {
    /// The integer this float equals exactly, if any (`2.0` → 2; `2.5`, NaN, 1e300 → nil).
    var exactInteger: Int64? {
        guard isFinite, rounded(.towardZero) == self, abs(self) < 9.2e18 else { return nil }
        return Int64(self)
    }
}
