// Graph+PointerReads.swift — the reads the query engine makes for every row (a node's or a
// relationship's property, a label check, the next adjacency list), taken through a pointer
// to the graph. From another module, a call on a `Graph` value copies the whole struct (264
// bytes) onto the stack to pass it: about 15 ns a row. A pointer passes in a register, and
// each body here has the read inlined, so nothing is copied on this side either.

extension Graph {
    /// `property(_:of:)` of the graph at `graph`.
    public static func property(_ key: PropertyKeyID, of node: NodeID, in graph: UnsafePointer<Graph>) -> Value {
        graph.pointee.property(key, of: node)
    }

    /// `property(_:of:)` of a relationship of the graph at `graph`.
    public static func property(_ key: PropertyKeyID, of relationship: RelationshipID, in graph: UnsafePointer<Graph>) -> Value {
        graph.pointee.property(key, of: relationship)
    }

    /// `node(_:hasLabel:)` of the graph at `graph`.
    public static func node(_ node: NodeID, hasLabel label: LabelID, in graph: UnsafePointer<Graph>) -> Bool {
        graph.pointee.node(node, hasLabel: label)
    }

    /// `adjacency(of:type:direction:)` of the graph at `graph`.
    public static func adjacency(of node: NodeID, type: RelationshipTypeID, direction: Direction,
                                 in graph: UnsafePointer<Graph>) -> AdjacencyList {
        // From the records alone: a call on `graph.pointee` here would copy the graph.
        adjacency(of: node, type: type, direction: direction, in: graph.pointee.nodes)
    }
}
