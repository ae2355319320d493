// ExpressionChildren.swift — the direct sub-expressions of an expression, so that whole-tree
// questions (does it contain an aggregate? is it fixed by the grouping keys?) are written once
// for the newer expression forms instead of in every switch.

extension Expression {
    /// Direct sub-expressions (for comprehensions and quantifiers, including the local variable).
    var children: [Expression] {
        switch self {
        case .literal, .parameter, .variable, .aggregateResult, .slot, .patternPredicate, .patternComprehension, .subquery: return []
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
        case .reduce(_, let initial, _, let list, let expression): return [initial, list, expression]
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
        case .reduce(.slot(let a), _, .slot(let s), _, _): return [a, s]
        default: return []
        }
    }
}

extension Expression {
    /// The expression with `transform` applied bottom-up: each sub-expression first, then the
    /// expression made of the results, replaced where `transform` gives a replacement. Pattern
    /// predicates and comprehensions are leaves here (their inner plans are their own).
    func rewritten(_ transform: (Expression) -> Expression?) -> Expression {
        func r(_ e: Expression) -> Expression { e.rewritten(transform) }
        let rebuilt: Expression
        switch self {
        case .literal, .parameter, .variable, .aggregateResult, .slot, .patternPredicate, .patternComprehension, .subquery: rebuilt = self
        case .property(let base, let key): rebuilt = .property(r(base), key)
        case .unary(let op, let base): rebuilt = .unary(op, r(base))
        case .isNull(let base, let negated): rebuilt = .isNull(r(base), negated: negated)
        case .hasLabels(let base, let labels): rebuilt = .hasLabels(r(base), labels)
        case .binary(let op, let l, let rhs): rebuilt = .binary(op, r(l), r(rhs))
        case .subscriptIndex(let l, let rhs): rebuilt = .subscriptIndex(r(l), r(rhs))
        case .list(let elements): rebuilt = .list(elements.map(r))
        case .map(let entries): rebuilt = .map(entries.map { (key: $0.key, value: r($0.value)) })
        case .function(var call):
            call.arguments = call.arguments.map(r)
            rebuilt = .function(call)
        case .slice(let base, let from, let to): rebuilt = .slice(r(base), from.map(r), to.map(r))
        case .caseExpression(let subject, let branches, let otherwise):
            rebuilt = .caseExpression(subject: subject.map(r), branches: branches.map { (when: r($0.when), then: r($0.then)) },
                                      otherwise: otherwise.map(r))
        case .listComprehension(let variable, let list, let predicate, let projection):
            rebuilt = .listComprehension(variable: variable, list: r(list), predicate: predicate.map(r), projection: projection.map(r))
        case .reduce(let accumulator, let initial, let variable, let list, let expression):
            rebuilt = .reduce(accumulator: accumulator, initial: r(initial), variable: variable, list: r(list), expression: r(expression))
        case .quantifier(let q, let variable, let list, let predicate):
            rebuilt = .quantifier(q, variable: variable, list: r(list), predicate: r(predicate))
        case .mapProjection(let base, let items):
            rebuilt = .mapProjection(r(base), items.map { item in
                switch item {
                case .literal(let key, let e): .literal(key, r(e))
                case .variable(let name, let e): .variable(name, r(e))
                case .property, .allProperties: item
                }
            })
        }
        return transform(rebuilt) ?? rebuilt
    }
}
