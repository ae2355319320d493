// Graph+Nodes.swift — reading nodes: liveness, labels, properties and node scans.
// Writes to nodes are in Graph+Writes.swift.

extension Graph {
    public func contains(_ node: NodeID) -> Bool {
        liveNodes.contains(node)
    }

    /// The node's labels, ascending; empty for a missing node.
    public func labels(of node: NodeID) -> [LabelID] {
        contains(node) ? nodes[node.index].labels : []
    }

    @inline(__always) public func node(_ node: NodeID, hasLabel label: LabelID) -> Bool {
        label.index < labelMembers.count && labelMembers[label.index].contains(node)
    }

    /// The value of `key` on `node`; `.null` when absent or the node is missing.
    @inline(__always) public func property(_ key: PropertyKeyID, of node: NodeID) -> Value {
        if let i = indexedInteger(key, of: node) { return .integer(i) }
        return contains(node) ? nodes[node.index].properties.value(of: key) : .null
    }

    /// The node's integer value of `key` from a unique index's column: one load from a dense
    /// array instead of the node's record and then its property array (app ids are read for
    /// every row of most answers). nil means "not there", not "no value".
    @inline(__always) func indexedInteger(_ key: PropertyKeyID, of node: NodeID) -> Int64? {
        for i in propertyIndexes.indices where propertyIndexes[i].descriptor.key == key {
            if let v = propertyIndexes[i].integer(of: node) { return v }
        }
        return nil
    }

    /// The integer value of `key` on each of `nodes` (raw node ids, as `friendIDs(of:)` gives
    /// them), in order; nil where a node lacks it or holds something else. Mapping a kernel's
    /// answer back to an app's ids is this: a unique index's column is found once and read in
    /// one tight loop (by arithmetic where its values follow node order), so it costs about
    /// what copying the answer does.
    /// - Complexity: O(nodes).
    public func integerValues(_ key: PropertyKeyID, of nodes: [UInt32]) -> [Int64?] {
        let column = integerColumn(key)
        return nodes.map { integerValue(key, of: $0, column: column) }
    }

    /// The column of a unique index on `key` that holds integers, if there is one.
    func integerColumn(_ key: PropertyKeyID) -> IntegerColumn? {
        propertyIndexes.first(where: { $0.descriptor.key == key && $0.integers != nil })?.integers
    }

    /// Node `raw`'s integer `key`: from `column` when it holds it, else the general read
    /// (another label's index, or a value the column does not hold).
    @inline(__always) func integerValue(_ key: PropertyKeyID, of raw: UInt32, column: IntegerColumn?) -> Int64? {
        if let v = column?.value(of: NodeID(rawValue: raw)) { return v }
        if case .integer(let v) = property(key, of: NodeID(rawValue: raw)) { return v }
        return nil
    }

    /// The node's properties in the order they were first set.
    public func properties(of node: NodeID) -> [(key: PropertyKeyID, value: Value)] {
        contains(node) ? nodes[node.index].properties.tuples : []
    }

    /// All live nodes, ascending.
    /// - Complexity: O(slots / 64 + nodes).
    public func nodeIDs() -> [NodeID] { liveNodes.members }

    /// Nodes with `label`, ascending.
    /// - Complexity: O(slots / 64 + result).
    public func nodeIDs(withLabel label: LabelID) -> [NodeID] {
        label.index < labelMembers.count ? labelMembers[label.index].members : []
    }

    /// Nodes with `label` whose property `key` equals `value` (Cypher equality: 1 == 1.0).
    /// Uses an index when one exists (O(1) expected), else scans the label.
    public func nodeIDs(withLabel label: LabelID, key: PropertyKeyID, equalTo value: Value) -> [NodeID] {
        if let i = indexPosition(label: label, key: key) { return propertyIndexes[i].nodes(equalTo: value) }
        guard IndexKey(value) != nil else { return [] }
        return nodeIDs(withLabel: label).filter { property(key, of: $0).cypherEquals(value) }
    }

    /// Nodes of any labels, or none, whose property `key` equals `value` (Cypher equality),
    /// ascending. Each index on `key` answers for the nodes of its label; only the live nodes
    /// with none of those labels are read one by one (none, in a graph whose people all carry
    /// an indexed label): `(u {id: $id})` need not scan the graph.
    /// - Complexity: O(slots / 64 × (indexes on key + 1) + the nodes read).
    public func nodeIDs(key: PropertyKeyID, equalTo value: Value) -> [NodeID] {
        let indexes = IndexKey(value) == nil ? [] : propertyIndexes.indices.filter { propertyIndexes[$0].descriptor.key == key }
        var result: [NodeID] = []
        var covered: [NodeBitSet] = []
        for i in indexes {
            let label = propertyIndexes[i].descriptor.label
            result += propertyIndexes[i].nodes(equalTo: value)
            if label.index < labelMembers.count { covered.append(labelMembers[label.index]) }
        }
        liveNodes.forEachMember(notIn: covered) { node in
            if property(key, of: node).cypherEquals(value) { result.append(node) }
        }
        if indexes.count > 0 {
            // A node with two indexed labels is in both indexes.
            result.sort()
            result = result.enumerated().filter { $0.offset == 0 || result[$0.offset - 1] != $0.element }.map(\.element)
        }
        return result
    }

    /// The lowest node with `label` whose `key` equals `value` (the one node, under a unique
    /// constraint), without building a list when an index answers.
    public func firstNodeID(withLabel label: LabelID, key: PropertyKeyID, equalTo value: Value) -> NodeID? {
        if let i = indexPosition(label: label, key: key) {
            // Through the buffer: `propertyIndexes[i].firstNode` copied the index (a retain and
            // release of each of its tables) on every point lookup.
            return propertyIndexes.withUnsafeBufferPointer { $0[i].firstNode(equalTo: value) }
        }
        return nodeIDs(withLabel: label, key: key, equalTo: value).first
    }
}
