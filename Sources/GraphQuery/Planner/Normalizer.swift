// Normalizer.swift — one canonical bound query per meaning, before any rule looks at it.
// Users spell a question many ways: several MATCH clauses or one, comma-separated patterns or
// one chain, a pattern written from either end, `WHERE u.id = 1` or `{id: 1}`, `NOT a = b` or
// `a <> b`. Each rewrite here keeps the rows exactly as they were (order aside where no ORDER
// BY asks for one), and leaves the query in the shape the rules (SocialPlanner) and the
// planner read: consecutive MATCH clauses joined (each keeping its relationships' uniqueness
// group), each chain as long as its patterns allow and starting from its pinned end,
// equalities in property maps, inequalities as `<>`, the size of a one-hop pattern
// comprehension as the expansion count.

/// Rewrites bound queries into their canonical form (see the file comment).
enum Normalizer {
    static func normalize(_ query: BoundQuery) -> BoundQuery {
        var result = query
        // Slots the rewrites add (hidden nodes and relationships) come after every slot the
        // query uses, so they clash with none.
        var nextSlot = query.clauses.map(\.width).max() ?? 0
        result.clauses = []
        result.slotNames = []
        let names = query.slotNames
        for (index, entry) in query.clauses.enumerated() {
            let clause = entry.clause
            // A MATCH right after a MATCH (neither optional) joins it: its patterns run per row of
            // the first anyway, and its relationships keep their own uniqueness group, since
            // openCypher's relationship uniqueness holds within one MATCH clause only.
            if case .match(let next) = clause, !next.isOptional, let last = result.clauses.last,
               case .match(let previous) = last.clause, !previous.isOptional {
                result.clauses[result.clauses.count - 1] = (.match(joined(previous, next)), entry.width)
                if !result.slotNames.isEmpty, index < names.count { result.slotNames[result.slotNames.count - 1] = names[index] }
                continue
            }
            result.clauses.append((clause, entry.width))
            if index < names.count { result.slotNames.append(names[index]) }
        }
        result.clauses = result.clauses.map { entry in
            if case .projection(var projection) = entry.clause {
                // `size([(u)-[:T]-(x) | x])` is u's expansion count (the degree rule's function).
                let degree = { (e: Expression) in e.rewritten(GetDegree.sizeOfExpansion) }
                projection.items = projection.items.map { (name: $0.name, expression: degree($0.expression)) }
                projection.predicate = projection.predicate.map(degree)
                projection.orderBy = projection.orderBy.map { (expression: degree($0.expression), ascending: $0.ascending) }
                return (.projection(projection), entry.width)
            }
            guard case .match(var match) = entry.clause else { return entry }
            // After the join, so that `id(c) <> id(u)` in a later clause knows u is a node.
            let nodes = Set(match.patterns.flatMap { $0.nodes.map(\.slot) })
            match.predicate = match.predicate.map { canonical($0, nodes: nodes) }
            let width = splittingFixedLengths(&match, nextSlot: &nextSlot)
            return (.match(chained(absorbingEqualities(match))), max(entry.width, width))
        }
        result.unions = query.unions.map { ($0.all, normalize($0.query)) }
        return result
    }

    /// Splits each anonymous relationship of a fixed length (`[:T*2]`, `[:T*1..1]`, at most three
    /// hops, without properties) into that many hops through new hidden nodes, in its uniqueness
    /// group: a variable-length relationship's hops are distinct relationships, as the split
    /// ones are within their group. The rules then see the hops the pattern means. Returns the
    /// row width the match then needs (0 when nothing was split).
    static func splittingFixedLengths(_ match: inout BoundMatch, nextSlot: inout Int) -> Int {
        guard !match.isOptional else { return 0 }
        var width = 0
        for p in match.patterns.indices where match.patterns[p].pathSlot == nil {
            var pattern = match.patterns[p]
            var k = 0
            while k < pattern.relationships.count {
                let relationship = pattern.relationships[k]
                guard let length = relationship.length, length.min == length.max, (1...3).contains(length.min),
                      !relationship.isNamed, relationship.properties.isEmpty, !match.boundBefore.contains(relationship.slot) else {
                    k += 1
                    continue
                }
                let group = match.group(of: relationship.slot)
                var hops: [BoundRelationshipPattern] = []
                var middle: [BoundNodePattern] = []
                for hop in 0..<length.min {
                    var single = relationship
                    single.length = nil
                    single.slot = hop == 0 ? relationship.slot : nextSlot
                    if hop > 0 { nextSlot += 1 }
                    match.relationshipGroups[single.slot] = group
                    hops.append(single)
                    if hop < length.min - 1 {
                        middle.append(BoundNodePattern(slot: nextSlot, labels: [], properties: []))
                        nextSlot += 1
                    }
                }
                pattern.relationships.replaceSubrange(k...k, with: hops)
                pattern.nodes.insert(contentsOf: middle, at: k + 1)
                width = nextSlot
                k += hops.count
            }
            match.patterns[p] = pattern
        }
        return width
    }

