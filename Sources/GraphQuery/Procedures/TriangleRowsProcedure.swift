// TriangleRowsProcedure.swift — the call the planner's triangles rule makes (SocialPlanner,
// `triangles`): the number of rows a triangle pattern has through one node, from the closing
// count kernel (GraphStore/Social/Graph+Triangles.swift). Its name begins with a space, so no
// query text can name it; EXPLAIN shows it, with the rule that made it.

import GraphStore

/// `" triangle rows"(x, types, directions, labels, order)`: one row holding the count, none
/// when it is 0 (the pattern has no row for x then), and `QueryEngine.rewriteDoesNotHold` where
/// a self-loop makes the count's assumptions fail.
///
/// Arguments: x (a node; null gives no row); the three hops' type names and their directions
/// (`Direction` raw values, each seen from the node the hop leaves); a's and b's labels (null
/// for none); what the WHERE says of a and b (0 nothing, 1 `id(a) < id(b)`, 2 `id(a) > id(b)`, 3 `a <> b`).
struct TriangleRowsProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = " triangle rows"

    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("node", .any), .init("types", .list), .init("directions", .list),
                                           .init("labels", .list), .init("order", .integer)],
              outputs: [.init("rows", .integer)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        guard case .node(let x) = arguments[0], case .list(let types) = arguments[1], case .list(let directions) = arguments[2],
              case .list(let labels) = arguments[3], case .integer(let order) = arguments[4],
              types.count == 3, directions.count == 3, labels.count == 2 else { return [] }
        var hops: [PatternHop] = []
        for k in 0..<3 {
            // A type the graph has never seen: no relationship of it, no row.
            guard case .string(let name) = types[k], let type = graph.relationshipTypeID(named: name),
                  case .integer(let raw) = directions[k], let direction = Direction(rawValue: UInt8(clamping: raw)) else { return [] }
            hops.append(PatternHop(type: type, direction: direction))
        }
        var labelIDs: [LabelID?] = []
        for label in labels {
            switch label {
            case .string(let name):
                guard let id = graph.labelID(named: name) else { return [] }
                labelIDs.append(id)
            default: labelIDs.append(nil)
            }
        }
        let pattern = TrianglePattern(first: hops[0], second: hops[1], third: hops[2], labelA: labelIDs[0], labelB: labelIDs[1],
                                      order: order == 1 ? .aBelowB : order == 2 ? .aAboveB : order == 3 ? .distinct : .any)
        let g = graph
        let rows = shared.pool.withScratch { scratch in g.triangleRowCount(through: x, pattern: pattern, scratch: &scratch) }
        guard let rows else { throw QueryEngine.rewriteDoesNotHold }
        return rows == 0 ? [] : [[.integer(Int64(rows))]]
    }
}
