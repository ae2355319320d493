// SocialPipelines.swift — the rules for docs/social.md's long plain-Cypher pipelines (the
// invitable audience, the relationship labels, the invitation feed), whose collects, unwinds,
// list comprehensions and groupings are too many for the clause-pair rules of SocialPlanner.
// Each is a PlanShape: its canonical clauses, matched against the start of a query's canonical
// clauses (so any phrasing that normalises to them: other names, WHERE or a property map, one
// MATCH or two, conjuncts and items in any order, a parameter or a literal). The matched clauses
// become one kernel call in its pattern-rows mode (the rows the clauses would give, in their
// order); the query's own clauses after them run as written. Two more rewrites read those
// clauses: a projection item that means one of the kernel's columns (a label evaluated per row
// was a third of a large audience's time) reads the column instead, and a final ORDER BY that
// is the kernel's own order is dropped, the kernel asked for its rows in that order.

/// A recognised pipeline and how it becomes a kernel call.
struct SocialPipeline: Sendable {
    /// The rule's name, shown by EXPLAIN on the call.
    let rule: String
    /// The clauses it replaces.
    let shape: PlanShape
    /// The replacement, per row order: `ordered` when the query's ORDER BY was dropped. Bound
    /// Cypher whose last clause is the kernel's CALL; its parameters are the shape's.
    let replacement: PlanShape
    let orderedReplacement: PlanShape?
    /// For each variable of the shape's last clause, the kernel column that holds it.
    let yields: [String: String]
    /// Projection items the kernel yields as well: the column, and the item's expression in
    /// the scope after the shape (the last projection of `columnShape`, in `columns`' order).
    let columns: [String]
    let columnShape: PlanShape
    /// The kernel's own row order, as an ORDER BY over the shape's variables (the last
    /// projection of `orderShape`), or nil.
    let orderShape: PlanShape?
    /// The extra argument that asks a kernel for its pattern rows (the binder would refuse it
    /// in text); a further `true` asks for them in the dropped ORDER BY's order.
    static let patternRows: Expression = .literal(.bool(true))

    init(rule: String, shape: String, replacement: String, ordered: String? = nil, yields: [String: String],
         columns: [(column: String, expression: String)] = [], order: String? = nil) {
        self.rule = rule
        self.shape = PlanShape(shape)
        self.replacement = PlanShape(replacement)
        orderedReplacement = ordered.map(PlanShape.init)
        self.yields = yields
        self.columns = columns.map(\.column)
        columnShape = PlanShape(shape + "\nRETURN " + columns.map { "\($0.expression) AS `\($0.column)`" }.joined(separator: ", "))
        orderShape = order.map { PlanShape(shape + "\nRETURN 1 AS `graphd one` ORDER BY \($0)") }
    }
}

/// The pipelines graphd recognises, and the rewrite of a bound query through them.
enum SocialPipelines {
    static let pipelines: [SocialPipeline] = [audience(hops: 2), audience(hops: 1), relationshipLabels, invitationFeed]

    /// docs/social.md's invitable audience, with `hops` 2 and 1 (the 2-hop part dropped). Each
    /// (event, host) pair the first MATCH finds goes to the kernel, in the query's order.
    static func audience(hops: Int) -> SocialPipeline {
        let reach = hops == 2 ? """
            UNWIND friends AS f
            OPTIONAL MATCH (f)-[:FRIEND]-(x)
            WITH e, h, friends, collect(DISTINCT x) + friends AS reach
            UNWIND reach AS c
            """ : "UNWIND friends AS c"
        return SocialPipeline(
            rule: "invitableAudience pipeline",
            shape: """
                MATCH (h:User)-[:HOSTS]->(e:Event {id: $event})
                MATCH (h)-[:FRIEND]-(f)
                WITH e, h, collect(DISTINCT f) AS friends
                \(reach)
                WITH DISTINCT e, h, friends, c
                WHERE c <> h AND NOT (c)-[:INVITED]->(e) AND NOT (c)-[:ATTENDING]->(e) AND NOT (h)-[:BLOCKED]-(c)
                WITH c, c IN friends AS isFriend, size([m IN friends WHERE (m)-[:FRIEND]-(c)]) AS mutual
                """,
            replacement: """
                MATCH (h:User)-[:HOSTS]->(e:Event {id: $event})
                WITH collect(DISTINCT [e, h]) AS pairs
                CALL social.invitableAudience(pairs, {hops: \(hops)}) YIELD user, isFriend, mutual, relation
                """,
            yields: ["c": "user", "isFriend": "isFriend", "mutual": "mutual"],
            columns: [("relation", "CASE WHEN isFriend THEN 'FRIEND' ELSE 'CONNECTION' END")],
            order: "isFriend DESC, mutual DESC, id(c)")
    }

