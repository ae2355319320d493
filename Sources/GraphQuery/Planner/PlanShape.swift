// PlanShape.swift — a stretch of bound clauses written once in Cypher and recognised in any query
// whose canonical plan has the same operators: the rules of SocialPipelines match a query's
// normalised clauses against a shape's, never its text. Both sides go through the Normalizer, so
// a property map or a WHERE equality, one MATCH or two, a pattern written from either end all
// meet here in one form; the unifier then allows what the plan does not fix: the names (slots)
// of variables, the order of a WHERE's conjuncts and of a projection's items, either operand
// order of `=`, `<>`, AND and OR, either end of a pattern predicate's adjacency check,
// `exists(pattern)` or the bare pattern, and a run-constant value (a parameter or a literal)
// wherever the shape has a parameter.

/// Bound clauses to recognise, and the parameters that stand for any run-constant value.
struct PlanShape: Sendable {
    /// The shape's clauses, normalised, with their row widths and their slots' names.
    let clauses: [BoundClause]
    let widths: [Int]
    let slotNames: [[Int: String]]
    /// The shape's parameters: each matches a parameter or a literal of the query (the same one
    /// wherever it appears).
    let parameters: Set<String>
    /// The shape's variables after its last clause: the slot of each name.
    let outputs: [String: Int]

    /// The shape of `text` (a constant of graphd's: it parses and binds, or the shape is empty
    /// and matches nothing).
    /// A text that ends in WITH or CALL (no query may) is bound with a `RETURN *` after it,
    /// which the shape then leaves out.
    init(_ text: String) {
        var closed = false
        var bound = (try? Parser.parse(text)).flatMap { try? Binder.bind($0) }
        if bound == nil {
            bound = (try? Parser.parse(text + "\nRETURN *")).flatMap { try? Binder.bind($0) }
            closed = true
        }
        guard let bound else {
            clauses = []; widths = []; slotNames = []; parameters = []; outputs = [:]
            return
        }
        var normalised = Normalizer.normalize(bound)
        if closed {
            normalised.clauses.removeLast()
            if normalised.slotNames.count > normalised.clauses.count { normalised.slotNames.removeLast() }
        }
        clauses = normalised.clauses.map(\.clause)
        widths = normalised.clauses.map(\.width)
        slotNames = normalised.slotNames
        parameters = bound.parameterNames
        outputs = Dictionary((normalised.slotNames.last ?? [:]).map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
    }

    /// How a query's clauses matched the shape: the query slot of each shape slot in the scope
    /// after the last matched clause, and the query's value of each shape parameter.
    struct Match {
        var slots: [Int: Int] = [:]
        var taken: Set<Int> = []
        var parameters: [String: Expression] = [:]

        /// Binds shape slot `s` to query slot `q`: true when they were already bound to each
        /// other, or both were free.
        mutating func bind(_ s: Int, _ q: Int) -> Bool {
            if let bound = slots[s] { return bound == q }
            guard !taken.contains(q) else { return false }
            slots[s] = q
            taken.insert(q)
            return true
        }
    }

    /// The match of the shape against the first clauses of `query`, or nil.
    ///
    /// When the shape ends in a projection without a WHERE, the query's may have one: it is
    /// returned as `trailingPredicate`, over the slots after the projection.
    func match(_ query: [BoundClause]) -> (match: Match, trailingPredicate: Expression?)? {
        guard !clauses.isEmpty, query.count >= clauses.count else { return nil }
        var unifier = PlanUnifier(parameters: parameters)
        var trailing: Expression?
        for (k, (s, q)) in zip(clauses, query).enumerated() {
            if k == clauses.count - 1, case .projection(let a) = s, a.predicate == nil, case .projection(var b) = q, b.predicate != nil {
                trailing = b.predicate
                b.predicate = nil
                guard unifier.clause(s, .projection(b)) else { return nil }
                continue
            }
            guard unifier.clause(s, q) else { return nil }
        }
        return (unifier.match, trailing)
    }
}

/// The structural comparison behind PlanShape (see the file comment). `match` grows as it goes;
/// a failed comparison may leave bindings behind, so every alternative starts from a copy.
struct PlanUnifier {
    let parameters: Set<String>
    var match = PlanShape.Match()

    init(parameters: Set<String>, match: PlanShape.Match = PlanShape.Match()) {
        self.parameters = parameters
        self.match = match
    }

    // MARK: clauses

