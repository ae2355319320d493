// SocialReadProcedures.swift — the read-only social procedures: social.friends, .connections,
// .mutualFriends, .relationships, .invitableAudience and .invitations. Each resolves its
// arguments, runs one GraphStore kernel (GraphStore/Social) and turns the answer into rows.
// Arguments, ordering and limits are documented in docs/social.md.

import GraphStore

/// `CALL social.friends(user, {order: 'id'|'newest', limit}) YIELD friend, since`.
struct SocialFriendsProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.friends"
    static let allowedOptions: Set<String> = ["order", "limit"]
    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("user", .any), .init("options", .any, isOptional: true)],
              outputs: [.init("friend", .node), .init("since", .any)], answersQuickly: true)
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = Self.name
        let options = try shared.options(arguments[1], allowed: Self.allowedOptions, procedure: name)
        let order: FriendOrder
        switch options["order"] {
        case nil, .null?, .string("id")?: order = .byID
        case .string("newest")?: order = .newestFirst
        case let other?: throw QueryError(.runtime, "`\(name)`: option 'order' must be 'id' or 'newest', but was \(other.cypherText)")
        }
        let limit = try shared.integer(options, "limit", procedure: name)
        let schema = context.socialSchema(graph, names: shared.names)
        guard let user = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "user") else { return [] }
        // A loop, not `map`: a closure reading `graph` would capture (copy) it.
        if order == .byID, schema.createdAt == nil {
            // No relationship has a `created_at`: every `since` is null, so the FRIEND
            // relationships themselves are not needed (an incoming one would be looked up).
            let ids = graph.friendIDs(of: user, schema: schema).prefix(max(0, limit ?? Int.max))
            var rows = ProcedureRows(width: 2, capacity: ids.count)
            for id in ids { rows.append(.node(NodeID(rawValue: id)), .null) }
            return rows
        }
        let friends = graph.friends(of: user, schema: schema, order: order, limit: limit)
        var rows = ProcedureRows(width: 2, capacity: friends.count)
        for friend in friends {
            let since: RuntimeValue = if let key = schema.createdAt { RuntimeValue(graph.property(key, of: friend.relationship)) } else { .null }
            rows.append(.node(friend.node), since)
        }
        return rows
    }
}