    /// `second` appended to `first`: its relationships in uniqueness groups of their own.
    static func joined(_ first: BoundMatch, _ second: BoundMatch) -> BoundMatch {
        var match = first
        let offset = (first.relationshipGroups.values.max() ?? 0) + 1
        match.patterns += second.patterns
        for pattern in second.patterns {
            for relationship in pattern.relationships {
                match.relationshipGroups[relationship.slot] = offset + second.group(of: relationship.slot)
            }
        }
        match.predicate = SocialPlanner.conjunction(SocialPlanner.conjuncts(of: first.predicate)
                                                    + SocialPlanner.conjuncts(of: second.predicate))
        match.introduced = first.introduced + second.introduced.filter { !first.introduced.contains($0) }
        return match
    }

    /// The WHERE conjuncts `n.key = value` (either side) on a node new to the match,
    /// with `value` known before it, moved into n's property map: `MATCH (u:User) WHERE u.id =
    /// $id` is `MATCH (u:User {id: $id})`, so the start of a chain can be told by its map.
    static func absorbingEqualities(_ match: BoundMatch) -> BoundMatch {
        let (patterns, conjuncts) = Planner.absorbEqualities(match)
        var result = match
        result.patterns = patterns
        result.predicate = SocialPlanner.conjunction(conjuncts)
        return result
    }

    /// The match with patterns that share an end node joined into one chain, and each chain
    /// turned to start from the node the planner would start from (bound, then sought by a
    /// property, then labelled), when that node is its last. Patterns binding a path are
    /// kept as written (a path's direction is part of its value).
    static func chained(_ match: BoundMatch) -> BoundMatch {
        var patterns = match.patterns
        var joinedAny = true
        while joinedAny {
            joinedAny = false
            search: for i in patterns.indices {
                for j in patterns.indices where j != i {
                    guard patterns[i].pathSlot == nil, patterns[j].pathSlot == nil,
                          let chain = concatenation(patterns[i], patterns[j]) else { continue }
                    patterns[i] = chain
                    patterns.remove(at: j)
                    joinedAny = true
                    break search
                }
            }
        }
        var bound = match.boundBefore
        for p in patterns.indices {
            let pattern = patterns[p]
            if mayReverse(pattern), pattern.nodes.count > 1,
               Planner.startIndex(of: pattern, bound: bound) == pattern.nodes.count - 1,
               Planner.startIndex(of: reversed(pattern), bound: bound) == 0 {
                patterns[p] = reversed(pattern)
            }
            bound.formUnion(patterns[p].nodes.map(\.slot))
        }
        var result = match
        result.patterns = patterns
        return result
    }

    /// `a` and `b` as one chain when an end of one is an end of the other, else nil.
    static func concatenation(_ a: BoundPattern, _ b: BoundPattern) -> BoundPattern? {
        let (aFirst, aLast) = (a.nodes[0].slot, a.nodes[a.nodes.count - 1].slot)
        let (bFirst, bLast) = (b.nodes[0].slot, b.nodes[b.nodes.count - 1].slot)
        if aLast == bFirst { return appended(a, b) }
        if aLast == bLast, mayReverse(b) { return appended(a, reversed(b)) }
        if aFirst == bLast { return appended(b, a) }
        if aFirst == bFirst, mayReverse(a) { return appended(reversed(a), b) }
        return nil
    }

    /// Whether writing `pattern` from its other end keeps what it binds: not with a path
    /// variable or a named variable-length relationship, whose lists run left to right.
    static func mayReverse(_ pattern: BoundPattern) -> Bool {
        pattern.pathSlot == nil && !pattern.relationships.contains { $0.length != nil && $0.isNamed }
    }

