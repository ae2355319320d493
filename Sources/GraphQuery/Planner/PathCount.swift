// PathCount.swift — the path-count rule: a two-hop pattern `(x)-[:T1]-(f)-[:T2]-(c)` whose rows
// are only counted (`count(*)` per c, the number of distinct c, the number of paths) is counted
// by the path-count kernel (GraphStore/Social/Graph+PathCounts.swift) instead of being made row
// by row: any two types, any directions, labels on f and c, and the WHERE's `c <> x` and
// `NOT (x)-[:T]-(c)` taken into the walk. `count(DISTINCT f)` per c is the connections rule's.

import GraphStore

/// The path-count rule: a MATCH of one two-hop chain and the projection right after it.
enum PathCount {
    /// A two-hop chain from x, read the way the kernel walks it.
    struct Path {
        var x: BoundNodePattern
        var f: BoundNodePattern
        var c: BoundNodePattern
        var hops: [(type: String, direction: Direction)]
        var relationships: [Int]
        var excludeStart = false
        var excludeNeighbours: (type: String, direction: Direction, label: String?)?
        /// Conjuncts on x (and what was bound before) alone: they stay on x's MATCH.
        var onX: [Expression] = []
        /// Conjuncts on c alone: a filter on the kernel's rows.
        var onC: [Expression] = []
    }

    /// The MATCH (x alone), the call and the projection that replace `match` and `projection`,
    /// and whether the projection's LIMIT may be pushed into the call (SocialPlanner.options);
    /// nil when the shape is not a two-hop chain counted by one of the three forms:
    /// grouped by c (`c` or expressions of c alone, with `count(*)` or `count` of a pattern
    /// variable), or not grouped at all, with `count(DISTINCT c)` or `count(*)`; or seen only
    /// through a DISTINCT projection of c that more clauses follow (each far end once).
    static func rewrite(_ match: BoundMatch, _ projection: BoundProjection, isLast: Bool)
        -> (match: BoundMatch, call: BoundCall, projection: BoundProjection, mayPush: Bool)? {
        guard !match.isOptional, match.patterns.count == 1, !projection.sortSeesInput else { return nil }
        if projection.isDistinct, !projection.isAggregating {
            // `WITH DISTINCT c` (or anything of c alone) before more clauses: the kernel lists
            // each far end once. A final `RETURN DISTINCT` keeps the walk's order and its fused
            // plan (DirectProjection).
            guard !isLast else { return nil }
            for path in paths(match) where path.onC.isEmpty && projection.items.allSatisfy({
                $0.expression.referencedSlots?.isSubset(of: [path.c.slot]) ?? false
            }) {
                let (start, call) = callOf(path, match: match, mode: "rows")
                return (start, call, projection, false)
            }
            return nil
        }
        guard projection.aggregates.count == 1 else { return nil }
        for path in paths(match) {
            let aggregate = projection.aggregates[0]
            guard aggregate.function == .count else { continue }
            let counted: Int? = if case .slot(let s)? = aggregate.argument { s } else { nil }
            let rowVariables = Set([path.f.slot, path.c.slot] + path.relationships)
            let onlyCount = projection.items.allSatisfy { if case .aggregateResult = $0.expression { true } else { false } }
            let mode: String
            if aggregate.isDistinct {
                guard counted == path.c.slot, onlyCount, path.onC.isEmpty else { continue }
                mode = "reach"
            } else {
                guard aggregate.argument == nil || counted.map(rowVariables.contains) == true else { continue }
                if onlyCount {
                    guard path.onC.isEmpty else { continue }
                    mode = "total"
                } else {
                    guard projection.items.allSatisfy({ item in
                        if case .aggregateResult = item.expression { return true }
                        return item.expression.referencedSlots?.isSubset(of: [path.c.slot]) ?? false
                    }) else { continue }
                    mode = "rows"
                }
            }
            var (start, call) = callOf(path, match: match, mode: mode)
            var counting = projection
            if mode != "rows" {
                counting.aggregates = [BoundAggregate(function: .sum, isDistinct: false, argument: .slot(path.f.slot))]
                call.outputs = [(column: 1, slot: path.f.slot)]
                return (start, call, counting, false)
            }
            if projection.items.contains(where: { if case .slot(path.c.slot) = $0.expression { true } else { false } }) {
                // Grouped by c: a group is one of the kernel's rows.
                counting.items = projection.items.map { item in
                    if case .aggregateResult = item.expression { return (name: item.name, expression: .slot(path.f.slot)) }
                    return item
                }
                counting.aggregates = []
                return (start, call, counting, path.onC.isEmpty)
            }
            if let keys = SocialPlanner.propertyKeys(projection.items, of: path.c.slot, count: -1), path.onC.isEmpty {
                // Grouped by properties of c alone: a group is one kernel row as long as no two far
                // ends share them, which the kernel checks before it ranks (else the query runs
                // as written).
                counting.items = projection.items.map { item in
                    if case .aggregateResult = item.expression { return (name: item.name, expression: .slot(path.f.slot)) }
                    return item
                }
                counting.aggregates = []
                if case .map(var entries) = call.arguments[1] {
                    entries.append((key: "distinctBy", value: .list(keys.map { .literal(.string($0)) })))
                    call.arguments[1] = .map(entries)
                }
                call.mayNotHold = true
                return (start, call, counting, true)
            }
            // Grouped by other values of c alone: far ends sharing them add up.
            counting.aggregates = [BoundAggregate(function: .sum, isDistinct: false, argument: .slot(path.f.slot))]
            return (start, call, counting, false)
        }
        return nil
    }