/// `CALL social.connections(user, {limit, minMutual, friendType}) YIELD user, mutual`; `user`
/// may be a list of users, taken together (docs/social.md).
struct SocialConnectionsProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.connections"
    static let allowedOptions: Set<String> = ["limit", "minMutual", "friendType", "withTies", "friendLabel", "label", "distinctBy"]
    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("user", .any), .init("options", .any, isOptional: true)],
              outputs: [.init("user", .node), .init("mutual", .integer)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = Self.name
        let options = try shared.options(arguments[1], allowed: Self.allowedOptions, procedure: name)
        var connectionOptions = ConnectionOptions(limit: try shared.integer(options, "limit", procedure: name),
                                                  minimumMutual: try shared.integer(options, "minMutual", procedure: name) ?? 1,
                                                  limitWithTies: try shared.boolean(options, "withTies", procedure: name) ?? false)
        // A label no node has: no friend counts, or no connection is listed.
        if let friendLabel = try shared.string(options, "friendLabel", procedure: name) {
            guard let id = graph.labelID(named: friendLabel) else { return [] }
            connectionOptions.friendLabel = id
        }
        if let label = try shared.string(options, "label", procedure: name) {
            guard let id = graph.labelID(named: label) else { return [] }
            connectionOptions.label = id
        }
        // `distinctBy` (the planner's, for a grouping by properties of the connection): no two
        // listed connections may share those values, checked before the cut; where two do, the
        // query runs as written. A key nobody holds (every value null) sends it there at once.
        var distinctBy: [PropertyKeyID]?
        switch options["distinctBy"] {
        case nil, .null?: break
        case .list(let keys)?:
            distinctBy = []
            for case .string(let key) in keys {
                guard let id = graph.propertyKeyID(named: key) else { throw QueryEngine.rewriteDoesNotHold }
                distinctBy?.append(id)
            }
        case let other?: throw QueryError(.runtime, "`\(name)`: option 'distinctBy' must be a list of property keys, but was \(other.cypherText)")
        }
        let cut = (limit: connectionOptions.limit, withTies: connectionOptions.limitWithTies)
        // Several users: every row first, then the check and the cut; one user: the kernel
        // checks before it ranks (below).
        if distinctBy != nil, case .list = arguments[0] { (connectionOptions.limit, connectionOptions.limitWithTies) = (nil, false) }
        var names = shared.names
        switch options["friendType"] {
        case nil, .null?: break
        case .string(let type)?: names.friend = type  // the planner's rewrite names the type the query used
        case let other?: throw QueryError(.runtime, "`\(name)`: option 'friendType' must be a string, but was \(other.cypherText)")
        }
        let schema = context.socialSchema(graph, names: names)
        let g = graph
        var rows: [Connection]
        if case .list(let values) = arguments[0] {
            // Several users taken together (docs/social.md): what the planner passes when the
            // plain connections query's MATCH finds more than one user (BoundCall.gathersInput).
            var users: [NodeID] = []
            for value in values {
                if let user = try shared.node(value, label: schema.user, schema: schema, graph: graph, procedure: name, argument: "user") {
                    users.append(user)
                }
            }
            let watch = context
            rows = try shared.pool.withScratch { (scratch) throws(QueryError) -> [Connection] in
                try g.connections(ofAny: users, schema: schema, options: connectionOptions, scratch: &scratch,
                                  check: { () throws(QueryError) in try watch.checkDeadline() })
            }
        } else {
            guard let user = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "user") else { return [] }
            if let distinctBy {
                let checked: [Connection]? = shared.pool.withScratch { scratch in
                    g.connections(of: user, schema: schema, options: connectionOptions, distinctBy: distinctBy, scratch: &scratch)
                }
                guard let checked else { throw QueryEngine.rewriteDoesNotHold }
                return Self.output(checked)
            }
            rows = shared.pool.withScratch { scratch in
                g.connections(of: user, schema: schema, options: connectionOptions, scratch: &scratch)
            }
        }
        if let distinctBy {
            guard graph.nodesAreDistinct(rows.lazy.map(\.node.rawValue), by: distinctBy) else { throw QueryEngine.rewriteDoesNotHold }
            rows = Graph.cut(rows, limit: cut.limit, withTies: cut.withTies)
        }
        return Self.output(rows)
    }

    static func output(_ rows: [Connection]) -> ProcedureRows {
        var output = ProcedureRows(width: 2, capacity: rows.count)
        for row in rows { output.append(.node(row.node), .integer(Int64(row.mutualFriends))) }
        return output
    }
}

