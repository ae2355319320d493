// CollectUnwind.swift — a neighbour list collected only to be unwound and searched is the
// expansion it came from and a semi-join: `MATCH (u)-[:T]-(f) WITH u, collect(f) AS fs UNWIND fs
// AS f … WHERE NOT c IN fs` (FalkorDB's documented way to say "friends of friends who are not
// friends") means `MATCH (u)-[:T]-(f) … WHERE NOT (u)-[:T]-(c)`. Rewritten on the syntax tree,
// where names still say what they are, before binding; the Normalizer and the rules then see the
// two-hop path they know. The original query is bound first, so every error is its own.

/// The collect-and-unwind rewrite of a parsed query (see the file comment).
enum CollectUnwind {
    /// `query` with its leading `MATCH (u)-[:T]-(f)`, `WITH u, collect(f) AS fs`, `UNWIND fs AS g`
    /// turned into `MATCH (u)-[:T]-(g)`, and every later `x IN fs` (x a node a later MATCH binds)
    /// into `(u)-[:T]-(x)` (with f's labels on x); nil when the query is not of that shape.
    ///
    /// Held to what keeps the rows: the MATCH is the query's first clause (no earlier variable
    /// comes back into scope), its one pattern is one hop with only u and f named, f without
    /// properties and its WHERE not reading f; the WITH keeps u as u and collects f (not
    /// DISTINCT) and nothing else, with no WHERE, ORDER BY, SKIP or LIMIT; later clauses are
    /// MATCH, WITH, RETURN or UNWIND, name f only if g is f, and use fs only as `x IN fs`.
    static func rewrite(_ query: Query) -> Query? {
        guard query.unions.isEmpty, query.clauses.count > 3, case .match(var match) = query.clauses[0],
              case .with(let with) = query.clauses[1], case .unwind(let unwind) = query.clauses[2],
              !match.isOptional, match.patterns.count == 1 else { return nil }
        var pattern = match.patterns[0]
        guard pattern.pathVariable == nil, pattern.nodes.count == 2, pattern.relationships.count == 1 else { return nil }
        let hop = pattern.relationships[0]
        guard hop.variable == nil, hop.length == nil, hop.properties.isEmpty,
              let first = pattern.nodes[0].variable, let second = pattern.nodes[1].variable, first != second else { return nil }
        // Which end is u: the one the WITH keeps.
        guard !with.isDistinct, !with.includesAll, with.orderBy.isEmpty, with.skip == nil, with.limit == nil, with.predicate == nil,
              with.items.count == 2 else { return nil }
        var kept: String?, collected: (of: String, as: String)?
        for item in with.items {
            switch item.expression {
            case .variable(let name, _) where item.alias == nil || item.alias == name: kept = name
            case .function(let call) where call.name.lowercased() == "collect" && !call.isDistinct && call.arguments.count == 1:
                guard case .variable(let name, _) = call.arguments[0], let alias = item.alias else { return nil }
                collected = (name, alias)
            default: return nil
            }
        }
        guard let u = kept, let (f, list) = collected, Set([u, f]) == Set([first, second]) else { return nil }
        let fIndex = first == f ? 0 : 1
        guard pattern.nodes[fIndex].properties.isEmpty, !(match.predicate.map { mentions($0, f) } ?? false),
              case .variable(list, _) = unwind.list, unwind.variable != u, unwind.variable != list else { return nil }
        let g = unwind.variable
        // Later clauses: known kinds, f only as g, the list only in `x IN list`.
        var rest = Array(query.clauses[3...])
        // The nodes later non-optional MATCH clauses bind, with the labels they are matched with.
        var boundLater: [String: Set<String>] = [:]
        for clause in rest {
            switch clause {
            case .match(let m):
                guard !m.isOptional else { continue }
                for part in m.patterns {
                    for node in part.nodes { if let v = node.variable { boundLater[v, default: []].formUnion(node.labels) } }
                }
            case .with, .return, .unwind: break
            default: return nil
            }
        }
        let fLabels = pattern.nodes[fIndex].labels
        var usable = true
        let semiJoin = { (e: Expression) -> Expression in
            e.rewritten { inner in
                guard case .binary(.in, let x, .variable(list, let location)) = inner else { return nil }
                guard case .variable(let name, let at) = x, let labels = boundLater[name], name != u else { usable = false; return nil }
                // f's labels, but for those x is matched with anyway.
                var nodes = [NodePattern(variable: u, labels: [], properties: [], location: location),
                             NodePattern(variable: name, labels: fLabels.filter { !labels.contains($0) }, properties: [], location: at)]
                if fIndex == 0 { nodes.reverse() }
                let part = PatternPart(pathVariable: nil, nodes: nodes,
                                       relationships: [RelationshipPattern(variable: nil, types: hop.types, properties: [],
                                                                           direction: hop.direction, location: location)])
                return .patternPredicate(PatternPredicate(patterns: [part], predicate: nil, location: location))
            }
        }
        for k in rest.indices {
            rest[k] = mapExpressions(rest[k], semiJoin)
            guard usable, !mentions(rest[k], list), g == f || !mentions(rest[k], f) else { return nil }
        }
        pattern.nodes[fIndex].variable = g
        match.patterns = [pattern]
        var result = query
        result.clauses = [.match(match)] + rest
        return result
    }

