// Graph+FullText.swift — creating, changing and dropping full-text indexes, and keeping them in
// step with every write. Like property indexes they are transactional (a rollback restores the
// index as it was) and schema (each definition is logged as a whole, so replay is exact).

extension Graph {
    /// Every full-text index's definition, in creation order.
    public var fullTextIndexDescriptors: [FullTextIndexDescriptor] { fullTextIndexes.map(\.descriptor) }

    /// The full-text index on `entity` `schemaID`, if any.
    public func fullTextIndex(_ entity: FullTextEntity, _ schemaID: UInt32) -> FullTextIndex? {
        fullTextPosition(entity, schemaID).map { fullTextIndexes[$0] }
    }

    /// The full-text index called `name` (Neo4j's names), if any.
    public func fullTextIndex(named name: String) -> FullTextIndex? {
        fullTextIndexes.first { !$0.descriptor.name.isEmpty && $0.descriptor.name == name }
    }

    func fullTextPosition(_ entity: FullTextEntity, _ schemaID: UInt32) -> Int? {
        fullTextIndexes.firstIndex { $0.descriptor.entity == entity && $0.descriptor.schemaID == schemaID }
    }

    /// Creates a full-text index, or adds properties to the one on the same label or type (its
    /// name and options stay: FalkorDB's "configuration can't change if index exists"). Fails
    /// when every property is already indexed.
    public mutating func createFullTextIndex(_ descriptor: FullTextIndexDescriptor) throws(GraphError) {
        requireTransaction()
        try checkFullText(descriptor)
        var merged = descriptor
        if let position = fullTextPosition(descriptor.entity, descriptor.schemaID) {
            merged = fullTextIndexes[position].descriptor
            let added = descriptor.keys.filter { !merged.keys.contains($0) }
            guard !added.isEmpty else {
                throw GraphError(.indexExists, "a full-text index on \(fullTextSubject(descriptor)) over "
                                 + descriptor.keys.map { name(of: $0) }.joined(separator: ", ") + " already exists")
            }
            merged.keys.append(contentsOf: added)
        } else if !descriptor.name.isEmpty, fullTextIndex(named: descriptor.name) != nil {
            throw GraphError(.indexExists, "an index named '\(descriptor.name)' already exists")
        }
        defineFullTextIndex(merged)
    }

    /// Drops properties `keys` from the full-text index on `entity` `schemaID` (nil: all of them,
    /// dropping the index); an index left with none is dropped.
    public mutating func dropFullTextIndex(_ entity: FullTextEntity, _ schemaID: UInt32, keys: [PropertyKeyID]?) throws(GraphError) {
        requireTransaction()
        guard let position = fullTextPosition(entity, schemaID) else {
            throw GraphError(.indexMissing, "there is no full-text index on \(fullTextSubject(entity, schemaID))")
        }
        var descriptor = fullTextIndexes[position].descriptor
        if let keys {
            let missing = keys.filter { !descriptor.keys.contains($0) }
            if !missing.isEmpty {
                throw GraphError(.indexMissing, "the full-text index on \(fullTextSubject(entity, schemaID)) does not cover "
                                 + missing.map { $0.index < keyTable.count ? name(of: $0) : "#\($0.rawValue)" }.joined(separator: ", "))
            }
            descriptor.keys.removeAll { keys.contains($0) }
        } else {
            descriptor.keys = []
        }
        if descriptor.keys.isEmpty {
            let index = fullTextIndexes.remove(at: position)
            record(undo: .restoreFullTextIndex(index, position: position), redo: .dropFullTextIndex(entity, schemaID))
        } else {
            defineFullTextIndex(descriptor)
        }
    }

    /// Makes the index on the descriptor's label or type exactly `descriptor`, built over the
    /// existing entities, replacing one there (replay applies logged definitions with this).
    mutating func defineFullTextIndex(_ descriptor: FullTextIndexDescriptor) {
        let index = buildFullTextIndex(descriptor)
        if let position = fullTextPosition(descriptor.entity, descriptor.schemaID) {
            let old = fullTextIndexes[position]
            fullTextIndexes[position] = index
            record(undo: .restoreFullTextIndex(old, position: position), redo: .createFullTextIndex(descriptor))
        } else {
            fullTextIndexes.append(index)
            record(undo: .removeFullTextIndex(position: fullTextIndexes.count - 1), redo: .createFullTextIndex(descriptor))
        }
    }