/// `CALL social.mutualFriends(a, b) YIELD friend`: ascending node id.
struct SocialMutualFriendsProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.mutualFriends"
    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("a", .any), .init("b", .any)], outputs: [.init("friend", .node)],
              answersQuickly: true)
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let schema = context.socialSchema(graph, names: shared.names)
        // Arguments four and five, `'count'` and the pattern's WHERE, come only from the
        // planner's counting rewrite of the OPTIONAL pattern (SocialPlanner.optionalMutualFriends):
        // one row holding the number of rows the pattern would have, 0 where the WHERE fails.
        var counting = false
        if arguments.count > 4, case .string(SocialPlanner.countMode) = arguments[3] {
            counting = true
            guard case .bool(true) = arguments[4] else { return [[.integer(0)]] }
        }
        guard let a = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: Self.name, argument: "a"),
              let b = try shared.node(arguments[1], label: schema.user, schema: schema, graph: graph, procedure: Self.name, argument: "b")
        else { return counting ? [[.integer(0)]] : [] }
        if a == b, arguments.count == 4, case .string(SocialPlanner.distinctEndsMode) = arguments[3] {
            throw QueryEngine.rewriteDoesNotHold
        }
        // A third argument, `true`, comes only from the planner's rewrite of the plain pattern
        // `(a)-[:FRIEND]-(m)-[:FRIEND]-(b)` (Planner/SocialPlanner.swift), whose rows must stay
        // exactly the pattern's: there a FRIEND self-loop makes a (or b) a neighbour of itself,
        // so it is a common neighbour when it is also b's (a's) friend. People are not their own
        // friends, so the procedure proper leaves that out (and the kernel never lists a or b).
        var selfLoops: [NodeID] = []
        if arguments.count > 2, case .bool(true) = arguments[2], a != b, graph.areFriends(a, b, schema: schema) {
            selfLoops = Self.friendSelfLoops(a, b, graph: graph, schema: schema)
        }
        if counting {
            return [[.integer(Int64(context.mutualFriendCount(a, b, graph: graph, schema: schema, pool: shared.pool) + selfLoops.count))]]
        }
        var friends = context.mutualFriends(a, b, graph: graph, schema: schema, pool: shared.pool)
        for x in selfLoops { friends.insert(x, at: friends.firstIndex { $0 > x } ?? friends.count) }
        var rows = ProcedureRows(width: 1, capacity: friends.count)
        for friend in friends { rows.append(.node(friend)) }
        return rows
    }

    /// Of two friends `a` and `b`, those with a FRIEND self-loop, ascending: in the pattern
    /// `(a)-[:FRIEND]-(m)-[:FRIEND]-(b)` such a user is a neighbour of itself, so a common one.
    static func friendSelfLoops(_ a: NodeID, _ b: NodeID, graph: Graph, schema: SocialSchema) -> [NodeID] {
        [min(a, b), max(a, b)].filter { graph.hasFriendSelfLoop($0, schema: schema) }
    }

    /// The number of distinct `m` of `(a)-[:FRIEND]-(m)-[:FRIEND]-(b)` with `a <> b` (0 when
    /// they are one user): their common friends, and when they are friends each end with a
    /// FRIEND self-loop. Through `kept`, a's kept friends, when given.
    static func patternCount(_ a: NodeID, _ b: NodeID, kept: KeptFriends?, graph: Graph, schema: SocialSchema) -> Int {
        guard a != b else { return 0 }
        let common = kept.map { graph.mutualFriendCount($0, b, schema: schema) } ?? graph.mutualFriendCount(a, b, schema: schema)
        let friends = kept.map { $0.contains(b) } ?? graph.areFriends(a, b, schema: schema)
        return common + (friends ? friendSelfLoops(a, b, graph: graph, schema: schema).count : 0)
    }
}