    /// `a` followed by `b`, whose first node is `a`'s last: that node's labels and properties
    /// are both patterns' (the same slot, so the same node).
    static func appended(_ a: BoundPattern, _ b: BoundPattern) -> BoundPattern {
        var result = a
        var joint = a.nodes[a.nodes.count - 1]
        let other = b.nodes[0]
        joint.labels += other.labels.filter { !joint.labels.contains($0) }
        joint.properties += other.properties
        result.nodes[result.nodes.count - 1] = joint
        result.nodes += b.nodes.dropFirst()
        result.relationships += b.relationships
        return result
    }

    /// The same chain written from its other end.
    static func reversed(_ pattern: BoundPattern) -> BoundPattern {
        var result = pattern
        result.nodes.reverse()
        result.relationships = pattern.relationships.reversed().map { relationship in
            var flipped = relationship
            switch relationship.direction {
            case .leftToRight: flipped.direction = .rightToLeft
            case .rightToLeft: flipped.direction = .leftToRight
            case .either: break
            }
            return flipped
        }
        return result
    }

    /// A predicate in canonical spelling: `NOT (a = b)` → `a <> b`, `NOT (a <> b)` → `a = b`,
    /// `NOT NOT x` → `x`, and `id(a) <> id(b)` / `id(a) = id(b)` of two pattern nodes → the
    /// nodes compared (the same truth value, null included; `nodes` are the match's node slots). Conjunctions are canonicalised
    /// part by part.
    static func canonical(_ e: Expression, nodes: Set<Int>) -> Expression {
        switch e {
        case .binary(.and, let l, let r):
            return .binary(.and, canonical(l, nodes: nodes), canonical(r, nodes: nodes))
        case .unary(.not, .unary(.not, let inner)):
            return canonical(inner, nodes: nodes)
        case .unary(.not, .binary(.equal, let l, let r)):
            return canonical(.binary(.notEqual, l, r), nodes: nodes)
        case .unary(.not, .binary(.notEqual, let l, let r)):
            return canonical(.binary(.equal, l, r), nodes: nodes)
        case .binary(let op, let l, let r) where op == .equal || op == .notEqual:
            if let a = nodeID(l, nodes: nodes), let b = nodeID(r, nodes: nodes) { return .binary(op, .slot(a), .slot(b)) }
            return e
        case .binary(.or, _, _):
            return equalitiesAsList(e) ?? e
        default:
            return e
        }
    }

    /// `x = a OR x = b OR …` (each equality either way round), x one variable's property or
    /// `id(n)`, as `x IN [a, b, …]`: the same truth value, null included (true when one
    /// equality is, else null when one is, else false), and a list the planner seeks by.
    static func equalitiesAsList(_ e: Expression) -> Expression? {
        var disjuncts: [Expression] = []
        func split(_ e: Expression) {
            if case .binary(.or, let l, let r) = e { split(l); split(r) } else { disjuncts.append(e) }
        }
        split(e)
        /// What a disjunct compares: a variable's property, or a variable's id.
        enum Subject: Equatable {
            case property(slot: Int, key: String)
            case id(slot: Int)
            init?(_ e: Expression) {
                switch e {
                case .property(.slot(let s), let key): self = .property(slot: s, key: key)
                case .function(let call) where call.name.lowercased() == "id" && call.arguments.count == 1:
                    guard case .slot(let s) = call.arguments[0] else { return nil }
                    self = .id(slot: s)
                default: return nil
                }
            }
        }
        var subject: (Subject, Expression)?
        var values: [Expression] = []
        for disjunct in disjuncts {
            guard case .binary(.equal, let l, let r) = disjunct else { return nil }
            if let (known, _) = subject {
                if Subject(l) == known { values.append(r) } else if Subject(r) == known { values.append(l) } else { return nil }
            } else if let found = Subject(l) {
                subject = (found, l)
                values.append(r)
            } else if let found = Subject(r) {
                subject = (found, r)
                values.append(l)
            } else {
                return nil
            }
        }
        guard let (_, expression) = subject, values.count > 1 else { return nil }
        return .binary(.in, expression, .list(values))
    }

    /// The node slot `n` of `id(n)`, when n is a pattern node.
    static func nodeID(_ e: Expression, nodes: Set<Int>) -> Int? {
        guard case .function(let call) = e, call.name.lowercased() == "id", call.arguments.count == 1,
              case .slot(let s) = call.arguments[0], nodes.contains(s) else { return nil }
        return s
    }
}

extension BoundMatch {
    /// The uniqueness group of the relationship in `slot` (`relationshipGroups`, else 0).
    func group(of slot: Int) -> Int { relationshipGroups[slot] ?? 0 }
}
