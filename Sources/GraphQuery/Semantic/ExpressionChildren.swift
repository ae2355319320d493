// ExpressionChildren.swift — the direct sub-expressions of an expression, so that whole-tree
// questions (does it contain an aggregate? is it fixed by the grouping keys?) are written once
// for the newer expression forms instead of in every switch.

extension Expression {
    /// Direct sub-expressions (for comprehensions and quantifiers, including the local variable).
    var children: [Expression] {
        switch self {
        case .literal, .parameter, .variable, .aggregateResult, .slot, .patternPredicate, .patternComprehension: return []
        case .property(let base, _), .unary(_, let base), .isNull(let base, _), .hasLabels(let base, _): return [base]
        case .binary(_, let l, let r), .subscriptIndex(let l, let r): return [l, r]
        case .list(let elements): return elements
        case .map(let entries): return entries.map(\.value)
        case .function(let call): return call.arguments
        case .slice(let base, let from, let to): return [base] + [from, to].compactMap { $0 }
        case .caseExpression(let subject, let branches, let otherwise):
            return [subject, otherwise].compactMap { $0 } + branches.flatMap { [$0.when, $0.then] }
        case .listComprehension(_, let list, let predicate, let projection):
            return [list] + [predicate, projection].compactMap { $0 }
        case .quantifier(_, _, let list, let predicate): return [list, predicate]
        case .mapProjection(let base, let items):
            return [base] + items.compactMap { item -> Expression? in
                switch item {
                case .literal(_, let e), .variable(_, let e): return e
                case .property, .allProperties: return nil
                }
            }
        }
    }

    /// Slots a comprehension or quantifier binds locally (they are not input values).
    var localSlots: Set<Int> {
        switch self {
        case .listComprehension(.slot(let s), _, _, _), .quantifier(_, .slot(let s), _, _): return [s]
        default: return []
        }
    }
}