/// `CALL social.relationships(viewer, users) YIELD user, relation, mutual, requestSent,
/// requestReceived, blockedByViewer, blocksViewer, position, viewer`: one row per element of
/// `users` that names a user, in order; `position` is the element's index in `users`, `viewer`
/// the viewer's node.
struct SocialRelationshipsProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.relationships"
    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("viewer", .any), .init("users", .list)],
              outputs: [.init("user", .node), .init("relation", .string), .init("mutual", .integer),
                        .init("requestSent", .boolean), .init("requestReceived", .boolean),
                        .init("blockedByViewer", .boolean), .init("blocksViewer", .boolean), .init("position", .integer),
                        .init("viewer", .node)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        if arguments.count > 2, case .bool(true) = arguments[2] {
            return patternRows(viewers: arguments[0], elements: arguments[1], graph: graph, context: &context)
        }
        let name = Self.name
        let schema = context.socialSchema(graph, names: shared.names)
        guard case .list(let items) = arguments[1] else { return [] }
        let viewer = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "viewer")
        var users: [NodeID] = []
        var positions: [Int] = []
        for (position, item) in items.enumerated() {
            // Users nobody has are skipped: there is no node to yield for them.
            if let node = try shared.node(item, label: schema.user, schema: schema, graph: graph, procedure: name, argument: "users") {
                users.append(node)
                positions.append(position)
            }
        }
        guard let viewer else { return [] }
        let g = graph
        let relations = shared.pool.withScratch { scratch in g.relations(of: viewer, to: users, schema: schema, scratch: &scratch) }
        var rows = ProcedureRows(width: 9, capacity: relations.count)
        for (r, position) in zip(relations, positions) {
            rows.append(row: [.node(r.user), r.kind.runtimeValue, .integer(Int64(r.mutualFriends)), .bool(r.requestSent),
                              .bool(r.requestReceived), .bool(r.blockedByViewer), .bool(r.blocksViewer),
                              .integer(Int64(position)), .node(viewer)])
        }
        return rows
    }

    /// The rows of docs/social.md's plain relationship-label query up to its grouping WITH, in
    /// the order of its `ORDER BY i`, for the planner's rewrite of it (Planner/SocialPipelines.swift,
    /// which passes a third argument, `true`): `viewers` is a node the query's first MATCH
    /// bound, or the list of all of them in its order, `elements` the values `$users[i]` takes for each i of
    /// `range(0, size($users) - 1)`, evaluated by the query itself. Per element, in order, then
    /// per viewer, in order (the general plan's rows, sorted stably by i): each `:User` whose
    /// `id` equals the element, as the MATCH's seek finds them, with `position` holding the
    /// element's index, `viewer` the viewer and `mutual` the number of distinct `m` of
    /// `OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x`: 0 for the viewer itself,
    /// a FRIEND self-loop of either end counted as the pattern counts it. The label and the
    /// flags are the documented RETURN's expressions over those rows: `SELF` when x is v,
    /// `FRIEND` when a FRIEND joins them either way, `CONNECTION` when the count is above 0,
    /// else `NONE`; each flag false for the viewer itself, else whether the FRIEND_REQUEST or
    /// BLOCKED relationship exists that way. The names are the pipeline's (graphd's standard
    /// ones), whatever the registry was given.
    func patternRows(viewers: RuntimeValue, elements: RuntimeValue, graph: Graph, context: inout ProcedureContext) -> ProcedureRows {
        guard case .list(let elements) = elements else { return [] }
        let viewers = SocialProcedureShared.nodes(viewers)
        guard !viewers.isEmpty else { return [] }
        let schema = context.socialSchema(graph, names: .standard)
        guard let user = schema.user, let id = schema.id else { return [] }
        let unique = graph.isUniquelyIndexed(label: user, key: id)
        // Each viewer's friends, kept once for every element (one scratch each: viewers sharing
        // an id are rare, and each keeps its own marks).
        var kept = viewers.map { KeptFriends($0, of: graph, schema: schema, scratch: shared.pool.checkOut()) }
        var rows = ProcedureRows(width: 9, capacity: elements.count * viewers.count)
        var users: [NodeID] = []
        for (i, element) in elements.enumerated() {
            // The seek's rules (PatternMatcher's propertySeek): null equals nothing, and an
            // element that cannot be stored (a node, a map) is no property's value.
            guard !element.isNull, let stored = element.storable else { continue }
            users.removeAll(keepingCapacity: true)
            if unique {
                if let x = graph.firstNodeID(withLabel: user, key: id, equalTo: stored) { users.append(x) }
            } else {
                users.append(contentsOf: graph.nodeIDs(withLabel: user, key: id, equalTo: stored))
            }
            for kept in kept {
                let v = kept.user
                for x in users {
                    let mutual = SocialMutualFriendsProcedure.patternCount(v, x, kept: kept, graph: graph, schema: schema)
                    let other = x != v
                    let kind = SocialRelationKind(isSelf: !other, areFriends: kept.contains(x), mutualFriends: mutual)
                    func flag(_ type: RelationshipTypeID?, _ a: NodeID, _ b: NodeID) -> RuntimeValue {
                        .bool(other && graph.hasRelationship(type, from: a, to: b))
                    }
                    rows.append(row: [.node(x), kind.runtimeValue, .integer(Int64(mutual)),
                                      flag(schema.friendRequest, v, x), flag(schema.friendRequest, x, v),
                                      flag(schema.blocked, v, x), flag(schema.blocked, x, v), .integer(Int64(i)), .node(v)])
                }
            }
        }
        // Moved out of the array, not copied: a pooled scratch must not share its buffers.
        while let last = kept.popLast() { shared.pool.checkIn(last.releaseScratch()) }
        return rows
    }
}

