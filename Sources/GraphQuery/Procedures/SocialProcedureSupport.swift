// SocialProcedureSupport.swift — what every social.* procedure shares: turning a user or event
// argument (a node, or the app's id value) into a NodeID, reading the options map, the scratch
// pool, the clock for timestamps, and the one-line registration of the whole family.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GraphStore

extension ProcedureRegistry {
    /// Registers every `social.*` procedure and function (docs/social.md), sharing one pool of
    /// traversal scratch among them.
    public mutating func registerSocialProcedures(names: SocialNames = .standard) {
        let shared = SocialProcedureShared(names: names, pool: TraversalScratchPool())
        register(SocialFriendsProcedure(shared: shared))
        register(SocialConnectionsProcedure(shared: shared))
        register(SocialMutualFriendsProcedure(shared: shared))
        register(SocialRelationshipsProcedure(shared: shared))
        register(SocialInvitableAudienceProcedure(shared: shared))
        register(SocialInvitationsProcedure(shared: shared))
        register(TriangleRowsProcedure(shared: shared))
        register(DegreeRankingProcedure())
        register(PathCountsProcedure(shared: shared))
        register(SocialSearchPeopleProcedure(shared: shared))
        register(SocialChangedSinceProcedure(shared: shared))
        for operation in SocialRequestOperation.allCases { register(SocialRequestProcedure(operation: operation, shared: shared)) }
        register(function: SocialCanViewFunction(shared: shared))
        register(function: SocialMutualFriendCountFunction(shared: shared))
    }
}

/// The state the social procedures of one registry share: the schema names and the scratch pool.
struct SocialProcedureShared: Sendable {
    let names: SocialNames
    let pool: TraversalScratchPool

    /// The node an argument names: a node value as is, an integer or string as the app id of a
    /// node with `label`. Nil for null or an id nobody has.
    func node(_ value: RuntimeValue, label: LabelID?, schema: SocialSchema, graph: Graph, procedure: String,
              argument: String) throws(QueryError) -> NodeID? {
        switch value {
        case .null: return nil
        case .node(let id): return graph.contains(id) ? id : nil
        case .integer(let i): return graph.socialNode(label: label, id: .integer(i), schema: schema)
        case .string(let s): return graph.socialNode(label: label, id: .string(s), schema: schema)
        default:
            throw QueryError(.type, "Type mismatch: argument '\(argument)' of `\(procedure)` expects a node or an id, but was \(value.typeName)")
        }
    }

    /// As `node`, for writes: a missing user is an error naming the id.
    func requiredUser(_ value: RuntimeValue, schema: SocialSchema, graph: Graph, procedure: String,
                      argument: String) throws(QueryError) -> NodeID {
        guard let node = try node(value, label: schema.user, schema: schema, graph: graph, procedure: procedure, argument: argument) else {
            throw QueryError(.runtime, "`\(procedure)`: no :\(names.user) with \(names.id) \(value.cypherText) (argument '\(argument)')")
        }
        return node
    }

    /// The options map argument (null = no options); an unknown key is an error, not ignored.
    func options(_ value: RuntimeValue, allowed: Set<String>, procedure: String) throws(QueryError) -> [String: RuntimeValue] {
        switch value {
        case .null: return [:]
        case .map(let keys, let values):
            var result: [String: RuntimeValue] = [:]
            for (k, v) in zip(keys, values) {
                guard allowed.contains(k) else {
                    throw QueryError(.runtime, "`\(procedure)`: unknown option '\(k)'; allowed: \(allowed.sorted().joined(separator: ", "))")
                }
                result[k] = v
            }
            return result
        default:
            throw QueryError(.type, "Type mismatch: the options of `\(procedure)` must be a map, but were \(value.typeName)")
        }
    }

    /// An optional non-negative integer option (`limit`, `minMutual`, `hops`).
    func integer(_ options: [String: RuntimeValue], _ key: String, procedure: String) throws(QueryError) -> Int? {
        switch options[key] {
        case nil, .null?: return nil
        case .integer(let i)? where i >= 0: return Int(clamping: i)
        case let other?:
            throw QueryError(.runtime, "`\(procedure)`: option '\(key)' must be a non-negative integer, but was \(other.cypherText)")
        }
    }

    /// An optional string option (a label or type name).
    func string(_ options: [String: RuntimeValue], _ key: String, procedure: String) throws(QueryError) -> String? {
        switch options[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw QueryError(.runtime, "`\(procedure)`: option '\(key)' must be a string, but was \(other.cypherText)")
        }
    }

    /// An optional boolean option.
    func boolean(_ options: [String: RuntimeValue], _ key: String, procedure: String) throws(QueryError) -> Bool? {
        switch options[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let other?: throw QueryError(.runtime, "`\(procedure)`: option '\(key)' must be a boolean, but was \(other.cypherText)")
        }
    }

    /// Milliseconds since the Unix epoch: the `created_at` of relationships written now.
    static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// The nodes a planner rewrite passes as a pattern call's first argument: one node (a call
    /// per matched row) or the list of all of them (one call); anything else names none.
    static func nodes(_ value: RuntimeValue) -> [NodeID] {
        switch value {
        case .node(let n): [n]
        case .list(let values): values.compactMap { value -> NodeID? in if case .node(let n) = value { n } else { nil } }
        default: []
        }
    }
}

extension RuntimeValue {
    /// A short rendering for error messages.
    var cypherText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "'\(s)'"
        case .node(let n): return "node \(n.rawValue)"
        default: return typeName
        }
    }
}

extension SocialRelationKind {
    var runtimeValue: RuntimeValue { .string(rawValue) }
}
