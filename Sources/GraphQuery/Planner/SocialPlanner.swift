// SocialPlanner.swift — recognises plain-Cypher social queries and plans them as calls of the
// social kernels, so the textbook queries run on the same fast path as their procedures: the
// "connections" query (a 2-hop FRIEND expansion with the "not already a friend" anti-join,
// grouped by far node and counted) becomes social.connections, and the "mutual friends" query
// (a 2-hop FRIEND path between two given users, deduplicated or counted with count(DISTINCT m))
// becomes social.mutualFriends, and so does its OPTIONAL MATCH form between two bound users (the
// mutual count of the relationship-label and invitation-feed queries).
// Called once from Planner.plan; every other query is left alone.

import GraphStore

/// Rewrites of bound queries onto the social kernels (docs/social.md, "Planner recognition").
enum SocialPlanner {
    /// `query` with every recognised clause sequence replaced; unchanged when nothing matches.
    ///
    /// Recognised: `MATCH (u …)-[:T]-(f)-[:T]-(c) WHERE c <> u AND NOT (u)-[:T]-(c) [AND <on u only>]`
    /// followed by `WITH|RETURN c, count(DISTINCT f) AS m …` (items in any order; any WHERE,
    /// ORDER BY, SKIP, LIMIT), with `f` and `c` new, unlabelled or labelled `:User` (the schema:
    /// FRIEND joins users), no properties on them or on the relationships, both relationships
    /// undirected. It becomes `MATCH (u …)`, `CALL social.connections(u, {friendType: 'T'})`
    /// yielding c and m, and the same projection without the aggregation: the kernel's counts
    /// are exactly `count(DISTINCT f)`.
    static func rewrite(_ query: BoundQuery) -> BoundQuery {
        var clauses: [(clause: BoundClause, width: Int)] = []
        var source = query.clauses  // a later clause may change: its ORDER BY dropped (kernelOrdered)
        var i = 0
        while i < source.count {
            if i + 1 < source.count, case .match(let match) = source[i].clause,
               case .projection(let projection) = source[i + 1].clause,
               var rewritten = connections(match, projection).map({ ($0.match, $0.call, $0.projection, mayPush: true) })
                   ?? (pairRules.contains { $0(match, projection) != nil } ? nil
                       : PathCount.rewrite(match, projection, isLast: i + 2 == source.count)) {
                var next: BoundProjection?
                if i + 2 < source.count, case .projection(let p) = source[i + 2].clause { next = p }
                // A guarded grouping must see every row, and a filter on the kernel's rows too:
                // no limit or order is pushed into the kernel then.
                if !rewritten.projection.isAggregating && rewritten.mayPush {
                    rewritten.call.arguments[1] = options(rewritten.call.arguments[1], grouping: projection, next: next)
                    kernelOrdered(&rewritten.projection, grouping: projection, next: &next)
                    if let next { source[i + 2].clause = .projection(next) }
                }
                clauses.append((.match(rewritten.match), source[i].width))
                clauses.append((.call(rewritten.call), source[i].width))
                clauses.append((.projection(rewritten.projection), source[i + 1].width))
                i += 2
                continue
            }
            if i + 1 < source.count, case .match(let match) = source[i].clause,
               case .projection(let projection) = source[i + 1].clause,
               let replacement = pairRules.lazy.compactMap({ $0(match, projection) }).first {
                for (k, clause) in replacement.enumerated() {
                    clauses.append((clause, k == replacement.count - 1 ? source[i + 1].width : source[i].width))
                }
                i += 2
                continue
            }
            clauses.append(source[i])
            i += 1
        }
        var result = query
        result.clauses = DegreeRanking.rewrite(clauses)
        result.unions = query.unions.map { ($0.all, rewrite($0.query)) }
        return result
    }