/// `CALL social.invitableAudience(event, {hops: 1|2, limit}) YIELD user, relation, mutual, isFriend`.
struct SocialInvitableAudienceProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.invitableAudience"
    static let allowedOptions: Set<String> = ["hops", "limit"]
    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("event", .any), .init("options", .any, isOptional: true)],
              outputs: [.init("user", .node), .init("relation", .string), .init("mutual", .integer), .init("isFriend", .boolean)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let (options, schema) = try resolve(arguments, graph: graph, context: &context)
        if arguments.count > 2, case .bool(true) = arguments[2] {
            return patternRows(arguments[0], schema: schema, options: options, graph: graph)
        }
        guard let event = try shared.node(arguments[0], label: schema.event, schema: schema, graph: graph, procedure: Self.name, argument: "event") else { return [] }
        let g = graph
        let members = shared.pool.withScratch { scratch in
            g.invitableAudience(of: event, schema: schema, options: options, scratch: &scratch)
        }
        var rows = ProcedureRows(width: 4, capacity: members.count)
        for member in members {
            rows.append(.node(member.node), member.kind.runtimeValue, .integer(Int64(member.mutualFriends)), .bool(member.kind == .friend))
        }
        return rows
    }

    /// The audience's size without its labels, counts or order (the count kernel, about a
    /// third of the list's time and none of its rows), for a query that only counts it. No
    /// output column is ever null.
    func count(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> Int? {
        let (options, schema) = try resolve(arguments, graph: graph, context: &context)
        let limit = options.limit ?? Int.max
        let g = graph
        func size(_ event: NodeID, host: NodeID?) -> Int {
            min(limit, shared.pool.withScratch { scratch in
                g.invitableAudienceCount(of: event, host: host, schema: schema, hops: options.hops, scratch: &scratch)
            })
        }
        if arguments.count > 2, case .bool(true) = arguments[2] {
            // The pattern's rows are the kernel's, pair by pair (patternRows changes counts, not members).
            return Self.eventHostPairs(arguments[0]).reduce(0) { $0 + size($1.event, host: $1.host) }
        }
        guard let event = try shared.node(arguments[0], label: schema.event, schema: schema, graph: graph, procedure: Self.name, argument: "event") else { return 0 }
        return size(event, host: nil)
    }

    /// The `[event, host]` pairs of the planner's rewrite (its first argument), in order; an
    /// element of another shape is skipped.
    static func eventHostPairs(_ value: RuntimeValue) -> [(event: NodeID, host: NodeID)] {
        guard case .list(let pairs) = value else { return [] }
        return pairs.compactMap { pair in
            guard case .list(let ends) = pair, ends.count == 2, case .node(let event) = ends[0], case .node(let host) = ends[1] else { return nil }
            return (event, host)
        }
    }

    /// The options and schema of a call, checked (the same errors for `call` and `count`).
    private func resolve(_ arguments: [RuntimeValue], graph: Graph, context: inout ProcedureContext) throws(QueryError) -> (AudienceOptions, SocialSchema) {
        let name = Self.name
        let options = try shared.options(arguments[1], allowed: Self.allowedOptions, procedure: name)
        let hops = try shared.integer(options, "hops", procedure: name) ?? 2
        guard hops == 1 || hops == 2 else { throw QueryError(.runtime, "`\(name)`: option 'hops' must be 1 or 2, but was \(hops)") }
        let audienceOptions = AudienceOptions(hops: hops, limit: try shared.integer(options, "limit", procedure: name))
        return (audienceOptions, context.socialSchema(graph, names: shared.names))
    }

    /// The rows of docs/social.md's plain audience query, for the planner's rewrite of it
    /// (Planner/SocialPipelines.swift, which passes a third argument, `true`): `pairs` is the
    /// list of distinct `[event, host]` the query's first MATCH found; `isFriend` is the query's
    /// `isFriend` and `relation` its `CASE WHEN isFriend THEN 'FRIEND' ELSE 'CONNECTION' END`. Where the pattern and the kernel differ, the pattern wins: a FRIEND
    /// self-loop makes the host (or a friend) one of the host's own friends, so it counts as a
    /// mutual friend of every friend (of itself); and with several pairs the rows of all of
    /// them are merged in the query's order.
    func patternRows(_ pairs: RuntimeValue, schema: SocialSchema, options: AudienceOptions, graph: Graph) -> ProcedureRows {
        let pairs = Self.eventHostPairs(pairs)
        var members: [AudienceMember] = []
        var resort = pairs.count > 1
        for (event, host) in pairs {
            var found = shared.pool.withScratch { scratch in
                graph.invitableAudience(of: event, host: host, schema: schema, options: options, scratch: &scratch)
            }
            let hostLoop = graph.hasFriendSelfLoop(host, schema: schema)
            for k in found.indices where found[k].kind == .friend {
                let extra = (hostLoop ? 1 : 0) + (graph.hasFriendSelfLoop(found[k].node, schema: schema) ? 1 : 0)
                if extra > 0 { found[k].mutualFriends += extra; resort = true }
            }
            members += found
        }
        if resort {
            // Friends first, mutual descending, then id: the kernel's order, redone. Rows that
            // tie are equal rows, so the sort need not be stable.
            members.sort { a, b in
                if (a.kind == .friend) != (b.kind == .friend) { return a.kind == .friend }
                return a.mutualFriends != b.mutualFriends ? a.mutualFriends > b.mutualFriends : a.node < b.node
            }
        }
        var rows = ProcedureRows(width: 4, capacity: members.count)
        for member in members {
            let isFriend = member.kind == .friend
            rows.append(.node(member.node), .string(isFriend ? "FRIEND" : "CONNECTION"), .integer(Int64(member.mutualFriends)), .bool(isFriend))
        }
        return rows
    }
}

