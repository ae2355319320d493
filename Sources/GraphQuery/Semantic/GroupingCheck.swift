// GroupingCheck.swift — openCypher's rule for aggregating projections: outside aggregate calls,
// an item may only use values the grouping keys fix (`RETURN n, n.age + count(*)` is fine,
// `RETURN n.a, n.b + count(*)` is ambiguous). Part of the semantic pass.

extension Expression {
    /// True when `self` can be computed per group: every value it reads outside an aggregate is
    /// one of `keys` (or derived from one).
    func isDetermined(by keys: [Expression]) -> Bool {
        // Only a key that is a variable or a property of one may be reused beside an aggregate
        // (openCypher): `RETURN a + b, a + b + count(*)` is ambiguous, `RETURN n.x, n.x + count(*)` is not.
        if keys.contains(where: { $0.isSameExpression(as: self) }), isVariableOrProperty { return true }
        switch self {
        case .literal, .parameter, .aggregateResult: return true
        case .slot, .variable: return false
        case .property(let base, _), .unary(_, let base), .isNull(let base, _), .hasLabels(let base, _):
            return base.isDetermined(by: keys)
        case .binary(_, let l, let r), .subscriptIndex(let l, let r):
            return l.isDetermined(by: keys) && r.isDetermined(by: keys)
        case .list(let elements): return elements.allSatisfy { $0.isDetermined(by: keys) }
        case .map(let entries): return entries.allSatisfy { $0.value.isDetermined(by: keys) }
        case .function(let call): return call.arguments.allSatisfy { $0.isDetermined(by: keys) }
        case .patternPredicate, .patternComprehension, .subquery: return false
        case .listComprehension, .quantifier, .reduce:
            let locals = localSlots.map { Expression.slot($0) }
            return children.allSatisfy { $0.isDetermined(by: keys + locals) }
        case .slice, .caseExpression, .mapProjection:
            return children.allSatisfy { $0.isDetermined(by: keys) }
        }
    }

    /// A variable, or a property of one: what a grouping key may be reused as.
    var isVariableOrProperty: Bool {
        switch self {
        case .slot, .variable: return true
        case .property(let base, _): return base.isVariableOrProperty
        default: return false
        }
    }

    /// A call of an aggregating function (`count(x)`, `avg(n.age)`), before binding.
    var isAggregateCall: Bool {
        if case .function(let call) = self { return FunctionCatalog.lookup(call.name)?.kind == .aggregate }
        return false
    }

    /// Structural equality, ignoring source locations.
    func isSameExpression(as other: Expression) -> Bool {
        switch (self, other) {
        case (.literal(let a), .literal(let b)): return a == b
        case (.parameter(let a), .parameter(let b)): return a == b
        case (.variable(let a, _), .variable(let b, _)): return a == b
        case (.slot(let a), .slot(let b)): return a == b
        case (.aggregateResult(let a), .aggregateResult(let b)): return a == b
        case (.property(let a, let k), .property(let b, let l)): return k == l && a.isSameExpression(as: b)
        case (.unary(let o, let a), .unary(let p, let b)): return o == p && a.isSameExpression(as: b)
        case (.isNull(let a, let m), .isNull(let b, let n)): return m == n && a.isSameExpression(as: b)
        case (.hasLabels(let a, let x), .hasLabels(let b, let y)): return x == y && a.isSameExpression(as: b)
        case (.binary(let o, let a1, let a2), .binary(let p, let b1, let b2)):
            return o == p && a1.isSameExpression(as: b1) && a2.isSameExpression(as: b2)
        case (.subscriptIndex(let a1, let a2), .subscriptIndex(let b1, let b2)):
            return a1.isSameExpression(as: b1) && a2.isSameExpression(as: b2)
        case (.list(let a), .list(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isSameExpression(as: $1) }
        case (.map(let a), .map(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.isSameExpression(as: $1.value) }
        case (.function(let f), .function(let g)):
            return f.name.lowercased() == g.name.lowercased() && f.isDistinct == g.isDistinct && f.isStar == g.isStar
                && f.arguments.count == g.arguments.count
                && zip(f.arguments, g.arguments).allSatisfy { $0.isSameExpression(as: $1) }
        default: return false
        }
    }
}
