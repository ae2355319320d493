// SocialSearchPeopleProcedure.swift — `social.searchPeople(viewer, query, {limit})`: the social
// typeahead over the full-text index on the users' names (Graph+SearchPeople.swift has the
// contract; docs/social.md documents it).

import GraphStore

/// `CALL social.searchPeople(viewer, query, {limit: 10}) YIELD user, relation, mutual, typos, score`.
/// `viewer` is a user node or id (null, or an id nobody has: a global search); `relation` is
/// `SELF`, `FRIEND`, `n mutual friends` (`1 mutual friend`) or null.
struct SocialSearchPeopleProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = "social.searchPeople"
    static let allowedOptions: Set<String> = ["limit"]
    static let defaultLimit = 10

    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("viewer", .any), .init("query", .string), .init("options", .any, isOptional: true)],
              outputs: [.init("user", .node), .init("relation", .string), .init("mutual", .integer),
                        .init("typos", .integer), .init("score", .float)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = Self.name
        let options = try shared.options(arguments[2], allowed: Self.allowedOptions, procedure: name)
        let limit = try shared.integer(options, "limit", procedure: name) ?? Self.defaultLimit
        guard case .string(let query) = arguments[1] else {
            throw QueryError(.type, "`\(name)`: the query must be a string, but was \(arguments[1].typeName)")
        }
        let schema = context.socialSchema(graph, names: shared.names)
        let viewer = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "viewer")
        let hint = "CREATE FULLTEXT INDEX FOR (u:\(shared.names.user)) ON (u.\(shared.names.name))"
        guard let user = schema.user, let key = graph.propertyKeyID(named: shared.names.name),
              let words = graph.fullTextIndex(.node, user.rawValue)?.words(of: key) else {
            throw QueryError(.runtime, "`\(name)` needs a full-text index on :\(shared.names.user)(\(shared.names.name)); create it with \(hint)")
        }
        let matches: [PersonMatch]
        do throws(PeopleSearchError) {
            matches = try graph.searchPeople(words, viewer: viewer, query: query, limit: limit, schema: schema)
        } catch {
            throw QueryError(.runtime, "`\(name)`: \(error.message)")
        }
        var rows = ProcedureRows(width: 5, capacity: matches.count)
        for m in matches {
            let relation: RuntimeValue = switch m.relation {
            case .viewer: .string("SELF")
            case .friend: .string("FRIEND")
            case .friendOfFriend: .string(m.mutual == 1 ? "1 mutual friend" : "\(m.mutual) mutual friends")
            case .other: .null
            }
            rows.append(row: [.node(m.node), relation, .integer(Int64(m.mutual)), .integer(Int64(m.typos)), .double(m.score)])
        }
        return rows
    }
}
