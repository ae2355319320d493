// FullTextIndexDescriptor.swift — what a full-text index is defined by: nodes of a label or
// relationships of a type, the string properties it reads, an optional name (Neo4j's spelling)
// and the options FalkorDB accepts. It is schema: logged and kept in snapshots.

/// Which entities a full-text index covers.
public enum FullTextEntity: UInt8, Sendable, Hashable {
    case node = 1, relationship = 2
}

/// Names one full-text index. There is at most one per label (or relationship type), as in
/// FalkorDB; creating another on the same label adds its properties.
public struct FullTextIndexDescriptor: Sendable, Hashable {
    public var entity: FullTextEntity
    /// A LabelID's raw value for `.node`, a RelationshipTypeID's for `.relationship`.
    public var schemaID: UInt32
    /// The properties read, in the order they were added.
    public var keys: [PropertyKeyID]
    /// Neo4j's index name; empty for FalkorDB's unnamed ones.
    public var name: String
    /// FalkorDB's `language` option, kept and listed; graphd does no stemming.
    public var language: String
    /// Terms left out of the index (FalkorDB's `stopwords` option); empty by default (no stop
    /// words: names like Will and An must be found).
    public var stopwords: [String]

    public init(entity: FullTextEntity, schemaID: UInt32, keys: [PropertyKeyID], name: String = "",
                language: String = "", stopwords: [String] = []) {
        self.entity = entity
        self.schemaID = schemaID
        self.keys = keys
        self.name = name
        self.language = language
        self.stopwords = stopwords
    }

    /// Whether it covers the nodes of `label`.
    public func covers(label: LabelID) -> Bool { entity == .node && schemaID == label.rawValue }
}