/// `CALL social.invitations(user, {limit}) YIELD event, startsAt, attending, host, hostRelation, hostMutual, user`.
struct SocialInvitationsProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.invitations"
    static let allowedOptions: Set<String> = ["limit"]
    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("user", .any), .init("options", .any, isOptional: true)],
              outputs: [.init("event", .node), .init("startsAt", .any), .init("attending", .boolean), .init("host", .node),
                        .init("hostRelation", .string), .init("hostMutual", .integer), .init("user", .node)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        if arguments.count > 2, case .bool(true) = arguments[2] {
            let byStart: Bool = if arguments.count > 3, case .bool(true) = arguments[3] { true } else { false }
            return patternRows(users: arguments[0], byStart: byStart, graph: graph, context: &context)
        }
        let name = Self.name
        let options = try shared.options(arguments[1], allowed: Self.allowedOptions, procedure: name)
        let limit = try shared.integer(options, "limit", procedure: name)
        let schema = context.socialSchema(graph, names: shared.names)
        guard let user = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "user") else { return [] }
        let g = graph
        let feed = shared.pool.withScratch { scratch in g.invitations(of: user, schema: schema, limit: limit, scratch: &scratch) }
        var rows = ProcedureRows(width: 7, capacity: feed.count)
        for i in feed {
            rows.append(row: [.node(i.event), RuntimeValue(i.startsAt), .bool(i.attending), i.host.map { .node($0) } ?? .null,
                              i.hostRelation.map { $0.kind.runtimeValue } ?? .null,
                              i.hostRelation.map { .integer(Int64($0.mutualFriends)) } ?? .null, .node(user)])
        }
        return rows
    }

    /// The rows of docs/social.md's plain invitation feed up to its second grouping WITH, for
    /// the planner's rewrite of it (Planner/SocialPipelines.swift, which passes a third
    /// argument, `true`): `users` is a node the query's first MATCH bound, or the list of all
    /// of them in its order, and `user` each row's; their rows come user by user. Each `:Event` the
    /// user has an INVITED or ATTENDING relationship to, in the order the MATCH's expansion
    /// first meets them (the INVITED list, then the ATTENDING one, each by node id), with
    /// `attending` true when one of them is ATTENDING; per event each distinct `:User` with a
    /// HOSTS relationship to it (by node id), or one row without a host, with `hostMutual` the
    /// number of distinct `m` of `OPTIONAL MATCH (u)-[:FRIEND]-(m)-[:FRIEND]-(h) WHERE u <> h`
    /// (0 without a host or for the user itself; a FRIEND self-loop of either end counted as
    /// the pattern counts it). `hostRelation` is the documented RETURN's label over those rows:
    /// null without a host, `SELF` for the user, `FRIEND` when a FRIEND joins them either way,
    /// `CONNECTION` when the count is above 0, else `NONE`. `byStart` (a fourth argument, when
    /// the query's `ORDER BY event.starts_at, id(event)` was dropped): the same rows sorted
    /// stably by the event's `starts_at` (as ORDER BY orders values), then its node id. The
    /// names are the pipeline's (graphd's standard ones).
    func patternRows(users: RuntimeValue, byStart: Bool, graph: Graph, context: inout ProcedureContext) -> ProcedureRows {
        let users = SocialProcedureShared.nodes(users)
        let schema = context.socialSchema(graph, names: .standard)
        guard let eventLabel = schema.event else { return [] }
        // Each user's rows in the general plan's order, an event's rows together (a group).
        var rows = ProcedureRows(width: 7)
        var groups: [(start: RuntimeValue, event: NodeID, user: Int, rows: Range<Int>)] = []
        for (n, u) in users.enumerated() {
            // Both lists are sorted by node id, a node with parallel relationships in a run: an
            // event is in the other list by binary search, and a repeat is the entry before.
            let invited = schema.invited.map { graph.adjacency(of: u, type: $0, direction: .outgoing) } ?? AdjacencyList()
            let attends = schema.attending.map { graph.adjacency(of: u, type: $0, direction: .outgoing) } ?? AdjacencyList()
            var events: [(event: NodeID, attending: Bool)] = []
            for (k, event) in invited.enumerated() where (k == 0 || invited[k - 1] != event) && graph.node(event, hasLabel: eventLabel) {
                events.append((event, attends.contains(neighbor: event)))
            }
            for (k, event) in attends.enumerated() where (k == 0 || attends[k - 1] != event) && !invited.contains(neighbor: event)
                && graph.node(event, hasLabel: eventLabel) {
                events.append((event, true))
            }
            var hosts: [[NodeID]] = []
            var hostCount = 0
            for (event, _) in events {
                var distinct: [NodeID] = []
                if let hostsType = schema.hosts, let userLabel = schema.user {
                    // Sorted by node id: a host with several HOSTS relationships comes in a run.
                    for h in graph.adjacency(of: event, type: hostsType, direction: .incoming)
                    where distinct.last != h && graph.node(h, hasLabel: userLabel) {
                        distinct.append(h)
                    }
                }
                hostCount += distinct.count
                hosts.append(distinct)
            }
            // Marking the user's friends pays off from the second host on.
            var kept = hostCount > 1 ? KeptFriends(u, of: graph, schema: schema, scratch: shared.pool.checkOut()) : nil
            for (k, (event, attending)) in events.enumerated() {
                let first = rows.count
                if hosts[k].isEmpty { rows.append(row: [.node(event), .null, .bool(attending), .null, .null, .integer(0), .node(u)]) }
                for h in hosts[k] {
                    let mutual = SocialMutualFriendsProcedure.patternCount(u, h, kept: kept, graph: graph, schema: schema)
                    let friends = kept.map { $0.contains(h) } ?? graph.areFriends(u, h, schema: schema)
                    let kind = SocialRelationKind(isSelf: h == u, areFriends: friends, mutualFriends: mutual)
                    rows.append(row: [.node(event), .null, .bool(attending), .node(h), kind.runtimeValue, .integer(Int64(mutual)), .node(u)])
                }
                let start = byStart ? schema.startsAt.map { RuntimeValue(graph.property($0, of: event)) } ?? .null : .null
                groups.append((start, event, n, first..<rows.count))
            }
            if let scratch = kept.take()?.releaseScratch() { shared.pool.checkIn(scratch) }
        }
        guard byStart else { return rows }
        // ORDER BY event.starts_at, id(event), stably: rows of one event (several users) in
        // user order, each user's in the order they came.
        groups.sort { a, b in
            let c = RuntimeValue.order(a.start, b.start)
            if c != 0 { return c < 0 }
            return a.event != b.event ? a.event < b.event : a.user < b.user
        }
        var sorted = ProcedureRows(width: 7, capacity: rows.count)
        for group in groups { sorted.append(rows: group.rows, of: rows) }
        return sorted
    }
}
