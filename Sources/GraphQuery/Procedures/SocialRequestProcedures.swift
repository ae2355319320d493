// SocialRequestProcedures.swift — the writing social procedures: social.sendRequest,
// .acceptRequest, .declineRequest, .cancelRequest, .unfriend, .block, .unblock. Each runs the
// GraphStore kernel on the query's write transaction (rolled back with the query on any error)
// and reports what it changed in the statistics.

import GraphStore

/// Which friend-request state change a `SocialRequestProcedure` performs.
enum SocialRequestOperation: String, CaseIterable, Sendable {
    case sendRequest, acceptRequest, declineRequest, cancelRequest, unfriend, block, unblock

    /// The names of the two user arguments, in call order.
    var argumentNames: (String, String) {
        switch self {
        case .sendRequest, .cancelRequest: return ("sender", "recipient")
        case .acceptRequest, .declineRequest: return ("recipient", "sender")
        case .unfriend: return ("user", "other")
        case .block, .unblock: return ("blocker", "blocked")
        }
    }
}

/// `CALL social.<operation>(a, b) YIELD outcome`: outcome is SENT / ALREADY_PENDING / FRIENDS /
/// ALREADY_FRIENDS for sendRequest, FRIENDS for acceptRequest, DECLINED, CANCELLED, and for
/// unfriend / block / unblock CHANGED or UNCHANGED.
struct SocialRequestProcedure: Procedure {
    let operation: SocialRequestOperation
    let shared: SocialProcedureShared

    var signature: ProcedureSignature {
        let (a, b) = operation.argumentNames
        return .init(name: "social.\(operation.rawValue)", arguments: [.init(a, .any), .init(b, .any)],
                     outputs: [.init("outcome", .string)], isReadOnly: false)
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = signature.name
        let (argA, argB) = operation.argumentNames
        let schema = context.socialSchema(graph, names: shared.names)
        let a = try shared.requiredUser(arguments[0], schema: schema, graph: graph, procedure: name, argument: argA)
        let b = try shared.requiredUser(arguments[1], schema: schema, graph: graph, procedure: name, argument: argB)
        let now = SocialProcedureShared.nowMilliseconds()
        let names = shared.names
        let before = graph.relationshipCount
        var created = 0
        let outcome: String
        do {
            switch operation {
            case .sendRequest:
                let result = try graph.sendFriendRequest(from: a, to: b, at: now, names: names)
                if result == .sent || result == .becameFriends { created = 1 }
                outcome = result.rawValue
            case .acceptRequest:
                let wereFriends = graph.areFriends(a, b, schema: schema)
                try graph.acceptFriendRequest(by: a, from: b, at: now, names: names)
                created = wereFriends ? 0 : 1
                outcome = FriendRequestOutcome.becameFriends.rawValue
            case .declineRequest:
                try graph.declineFriendRequest(by: a, from: b, names: names)
                outcome = "DECLINED"
            case .cancelRequest:
                try graph.cancelFriendRequest(from: a, to: b, names: names)
                outcome = "CANCELLED"
            case .unfriend:
                outcome = try graph.unfriend(a, b, names: names) ? "CHANGED" : "UNCHANGED"
            case .block:
                let changed = try graph.block(b, by: a, at: now, names: names)
                created = changed ? 1 : 0
                outcome = changed ? "CHANGED" : "UNCHANGED"
            case .unblock:
                outcome = try graph.unblock(b, by: a, names: names) ? "CHANGED" : "UNCHANGED"
            }
        } catch {
            throw QueryError(error.kind == .userNotFound ? .runtime : .constraint, "`\(name)`: \(error.message)")
        }
        context.statistics.relationshipsCreated += created
        context.statistics.propertiesSet += created  // each new relationship carries created_at
        context.statistics.relationshipsDeleted += before + created - graph.relationshipCount
        return [[.string(outcome)]]
    }
}