    /// The clause with `transform` applied to each of its expressions.
    static func mapExpressions(_ clause: Clause, _ transform: (Expression) -> Expression) -> Clause {
        switch clause {
        case .match(var m):
            m.predicate = m.predicate.map(transform)
            m.patterns = m.patterns.map { mapPattern($0, transform) }
            return .match(m)
        case .with(let p): return .with(mapProjection(p, transform))
        case .return(let p): return .return(mapProjection(p, transform))
        case .unwind(var u):
            u.list = transform(u.list)
            return .unwind(u)
        default: return clause
        }
    }

    static func mapProjection(_ p: Projection, _ transform: (Expression) -> Expression) -> Projection {
        var p = p
        p.items = p.items.map { var item = $0; item.expression = transform(item.expression); return item }
        p.orderBy = p.orderBy.map { var item = $0; item.expression = transform(item.expression); return item }
        p.skip = p.skip.map(transform)
        p.limit = p.limit.map(transform)
        p.predicate = p.predicate.map(transform)
        return p
    }

    static func mapPattern(_ part: PatternPart, _ transform: (Expression) -> Expression) -> PatternPart {
        var part = part
        for k in part.nodes.indices { part.nodes[k].properties = part.nodes[k].properties.map { ($0.key, transform($0.value)) } }
        for k in part.relationships.indices {
            part.relationships[k].properties = part.relationships[k].properties.map { ($0.key, transform($0.value)) }
        }
        return part
    }

    /// Whether `name` is used anywhere in the clause (as a variable or a pattern's name).
    static func mentions(_ clause: Clause, _ name: String) -> Bool {
        var found = false
        _ = mapExpressions(clause) { e in
            if mentions(e, name) { found = true }
            return e
        }
        if case .match(let m) = clause, m.patterns.contains(where: { mentions($0, name) }) { found = true }
        if case .unwind(let u) = clause, u.variable == name { found = true }
        if case .with(let p) = clause, p.items.contains(where: { $0.alias == name }) { found = true }
        if case .return(let p) = clause, p.includesAll { found = true }
        if case .with(let p) = clause, p.includesAll { found = true }
        return found
    }

    static func mentions(_ part: PatternPart, _ name: String) -> Bool {
        part.pathVariable == name || part.nodes.contains { $0.variable == name } || part.relationships.contains { $0.variable == name }
    }

    static func mentions(_ e: Expression, _ name: String) -> Bool {
        switch e {
        case .variable(let v, _): return v == name
        case .patternPredicate(let p), .patternComprehension(let p):
            return p.patterns.contains { mentions($0, name) || $0.nodes.contains { $0.properties.contains { mentions($0.value, name) } } }
                || (p.predicate.map { mentions($0, name) } ?? false) || (p.projection.map { mentions($0, name) } ?? false)
        default: return e.children.contains { mentions($0, name) }
        }
    }
}
