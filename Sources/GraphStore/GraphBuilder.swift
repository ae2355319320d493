// GraphBuilder.swift — builds a Graph in bulk (import, snapshot load, demo data) without
// transactions: nodes and relationships are collected into flat arrays, then every adjacency
// list is made by counting sorts (no comparison sort, no per-edge sorted insert), and label
// bitsets and indexes in one pass each. The result is indistinguishable from the same graph
// built by transactions (GraphBuilderTests compares every read).

/// Builds a Graph from bulk input (import, snapshot load, demo data) far faster than
/// transactions: no undo, no mutation records, adjacency sorted once at the end.
///
/// The `add…` calls never throw, so a bulk loop stays tight; a problem they can see (an id
/// given twice, a name id this builder did not hand out) is kept and thrown by `build()`,
/// together with what only the whole graph shows (a missing endpoint, a unique violation).
public struct GraphBuilder: Sendable {
    var labelTable = NameTable()
    var typeTable = NameTable()
    var keyTable = NameTable()
    var nodes: [Graph.NodeRecord] = []
    var liveNodes = NodeBitSet()
    var relationships: [Graph.RelationshipRecord] = []
    var liveRelationshipCount = 0
    var relationshipProperties: [RelationshipID: [PropertyEntry]] = [:]
    var indexDescriptors: [IndexDescriptor] = []
    /// Full-text indexes to build at the end (GraphBuilder+FullText.swift).
    var fullTextDescriptors: [FullTextIndexDescriptor] = []
    /// Nodes with the same label set share one array buffer (copy-on-write keeps that safe):
    /// a million `User` nodes cost one label array, not a million.
    var labelSets: [[LabelID]: [LabelID]] = [:]
    /// The first problem an `add…` call met, thrown by `build()`.
    var deferredError: GraphError?
    /// Explicit ids whose empty slots below them would need more memory than this are refused
    /// (a snapshot naming node 4,000,000,000 would otherwise make billions of free slots).
    let slotMemoryLimit: Int

    public init() { slotMemoryLimit = IDSlotLimit.physicalMemory }

    /// A builder refusing explicit ids whose slots would need more than `slotMemoryLimit` bytes.
    init(slotMemoryLimit: Int) { self.slotMemoryLimit = slotMemoryLimit }

    /// The first problem an `add…` call met so far (what `build()` would throw first).
    var firstProblem: GraphError? { deferredError }
    var labelCount: Int { labelTable.count }
    var propertyKeyCount: Int { keyTable.count }

    // MARK: names

    /// The id of label `name`; ids are interned in call order, as in the built graph.
    public mutating func label(_ name: String) -> LabelID {
        LabelID(rawValue: labelTable.id(of: name) ?? labelTable.append(name))
    }

    public mutating func relationshipType(_ name: String) -> RelationshipTypeID {
        RelationshipTypeID(rawValue: typeTable.id(of: name) ?? typeTable.append(name))
    }

    public mutating func propertyKey(_ name: String) -> PropertyKeyID {
        PropertyKeyID(rawValue: keyTable.id(of: name) ?? keyTable.append(name))
    }

    // MARK: contents

    /// Nodes added so far (live ones).
    public var nodeCount: Int { liveNodes.count }
    /// Relationships added so far.
    public var relationshipCount: Int { liveRelationshipCount }
    /// Indexes added so far, in order.
    public var indexes: [IndexDescriptor] { indexDescriptors }

    /// Adds a node. `id` nil: the next id (one past the highest so far). Explicit ids
    /// (snapshots) may leave holes; holes become free ids of the built graph, reused by later
    /// creates. Labels are deduplicated; properties as `createNode` normalises them (nulls
    /// dropped, a later duplicate key wins).
    public mutating func addNode(id: NodeID? = nil, labels: [LabelID],
                                 properties: [(key: PropertyKeyID, value: Value)]) -> NodeID {
        let id = id ?? NodeID(nodes.count)
        if id.index >= nodes.count, !withinSlotLimit("node", id.rawValue, bytesPerSlot: IDSlotLimit.nodeSlotBytes) { return id }
        if id.index >= nodes.count {
            nodes.append(contentsOf: repeatElement(Graph.NodeRecord(), count: id.index - nodes.count + 1))
        } else if liveNodes.contains(id) {
            note(GraphError(.invalidMutation, "cannot add node \(id.rawValue): a node with that id was already added"))
            return id
        }
        for label in labels where label.index >= labelTable.count {
            note(GraphError(.invalidMutation, "cannot add node \(id.rawValue): unknown label id \(label.rawValue)"))
        }
        for entry in properties where entry.key.index >= keyTable.count {
            note(GraphError(.invalidMutation, "cannot add node \(id.rawValue): unknown property key id \(entry.key.rawValue)"))
        }
        nodes[id.index] = Graph.NodeRecord(labels: sharedLabelSet(labels), properties: [PropertyEntry](normalizing: properties))
        liveNodes.insert(id)
        return id
    }

