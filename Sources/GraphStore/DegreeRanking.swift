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
        if let neighborLabel, let limit, minimum >= 1 {
            return rankedByLabelledDegree(candidates, type: type, direction: direction, neighborLabel: neighborLabel,
                                          minimum: minimum, limit: limit, withTies: withTies)
        }
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

    /// The top `limit` by the count of neighbours with a label, which takes a walk of each
    /// node's lists. The stored degree is an upper bound of it: the candidates are taken from
    /// the highest stored degree down (a counting sort), each walked, until the next one's
    /// stored degree cannot reach the `limit`-th count found. Most nodes are never walked.
    func rankedByLabelledDegree(_ candidates: NodeBitSet, type: RelationshipTypeID, direction: Direction, neighborLabel: LabelID,
                                minimum: Int, limit: Int, withTies: Bool) -> [(node: NodeID, degree: Int)] {
        guard limit > 0 else { return [] }
        var bounds: [(node: NodeID, bound: Int)] = []
        bounds.reserveCapacity(candidates.count)
        var highest = 0
        candidates.forEachMember(notIn: []) { node in
            let bound = expansionCount(of: node, type: type, direction: direction)
            guard bound >= max(minimum, 1) else { return }
            bounds.append((node, bound))
            highest = max(highest, bound)
        }
        // Counting sort by bound, highest first; ascending ids within a bound.
        var starts = [Int](repeating: 0, count: highest + 2)
        for entry in bounds { starts[highest - entry.bound + 1] += 1 }
        for i in 1..<starts.count { starts[i] += starts[i - 1] }
        var order = [NodeID](repeating: NodeID(rawValue: 0), count: bounds.count)
        for entry in bounds {
            order[starts[highest - entry.bound]] = entry.node
            starts[highest - entry.bound] += 1
        }
        var found: [(node: NodeID, degree: Int)] = []
        // The counts found, for the `limit`-th highest of them.
        var best: [Int] = []
        var position = 0
        for bound in stride(from: highest, through: max(minimum, 1), by: -1) {
            let kth = best.count >= limit ? best[limit - 1] : Int.min
            // A node whose bound is below the k-th count can neither pass it nor tie with it.
            guard bound >= kth else { break }
            let end = starts[highest - bound]
            while position < end {
                let node = order[position]
                position += 1
                let degree = expansionCount(of: node, type: type, direction: direction, neighborLabel: neighborLabel)
                guard degree >= max(minimum, 1) else { continue }
                found.append((node, degree))
                let at = best.firstIndex { $0 < degree } ?? best.count
                if at < limit || withTies {
                    best.insert(degree, at: at)
                    if best.count > limit && !withTies { best.removeLast() }
                }
            }
        }
        found.sort { $0.degree != $1.degree ? $0.degree > $1.degree : $0.node < $1.node }
        guard found.count > limit else { return found }
        var end = limit
        if withTies { while end < found.count && found[end].degree == found[limit - 1].degree { end += 1 } }
        return Array(found[0..<end])
    }
}
