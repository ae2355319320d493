// PathCountsProcedure.swift — the call the planner's path-count rule makes (SocialPlanner,
// `pathCounts`): the two-hop path counts of Graph+PathCounts.swift, per far node, as the number
// of distinct far nodes, or as one total. Its name begins with a space, so no query text can
// name it; EXPLAIN shows it, with the rule that made it.

import GraphStore

/// `" path counts"(x, options)`: rows of (far node, paths), or one row (null, n) for the modes
/// that count. `x` is a node, or the list of every node the MATCH found (BoundCall.gathersInput).
///
/// Options: `types` and `directions` of the two hops (`Direction` raw values, each seen from
/// the node it leaves); `labels`, the middle and far nodes' (null for none); `excludeStart`
/// (`c <> x`); `excludeNeighbours`, `[type, direction, label]` of `NOT (x)-[:T]-(c[:label])`;
/// `sameRelationship`, true when the hops may take one relationship twice (written in two
/// MATCH clauses); `mode`: 'rows'
/// (ranked by count descending, then id), 'reach' (the distinct far nodes) or 'total' (the
/// paths); for 'rows', `limit`, `withTies`, `minMutual` and `distinctBy` as social.connections
/// takes them (a clash in `distinctBy` throws QueryEngine.rewriteDoesNotHold).
/// The counting modes give no row for 0 (the pattern has no row then).
struct PathCountsProcedure: Procedure {
    let shared: SocialProcedureShared
    static let name = " path counts"
    static let allowedOptions: Set<String> = ["types", "directions", "labels", "excludeStart", "excludeNeighbours", "mode",
                                              "limit", "withTies", "minMutual", "sameRelationship", "distinctBy"]

    var signature: ProcedureSignature {
        .init(name: Self.name, arguments: [.init("start", .any), .init("options", .map)],
              outputs: [.init("node", .node), .init("count", .integer)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = Self.name
        let options = try shared.options(arguments[1], allowed: Self.allowedOptions, procedure: name)
        let starts = SocialProcedureShared.nodes(arguments[0])
        guard case .list(let types)? = options["types"], case .list(let directions)? = options["directions"],
              case .list(let labels)? = options["labels"], types.count == 2, directions.count == 2, labels.count == 2,
              let first = Self.hop(types[0], directions[0], graph), let second = Self.hop(types[1], directions[1], graph)
        else { return [] }  // a type the graph has never seen: no path
        var pattern = TwoHopPattern(first: first, second: second)
        for (k, label) in labels.enumerated() {
            guard case .string(let labelName) = label else { continue }
            guard let id = graph.labelID(named: labelName) else { return [] }
            if k == 0 { pattern.middleLabel = id } else { pattern.farLabel = id }
        }
        pattern.excludeStart = try shared.boolean(options, "excludeStart", procedure: name) ?? false
        pattern.distinctRelationships = !(try shared.boolean(options, "sameRelationship", procedure: name) ?? false)
        if case .list(let hop)? = options["excludeNeighbours"], hop.count >= 2 {
            // A type or label never seen: no neighbour to leave out.
            pattern.excludeNeighbours = Self.hop(hop[0], hop[1], graph)
            if hop.count > 2, case .string(let label) = hop[2] {
                if let id = graph.labelID(named: label) { pattern.excludeNeighboursLabel = id } else { pattern.excludeNeighbours = nil }
            }
        }
        let g = graph
        switch try shared.string(options, "mode", procedure: name) ?? "rows" {
        case "reach", "total":
            let counted = options["mode"] == .string("reach")
            let n = shared.pool.withScratch { scratch in
                counted ? g.twoHopReach(from: starts, pattern: pattern, scratch: &scratch)
                        : g.twoHopPathTotal(from: starts, pattern: pattern, scratch: &scratch)
            }
            return n == 0 ? [] : [[.null, .integer(Int64(n))]]
        default:
            let limit = try shared.integer(options, "limit", procedure: name)
            let withTies = try shared.boolean(options, "withTies", procedure: name) ?? false
            let minimum = try shared.integer(options, "minMutual", procedure: name) ?? 1
            // `distinctBy`: the far ends' values of these keys must differ (a grouping by them),
            // else the query runs as written. A key nobody holds: all null, so any two clash.
            var keys: [PropertyKeyID] = []
            if case .list(let names)? = options["distinctBy"] {
                for case .string(let key) in names {
                    guard let id = graph.propertyKeyID(named: key) else { throw QueryEngine.rewriteDoesNotHold }
                    keys.append(id)
                }
            }
            let counted = shared.pool.withScratch { scratch in
                g.twoHopPathCounts(from: starts, pattern: pattern, limit: limit, withTies: withTies, minimum: minimum,
                                   distinctBy: keys, scratch: &scratch)
            }
            guard let rows = counted else { throw QueryEngine.rewriteDoesNotHold }
            var output = ProcedureRows(width: 2, capacity: rows.count)
            for row in rows { output.append(.node(row.node), .integer(Int64(row.mutualFriends))) }
            return output
        }
    }

    /// A hop from a type name and a direction's raw value; nil for a type the graph has not seen.
    static func hop(_ type: RuntimeValue, _ direction: RuntimeValue, _ graph: Graph) -> PatternHop? {
        guard case .string(let name) = type, let id = graph.relationshipTypeID(named: name), case .integer(let raw) = direction,
              let d = Direction(rawValue: UInt8(clamping: raw)) else { return nil }
        return PatternHop(type: id, direction: d)
    }
}