    /// docs/social.md's relationship labels up to the grouping WITH. `$users[i]` for every i of
    /// the range is evaluated by the query itself, as the UNWIND and the seeks would evaluate it
    /// (the same values, the same errors); the kernel seeks each element's users and counts the
    /// mutual friends with the viewer's friends marked once. Its rows come as the general
    /// plan's: by viewer (one call per viewer), then i. When the query orders by `i` alone, the
    /// viewers are collected into one call instead, whose rows come by i, then viewer (the
    /// general rows sorted stably by i); the list is then evaluated only when some viewer
    /// matched, as the UNWIND had no row to run for without one.
    static let relationshipLabels: SocialPipeline = {
        let elements = "[i IN range(0, size($users) - 1) | $users[i]]"
        let yields = "YIELD position, user, mutual, viewer, relation, requestSent, requestReceived, blockedByViewer, blocksViewer"
        return SocialPipeline(
            rule: "relationships pipeline",
            shape: """
                MATCH (v:User {id: $viewer})
                UNWIND range(0, size($users) - 1) AS i
                MATCH (x:User {id: $users[i]})
                OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x
                WITH i, v, x, count(DISTINCT m) AS mutual
                """,
            replacement: """
                MATCH (v:User {id: $viewer})
                CALL social.relationships(v, \(elements)) \(yields)
                """,
            ordered: """
                MATCH (v:User {id: $viewer})
                WITH collect(v) AS viewers
                CALL social.relationships(viewers, CASE WHEN size(viewers) = 0 THEN [] ELSE \(elements) END) \(yields)
                """,
            yields: ["i": "position", "x": "user", "mutual": "mutual", "v": "viewer"],
            columns: [
                ("relation", "CASE WHEN x = v THEN 'SELF' WHEN (v)-[:FRIEND]-(x) THEN 'FRIEND' WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END"),
                ("requestSent", "x <> v AND (v)-[:FRIEND_REQUEST]->(x)"),
                ("requestReceived", "x <> v AND (x)-[:FRIEND_REQUEST]->(v)"),
                ("blockedByViewer", "x <> v AND (v)-[:BLOCKED]->(x)"),
                ("blocksViewer", "x <> v AND (x)-[:BLOCKED]->(v)"),
            ],
            order: "i")
    }()

    /// docs/social.md's invitation feed up to its second grouping WITH. The kernel walks the
    /// user's INVITED and ATTENDING lists, each event's hosts, and counts the mutual friends, in
    /// the general plan's order; when the query orders by `event.starts_at, id(event)` alone,
    /// the users are collected into one call whose rows come in that order.
    static let invitationFeed = SocialPipeline(
        rule: "invitations pipeline",
        shape: """
            MATCH (u:User {id: $user})-[r:INVITED|ATTENDING]->(event:Event)
            WITH u, event, max(CASE type(r) WHEN 'ATTENDING' THEN 1 ELSE 0 END) = 1 AS attending
            OPTIONAL MATCH (h:User)-[:HOSTS]->(event)
            OPTIONAL MATCH (u)-[:FRIEND]-(m)-[:FRIEND]-(h) WHERE u <> h
            WITH u, event, attending, h, count(DISTINCT m) AS mutual
            """,
        replacement: """
            MATCH (u:User {id: $user})
            CALL social.invitations(u, null) YIELD event, attending, host, hostMutual, user, hostRelation
            """,
        ordered: """
            MATCH (u:User {id: $user})
            WITH collect(u) AS users
            CALL social.invitations(users, null) YIELD event, attending, host, hostMutual, user, hostRelation
            """,
        yields: ["u": "user", "event": "event", "attending": "attending", "h": "host", "mutual": "hostMutual"],
        columns: [("hostRelation", """
            CASE WHEN h IS NULL THEN null WHEN h = u THEN 'SELF' WHEN (u)-[:FRIEND]-(h) THEN 'FRIEND' \
            WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END
            """)],
        order: "event.starts_at, id(event)")

