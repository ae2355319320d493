// TriangleCount.swift — the triangles rule: counting the rows of a triangle pattern through a
// node, `(x)-[:T]-(a)-[:T]-(b)-[:T]-(x)` however its three relationships are written (one
// chain, three comma-separated pairs, several MATCH clauses), is the closing count of x's
// two-hop lists (Graph.triangleRowCount), not an ExpandInto per path.

import GraphStore

/// The triangles rule: a MATCH of three relationships closing on three nodes, and the
/// projection after it that only counts its rows.
enum TriangleCount {
    /// One relationship of the MATCH, as written: between the nodes in slots `left` and `right`.
    struct Edge {
        var left: Int
        var right: Int
        var relationship: BoundRelationshipPattern

        /// The hop from `from` (one of its ends) to the other: type and direction seen from `from`.
        func hop(from: Int) -> (type: String, direction: Direction) {
            (relationship.types[0], Direction(relationship.direction, leavingLeft: from == left))
        }

        func joins(_ p: Int, _ q: Int) -> Bool { (left == p && right == q) || (left == q && right == p) }
    }

    /// The MATCH, call and projection that replace `match` and `projection`, or nil when the
    /// shape is not a triangle counted by node x: three relationships (one type each, no
    /// properties, fixed length, new) joining three distinct nodes pairwise; the two other than
    /// x new, without properties, at most one label each, read by nothing after but `count`;
    /// the WHERE's conjuncts on x (and what was bound before) alone, but for `id(a) < id(b)`
    /// (or `>`) and `a <> b` between the other two; the projection counting rows grouped by
    /// values of x (GetDegree.countsRowsOnly). The MATCH keeps x and its conditions, the call
    /// yields x's row count (no row for none), and each count becomes the sum of it.
    static func rewrite(_ match: BoundMatch, _ projection: BoundProjection)
        -> (match: BoundMatch, call: BoundCall, projection: BoundProjection)? {
        guard !match.isOptional, projection.isAggregating else { return nil }
        var edges: [Edge] = []
        var nodes: [Int: BoundNodePattern] = [:]
        var order: [Int] = []
        for pattern in match.patterns {
            guard pattern.pathSlot == nil else { return nil }
            for node in pattern.nodes {
                if var seen = nodes[node.slot] {
                    seen.labels += node.labels.filter { !seen.labels.contains($0) }
                    seen.properties += node.properties
                    nodes[node.slot] = seen
                } else {
                    nodes[node.slot] = node
                    order.append(node.slot)
                }
            }
            for (i, relationship) in pattern.relationships.enumerated() {
                guard relationship.length == nil, relationship.types.count == 1, relationship.properties.isEmpty,
                      !match.boundBefore.contains(relationship.slot) else { return nil }
                edges.append(Edge(left: pattern.nodes[i].slot, right: pattern.nodes[i + 1].slot, relationship: relationship))
            }
        }
        guard edges.count == 3, order.count == 3 else { return nil }
        let relationships = Set(edges.map(\.relationship.slot))
        guard relationships.count == 3 else { return nil }
        let conjuncts = SocialPlanner.conjuncts(of: match.predicate)
        // The node the count is grouped by: the first whose two others qualify.
        for x in order {
            let others = order.filter { $0 != x }
            let (a, b) = (others[0], others[1])
            guard let first = edges.first(where: { $0.joins(x, a) }), let second = edges.first(where: { $0.joins(a, b) }),
                  let third = edges.first(where: { $0.joins(b, x) }) else { return nil }
            guard [a, b].allSatisfy({ slot in
                guard let node = nodes[slot] else { return false }
                return !match.boundBefore.contains(slot) && node.properties.isEmpty && node.labels.count <= 1
            }) else { continue }
            let known = match.boundBefore.union([x])
            guard GetDegree.countsRowsOnly(projection, known: known, unread: relationships.union([a, b])) else { continue }
            var onX: [Expression] = []
            var idOrder = TrianglePattern.Order.any
            var differ = false
            var understood = true
            for conjunct in conjuncts {
                if let slots = conjunct.referencedSlots, slots.isSubset(of: known) { onX.append(conjunct); continue }
                if SocialPlanner.isNotEqual(conjunct, a, b) { differ = true; continue }
                if let below = idBelow(conjunct), Set([below.0, below.1]) == Set([a, b]), idOrder == .any {
                    idOrder = below.0 == a ? .aBelowB : .aAboveB
                    continue
                }
                understood = false
            }
            guard understood, let x0 = nodes[x] else { continue }
            // `a <> b` with no id order: the pattern's rows but those through a self-loop at a.
            let orderCode = idOrder == .aBelowB ? 1 : idOrder == .aAboveB ? 2 : differ ? 3 : 0
            let hops = [first.hop(from: x), second.hop(from: a), third.hop(from: b)]
            var start = match
            start.patterns = [BoundPattern(nodes: [x0], relationships: [])]
            start.predicate = SocialPlanner.conjunction(onX)
            start.introduced = match.introduced.filter { $0 == x }
            start.relationshipGroups = [:]
            let label: (Int) -> Expression = { slot in nodes[slot]?.labels.first.map { .literal(.string($0)) } ?? .literal(.null) }
            var call = BoundCall(name: TriangleRowsProcedure.name,
                                 arguments: [.slot(x), .list(hops.map { .literal(.string($0.type)) }),
                                             .list(hops.map { .literal(.integer(Int64($0.direction.rawValue))) }),
                                             .list([label(a), label(b)]), .literal(.integer(Int64(orderCode)))],
                                 outputs: [(column: 0, slot: a)], predicate: nil, isReadOnly: true, rule: "triangles")
            call.mayNotHold = true
            var summed = projection
            summed.aggregates = projection.aggregates.map { _ in BoundAggregate(function: .sum, isDistinct: false, argument: .slot(a)) }
            return (start, call, summed)
        }
        return nil
    }

    /// `id(p) < id(q)` (or `id(q) > id(p)`): (p, q).
    static func idBelow(_ e: Expression) -> (Int, Int)? {
        func id(_ e: Expression) -> Int? {
            guard case .function(let call) = e, call.name.lowercased() == "id", call.arguments.count == 1,
                  case .slot(let s) = call.arguments[0] else { return nil }
            return s
        }
        switch e {
        case .binary(.less, let l, let r): if let p = id(l), let q = id(r) { return (p, q) }
        case .binary(.greater, let l, let r): if let p = id(l), let q = id(r) { return (q, p) }
        default: break
        }
        return nil
    }
}