    /// Adds a relationship; its endpoints are checked by `build()`, so nodes and
    /// relationships may come in any order.
    @discardableResult
    public mutating func addRelationship(id: RelationshipID? = nil, type: RelationshipTypeID,
                                         from: NodeID, to: NodeID,
                                         properties: [(key: PropertyKeyID, value: Value)] = []) -> RelationshipID {
        let id = id ?? RelationshipID(relationships.count)
        guard type.index < typeTable.count else {
            note(GraphError(.invalidMutation, "cannot add relationship \(id.rawValue): unknown relationship type id \(type.rawValue)"))
            return id
        }
        if id.index >= relationships.count,
           !withinSlotLimit("relationship", id.rawValue, bytesPerSlot: IDSlotLimit.relationshipSlotBytes) { return id }
        if id.index >= relationships.count {
            relationships.append(contentsOf: repeatElement(Graph.RelationshipRecord(), count: id.index - relationships.count + 1))
        } else if relationships[id.index].isLive {
            note(GraphError(.invalidMutation, "cannot add relationship \(id.rawValue): a relationship with that id was already added"))
            return id
        }
        for entry in properties where entry.key.index >= keyTable.count {
            note(GraphError(.invalidMutation, "cannot add relationship \(id.rawValue): unknown property key id \(entry.key.rawValue)"))
        }
        relationships[id.index] = Graph.RelationshipRecord(type: type, start: from, end: to)
        liveRelationshipCount += 1
        let entries = [PropertyEntry](normalizing: properties)
        if !entries.isEmpty { relationshipProperties[id] = entries }
        return id
    }

    /// Property-less relationships in bulk, `from[i]` → `to[i]`, ids assigned consecutively
    /// after the highest so far: the ≥ 5 M relationships/s path (a 12-byte record each, no
    /// per-relationship checks until `build()`).
    /// - Precondition: `from.count == to.count`.
    public mutating func addRelationships(type: RelationshipTypeID, from: [NodeID], to: [NodeID]) {
        precondition(from.count == to.count, "addRelationships: \(from.count) start nodes but \(to.count) end nodes")
        guard type.index < typeTable.count else {
            note(GraphError(.invalidMutation, "cannot add relationships: unknown relationship type id \(type.rawValue)"))
            return
        }
        let needed = relationships.count + from.count
        // Grow geometrically: many small batches must not each reallocate exactly.
        if relationships.capacity < needed { relationships.reserveCapacity(Swift.max(needed, relationships.capacity * 2)) }
        from.withUnsafeBufferPointer { starts in
            to.withUnsafeBufferPointer { ends in
                for i in 0..<starts.count {
                    relationships.append(Graph.RelationshipRecord(type: type, start: starts[i], end: ends[i]))
                }
            }
        }
        liveRelationshipCount += from.count
    }

    /// Adds an equality index (with `unique`, also a constraint), built by `build()` over all
    /// nodes. Adding the same (label, key) twice makes `build()` throw `.indexExists`.
    public mutating func addIndex(label: LabelID, key: PropertyKeyID, unique: Bool) {
        guard label.index < labelTable.count, key.index < keyTable.count else {
            note(GraphError(.invalidMutation, "cannot add index: unknown label id \(label.rawValue) or property key id \(key.rawValue)"))
            return
        }
        indexDescriptors.append(IndexDescriptor(label: label, key: key, isUnique: unique))
    }

    /// Whether slots up to `id` fit the slot memory limit; if not, notes the refusal.
    private mutating func withinSlotLimit(_ entity: String, _ id: UInt32, bytesPerSlot: Int) -> Bool {
        let limit = IDSlotLimit.slots(for: slotMemoryLimit, bytesPerSlot: bytesPerSlot)
        if Int(id) < limit { return true }
        note(GraphError(.invalidMutation, IDSlotLimit.refusal(entity: entity, id: Int64(id), limit: Int64(limit), bytesPerSlot: bytesPerSlot)))
        return false
    }

    private mutating func note(_ error: GraphError) {
        if deferredError == nil { deferredError = error }
    }

    private mutating func sharedLabelSet(_ labels: [LabelID]) -> [LabelID] {
        if labels.isEmpty { return [] }
        let sorted = labels.count == 1 ? labels : Array(Set(labels)).sorted()
        if let shared = labelSets[sorted] { return shared }
        labelSets[sorted] = sorted
        return sorted
    }