    /// The rules that replace a MATCH and the projection right after it, tried in order after
    /// the connections rule: each gives the clauses that stand for the two (the last one in the
    /// projection's place), or nil.
    static let pairRules: [@Sendable (BoundMatch, BoundProjection) -> [BoundClause]?] = [
        { match, projection in
            connectionCount(match, projection).map { [.match($0.match), .call($0.call), .projection($0.projection)] }
        },
        { match, projection in
            distinctConnections(match, projection).map { [.match($0.match), .call($0.call), .projection(projection)] }
        },
        { match, projection in GetDegree.rewrite(match, projection).map { [.match($0.match), .projection($0.projection)] } },
        { match, projection in
            TriangleCount.rewrite(match, projection).map { [.match($0.match), .call($0.call), .projection($0.projection)] }
        },
        { match, projection in optionalMutualFriends(match, projection).map { [.call($0.call), .projection($0.projection)] } },
        { match, projection in mutualFriends(match, projection).map { [.match($0.match), .call($0.call), .projection(projection)] } },
    ]

    /// The chain `(u)-[:T]-(f)-[:T]-(c)` with `c <> u` and `NOT (u)-[:T]-(c)` both rules on
    /// friends of friends start from (any one type, both hops undirected, f and c new, without
    /// properties, at most one label each; the WHERE's other conjuncts on u alone): its nodes,
    /// type and those other conjuncts, or nil for any other shape.
    static func connectionsPath(_ match: BoundMatch)
        -> (u: BoundNodePattern, f: BoundNodePattern, c: BoundNodePattern, type: String, onU: [Expression])? {
        guard !match.isOptional, match.patterns.count == 1 else { return nil }
        let pattern = match.patterns[0]
        guard pattern.pathSlot == nil, pattern.nodes.count == 3, pattern.relationships.count == 2 else { return nil }
        let (u, f, c) = (pattern.nodes[0], pattern.nodes[1], pattern.nodes[2])
        // A label on f or c is the kernel's to check (options friendLabel and label).
        for node in [f, c] {
            guard !match.boundBefore.contains(node.slot), node.properties.isEmpty, node.labels.count <= 1 else { return nil }
        }
        guard u.slot != f.slot, u.slot != c.slot, f.slot != c.slot else { return nil }
        let type = pattern.relationships[0].types
        guard type.count == 1 else { return nil }
        for relationship in pattern.relationships {
            guard relationship.types == type, relationship.direction == .either, relationship.properties.isEmpty,
                  relationship.length == nil, !match.boundBefore.contains(relationship.slot) else { return nil }
        }
        // WHERE: exactly `c <> u` and `NOT (u)-[:T]-(c)`, plus conditions on u alone.
        var sawNotEqual = false, sawAntiJoin = false
        var onU: [Expression] = []
        for conjunct in conjuncts(of: match.predicate) {
            if isNotEqual(conjunct, u.slot, c.slot) { sawNotEqual = true; continue }
            if isNotFriends(conjunct, u.slot, c.slot, type: type[0]) { sawAntiJoin = true; continue }
            guard let slots = conjunct.referencedSlots, slots.isSubset(of: match.boundBefore.union([u.slot])) else { return nil }
            onU.append(conjunct)
        }
        guard sawNotEqual, sawAntiJoin else { return nil }
        return (u, f, c, type[0], onU)
    }

    /// The MATCH (u alone) and the call of the connections kernel that replace the path.
    static func connectionsCall(_ match: BoundMatch, u: BoundNodePattern, f: BoundNodePattern, c: BoundNodePattern,
                                type: String, onU: [Expression]) -> (match: BoundMatch, call: BoundCall) {
        var start = match
        start.patterns = [BoundPattern(nodes: [u], relationships: [])]
        start.predicate = conjunction(onU)
        start.introduced = match.introduced.filter { $0 == u.slot }
        start.relationshipGroups = [:]
        // The mutual count goes into f's slot: nothing after the aggregation can read f.
        // Grouped by c alone, the counts are over every u the MATCH finds: the call takes them
        // together when there are several.
        var options: [(key: String, value: Expression)] = [(key: "friendType", value: .literal(.string(type)))]
        if let label = f.labels.first { options.append((key: "friendLabel", value: .literal(.string(label)))) }
        if let label = c.labels.first { options.append((key: "label", value: .literal(.string(label)))) }
        let call = BoundCall(name: "social.connections", arguments: [.slot(u.slot), .map(options)],
                             outputs: [(column: 0, slot: c.slot), (column: 1, slot: f.slot)],
                             predicate: nil, isReadOnly: true, gathersInput: true, rule: "connections")
        return (start, call)
    }

