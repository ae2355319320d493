// SocialFunctions.swift — the social scalar functions usable in any expression, e.g. in WHERE:
// social.canView(viewer, user) (friends-only visibility) and social.mutualFriendCount(a, b).

import GraphStore

/// `social.canView(viewer, user)`: true when `viewer` is `user` or a friend of `user`; null when
/// either argument is null. Arguments are nodes or app ids.
struct SocialCanViewFunction: RegisteredFunction {
    let shared: SocialProcedureShared
    var name: String { "social.canView" }
    var minArguments: Int { 2 }
    var maxArguments: Int { 2 }

    func call(_ arguments: [RuntimeValue], graph: Graph) throws(QueryError) -> RuntimeValue {
        if arguments[0].isNull || arguments[1].isNull { return .null }
        let schema = graph.socialSchema(names: shared.names)
        guard let viewer = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "viewer"),
              let user = try shared.node(arguments[1], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "user")
        else { return .bool(false) }
        return .bool(graph.canView(viewer: viewer, user: user, schema: schema))
    }
}

/// `social.mutualFriendCount(a, b)`: the number of friends `a` and `b` share; null when either
/// argument is null, 0 for an unknown user.
struct SocialMutualFriendCountFunction: RegisteredFunction {
    let shared: SocialProcedureShared
    var name: String { "social.mutualFriendCount" }
    var minArguments: Int { 2 }
    var maxArguments: Int { 2 }

    func call(_ arguments: [RuntimeValue], graph: Graph) throws(QueryError) -> RuntimeValue {
        if arguments[0].isNull || arguments[1].isNull { return .null }
        let schema = graph.socialSchema(names: shared.names)
        guard let a = try shared.node(arguments[0], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "a"),
              let b = try shared.node(arguments[1], label: schema.user, schema: schema, graph: graph, procedure: name, argument: "b")
        else { return .integer(0) }
        return .integer(Int64(graph.mutualFriendCount(a, b, schema: schema)))
    }
}