    // MARK: build

    /// Sorts adjacency, builds label sets and indexes; throws if an endpoint is missing or a
    /// unique constraint fails (naming label, property and value), or the first problem an
    /// `add…` call met. Call it as `(consume builder).build()`: a builder left alive in the
    /// caller's scope keeps its relationship records (12 bytes each) until that scope ends.
    /// - Complexity: O(nodes × relationship types + relationships + indexed nodes).
    public consuming func build() throws(GraphError) -> Graph {
        if let deferredError { throw deferredError }
        var graph = Graph()
        graph.slotMemoryLimit = slotMemoryLimit
        swap(&graph.labelTable, &labelTable)
        swap(&graph.typeTable, &typeTable)
        swap(&graph.keyTable, &keyTable)
        swap(&graph.nodes, &nodes)
        swap(&graph.relationshipProperties, &relationshipProperties)
        swap(&graph.liveNodes, &liveNodes)
        labelSets = [:]

        var records: [Graph.RelationshipRecord] = []
        swap(&records, &relationships)
        try Self.checkEndpoints(graph, records)
        AdjacencyBuild.run(&graph, records)
        // The graph keeps a live bit a relationship (its type and ends are in the adjacency);
        // the 12-byte records are freed here, before the graph is handed out.
        for i in records.indices where records[i].isLive { graph.liveRelationships.insert(RelationshipID(i)) }
        graph.relationshipIDAllocator = Self.allocator(slots: records.count) { records[$0].isLive }
        records = []
        graph.nodeIDAllocator = Self.allocator(slots: graph.nodes.count) { graph.liveNodes.contains(NodeID($0)) }

        graph.labelMembers = Array(repeating: NodeBitSet(), count: graph.labelTable.count)
        for i in graph.nodes.indices where graph.liveNodes.contains(NodeID(i)) {
            for label in graph.nodes[i].labels { graph.labelMembers[label.index].insert(NodeID(i)) }
        }
        for descriptor in indexDescriptors {
            try Self.addIndex(descriptor, to: &graph)
        }
        try Self.addFullTextIndexes(fullTextDescriptors, to: &graph)
        return graph
    }

    /// Throws for the lowest-numbered relationship with an end that is not a node.
    private static func checkEndpoints(_ graph: Graph, _ relationships: [Graph.RelationshipRecord]) throws(GraphError) {
        let live = graph.liveNodes
        var missing: (RelationshipID, NodeID)?
        relationships.withUnsafeBufferPointer { records in
            for i in 0..<records.count where records[i].isLive {
                let r = records[i]
                if !live.contains(r.start) { missing = (RelationshipID(i), r.start); return }
                if !live.contains(r.end) { missing = (RelationshipID(i), r.end); return }
            }
        }
        if let (rel, node) = missing {
            throw GraphError(.notFound, "Cannot create relationship \(rel.rawValue): node \(node.rawValue) does not exist")
        }
    }

    /// The allocator a transaction-built graph would have after creating the live ids in
    /// ascending order: each hole pushed onto the free stack highest first, so later creates
    /// reuse the holes of the last gap first, lowest id first.
    private static func allocator(slots: Int, isLive: (Int) -> Bool) -> IDAllocator {
        var free: [UInt32] = []
        var previous = -1
        for i in 0..<slots where isLive(i) {
            if i - previous > 1 {
                for gap in stride(from: i - 1, through: previous + 1, by: -1) { free.append(UInt32(gap)) }
            }
            previous = i
        }
        return IDAllocator(capacity: slots, free: free)
    }

    private static func addIndex(_ descriptor: IndexDescriptor, to graph: inout Graph) throws(GraphError) {
        let label = descriptor.label, key = descriptor.key
        if graph.hasIndex(label: label, key: key) {
            throw GraphError(.indexExists, "an index on :\(graph.name(of: label))(\(graph.name(of: key))) already exists")
        }
        var index = PropertyIndex(descriptor)
        let members = graph.labelMembers[label.index].members
        if descriptor.isUnique { index.reserveCapacity(members.count) }  // one value per node
        for node in members {
            let value = graph.nodes[node.index].properties.value(of: key)
            if value == .null { continue }
            if descriptor.isUnique, let other = index.holder(of: value, other: node) {
                throw GraphError(.constraintViolation,
                    "unique constraint violation on :\(graph.name(of: label))(\(graph.name(of: key))): "
                    + "nodes \(other.rawValue) and \(node.rawValue) both have \(graph.name(of: key)) = \(value.cypherLiteral)")
            }
            index.insert(node, value: value)
        }
        graph.propertyIndexes.append(index)
    }
}