    /// `RETURN count(DISTINCT c)` over the connections path: the kernel lists each connection
    /// once (for several users, once in all), so the count of its rows is the answer.
    static func connectionCount(_ match: BoundMatch, _ projection: BoundProjection)
        -> (match: BoundMatch, call: BoundCall, projection: BoundProjection)? {
        guard let (u, f, c, type, onU) = connectionsPath(match), projection.aggregates.count == 1 else { return nil }
        let aggregate = projection.aggregates[0]
        guard aggregate.function == .count, aggregate.isDistinct, case .slot(c.slot)? = aggregate.argument,
              projection.items.allSatisfy({ if case .aggregateResult = $0.expression { true } else { false } }) else { return nil }
        var (start, call) = connectionsCall(match, u: u, f: f, c: c, type: type, onU: onU)
        call.rule = "connectionCount"
        var counted = projection
        counted.aggregates = [BoundAggregate(function: .count, isDistinct: false, argument: .slot(c.slot))]
        return (start, call, counted)
    }

    /// `WITH DISTINCT c` (or `RETURN DISTINCT` of anything of c alone) over the connections path:
    /// the kernel lists each connection once, and the DISTINCT projection stays as written.
    static func distinctConnections(_ match: BoundMatch, _ projection: BoundProjection) -> (match: BoundMatch, call: BoundCall)? {
        guard projection.isDistinct, !projection.isAggregating, !projection.sortSeesInput,
              let (u, f, c, type, onU) = connectionsPath(match),
              projection.items.allSatisfy({ $0.expression.referencedSlots?.isSubset(of: [c.slot]) ?? false }) else { return nil }
        var (start, call) = connectionsCall(match, u: u, f: f, c: c, type: type, onU: onU)
        call.rule = "distinctConnections"
        return (start, call)
    }

    /// The three clauses that replace a recognised connections MATCH + projection, or nil.
    static func connections(_ match: BoundMatch, _ projection: BoundProjection)
        -> (match: BoundMatch, call: BoundCall, projection: BoundProjection)? {
        guard let (u, f, c, type, onU) = connectionsPath(match) else { return nil }
        // The projection: grouped by c (and anything of c alone, which splits no group) with
        // count(DISTINCT f), nothing else.
        guard projection.aggregates.count == 1 else { return nil }
        let aggregate = projection.aggregates[0]
        guard aggregate.function == .count, aggregate.isDistinct,
              case .slot(let counted)? = aggregate.argument, counted == f.slot else { return nil }
        var items = projection.items
        var sawC = false, sawCount = false
        for k in items.indices {
            switch items[k].expression {
            case .slot(let s) where s == c.slot: sawC = true
            case .aggregateResult(0): sawCount = true; items[k].expression = .slot(f.slot)
            case let e:
                guard let slots = e.referencedSlots, slots.isSubset(of: [c.slot]) else { return nil }
            }
        }
        guard sawCount else { return nil }

        var (start, call) = connectionsCall(match, u: u, f: f, c: c, type: type, onU: onU)
        var grouped = projection
        if sawC {
            // Grouped by c: a group is one of the kernel's rows.
            grouped.items = items
            grouped.aggregates = []
        } else if let keys = propertyKeys(items, of: c.slot, count: f.slot) {
            // Grouped by properties of c only (`c.id`, say): a group is one kernel row as long
            // as no two connections share those values, which the kernel checks (option
            // `distinctBy`) before it ranks and cuts; where two do, the query runs again on its
            // plan as bound (QueryEngine.rewriteDoesNotHold).
            grouped.items = items
            grouped.aggregates = []
            if case .map(var entries) = call.arguments[1] {
                entries.append((key: "distinctBy", value: .list(keys.map { .literal(.string($0)) })))
                call.arguments[1] = .map(entries)
            }
            call.mayNotHold = true
        } else {
            // Grouped by other values of c only: a group is one kernel row as long as no two
            // connections share those values. The grouping stays, taking each group's only
            // row's count; a second row in a group means they do, and the query runs again on
            // its plan as bound (QueryEngine.rewriteDoesNotHold).
            grouped.aggregates = [BoundAggregate(function: .onlyRow, isDistinct: false, argument: .slot(f.slot))]
        }
        return (start, call, grouped)
    }

