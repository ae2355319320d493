// Mutation.swift — one logged change to a graph, the unit of the redo log.
// Every mutation names the ids it used, and schema names are logged as they are interned,
// so replaying a log with `Graph.apply` rebuilds the graph with identical ids.

/// A single change recorded by a transaction and appended to the log on commit.
/// Detach-deleting a node is logged as the deletion of each relationship, then of the node.
public enum Mutation: Sendable, Equatable {
    case defineLabel(LabelID, String)
    case defineRelationshipType(RelationshipTypeID, String)
    case definePropertyKey(PropertyKeyID, String)
    case createNode(NodeID, labels: [LabelID], properties: [PropertyEntry])
    case createRelationship(RelationshipID, type: RelationshipTypeID, from: NodeID, to: NodeID,
                            properties: [PropertyEntry])
    /// Setting `.null` removes the property.
    case setNodeProperty(NodeID, PropertyKeyID, Value)
    /// Logged with the relationship's type and ends, so that whoever reads the log (change
    /// versions, the change feed, replicas) knows which nodes it touches without a lookup.
    case setRelationshipProperty(Relationship, PropertyKeyID, Value)
    /// The same change logged by relationship id alone (kind 7), which older logs hold. Read only.
    case setRelationshipPropertyByID(RelationshipID, PropertyKeyID, Value)
    case addLabel(NodeID, LabelID)
    case removeLabel(NodeID, LabelID)
    /// Logged with its type and ends: replay finds it in O(log degree), the graph keeping no
    /// table of relationships by id.
    case deleteRelationship(Relationship)
    /// A delete logged by relationship id alone (kind 10), which older logs may hold: replay
    /// looks the relationship up by a scan of the graph. Read; graphd writes `deleteRelationship`.
    case deleteRelationshipByID(RelationshipID)
    /// The node has no relationships left when this is applied.
    case deleteNode(NodeID)
    case createIndex(IndexDescriptor)
    case dropIndex(LabelID, PropertyKeyID)
    /// Defines the full-text index on a label or type as exactly this (created, or its
    /// properties changed), built over the entities that exist.
    case createFullTextIndex(FullTextIndexDescriptor)
    case dropFullTextIndex(FullTextEntity, UInt32)
}
