// ImportTarget.swift — where an import puts what it reads: a Graph inside one transaction
// (written to the graph's log as one record), or a bulk builder such as the store's
// GraphBuilder (the bulk path: built without a transaction, installed as a snapshot). The runner
// only ever calls these methods.

import GraphStore

/// A graph under construction that an ImportRunner fills. The names carry an `import`
/// prefix so that conforming types (Graph, GraphBuilder) never get an ambiguous overload.
public protocol ImportTarget {
    mutating func importLabel(_ name: String) -> LabelID
    mutating func importRelationshipType(_ name: String) -> RelationshipTypeID
    mutating func importPropertyKey(_ name: String) -> PropertyKeyID
    mutating func importNode(labels: [LabelID], properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) -> NodeID
    mutating func importRelationship(type: RelationshipTypeID, from: NodeID, to: NodeID,
                                  properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError)
    /// Property-less relationships in bulk, `from[i]` → `to[i]`.
    mutating func importRelationships(type: RelationshipTypeID, from: [NodeID], to: [NodeID]) throws(GraphError)
    mutating func importIndex(label: LabelID, key: PropertyKeyID, unique: Bool) throws(GraphError)
}

/// A Graph with an open transaction as an import target: every call is an ordinary write,
/// so the whole import commits (and is logged) as one transaction, or rolls back.
extension Graph: ImportTarget {
    public mutating func importLabel(_ name: String) -> LabelID { internLabel(name) }
    public mutating func importRelationshipType(_ name: String) -> RelationshipTypeID { internRelationshipType(name) }
    public mutating func importPropertyKey(_ name: String) -> PropertyKeyID { internPropertyKey(name) }

    public mutating func importNode(labels: [LabelID], properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) -> NodeID {
        try createNode(labels: labels, properties: properties)
    }

    public mutating func importRelationship(type: RelationshipTypeID, from: NodeID, to: NodeID,
                                         properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) {
        _ = try createRelationship(type: type, from: from, to: to, properties: properties)
    }

    public mutating func importRelationships(type: RelationshipTypeID, from: [NodeID], to: [NodeID]) throws(GraphError) {
        for i in from.indices { _ = try createRelationship(type: type, from: from[i], to: to[i], properties: []) }
    }

    public mutating func importIndex(label: LabelID, key: PropertyKeyID, unique: Bool) throws(GraphError) {
        if !hasIndex(label: label, key: key) { try createIndex(label: label, key: key, unique: unique) }
    }
}


/// The store's bulk builder as an import target: the fast path. Nothing is checked per row
/// beyond what the runner checks itself; endpoints and unique constraints are checked once by
/// `GraphBuilder.build()`, and the built graph is installed as a snapshot.
extension GraphBuilder: ImportTarget {
    public mutating func importLabel(_ name: String) -> LabelID { label(name) }
    public mutating func importRelationshipType(_ name: String) -> RelationshipTypeID { relationshipType(name) }
    public mutating func importPropertyKey(_ name: String) -> PropertyKeyID { propertyKey(name) }

    public mutating func importNode(labels: [LabelID], properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) -> NodeID {
        addNode(labels: labels, properties: properties)
    }

    public mutating func importRelationship(type: RelationshipTypeID, from: NodeID, to: NodeID,
                                         properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) {
        addRelationship(type: type, from: from, to: to, properties: properties)
    }

    public mutating func importRelationships(type: RelationshipTypeID, from: [NodeID], to: [NodeID]) throws(GraphError) {
        addRelationships(type: type, from: from, to: to)
    }

    public mutating func importIndex(label: LabelID, key: PropertyKeyID, unique: Bool) throws(GraphError) {
        if !indexes.contains(where: { $0.label == label && $0.key == key }) { addIndex(label: label, key: key, unique: unique) }
    }
}