    /// The property keys `items` group by when each item is `c.key` or the count (read from
    /// slot `count`, or still an aggregate's result), at least one key among them; nil otherwise.
    static func propertyKeys(_ items: [(name: String, expression: Expression)], of c: Int, count: Int) -> [String]? {
        var keys: [String] = []
        for item in items {
            switch item.expression {
            case .property(.slot(c), let key): keys.append(key)
            case .slot(count), .aggregateResult: continue
            default: return nil
            }
        }
        return keys.isEmpty ? nil : keys
    }

    /// The MATCH and CALL that replace a recognised mutual-friends MATCH, or nil.
    ///
    /// Recognised: `MATCH (a:User …)-[:FRIEND]-(m)-[:FRIEND]-(b:User …) WHERE a <> b [AND <on a and b only>]`
    /// followed by a DISTINCT projection (no aggregates) reading only a, m and b, or a projection
    /// whose only aggregates are `count(DISTINCT …)` of a, m and b (the mutual friend count), with `m` new,
    /// unlabelled or `:User`, without properties, both relationships undirected, unnamed in what
    /// follows, of the schema's FRIEND type; a and b each found without the path (bound before,
    /// sought by a value, or filtered by a condition of its own). It becomes `MATCH (a …), (b …) WHERE …` and
    /// `CALL social.mutualFriends(a, b)` yielding m: the kernel's list is exactly the set of
    /// nodes adjacent to both by FRIEND, which is what the DISTINCT projection keeps of the paths.
    static func mutualFriends(_ match: BoundMatch, _ projection: BoundProjection) -> (match: BoundMatch, call: BoundCall)? {
        guard !match.isOptional, let (a, m, b, conjuncts) = mutualFriendsPath(match) else { return nil }
        // The procedure takes users: both ends must be matched as :User (it ignores others).
        let names = SocialNames.standard
        guard a.labels.contains(names.user), b.labels.contains(names.user) else { return nil }
        // WHERE: conditions on a and b alone (`a <> b` among them, or not).
        let ends = match.boundBefore.union([a.slot, b.slot])
        for conjunct in conjuncts {
            guard let slots = conjunct.referencedSlots, slots.isSubset(of: ends) else { return nil }
        }
        // Each end found without the path (bound, sought by a value, or filtered by a condition
        // of its own): an end found only through the path is cheaper reached by it than by
        // intersecting with every user.
        let pinned = { (node: BoundNodePattern) -> Bool in
            match.boundBefore.contains(node.slot) || Planner.seekable(node, bound: match.boundBefore) != nil
                || conjuncts.contains { $0.referencedSlots.map { $0.contains(node.slot) && $0.isSubset(of: match.boundBefore.union([node.slot])) } ?? false }
        }
        guard pinned(a), pinned(b) else { return nil }
        // Without `a <> b`, a row whose a is its b is the pattern's cycle through one user,
        // which the kernel does not list: the call then asks for the plan as bound.
        let endsDiffer = conjuncts.contains { isNotEqual($0, a.slot, b.slot) }
        guard seesOnlyDistinct(projection, visible: match.boundBefore.union([a.slot, m.slot, b.slot])) else { return nil }
        var ends2 = match
        ends2.patterns = [BoundPattern(nodes: [a], relationships: []), BoundPattern(nodes: [b], relationships: [])]
        ends2.introduced = match.introduced.filter { $0 == a.slot || $0 == b.slot }
        // The third argument asks for the pattern's semantics on FRIEND self-loops (see the
        // procedure); m's label, if any, filters the kernel's friends.
        var arguments: [Expression] = [.slot(a.slot), .slot(b.slot), .literal(.bool(true))]
        if !endsDiffer { arguments.append(.literal(.string(distinctEndsMode))) }
        var call = BoundCall(name: "social.mutualFriends", arguments: arguments,
                             outputs: [(column: 0, slot: m.slot)],
                             predicate: m.labels.isEmpty ? nil : .hasLabels(.slot(m.slot), m.labels), isReadOnly: true,
                             rule: "mutualFriends")
        call.mayNotHold = !endsDiffer
        return (ends2, call)
    }

