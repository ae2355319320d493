// DegreeRanking.swift — "the k nodes with the most relationships of a type": every candidate's
// expansion count read once from its adjacency lists (O(log degree) each, a walk with a label
// on the far end), a histogram of the counts to find the k-th highest, and only the nodes at
// or above it sorted. No row per relationship, no sort of every node.

extension Graph {
    /// Nodes with `label` (every live node when nil), each with its expansion count of `type`
    /// in `direction` (`expansionCount(of:type:direction:neighborLabel:)`), highest count first,
    /// ties by ascending node id. Nodes whose count is below `minimum` are left out. With
    /// `limit`, only the first `limit`, or with `withTies` also every node tied with the last
    /// of those.
    /// - Complexity: O(slots / 64 + candidates × log degree + the answer × log answer), or with
    ///   `neighborLabel` a walk of every candidate's lists.
    public func rankedByDegree(label: LabelID?, type: RelationshipTypeID, direction: Direction, neighborLabel: LabelID?,
                               minimum: Int, limit: Int?, withTies: Bool) -> [(node: NodeID, degree: Int)] {
        let candidates = label.map { $0.index < labelMembers.count ? labelMembers[$0.index] : NodeBitSet() } ?? liveNodes
        var degrees: [(node: NodeID, degree: Int)] = []
        degrees.reserveCapacity(candidates.count)
        var highest = 0
        candidates.forEachMember(notIn: []) { node in
            let degree = expansionCount(of: node, type: type, direction: direction, neighborLabel: neighborLabel)
            guard degree >= max(minimum, 0) else { return }
            degrees.append((node, degree))
            highest = max(highest, degree)
        }
        var threshold = 0
        if let limit, limit < degrees.count {
            guard limit > 0 else { return [] }
            // The k-th highest count: walk a histogram of the counts down from the top.
            var histogram = [Int](repeating: 0, count: highest + 1)
            for entry in degrees { histogram[entry.degree] += 1 }
            var seen = 0
            threshold = highest
            while threshold > 0 {
                seen += histogram[threshold]
                if seen >= limit { break }
                threshold -= 1
            }
        }
        // Ascending ids already: a stable sort by count keeps them so within a count.
        var ranked = degrees.filter { $0.degree >= threshold }
        ranked.sort { $0.degree != $1.degree ? $0.degree > $1.degree : $0.node < $1.node }
        if let limit, !withTies, ranked.count > limit { ranked.removeLast(ranked.count - limit) }
        return ranked
    }
}
