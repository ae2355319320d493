// DegreeRankingProcedure.swift — the call the planner's degree-ranking rule makes
// (Planner/DegreeRanking.swift): nodes ranked by their count of one relationship type, from
// Graph.rankedByDegree. Its name begins with a space, so no query text can name it; EXPLAIN
// shows it, with the rule that made it.

import GraphStore

/// `" degree ranking"(label, type, direction, neighbourLabel, minimum, limit, withTies)`: rows
/// of (node, count), highest count first, ties by ascending id.
///
/// Arguments: the nodes' label (null: every node); the relationship type's name; the direction
/// (`Direction`'s raw value, seen from the ranked node); the far end's label (null: any); the
/// least count listed; how many rows (null: all); whether rows tied with the last are kept too.
struct DegreeRankingProcedure: Procedure {
    static let name = " degree ranking"

    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("label", .any), .init("type", .string), .init("direction", .integer),
                                           .init("neighbourLabel", .any), .init("minimum", .integer), .init("limit", .any),
                                           .init("withTies", .boolean)],
              outputs: [.init("node", .node), .init("degree", .integer)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        guard case .string(let typeName) = arguments[1], case .integer(let raw) = arguments[2],
              let direction = Direction(rawValue: UInt8(clamping: raw)), case .integer(let minimum) = arguments[4],
              case .bool(let withTies) = arguments[6] else { return [] }
        // A type or label the graph has never seen: nobody has such relationships.
        guard let type = graph.relationshipTypeID(named: typeName) else { return minimum > 0 ? [] : try everyNode(arguments, graph) }
        var label: LabelID?
        if case .string(let name) = arguments[0] {
            guard let id = graph.labelID(named: name) else { return [] }
            label = id
        }
        var neighbourLabel: LabelID?
        if case .string(let name) = arguments[3] {
            guard let id = graph.labelID(named: name) else { return minimum > 0 ? [] : try everyNode(arguments, graph) }
            neighbourLabel = id
        }
        let limit = try Self.limit(arguments[5])
        let ranked = graph.rankedByDegree(label: label, type: type, direction: direction, neighborLabel: neighbourLabel,
                                          minimum: Int(clamping: minimum), limit: limit, withTies: withTies)
        var rows = ProcedureRows(width: 2, capacity: ranked.count)
        for entry in ranked { rows.append(.node(entry.node), .integer(Int64(entry.degree))) }
        return rows
    }

    /// The limit argument: null for none; a negative one is the error LIMIT gives.
    static func limit(_ value: RuntimeValue) throws(QueryError) -> Int? {
        switch value {
        case .null: return nil
        case .integer(let n) where n >= 0: return Int(clamping: n)
        default: throw QueryError(.runtime, "LIMIT must be a non-negative integer, but was \(value.cypherText)")
        }
    }

    /// Every node with the label, each with count 0, in id order (no relationship counts).
    func everyNode(_ arguments: [RuntimeValue], _ graph: Graph) throws(QueryError) -> ProcedureRows {
        var nodes: [NodeID]
        if case .string(let name) = arguments[0] {
            guard let id = graph.labelID(named: name) else { return [] }
            nodes = graph.nodeIDs(withLabel: id)
        } else {
            nodes = graph.nodeIDs()
        }
        if let limit = try Self.limit(arguments[5]), nodes.count > limit, !(arguments[6] == .bool(true)) { nodes.removeLast(nodes.count - limit) }
        var rows = ProcedureRows(width: 2, capacity: nodes.count)
        for node in nodes { rows.append(.node(node), .integer(0)) }
        return rows
    }
}