    /// The CALL (and the projection after it) that replace a recognised OPTIONAL mutual-friends
    /// MATCH, or nil: the mutual friend count of a viewer and each listed user (relationship
    /// labels) or of a user and each event's host (the invitation feed).
    ///
    /// Recognised: `OPTIONAL MATCH (a)-[:FRIEND]-(m)-[:FRIEND]-(b) WHERE a <> b [AND <on a and b
    /// only>]` with `a` and `b` bound before (no labels or properties on them here), `m` new,
    /// unlabelled or `:User`, without properties, both relationships undirected and unnamed in
    /// what follows, followed by a projection as for `mutualFriends`. It becomes an optional
    /// `CALL social.mutualFriends(a, b)` yielding m: for a row whose WHERE fails, whose a or b
    /// is null, or whose pair has no common friend, the call passes the row on once with m
    /// null, as OPTIONAL MATCH does, and `count(DISTINCT m)` counts 0 either way.
    ///
    /// When the projection groups by a and b (both are items), reads m only as
    /// `count(DISTINCT m)` and m is unlabelled, the call counts instead (`countMode`): one row
    /// per input row holding the count (0 where the WHERE fails), and each `count(DISTINCT m)`
    /// becomes `max` of it. Input rows that group together have the same a and b, so the same
    /// count: their max is the group's number of distinct m's, without a row per mutual friend.
    static func optionalMutualFriends(_ match: BoundMatch, _ projection: BoundProjection)
        -> (call: BoundCall, projection: BoundProjection)? {
        guard match.isOptional, let (a, m, b, conjuncts) = mutualFriendsPath(match),
              conjuncts.contains(where: { isNotEqual($0, a.slot, b.slot) }),
              match.boundBefore.contains(a.slot), match.boundBefore.contains(b.slot),
              a.labels.isEmpty, a.properties.isEmpty, b.labels.isEmpty, b.properties.isEmpty else { return nil }
        for conjunct in conjuncts {
            guard let slots = conjunct.referencedSlots, slots.isSubset(of: match.boundBefore) else { return nil }
        }
        guard seesOnlyDistinct(projection, visible: match.boundBefore.union([m.slot])) else { return nil }
        let groupsByEnds = [a.slot, b.slot].allSatisfy { end in
            projection.items.contains { if case .slot(end) = $0.expression { return true } else { return false } }
        }
        let countsOnly = m.labels.isEmpty && projection.isAggregating && groupsByEnds
            && projection.aggregates.allSatisfy { aggregate in
                guard case .slot(let counted)? = aggregate.argument else { return false }
                return counted == m.slot && aggregate.isDistinct && aggregate.function == .count
            }
            && projection.items.allSatisfy { item in
                if case .aggregateResult = item.expression { return true }
                return !(item.expression.referencedSlots ?? [m.slot]).contains(m.slot)
            }
        if countsOnly {
            var counted = projection
            counted.aggregates = projection.aggregates.map { _ in BoundAggregate(function: .max, isDistinct: false, argument: .slot(m.slot)) }
            let call = BoundCall(name: "social.mutualFriends",
                                 arguments: [.slot(a.slot), .slot(b.slot), .literal(.bool(true)), .literal(.string(countMode)),
                                             conjunction(conjuncts) ?? .literal(.bool(true))],
                                 outputs: [(column: 0, slot: m.slot)], predicate: nil, isReadOnly: true,
                                 rule: "mutualFriendCount")
            return (call, counted)
        }
        // The WHERE (on a and b only, so the same for every m) and m's label filter the call's
        // rows; when none passes, the optional call yields the row with m null.
        var filters = conjuncts
        if !m.labels.isEmpty { filters.append(.hasLabels(.slot(m.slot), m.labels)) }
        let call = BoundCall(name: "social.mutualFriends", arguments: [.slot(a.slot), .slot(b.slot), .literal(.bool(true))],
                             outputs: [(column: 0, slot: m.slot)], predicate: conjunction(filters), isReadOnly: true, isOptional: true,
                             rule: "optionalMutualFriends")
        return (call, projection)
    }