    mutating func clause(_ s: BoundClause, _ q: BoundClause) -> Bool {
        switch (s, q) {
        case (.match(let a), .match(let b)): return self.match(a, b)
        case (.unwind(let l1, let s1), .unwind(let l2, let s2)): return expression(l1, l2) && match.bind(s1, s2)
        case (.projection(let a), .projection(let b)): return projection(a, b)
        default: return false
        }
    }

    mutating func match(_ a: BoundMatch, _ b: BoundMatch) -> Bool {
        guard a.isOptional == b.isOptional, a.patterns.count == b.patterns.count else { return false }
        for (p, q) in zip(a.patterns, b.patterns) {
            guard (p.pathSlot == nil) == (q.pathSlot == nil), p.shortest == q.shortest, p.nodes.count == q.nodes.count,
                  p.relationships.count == q.relationships.count else { return false }
            if let s = p.pathSlot, let t = q.pathSlot, !match.bind(s, t) { return false }
            for (n, m) in zip(p.nodes, q.nodes) {
                guard match.bind(n.slot, m.slot), Set(n.labels) == Set(m.labels), properties(n.properties, m.properties) else { return false }
            }
            for (r, t) in zip(p.relationships, q.relationships) {
                guard match.bind(r.slot, t.slot), Set(r.types) == Set(t.types), r.direction == t.direction, r.length == t.length,
                      properties(r.properties, t.properties) else { return false }
            }
        }
        // Relationship uniqueness: two relationships that could be the same one (their types
        // overlap) must share a uniqueness group on both sides or on neither; between types
        // that cannot meet, the grouping says nothing.
        let relationships = a.patterns.flatMap(\.relationships)
        for (i, r1) in relationships.enumerated() {
            for r2 in relationships[(i + 1)...] {
                guard r1.types.isEmpty || r2.types.isEmpty || !Set(r1.types).isDisjoint(with: r2.types) else { continue }
                guard let t1 = match.slots[r1.slot], let t2 = match.slots[r2.slot] else { return false }
                let shared = a.group(of: r1.slot) == a.group(of: r2.slot)
                guard shared == (b.group(of: t1) == b.group(of: t2)) else { return false }
            }
        }
        return conjunction(a.predicate, b.predicate)
    }

    mutating func properties(_ a: [(key: String, value: Expression)], _ b: [(key: String, value: Expression)]) -> Bool {
        guard a.count == b.count else { return false }
        for entry in a {
            guard let other = b.first(where: { $0.key == entry.key }), expression(entry.value, other.value) else { return false }
        }
        return true
    }

    /// A projection: the same items in any order (their names free), the same aggregates, then
    /// its WHERE in the output scope. The shape's projections sort, skip and limit nothing.
    mutating func projection(_ a: BoundProjection, _ b: BoundProjection) -> Bool {
        guard a.isDistinct == b.isDistinct, a.items.count == b.items.count, a.aggregates.count == b.aggregates.count,
              a.orderBy.isEmpty, b.orderBy.isEmpty, a.skip == nil, b.skip == nil, a.limit == nil, b.limit == nil else { return false }
        var aggregates: [Int: Int] = [:]
        guard let pairing = items(a, b, from: 0, used: [], aggregates: &aggregates) else { return false }
        // The output scope: item k of the shape is the paired item of the query.
        var output = PlanShape.Match()
        output.parameters = match.parameters
        for (k, j) in pairing.enumerated() { _ = output.bind(k, j) }
        match = output
        return conjunction(a.predicate, b.predicate)
    }

    /// The query item each shape item from `k` on pairs with (none used twice), or nil;
    /// `aggregates` pairs the aggregates the items read.
    mutating func items(_ a: BoundProjection, _ b: BoundProjection, from k: Int, used: Set<Int>,
                        aggregates: inout [Int: Int]) -> [Int]? {
        guard k < a.items.count else { return [] }
        for j in b.items.indices where !used.contains(j) {
            var trial = self
            var trialAggregates = aggregates
            guard trial.expression(a.items[k].expression, b.items[j].expression, projections: (a, b), aggregates: &trialAggregates),
                  let rest = trial.items(a, b, from: k + 1, used: used.union([j]), aggregates: &trialAggregates) else { continue }
            self = trial
            aggregates = trialAggregates
            return [j] + rest
        }
        return nil
    }

    // MARK: expressions