    /// A full-text index over the entities that exist now (also used by bulk builds).
    func buildFullTextIndex(_ descriptor: FullTextIndexDescriptor) -> FullTextIndex {
        var index = FullTextIndex(descriptor)
        switch descriptor.entity {
        case .node:
            let label = LabelID(rawValue: descriptor.schemaID)
            guard label.index < labelMembers.count else { return index }
            let members = labelMembers[label.index].members  // ascending, as the bulk load needs
            index.bulkLoad(members.lazy.map { ($0.rawValue, self.nodes[$0.index].properties) })
        case .relationship:
            let type = RelationshipTypeID(rawValue: descriptor.schemaID)
            guard !relationshipProperties.isEmpty else { return index }
            let slots = relationshipSlots()  // type by id in one pass (the graph keeps no table)
            for (id, properties) in relationshipProperties.sorted(by: { $0.key < $1.key })
            where id.index < slots.count && slots[id.index].type == type {
                index.update(id.rawValue, properties: properties, insert: true)
            }
        }
        return index
    }

    func checkFullText(_ descriptor: FullTextIndexDescriptor) throws(GraphError) {
        switch descriptor.entity {
        case .node: try checkNames(labels: [LabelID(rawValue: descriptor.schemaID)])
        case .relationship: try checkNames(type: RelationshipTypeID(rawValue: descriptor.schemaID))
        }
        guard !descriptor.keys.isEmpty else { throw GraphError(.invalidMutation, "a full-text index needs at least one property") }
        for key in descriptor.keys { try checkNames(key: key) }
    }

    func fullTextSubject(_ descriptor: FullTextIndexDescriptor) -> String { fullTextSubject(descriptor.entity, descriptor.schemaID) }

    func fullTextSubject(_ entity: FullTextEntity, _ schemaID: UInt32) -> String {
        switch entity {
        case .node: return ":" + (Int(schemaID) < labelTable.count ? name(of: LabelID(rawValue: schemaID)) : "#\(schemaID)")
        case .relationship:
            return "[:" + (Int(schemaID) < typeTable.count ? name(of: RelationshipTypeID(rawValue: schemaID)) : "#\(schemaID)") + "]"
        }
    }

    // MARK: keeping indexes in step (called by the write primitives, rollback included)

    /// Adds or removes a node's document in the indexes on `labels`.
    mutating func updateFullText(node: NodeID, labels: [LabelID], properties: [PropertyEntry], insert: Bool) {
        for i in fullTextIndexes.indices where fullTextIndexes[i].descriptor.entity == .node
            && labels.contains(LabelID(rawValue: fullTextIndexes[i].descriptor.schemaID)) {
            fullTextIndexes[i].update(node.rawValue, properties: properties, insert: insert)
        }
    }

    /// Adds or removes a node's document in the index on `label`.
    mutating func updateFullText(node: NodeID, label: LabelID, properties: [PropertyEntry], insert: Bool) {
        if let i = fullTextPosition(.node, label.rawValue) {
            fullTextIndexes[i].update(node.rawValue, properties: properties, insert: insert)
        }
    }

    /// Whether changing `key` of a node with `labels` touches a full-text index.
    func fullTextReads(key: PropertyKeyID, labels: [LabelID]) -> Bool {
        fullTextIndexes.contains { $0.descriptor.entity == .node && $0.descriptor.keys.contains(key)
            && labels.contains(LabelID(rawValue: $0.descriptor.schemaID)) }
    }

    /// Adds or removes a relationship's document in the index on its type.
    mutating func updateFullText(relationship: RelationshipID, type: RelationshipTypeID, properties: [PropertyEntry], insert: Bool) {
        if let i = fullTextPosition(.relationship, type.rawValue) {
            fullTextIndexes[i].update(relationship.rawValue, properties: properties, insert: insert)
        }
    }

    /// Whether changing `key` of a relationship of `type` touches a full-text index.
    func fullTextReads(key: PropertyKeyID, type: RelationshipTypeID) -> Bool {
        fullTextIndexes.contains { $0.descriptor.entity == .relationship && $0.descriptor.schemaID == type.rawValue
            && $0.descriptor.keys.contains(key) }
    }
}

extension Graph {
    /// A logged definition must name ids the graph has (a corrupt log otherwise).
    func checkFullTextReplay(_ descriptor: FullTextIndexDescriptor) throws(GraphError) {
        try checkFullText(descriptor)
    }
}
