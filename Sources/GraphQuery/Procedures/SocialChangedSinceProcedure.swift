// SocialChangedSinceProcedure.swift — `social.changedSince`: which of a user's cached categories
// changed since the client last fetched them. The categories and what counts as a change are
// GraphStore's (Social/Graph+ChangedSince.swift, docs/social.md); this turns the arguments into
// baselines and the answers into rows, with the category's current items when asked.

import GraphStore

/// `CALL social.changedSince(user, {friends: since, events: since, …}, {items: true})
/// YIELD category, changed, token, items`: one row per category asked about, in the order
/// given. `since` is a token from an earlier answer or `graph.token()`, an ISO-8601 time, a
/// datetime, epoch milliseconds, or null (never fetched). `token` is the position to send next
/// time; `items` is null unless `{items: true}` and the category changed.
struct SocialChangedSinceProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.changedSince"
    static let allowedOptions: Set<String> = ["items"]
    var signature: ProcedureSignature {
        .init(name: Self.name,
              arguments: [.init("user", .any), .init("categories", .any), .init("options", .any, isOptional: true)],
              outputs: [.init("category", .string), .init("changed", .boolean), .init("token", .string), .init("items", .any)],
              answersQuickly: true)
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = Self.name
        let options = try shared.options(arguments.count > 2 ? arguments[2] : .null, allowed: Self.allowedOptions, procedure: name)
        let wantsItems: Bool
        switch options["items"] {
        case nil, .null?, .bool(false)?: wantsItems = false
        case .bool(true)?: wantsItems = true
        case let other?: throw QueryError(.runtime, "`\(name)`: option 'items' must be true or false, but was \(other.cypherText)")
        }
        guard case .map(let keys, let sinces) = arguments[1] else {
            throw QueryError(.type, "Type mismatch: argument 'categories' of `\(name)` expects a map such as {friends: $token}, "
                             + "but was \(arguments[1].typeName)")
        }
        var asked: [(ChangeCategory, RuntimeValue)] = []
        for (key, since) in zip(keys, sinces) {
            guard let category = ChangeCategory(rawValue: key) else {
                throw QueryError(.runtime, "`\(name)`: unknown category '\(key)'; the categories are "
                                 + ChangeCategory.allCases.map(\.rawValue).joined(separator: ", "))
            }
            asked.append((category, since))
        }
        guard let store = context.changeStore else { throw ChangeArguments.noStore(name) }
        let token = RuntimeValue.string(store.tokenHoldingLock.description)
        let schema = context.socialSchema(graph, names: shared.names)
        let user = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "user")
        var rows = ProcedureRows(width: 4, capacity: asked.count)
        for (category, since) in asked {
            let baseline = try ChangeArguments.baseline(since, store: store, function: name)
            // A user who does not exist (any more) has changed: whatever was cached is gone.
            guard let user else {
                rows.append(row: [.string(category.rawValue), .bool(true), token, wantsItems ? .list([]) : .null])
                continue
            }
            let changed = graph.changed(category, of: user, after: baseline, schema: schema)
            let items: RuntimeValue = wantsItems && changed ? self.items(category, of: user, graph: graph, schema: schema) : .null
            rows.append(row: [.string(category.rawValue), .bool(changed), token, items])
        }
        return rows
    }

    /// The category's current contents, as the matching read procedure returns them.
    private func items(_ category: ChangeCategory, of user: NodeID, graph: Graph, schema: SocialSchema) -> RuntimeValue {
        func entry(_ pairs: KeyValuePairs<String, RuntimeValue>) -> RuntimeValue {
            .map(keys: pairs.map(\.key), values: pairs.map(\.value))
        }
        func neighbours(_ type: RelationshipTypeID?, _ direction: Direction) -> [NodeID] {
            guard let type else { return [] }
            return Array(graph.adjacency(of: user, type: type, direction: direction))
        }
        switch category {
        case .profile:
            return .list([.node(user)])
        case .blocked:
            return .list(neighbours(schema.blocked, .outgoing).map { .node($0) })
        case .friends:
            return .list(graph.friends(of: user, schema: schema).map { friend in
                entry(["friend": .node(friend.node),
                       "since": schema.createdAt.map { RuntimeValue(graph.property($0, of: friend.relationship)) } ?? .null])
            })
        case .friendRequests:
            let sent = neighbours(schema.friendRequest, .outgoing).map { entry(["user": .node($0), "direction": .string("sent")]) }
            let received = neighbours(schema.friendRequest, .incoming).map { entry(["user": .node($0), "direction": .string("received")]) }
            return .list(sent + received)
        case .events:
            let g = graph
            let feed = shared.pool.withScratch { scratch in g.invitations(of: user, schema: schema, scratch: &scratch) }
            let invited = feed.map { i in
                entry(["event": .node(i.event), "startsAt": RuntimeValue(i.startsAt), "attending": .bool(i.attending),
                       "hosting": .bool(false), "host": i.host.map { .node($0) } ?? .null])
            }
            let hosted = neighbours(schema.hosts, .outgoing).map { event in
                entry(["event": .node(event), "startsAt": schema.startsAt.map { RuntimeValue(graph.property($0, of: event)) } ?? .null,
                       "attending": .bool(false), "hosting": .bool(true), "host": .node(user)])
            }
            return .list(hosted + invited)
        }
    }
}