    /// `a AND b AND …` on both sides: the same conjuncts in any order.
    mutating func conjunction(_ a: Expression?, _ b: Expression?) -> Bool {
        let left = SocialPlanner.conjuncts(of: a), right = SocialPlanner.conjuncts(of: b)
        guard left.count == right.count else { return false }
        return conjuncts(left, right, used: [])
    }

    mutating func conjuncts(_ left: [Expression], _ right: [Expression], used: Set<Int>) -> Bool {
        guard let first = left.first else { return true }
        for j in right.indices where !used.contains(j) {
            var trial = self
            guard trial.expression(first, right[j]), trial.conjuncts(Array(left.dropFirst()), right, used: used.union([j])) else { continue }
            self = trial
            return true
        }
        return false
    }

    mutating func expression(_ a: Expression, _ b: Expression) -> Bool {
        var none: [Int: Int] = [:]
        return expression(a, b, projections: nil, aggregates: &none)
    }

    /// Whether shape expression `a` means query expression `b` under the bindings (extended).
    /// `projections`: the projections whose aggregates `.aggregateResult` reads, paired in
    /// `aggregates`.
    mutating func expression(_ a: Expression, _ b: Expression, projections: (BoundProjection, BoundProjection)?,
                             aggregates: inout [Int: Int]) -> Bool {
        func same(_ x: Expression, _ y: Expression) -> Bool { expression(x, y, projections: projections, aggregates: &aggregates) }
        func either(_ x1: Expression, _ y1: Expression, _ x2: Expression, _ y2: Expression) -> Bool {
            var trial = self
            var trialAggregates = aggregates
            if trial.expression(x1, y1, projections: projections, aggregates: &trialAggregates),
               trial.expression(x2, y2, projections: projections, aggregates: &trialAggregates) {
                self = trial
                aggregates = trialAggregates
                return true
            }
            return false
        }
        switch (Self.unwrapped(a), Self.unwrapped(b)) {
        case (.slot(let s), .slot(let t)): return match.bind(s, t)
        case (.parameter(let name), let value) where parameters.contains(name):
            switch value {
            case .parameter, .literal: break
            default: return false
            }
            if let seen = match.parameters[name] { return Self.sameConstant(seen, value) }
            match.parameters[name] = value
            return true
        case (.parameter(let x), .parameter(let y)): return x == y
        case (.literal(let x), .literal(let y)): return x == y
        case (.property(let x, let k1), .property(let y, let k2)): return k1 == k2 && same(x, y)
        case (.unary(let o1, let x), .unary(let o2, let y)): return o1 == o2 && same(x, y)
        case (.binary(let o1, let x1, let x2), .binary(let o2, let y1, let y2)):
            guard o1 == o2 else { return false }
            if either(x1, y1, x2, y2) { return true }
            switch o1 {
            case .and, .or, .equal, .notEqual: return either(x1, y2, x2, y1)
            default: return false
            }
        case (.isNull(let x, let n1), .isNull(let y, let n2)): return n1 == n2 && same(x, y)
        case (.hasLabels(let x, let l1), .hasLabels(let y, let l2)): return Set(l1) == Set(l2) && same(x, y)
        case (.list(let xs), .list(let ys)):
            return xs.count == ys.count && zip(xs, ys).allSatisfy { same($0, $1) }
        case (.map(let xs), .map(let ys)):
            return xs.count == ys.count && zip(xs, ys).allSatisfy { $0.key == $1.key && same($0.value, $1.value) }
        case (.subscriptIndex(let x1, let x2), .subscriptIndex(let y1, let y2)): return same(x1, y1) && same(x2, y2)
        case (.caseExpression(let s1, let b1, let o1), .caseExpression(let s2, let b2, let o2)):
            guard (s1 == nil) == (s2 == nil), (o1 == nil) == (o2 == nil), b1.count == b2.count else { return false }
            if let s1, let s2, !same(s1, s2) { return false }
            for (x, y) in zip(b1, b2) where !(same(x.when, y.when) && same(x.then, y.then)) { return false }
            if let o1, let o2 { return same(o1, o2) }
            return true
        case (.listComprehension(let v1, let l1, let p1, let r1), .listComprehension(let v2, let l2, let p2, let r2)):
            guard (p1 == nil) == (p2 == nil), (r1 == nil) == (r2 == nil), same(l1, l2), same(v1, v2) else { return false }
            if let p1, let p2, !same(p1, p2) { return false }
            if let r1, let r2 { return same(r1, r2) }
            return true
        case (.quantifier(let q1, let v1, let l1, let p1), .quantifier(let q2, let v2, let l2, let p2)):
            return q1 == q2 && same(l1, l2) && same(v1, v2) && same(p1, p2)
        case (.function(let f), .function(let g)):
            guard f.name.lowercased() == g.name.lowercased(), f.isDistinct == g.isDistinct, f.isStar == g.isStar,
                  f.arguments.count == g.arguments.count else { return false }
            return zip(f.arguments, g.arguments).allSatisfy { same($0, $1) }
        case (.patternPredicate(let p), .patternPredicate(let q)):
            return p.isSubquery == q.isSubquery && p.projection == nil && q.projection == nil && pattern(p, q)
        case (.aggregateResult(let x), .aggregateResult(let y)):
            guard let (s, t) = projections, x < s.aggregates.count, y < t.aggregates.count else { return false }
            if let paired = aggregates[x] { return paired == y }
            guard !aggregates.values.contains(y) else { return false }
            let f = s.aggregates[x], g = t.aggregates[y]
            guard f.function == g.function, f.isDistinct == g.isDistinct, (f.argument == nil) == (g.argument == nil),
                  f.percentile == nil, g.percentile == nil else { return false }
            if let x = f.argument, let y = g.argument, !same(x, y) { return false }
            aggregates[x] = y
            return true
        default: return false
        }
    }