    /// `query` (normalised) with the first pipeline whose shape starts it replaced, in it and
    /// in each part of a UNION; unchanged when none does.
    static func rewrite(_ query: BoundQuery) -> BoundQuery {
        var result = query
        result.unions = query.unions.map { ($0.all, rewrite($0.query)) }
        let clauses = query.clauses.map(\.clause)
        for pipeline in pipelines {
            guard let (found, predicate) = pipeline.shape.match(clauses),
                  let (replaced, names) = replace(query, pipeline, found, predicate: predicate) else { continue }
            result.clauses = replaced
            result.slotNames = names
                + (query.slotNames.count == query.clauses.count ? Array(query.slotNames[pipeline.shape.clauses.count...]) : [])
            return result
        }
        return result
    }

    /// The clauses of `query` with its first `pipeline.shape.clauses.count` replaced by the
    /// kernel's call, and the names of the replacement's slots (EXPLAIN's), or nil when the
    /// replacement cannot be built. `predicate`: the WHERE of the query's last matched
    /// projection, which filters the call's rows.
    static func replace(_ query: BoundQuery, _ pipeline: SocialPipeline, _ found: PlanShape.Match,
                        predicate: Expression?) -> (clauses: [(clause: BoundClause, width: Int)], slotNames: [[Int: String]])? {
        let matched = pipeline.shape.clauses.count
        var suffix = Array(query.clauses[matched...])
        guard case .projection(let last) = query.clauses[matched - 1].clause else { return nil }
        let width = last.items.count
        // The projection right after the pipeline: its items that are kernel columns, and
        // whether its ORDER BY is the kernel's order (it must be the query's last clause, plain).
        var hidden: [String] = []
        var ordered = false
        if case .projection(var next)? = suffix.first?.clause {
            if let columnProjection = pipeline.columnShape.clauses.last, case .projection(let shapes) = columnProjection {
                for k in next.items.indices {
                    for (c, column) in pipeline.columns.enumerated() where c < shapes.items.count {
                        var unifier = PlanUnifier(parameters: pipeline.shape.parameters, match: found)
                        guard unifier.expression(shapes.items[c].expression, next.items[k].expression) else { continue }
                        let slot = width + (hidden.firstIndex(of: column) ?? hidden.count)
                        if !hidden.contains(column) { hidden.append(column) }
                        next.items[k].expression = .slot(slot)
                        break
                    }
                }
            }
            if suffix.count == 1, !next.isDistinct, !next.isAggregating, next.sortSeesInput, let orderShape = pipeline.orderShape,
               case .projection(let wanted)? = orderShape.clauses.last,
               sortsAs(next, wanted, found, parameters: pipeline.shape.parameters) {
                next.orderBy = []
                ordered = true
            }
            suffix[0].clause = .projection(next)
            suffix[0].width = max(suffix[0].width, width + hidden.count)
        }
        // The replacement: the shape's parameters as the query gave them, and the call's
        // columns into the slots the query's next clause reads (its arguments are evaluated
        // before its rows are placed, so they may be overwritten).
        let source = ordered ? (pipeline.orderedReplacement ?? pipeline.replacement) : pipeline.replacement
        // The binder projects a trailing CALL's outputs: the replacement ends at the call.
        guard let end = source.clauses.lastIndex(where: { if case .call = $0 { true } else { false } }),
              end < source.slotNames.count else { return nil }
        var replacement = source.clauses[...end].map { substitute($0, found.parameters) }
        guard case .call(var call)? = replacement.last else { return nil }
        // The kernel column each YIELD name reads, from the bound replacement.
        let yielded = Dictionary(source.slotNames[end].map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        func column(_ name: String) -> Int? {
            guard let slot = yielded[name] else { return nil }
            return call.outputs.first { $0.slot == slot }?.column
        }
        var outputs: [(column: Int, slot: Int)] = []
        for (variable, name) in pipeline.yields {
            guard let shapeSlot = pipeline.shape.outputs[variable], let slot = found.slots[shapeSlot],
                  let index = column(name) else { return nil }
            outputs.append((index, slot))
        }
        for (k, name) in hidden.enumerated() {
            guard let index = column(name) else { return nil }
            outputs.append((index, width + k))
        }
        guard Set(outputs.map(\.slot)).count == outputs.count else { return nil }
        call.outputs = outputs.sorted { $0.column < $1.column }
        call.arguments.append(SocialPipeline.patternRows)
        if ordered { call.arguments.append(.literal(.bool(true))) }
        call.rule = pipeline.rule
        call.predicate = predicate
        replacement[replacement.count - 1] = .call(call)
        var clauses: [(clause: BoundClause, width: Int)] = []
        for (k, clause) in replacement.enumerated() {
            let own = source.widths[k]
            clauses.append((clause, k == replacement.count - 1 ? max(own, width + hidden.count) : own))
        }
        // The call's own slots are the query's next clause's: no names of the replacement's.
        return (clauses + suffix, Array(source.slotNames.prefix(end)) + [[:]])
    }

    /// Whether `projection`'s ORDER BY sorts as the shape's `wanted` one does: the same keys
    /// and directions, each read through the items or the input as the query wrote it.
    static func sortsAs(_ projection: BoundProjection, _ wanted: BoundProjection, _ found: PlanShape.Match,
                        parameters: Set<String>) -> Bool {
        guard projection.orderBy.count == wanted.orderBy.count, wanted.sortSeesInput else { return false }
        var unifier = PlanUnifier(parameters: parameters, match: found)
        for (have, want) in zip(projection.orderBy, wanted.orderBy) {
            guard have.ascending == want.ascending,
                  unifier.expression(inputScoped(want.expression, wanted), inputScoped(have.expression, projection)) else { return false }
        }
        return true
    }

    /// An ORDER BY key of a projection that sorts its input, over the input's slots: an item
    /// read by its column is that item's expression.
    static func inputScoped(_ key: Expression, _ projection: BoundProjection) -> Expression {
        let n = projection.items.count
        return key.rewritten { e in
            guard case .slot(let k) = e else { return nil }
            return k < n ? projection.items[k].expression : .slot(k - n)
        }
    }

    /// `clause` with each of its parameters in `values` replaced by the query's value.
    static func substitute(_ clause: BoundClause, _ values: [String: Expression]) -> BoundClause {
        func s(_ e: Expression) -> Expression {
            e.rewritten { e in if case .parameter(let name) = e { return values[name] } else { return nil } }
        }
        switch clause {
        case .match(var match):
            for p in match.patterns.indices {
                for n in match.patterns[p].nodes.indices {
                    match.patterns[p].nodes[n].properties = match.patterns[p].nodes[n].properties.map { ($0.key, s($0.value)) }
                }
            }
            match.predicate = match.predicate.map(s)
            return .match(match)
        case .call(var call):
            call.arguments = call.arguments.map(s)
            return .call(call)
        case .projection(var projection):
            projection.items = projection.items.map { ($0.name, s($0.expression)) }
            return .projection(projection)
        default: return clause
        }
    }
}
