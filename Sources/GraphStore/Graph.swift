// Graph.swift — the in-memory property graph: its storage and the schema-name reads.
// Nodes live in a dense array indexed by id; adjacency is per node, per type, per direction, in
// one buffer per node (NodeAdjacency.swift), and a relationship is nothing but its two adjacency
// entries (and a live bit): readers hold it as a `Relationship` (id, type, ends). Reads are in Graph+Nodes / Graph+Relationships, writes
// and transactions in Graph+Transactions; indexes in Graph+Indexes.

/// The in-memory graph: a value type. Reads are plain methods; writes are mutating methods that
/// must be called inside a transaction (beginTransaction/commitTransaction/rollbackTransaction),
/// which records undo information and the redo `Mutation`s that go to the log.
public struct Graph: Sendable {
    /// One node slot: 24 bytes. A free slot has empty arrays (no heap memory); whether a slot is
    /// live is a bit in `liveNodes` (a flag here would pad the record to 32 bytes).
    struct NodeRecord: Sendable, Equatable {
        var labels: [LabelID] = []                 // ascending
        var properties: [PropertyEntry] = []       // insertion order
        var adjacency = NodeAdjacency()            // every type, both directions, one buffer
    }

    /// A relationship slot in a table indexed by id (12 bytes): what GraphBuilder collects and
    /// what bulk readers (snapshots) get from `relationshipSlots()`. The graph itself keeps no
    /// such table: a relationship is its two adjacency entries and a bit in `liveRelationships`.
    struct RelationshipRecord: Sendable, Equatable {
        static let freeType = RelationshipTypeID(rawValue: .max)
        var type = freeType
        var start = NodeID(rawValue: 0)
        var end = NodeID(rawValue: 0)
        var isLive: Bool { type != Self.freeType }
    }

    var labelTable = NameTable() { didSet { resolveStandardSocialNames() } }
    var typeTable = NameTable() { didSet { resolveStandardSocialNames() } }
    var keyTable = NameTable() { didSet { resolveStandardSocialNames() } }
    /// graphd's standard social names resolved to this graph's ids, resolved again whenever a
    /// name table changes (interning, a rollback, a bulk build); nil until one has. Every social
    /// query needs them, and resolving them is a dozen dictionary lookups.
    var standardSocialSchema: SocialSchema?
    var nodes: [NodeRecord] = []
    /// When each node and its relationships of each type last changed (ChangeVersions.swift).
    var versions = ChangeVersions()
    /// Which node slots are live.
    var liveNodes = NodeBitSet()
    var nodeIDAllocator = IDAllocator()
    /// Which relationship ids are live; the slots are `relationshipIDAllocator.capacity`.
    var liveRelationships = IDBitSet<RelationshipID>()
    var relationshipProperties: [RelationshipID: [PropertyEntry]] = [:]
    var relationshipIDAllocator = IDAllocator()
    /// Index == label id.
    var labelMembers: [NodeBitSet] = []
    /// In creation order.
    var propertyIndexes: [PropertyIndex] = []
    /// Full-text indexes (Search/), in creation order.
    var fullTextIndexes: [FullTextIndex] = []
    var transaction: Transaction?
    /// Ids a replayed mutation may name are bounded by the slots this many bytes hold (IDSlotLimit).
    var slotMemoryLimit = IDSlotLimit.physicalMemory

    public init() {}

    // MARK: schema names

    public func labelID(named name: String) -> LabelID? { labelTable.id(of: name).map(LabelID.init(rawValue:)) }
    public func relationshipTypeID(named name: String) -> RelationshipTypeID? {
        typeTable.id(of: name).map(RelationshipTypeID.init(rawValue:))
    }
    public func propertyKeyID(named name: String) -> PropertyKeyID? { keyTable.id(of: name).map(PropertyKeyID.init(rawValue:)) }
    public func name(of label: LabelID) -> String { labelTable.names[label.index] }
    public func name(of type: RelationshipTypeID) -> String { typeTable.names[type.index] }
    public func name(of key: PropertyKeyID) -> String { keyTable.names[key.index] }
    /// All label names; the index of a name is its id.
    public var labelNames: [String] { labelTable.names }
    public var relationshipTypeNames: [String] { typeTable.names }
    public var propertyKeyNames: [String] { keyTable.names }

    // MARK: counts

    /// How many labels, relationship types and property keys have names: a cheap check that a
    /// resolution of names to ids (SocialSchema) is still current while names are only added.
    public struct NameCounts: Sendable, Equatable {
        public var labels: Int
        public var types: Int
        public var keys: Int
    }
    public var nameCounts: NameCounts { NameCounts(labels: labelTable.count, types: typeTable.count, keys: keyTable.count) }

    public var nodeCount: Int { liveNodes.count }
    /// One more than the largest node id in use (ids are dense): the size of an array by node id.
    public var nodeIDBound: Int { nodes.count }
    public var relationshipCount: Int { liveRelationships.count }
}