    /// The fourth argument of a counting social.mutualFriends call (see optionalMutualFriends).
    static let countMode = "count"

    /// The fourth argument of a social.mutualFriends call whose query did not say `a <> b`:
    /// given one user twice, the call throws QueryEngine.rewriteDoesNotHold.
    static let distinctEndsMode = "distinctEnds"

    /// The MATCH `(a)-[:FRIEND]-(m)-[:FRIEND]-(b) WHERE …` both mutual-friend rewrites start
    /// from: one pattern, three distinct nodes, `m` new, unlabelled or `:User`, without
    /// properties, both relationships FRIEND, undirected, without properties, new. Its nodes
    /// and the WHERE's conjuncts, or nil for any other shape.
    static func mutualFriendsPath(_ match: BoundMatch)
        -> (a: BoundNodePattern, m: BoundNodePattern, b: BoundNodePattern, conjuncts: [Expression])? {
        guard match.patterns.count == 1 else { return nil }
        let pattern = match.patterns[0]
        guard pattern.pathSlot == nil, pattern.nodes.count == 3, pattern.relationships.count == 2 else { return nil }
        let (a, m, b) = (pattern.nodes[0], pattern.nodes[1], pattern.nodes[2])
        let names = SocialNames.standard
        guard !match.boundBefore.contains(m.slot), m.properties.isEmpty, m.labels.isEmpty || m.labels == [names.user],
              Set([a.slot, m.slot, b.slot]).count == 3 else { return nil }
        for relationship in pattern.relationships {
            guard relationship.types == [names.friend], relationship.direction == .either, relationship.properties.isEmpty,
                  relationship.length == nil, !match.boundBefore.contains(relationship.slot) else { return nil }
        }
        return (a, m, b, conjuncts(of: match.predicate))
    }

    /// The conjuncts of a WHERE: `x AND (y AND z)` → [x, y, z]; none without one.
    static func conjuncts(of predicate: Expression?) -> [Expression] {
        var result: [Expression] = []
        func split(_ e: Expression) {
            if case .binary(.and, let l, let r) = e { split(l); split(r) } else { result.append(e) }
        }
        if let predicate { split(predicate) }
        return result
    }

    /// `x AND y AND …` of `parts`; nil for none.
    static func conjunction(_ parts: [Expression]) -> Expression? {
        parts.dropFirst().reduce(parts.first) { all, next in all.map { .binary(.and, $0, next) } }
    }

    /// Whether `projection` sees only the distinct `visible` values of its input rows: DISTINCT
    /// with no aggregates, reading `visible` slots only (so the paths' multiplicity and the
    /// relationships are invisible); or grouping by expressions of them with only
    /// `count(DISTINCT <expression of them>)` aggregates (the mutual friend count): each
    /// group's set of distinct values is the same either way.
    static func seesOnlyDistinct(_ projection: BoundProjection, visible: Set<Int>) -> Bool {
        if projection.isAggregating {
            guard !projection.sortSeesInput else { return false }
            for aggregate in projection.aggregates {
                guard aggregate.function == .count, aggregate.isDistinct,
                      let slots = aggregate.argument?.referencedSlots, slots.isSubset(of: visible) else { return false }
            }
            for item in projection.items {
                if case .aggregateResult = item.expression { continue }
                guard let slots = item.expression.referencedSlots, slots.isSubset(of: visible) else { return false }
            }
        } else {
            guard projection.isDistinct else { return false }
            for item in projection.items {
                guard let slots = item.expression.referencedSlots, slots.isSubset(of: visible) else { return false }
            }
        }
        for order in projection.orderBy where !projection.isAggregating {
            guard let slots = order.expression.referencedSlots else { return false }
            let inputs = projection.sortSeesInput ? Set(slots.filter { $0 >= projection.items.count }.map { $0 - projection.items.count }) : []
            guard inputs.isSubset(of: visible) else { return false }
        }
        return true
    }

