// Graph+RelationshipWrites.swift — creating and deleting relationships and their properties.
// A relationship is an entry in the start node's outgoing list of its type (neighbour and id,
// 8 bytes) and one in the end node's incoming list (neighbour, 4 bytes), plus a live bit; a
// self-loop has both in the same node. Deletes take a `Relationship` (id, type, ends), which
// every reader that found the relationship has, and check it against the lists.

extension Graph {
    public mutating func createRelationship(type: RelationshipTypeID, from start: NodeID, to end: NodeID,
                                            properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) -> Relationship {
        try createRelationship(id: nil, type: type, from: start, to: end, properties: [PropertyEntry](normalizing: properties))
    }

    /// Creates a relationship with the next free id, or with `requested` (replay).
    mutating func createRelationship(id requested: RelationshipID?, type: RelationshipTypeID, from start: NodeID, to end: NodeID,
                                     properties: [PropertyEntry]) throws(GraphError) -> Relationship {
        requireTransaction()
        try checkNames(type: type)
        for entry in properties { try checkNames(key: entry.key) }
        if !contains(start) { throw GraphError(.notFound, "Cannot create relationship: node \(start.rawValue) does not exist") }
        if !contains(end) { throw GraphError(.notFound, "Cannot create relationship: node \(end.rawValue) does not exist") }
        if let requested, requested.index >= relationshipIDAllocator.capacity {
            let limit = IDSlotLimit.slots(for: slotMemoryLimit, bytesPerSlot: IDSlotLimit.relationshipSlotBytes)
            if requested.index >= limit {
                throw GraphError(.invalidMutation, "cannot create " + IDSlotLimit.refusal(
                    entity: "relationship", id: Int64(requested.rawValue), limit: Int64(limit),
                    bytesPerSlot: IDSlotLimit.relationshipSlotBytes))
            }
        }
        guard let (raw, allocation) = relationshipIDAllocator.allocate(requested?.rawValue) else {
            throw GraphError(.invalidMutation, "cannot create relationship \(requested!.rawValue): the id is in use")  // nil request never fails
        }
        let id = RelationshipID(rawValue: raw)
        let relationship = Relationship(id: id, type: type, start: start, end: end)
        insertRelationshipRecord(relationship, properties: properties)
        record(undo: .uncreateRelationship(relationship, allocation),
               redo: .createRelationship(id, type: type, from: start, to: end, properties: properties))
        return relationship
    }

    /// Deletes `relationship`, which must exist with the type and ends it names.
    public mutating func deleteRelationship(_ relationship: Relationship) throws(GraphError) {
        requireTransaction()
        guard contains(relationship) else {
            let what = contains(relationship.id) ? "it does not join node \(relationship.start.rawValue) to node "
                + "\(relationship.end.rawValue) with type \(relationship.type.rawValue)" : "it does not exist"
            throw GraphError(.notFound, "Cannot delete relationship \(relationship.id.rawValue): \(what)")
        }
        deleteRelationship(relationship, keepingListsOf: nil)
    }

    /// Deletes `relationship` and logs it. `node`, when given, is a node being detach-deleted
    /// whose own buffer is already gone: its lists are left alone.
    mutating func deleteRelationship(_ relationship: Relationship, keepingListsOf node: NodeID?) {
        let properties = relationshipProperties[relationship.id]
        removeRelationshipRecord(relationship, keepingListsOf: node)
        relationshipIDAllocator.release(relationship.id.rawValue)
        record(undo: .undeleteRelationship(relationship, properties: properties), redo: .deleteRelationship(relationship))
    }

    /// Sets a relationship property; `.null` removes it. The relationship is named with its type
    /// and ends (as a pattern match yields it), which the log records with the change.
    /// - Complexity: O(log degree of its start node), to check that it exists as named.
    public mutating func setProperty(_ key: PropertyKeyID, to value: Value, of relationship: Relationship) throws(GraphError) {
        requireTransaction()
        guard contains(relationship) else {
            throw GraphError(.notFound, "Cannot set property on relationship \(relationship.id.rawValue): it does not exist")
        }
        try checkNames(key: key)
        if property(key, of: relationship.id) == value { return }
        let (old, position) = putRelationshipProperty(key, value, of: relationship.id, insertAt: nil)
        record(undo: .restoreRelationshipProperty(relationship.id, key, old, position: position),
               redo: .setRelationshipProperty(relationship, key, value))
    }

    // MARK: primitives (no validation, no logging; used by writes and by rollback)

    mutating func insertRelationshipRecord(_ r: Relationship, properties: [PropertyEntry]) {
        liveRelationships.insert(r.id)
        if !properties.isEmpty { relationshipProperties[r.id] = properties }
        if !fullTextIndexes.isEmpty { updateFullText(relationship: r.id, type: r.type, properties: properties, insert: true) }
        nodes[r.start.index].adjacency.insert(Adjacency(neighbor: r.end, relationship: r.id), type: r.type, direction: .outgoing)
        nodes[r.end.index].adjacency.insert(Adjacency(neighbor: r.start, relationship: r.id), type: r.type, direction: .incoming)
    }

    /// Removes `r` from both ends' lists, except those of `node`, and frees its slot.
    mutating func removeRelationshipRecord(_ r: Relationship, keepingListsOf node: NodeID? = nil) {
        if r.start != node {
            nodes[r.start.index].adjacency.remove(Adjacency(neighbor: r.end, relationship: r.id), type: r.type, direction: .outgoing)
        }
        if r.end != node {
            nodes[r.end.index].adjacency.remove(Adjacency(neighbor: r.start, relationship: r.id), type: r.type, direction: .incoming)
        }
        if !fullTextIndexes.isEmpty, let properties = relationshipProperties[r.id] {
            updateFullText(relationship: r.id, type: r.type, properties: properties, insert: false)
        }
        relationshipProperties[r.id] = nil
        liveRelationships.remove(r.id)
    }

    /// As `putNodeProperty`; relationships have no property indexes, but may have a full-text one.
    mutating func putRelationshipProperty(_ key: PropertyKeyID, _ value: Value, of relationship: RelationshipID,
                                          insertAt: Int?) -> (Value, Int) {
        // The type is looked up (a scan) only when a full-text index on relationships reads `key`.
        let fullTextType = fullTextIndexes.contains { $0.descriptor.entity == .relationship && $0.descriptor.keys.contains(key) }
            ? self.relationship(relationship)?.type : nil
        var properties = relationshipProperties.removeValue(forKey: relationship) ?? []
        let position = properties.position(of: key)
        let old = position.map { properties[$0].value } ?? .null
        if let fullTextType { updateFullText(relationship: relationship, type: fullTextType, properties: properties, insert: false) }
        properties.put(key, value, at: position, insertAt: insertAt)
        if let fullTextType { updateFullText(relationship: relationship, type: fullTextType, properties: properties, insert: true) }
        let result = (old, position ?? properties.count)
        if !properties.isEmpty { relationshipProperties[relationship] = properties }
        return result
    }
}
