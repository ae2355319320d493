// Graph+Nodes.swift — reading nodes: liveness, labels, properties and node scans.
// Writes to nodes are in Graph+Writes.swift.

extension Graph {
    public func contains(_ node: NodeID) -> Bool {
        node.index < nodes.count && nodes[node.index].isLive
    }

    /// The node's labels, ascending; empty for a missing node.
    public func labels(of node: NodeID) -> [LabelID] {
        contains(node) ? nodes[node.index].labels : []
    }

    public func node(_ node: NodeID, hasLabel label: LabelID) -> Bool {
        label.index < labelMembers.count && labelMembers[label.index].contains(node)
    }

    /// The value of `key` on `node`; `.null` when absent or the node is missing.
    public func property(_ key: PropertyKeyID, of node: NodeID) -> Value {
        contains(node) ? nodes[node.index].properties.value(of: key) : .null
    }

    /// The node's properties in the order they were first set.
    public func properties(of node: NodeID) -> [(key: PropertyKeyID, value: Value)] {
        contains(node) ? nodes[node.index].properties.tuples : []
    }

    /// All live nodes, ascending.
    /// - Complexity: O(slots).
    public func nodeIDs() -> [NodeID] {
        var result: [NodeID] = []
        result.reserveCapacity(liveNodeCount)
        for i in nodes.indices where nodes[i].isLive { result.append(NodeID(i)) }
        return result
    }

    /// Nodes with `label`, ascending.
    /// - Complexity: O(slots / 64 + result).
    public func nodeIDs(withLabel label: LabelID) -> [NodeID] {
        label.index < labelMembers.count ? labelMembers[label.index].members : []
    }

    /// Nodes with `label` whose property `key` equals `value` (Cypher equality: 1 == 1.0).
    /// Uses an index when one exists (O(1) expected), else scans the label.
    public func nodeIDs(withLabel label: LabelID, key: PropertyKeyID, equalTo value: Value) -> [NodeID] {
        if let index = propertyIndexes.first(where: { $0.descriptor.label == label && $0.descriptor.key == key }) {
            return index.nodes(equalTo: value)
        }
        guard IndexKey(value) != nil else { return [] }
        return nodeIDs(withLabel: label).filter { property(key, of: $0).cypherEquals(value) }
    }
}