    /// `a <> b` in either order.
    static func isNotEqual(_ e: Expression, _ a: Int, _ b: Int) -> Bool {
        guard case .binary(.notEqual, .slot(let x), .slot(let y)) = e else { return false }
        return (x == a && y == b) || (x == b && y == a)
    }

    /// `NOT (a)-[:type]-(b)` (either order of a and b): a pattern predicate whose plan is one
    /// undirected adjacency check or expansion between the two bound nodes and nothing else.
    static func isNotFriends(_ e: Expression, _ a: Int, _ b: Int, type: String) -> Bool {
        guard case .unary(.not, .patternPredicate(let predicate)) = e, predicate.predicate == nil,
              predicate.projection == nil else { return false }
        var checks = 0
        for op in predicate.plan {
            switch op {
            case .argument(let s) where s == a || s == b: continue
            case .nodeFilter(_, let labels, let properties) where labels.isEmpty && properties.isEmpty: continue
            case .adjacencyCheck(let from, let to, let types, let direction)
                where types == [type] && direction == .either && Set([from, to]) == Set([a, b]):
                checks += 1
            default: return false
            }
        }
        return checks == 1
    }

    /// The kernel's options: `base` plus what can be pushed into it without changing the rows.
    /// `WHERE mutual >= x` on the grouping projection becomes `minMutual: x`; an ORDER BY
    /// `mutual DESC, id(c)` (the kernel's own order) with a LIMIT and no SKIP, on the grouping
    /// projection or on the one right after it, becomes `limit`, so the kernel keeps only the
    /// top k instead of handing every friend of a friend to the projection and sort.
    static func options(_ base: Expression, grouping: BoundProjection, next: BoundProjection?) -> Expression {
        guard case .map(var entries) = base, let (countIndex, cIndex) = groupingColumns(grouping) else { return base }
        var filtered = false
        // WITH … ORDER BY … LIMIT … WHERE filters after the limit: nothing can be pushed then.
        if grouping.predicate != nil && (grouping.limit != nil || grouping.skip != nil) { return base }
        if let predicate = grouping.predicate {
            if case .binary(.greaterEqual, .slot(countIndex), let x) = predicate, x.referencedSlots == [] {
                entries.append((key: "minMutual", value: x))
            } else {
                filtered = true
            }
        }
        if !filtered, grouping.skip == nil, let limit = grouping.limit, limit.referencedSlots == [],
           isKernelOrder(grouping.orderBy, count: countIndex, c: cIndex.map { [$0] } ?? []) {
            entries.append((key: "limit", value: limit))
        } else if !filtered, let limit = grouping.limit, let rows = rowsThrough(limit, skip: grouping.skip),
                  ranksByCountFirst(grouping.orderBy, count: [countIndex]) {
            // Another tie-break: the kernel keeps every row tied with the last it would keep,
            // and the projection's sort and limit choose among them.
            entries.append((key: "limit", value: rows))
            entries.append((key: "withTies", value: .literal(.bool(true))))
        } else if !filtered, grouping.orderBy.isEmpty, grouping.skip == nil, grouping.limit == nil, let next,
                  !next.isAggregating, !next.isDistinct, next.predicate == nil, let limit = next.limit {
            if next.skip == nil, limit.referencedSlots == [], sortsAsKernel(next, count: countIndex, c: cIndex) {
                entries.append((key: "limit", value: limit))
            } else if let rows = rowsThrough(limit, skip: next.skip), ranksByCountFirst(next.orderBy, count: countOutputs(next, count: countIndex)) {
                entries.append((key: "limit", value: rows))
                entries.append((key: "withTies", value: .literal(.bool(true))))
            }
        }
        return .map(entries)
    }

