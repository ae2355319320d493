// GetDegree.swift — the degree rule (Neo4j's GetDegree): counting the rows of a one-hop
// expansion whose far end nothing reads is the node's stored degree, not a walk of its list.
// `MATCH (u:User)-[:FRIEND]-(f) RETURN u.id, count(f)` counts each user's FRIEND rows in
// O(log degree) instead of producing a row per friend; with `(f:User)`, in one walk of u's lists.

import GraphStore

/// The degree rule: a MATCH of one hop and the grouping projection after it.
enum GetDegree {
    /// The MATCH and projection that replace `match` and `projection`, or nil when the shape is
    /// not `(x …)-[:T]-(y)` (one type, any direction, y new without properties and with at most
    /// one label, the relationship new and without properties) grouped by values of x alone, with every aggregate `count(*)`,
    /// `count(y)` or `count(r)` (not DISTINCT). The MATCH keeps `(x …)` and its conditions on x,
    /// plus "x has such a relationship" (the expansion yields no row for a node without one);
    /// each count becomes the sum of x's expansion count over the group's rows.
    static func rewrite(_ match: BoundMatch, _ projection: BoundProjection) -> (match: BoundMatch, projection: BoundProjection)? {
        guard !match.isOptional, match.patterns.count == 1, projection.isAggregating else { return nil }
        let pattern = match.patterns[0]
        guard pattern.pathSlot == nil, pattern.nodes.count == 2, pattern.relationships.count == 1 else { return nil }
        let relationship = pattern.relationships[0]
        guard relationship.length == nil, relationship.types.count == 1, relationship.properties.isEmpty,
              !match.boundBefore.contains(relationship.slot) else { return nil }
        // Which end the projection reads: the other is the far end, which nothing may read.
        for (near, far) in [(0, 1), (1, 0)] {
            let x = pattern.nodes[near], y = pattern.nodes[far]
            guard x.slot != y.slot, !match.boundBefore.contains(y.slot), y.labels.count <= 1, y.properties.isEmpty else { continue }
            let unread: Set<Int> = [y.slot, relationship.slot]
            let known = match.boundBefore.union([x.slot])
            guard SocialPlanner.conjuncts(of: match.predicate).allSatisfy({ $0.referencedSlots?.isSubset(of: known) ?? false }),
                  countsRowsOnly(projection, known: known, unread: unread)
            else { continue }
            let count = expansionCount(of: x.slot, type: relationship.types[0],
                                       direction: Direction(relationship.direction, leavingLeft: near == 0), neighbourLabel: y.labels.first,
                                       location: SourceLocation(line: 0, column: 0, offset: 0))
            var start = match
            start.patterns = [BoundPattern(nodes: [x], relationships: [])]
            start.predicate = SocialPlanner.conjunction(SocialPlanner.conjuncts(of: match.predicate)
                                                        + [.binary(.greater, count, .literal(.integer(0)))])
            start.introduced = match.introduced.filter { $0 == x.slot }
            start.relationshipGroups = [:]
            var summed = projection
            summed.aggregates = projection.aggregates.map { _ in BoundAggregate(function: .sum, isDistinct: false, argument: count) }
            summed.rule = "degree"
            return (start, summed)
        }
        return nil
    }

    /// Whether `projection` only counts its input rows, grouped by what is `known`: every
    /// aggregate `count(*)` or `count(v)` (not DISTINCT) of an `unread` slot, which a matched row
    /// never holds null, and every other item, and the sort, reading `known` slots alone. Such a
    /// projection sees of its input only how many rows each group has.
    static func countsRowsOnly(_ projection: BoundProjection, known: Set<Int>, unread: Set<Int>) -> Bool {
        projection.isAggregating && !projection.sortSeesInput
            && projection.aggregates.allSatisfy({ aggregate in
                guard aggregate.function == .count, !aggregate.isDistinct else { return false }
                guard let argument = aggregate.argument else { return true }
                if case .slot(let s) = argument { return unread.contains(s) }
                return false
            })
            && projection.items.allSatisfy({ item in
                if case .aggregateResult = item.expression { return true }
                return item.expression.referencedSlots?.isSubset(of: known) ?? false
            })
    }

    /// `size([(x)-[:T]-(y) | …])`, a pattern comprehension of one hop from a node bound outside
    /// it to a new node without properties (at most one label), with no WHERE: the number of
    /// its rows, which is x's expansion count (the list's values, null or not, are each one
    /// element). Nil for any other expression.
    static func sizeOfExpansion(_ e: Expression) -> Expression? {
        guard case .function(let size) = e, size.scalar == .size, size.arguments.count == 1,
              case .patternComprehension(let comprehension) = size.arguments[0], comprehension.predicate == nil else { return nil }
        var x: Int?
        var hop: (type: String, direction: PatternDirection, far: Int)?
        var farLabel: String?
        for op in comprehension.plan {
            switch op {
            case .argument(let slot) where x == nil && hop == nil: x = slot
            case .nodeFilter(let slot, let labels, let properties) where slot == x && hop == nil && labels.isEmpty && properties.isEmpty:
                continue
            case .expand(let from, _, let to, let types, let direction, false, false, [], _)
                where from == x && hop == nil && types.count == 1 && to != x:
                hop = (types[0], direction, to)
            case .nodeFilter(let slot, let labels, let properties)
                where slot == hop?.far && labels.count <= 1 && properties.isEmpty && farLabel == nil:
                farLabel = labels.first
            default: return nil
            }
        }
        guard let x, let hop else { return nil }
        return expansionCount(of: x, type: hop.type, direction: Direction(hop.direction, leavingLeft: true), neighbourLabel: farLabel,
                              location: size.location)
    }

    /// The call of the expansion-count function (ScalarFunction.expansionCount) on slot `node`.
    static func expansionCount(of node: Int, type: String, direction: Direction, neighbourLabel: String?,
                               location: SourceLocation) -> Expression {
        .function(FunctionCall(
            name: ScalarFunction.expansionCount.rawValue, isDistinct: false, isStar: false,
            arguments: [.slot(node), .literal(.string(type)), .literal(.integer(Int64(direction.rawValue)))]
                + (neighbourLabel.map { [.literal(.string($0))] } ?? []),
            location: location, scalar: .expansionCount))
    }
}

extension Direction {
    /// The direction a relationship written `direction` is followed in, seen from its left
    /// node (`leavingLeft`) or its right one.
    init(_ direction: PatternDirection, leavingLeft: Bool) {
        switch direction {
        case .leftToRight: self = leavingLeft ? .outgoing : .incoming
        case .rightToLeft: self = leavingLeft ? .incoming : .outgoing
        case .either: self = .both
        }
    }
}