    /// x's MATCH, and the call of the kernel in `mode` on x's rows (all of them at once).
    static func callOf(_ path: Path, match: BoundMatch, mode: String) -> (BoundMatch, BoundCall) {
        var start = match
        start.patterns = [BoundPattern(nodes: [path.x], relationships: [])]
        start.predicate = SocialPlanner.conjunction(path.onX)
        start.introduced = match.introduced.filter { $0 == path.x.slot }
        start.relationshipGroups = [:]
        let label = { (node: BoundNodePattern) -> Expression in node.labels.first.map { .literal(.string($0)) } ?? .literal(.null) }
        var options: [(key: String, value: Expression)] = [
            (key: "types", value: .list(path.hops.map { .literal(.string($0.type)) })),
            (key: "directions", value: .list(path.hops.map { .literal(.integer(Int64($0.direction.rawValue))) })),
            (key: "labels", value: .list([label(path.f), label(path.c)])),
            (key: "mode", value: .literal(.string(mode))),
        ]
        if path.excludeStart { options.append((key: "excludeStart", value: .literal(.bool(true)))) }
        if match.group(of: path.relationships[0]) != match.group(of: path.relationships[1]) {
            options.append((key: "sameRelationship", value: .literal(.bool(true))))
        }
        if let hop = path.excludeNeighbours {
            options.append((key: "excludeNeighbours",
                            value: .list([.literal(.string(hop.type)), .literal(.integer(Int64(hop.direction.rawValue))),
                                          hop.label.map { .literal(.string($0)) } ?? .literal(.null)])))
        }
        // The count goes into f's slot: nothing after the projection can read f.
        let call = BoundCall(name: PathCountsProcedure.name, arguments: [.slot(path.x.slot), .map(options)],
                             outputs: [(column: 0, slot: path.c.slot), (column: 1, slot: path.f.slot)],
                             predicate: SocialPlanner.conjunction(path.onC), isReadOnly: true, gathersInput: true,
                             rule: "pathCounts")
        return (start, call)
    }

    /// The match's chain read from either end as `(x)-(f)-(c)`, when it is one the kernel walks.
    static func paths(_ match: BoundMatch) -> [Path] {
        let pattern = match.patterns[0]
        guard pattern.pathSlot == nil, pattern.nodes.count == 3, pattern.relationships.count == 2 else { return [] }
        for relationship in pattern.relationships {
            guard relationship.types.count == 1, relationship.properties.isEmpty,
                  relationship.length == nil, !match.boundBefore.contains(relationship.slot) else { return [] }
        }
        var result: [Path] = []
        for reversed in [false, true] {
            let nodes = reversed ? pattern.nodes.reversed() : pattern.nodes
            let relationships = reversed ? pattern.relationships.reversed() : pattern.relationships
            let (x, f, c) = (nodes[0], nodes[1], nodes[2])
            guard Set([x.slot, f.slot, c.slot]).count == 3, [f, c].allSatisfy({ node in
                !match.boundBefore.contains(node.slot) && node.properties.isEmpty && node.labels.count <= 1
            }) else { continue }
            let hops = relationships.map { ($0.types[0], Direction($0.direction, leavingLeft: !reversed)) }
            var path = Path(x: x, f: f, c: c, hops: hops, relationships: relationships.map(\.slot))
            let known = match.boundBefore.union([x.slot])
            var understood = true
            for conjunct in SocialPlanner.conjuncts(of: match.predicate) {
                if let slots = conjunct.referencedSlots, slots.isSubset(of: known) { path.onX.append(conjunct); continue }
                if SocialPlanner.isNotEqual(conjunct, x.slot, c.slot) { path.excludeStart = true; continue }
                if path.excludeNeighbours == nil, let hop = notAdjacent(conjunct, x.slot, c.slot) { path.excludeNeighbours = hop; continue }
                if let slots = conjunct.referencedSlots, slots.isSubset(of: match.boundBefore.union([c.slot])) {
                    path.onC.append(conjunct)
                    continue
                }
                understood = false
            }
            // A filter on c runs after the kernel has walked from every x: when x is a scan, the
            // batched executor, which filters c first and walks from there, does less.
            let xIsPinned = match.boundBefore.contains(x.slot) || !x.properties.isEmpty || !path.onX.isEmpty
            if understood && (path.onC.isEmpty || xIsPinned) { result.append(path) }
        }
        return result
    }

    /// `NOT (x)-[:T]-(c)` (either order, any direction, a label on c or none): the hop from x
    /// it forbids, and the label a neighbour must have to be left out.
    static func notAdjacent(_ e: Expression, _ x: Int, _ c: Int) -> (type: String, direction: Direction, label: String?)? {
        guard case .unary(.not, .patternPredicate(let predicate)) = e, predicate.predicate == nil, predicate.projection == nil else { return nil }
        var hop: (type: String, direction: Direction)?
        var label: String?
        for op in predicate.plan {
            switch op {
            case .argument(let s) where s == x || s == c: continue
            case .nodeFilter(_, let labels, let properties) where labels.isEmpty && properties.isEmpty: continue
            case .nodeFilter(c, let labels, let properties) where labels.count == 1 && properties.isEmpty && label == nil:
                label = labels[0]
            case .adjacencyCheck(let from, let to, let types, let direction)
                where hop == nil && types.count == 1 && Set([from, to]) == Set([x, c]) && from != to:
                hop = (types[0], Direction(direction, leavingLeft: from == x))
            default: return nil
            }
        }
        return hop.map { ($0.type, $0.direction, label) }
    }
}