    /// SKIP + LIMIT, both known before the query runs: how many rows the sort must find.
    static func rowsThrough(_ limit: Expression, skip: Expression?) -> Expression? {
        guard limit.referencedSlots == [] else { return nil }
        guard let skip else { return limit }
        guard skip.referencedSlots == [] else { return nil }
        return .binary(.add, skip, limit)
    }

    /// ORDER BY whose first key is a count column (one of `count`), descending.
    static func ranksByCountFirst(_ orderBy: [(expression: Expression, ascending: Bool)], count: [Int]) -> Bool {
        guard let first = orderBy.first, !first.ascending, case .slot(let s) = first.expression else { return false }
        return count.contains(s)
    }

    /// The output columns of `after` that pass on the grouping projection's column `count`.
    static func countOutputs(_ after: BoundProjection, count: Int) -> [Int] {
        after.items.indices.filter { if case .slot(count) = after.items[$0].expression { true } else { false } }
    }

    /// Drops an ORDER BY that restates the kernel's order (`<count> DESC, id(<c>)`), on the
    /// grouping projection (`grouped`, its rewritten form) or on the one after it: the call's
    /// rows already come in it (one user's ranking, or several users' taken together), and
    /// the projections between keep their order (a filter, DISTINCT, SKIP and LIMIT do too).
    /// Without a sort, the rows stream from the call to the result.
    static func kernelOrdered(_ grouped: inout BoundProjection, grouping: BoundProjection, next: inout BoundProjection?) {
        guard let (countIndex, cIndex) = groupingColumns(grouping) else { return }
        if !grouped.orderBy.isEmpty {
            // Another order: the rows after it are no longer in the kernel's.
            guard isKernelOrder(grouped.orderBy, count: countIndex, c: cIndex.map { [$0] } ?? []) else { return }
            grouped.orderBy = []
            grouped.sortSeesInput = false
        }
        guard var after = next, !after.isAggregating, sortsAsKernel(after, count: countIndex, c: cIndex) else { return }
        after.orderBy = []
        after.sortSeesInput = false
        next = after
    }

    /// The grouping projection's output columns: which one is the count, which c (none when
    /// it is grouped by values of c alone).
    static func groupingColumns(_ grouping: BoundProjection) -> (count: Int, c: Int?)? {
        guard let count = grouping.items.firstIndex(where: { if case .aggregateResult(0) = $0.expression { true } else { false } }) else { return nil }
        return (count, grouping.items.firstIndex(where: { if case .slot = $0.expression { true } else { false } }))
    }

    /// Whether the projection after the grouping one sorts in the kernel's order: the count an
    /// output column of it reading grouping column `count`, c one too (reading column `c`) or
    /// read from its input after the outputs.
    static func sortsAsKernel(_ after: BoundProjection, count: Int, c: Int?) -> Bool {
        guard let c else { return false }
        let countOutputs = countOutputs(after, count: count)
        var cSlots = after.items.indices.filter { if case .slot(c) = after.items[$0].expression { true } else { false } }
        if after.sortSeesInput { cSlots.append(after.items.count + c) }
        return countOutputs.contains { isKernelOrder(after.orderBy, count: $0, c: cSlots) }
    }

    /// ORDER BY `<count> DESC, id(<c>) ASC`: the order the kernel ranks in.
    static func isKernelOrder(_ orderBy: [(expression: Expression, ascending: Bool)], count: Int, c: [Int]) -> Bool {
        guard orderBy.count == 2, !orderBy[0].ascending, orderBy[1].ascending,
              case .slot(count) = orderBy[0].expression,
              case .function(let call) = orderBy[1].expression, call.name.lowercased() == "id", call.arguments.count == 1,
              case .slot(let s) = call.arguments[0] else { return false }
        return c.contains(s)
    }
}