    /// `exists(pattern)` is the pattern itself.
    static func unwrapped(_ e: Expression) -> Expression {
        if case .function(let call) = e, call.name.lowercased() == "exists", call.arguments.count == 1,
           case .patternPredicate = call.arguments[0] { return call.arguments[0] }
        return e
    }

    static func sameConstant(_ a: Expression, _ b: Expression) -> Bool {
        switch (a, b) {
        case (.parameter(let x), .parameter(let y)): x == y
        case (.literal(let x), .literal(let y)): x == y
        default: false
        }
    }

    /// Two pattern predicates: the same checks in their plans, ignoring the steps that test
    /// nothing (a bound node's argument, a filter without labels or properties); an adjacency
    /// check may run from either end.
    mutating func pattern(_ p: PatternPredicate, _ q: PatternPredicate) -> Bool {
        func checks(_ plan: [PatternOperator]) -> [PatternOperator] {
            plan.filter { op in
                switch op {
                case .argument: false
                case .nodeFilter(_, let labels, let properties): !(labels.isEmpty && properties.isEmpty)
                default: true
                }
            }
        }
        let left = checks(p.plan), right = checks(q.plan)
        guard left.count == right.count else { return false }
        for (x, y) in zip(left, right) where !patternOperator(x, y) { return false }
        switch (p.predicate, q.predicate) {
        case (nil, nil): return true
        case (let x?, let y?): return expression(x, y)
        default: return false
        }
    }

    mutating func patternOperator(_ a: PatternOperator, _ b: PatternOperator) -> Bool {
        switch (a, b) {
        case (.adjacencyCheck(let f1, let t1, let ty1, let d1), .adjacencyCheck(let f2, let t2, let ty2, let d2)):
            guard Set(ty1) == Set(ty2) else { return false }
            var trial = self
            if d1 == d2, trial.match.bind(f1, f2), trial.match.bind(t1, t2) { self = trial; return true }
            return d1 == Self.reversed(d2) && match.bind(f1, t2) && match.bind(t1, f2)
        case (.expand(let f1, let r1, let t1, let ty1, let d1, let tb1, let rb1, let e1, _),
              .expand(let f2, let r2, let t2, let ty2, let d2, let tb2, let rb2, let e2, _)):
            return Set(ty1) == Set(ty2) && d1 == d2 && tb1 == tb2 && rb1 == rb2 && e1.count == e2.count
                && match.bind(f1, f2) && match.bind(r1, r2) && match.bind(t1, t2)
                && zip(e1, e2).allSatisfy { match.bind($0, $1) }
        case (.nodeFilter(let s1, let l1, let p1), .nodeFilter(let s2, let l2, let p2)):
            return Set(l1) == Set(l2) && match.bind(s1, s2) && properties(p1, p2)
        case (.filter(let x), .filter(let y)): return expression(x, y)
        default: return false
        }
    }

    static func reversed(_ d: PatternDirection) -> PatternDirection {
        switch d {
        case .leftToRight: .rightToLeft
        case .rightToLeft: .leftToRight
        case .either: .either
        }
    }
}
