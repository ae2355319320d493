// Graph+RelationshipWrites.swift — creating and deleting relationships and their properties.
// A relationship is its two ends (8 bytes) plus an entry in the start node's outgoing list of its
// type (neighbour and id, 8 bytes) and the end node's incoming list (neighbour, 4 bytes); a
// self-loop has both in the same node.

extension Graph {
    public mutating func createRelationship(type: RelationshipTypeID, from start: NodeID, to end: NodeID,
                                            properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) -> RelationshipID {
        try createRelationship(id: nil, type: type, from: start, to: end, properties: [PropertyEntry](normalizing: properties))
    }

    /// Creates a relationship with the next free id, or with `requested` (replay).
    mutating func createRelationship(id requested: RelationshipID?, type: RelationshipTypeID, from start: NodeID, to end: NodeID,
                                     properties: [PropertyEntry]) throws(GraphError) -> RelationshipID {
        requireTransaction()
        try checkNames(type: type)
        for entry in properties { try checkNames(key: entry.key) }
        if !contains(start) { throw GraphError(.notFound, "Cannot create relationship: node \(start.rawValue) does not exist") }
        if !contains(end) { throw GraphError(.notFound, "Cannot create relationship: node \(end.rawValue) does not exist") }
        if let requested, requested.index >= relationships.count {
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
        if relationships.count < relationshipIDAllocator.capacity {
            relationships.append(contentsOf: repeatElement(RelationshipEnds.free, count: relationshipIDAllocator.capacity - relationships.count))
        }
        insertRelationshipRecord(id, RelationshipRecord(type: type, start: start, end: end), properties: properties)
        record(undo: .uncreateRelationship(id, allocation),
               redo: .createRelationship(id, type: type, from: start, to: end, properties: properties))
        return id
    }

    public mutating func deleteRelationship(_ relationship: RelationshipID) throws(GraphError) {
        requireTransaction()
        guard contains(relationship) else {
            throw GraphError(.notFound, "Cannot delete relationship \(relationship.rawValue): it does not exist")
        }
        deleteRelationship(relationship, relationshipRecord(of: relationship), keepingListsOf: nil)
    }

    /// Deletes relationship `id` (`saved`: its type and ends) and logs it. `node`, when given,
    /// is a node being detach-deleted whose own buffer is already gone: its lists are left alone.
    mutating func deleteRelationship(_ id: RelationshipID, _ saved: RelationshipRecord, keepingListsOf node: NodeID?) {
        let properties = relationshipProperties[id]
        removeRelationshipRecord(id, saved, keepingListsOf: node)
        relationshipIDAllocator.release(id.rawValue)
        record(undo: .undeleteRelationship(id, saved, properties: properties), redo: .deleteRelationship(id))
    }

    /// Sets a relationship property; `.null` removes it.
    public mutating func setProperty(_ key: PropertyKeyID, to value: Value, of relationship: RelationshipID) throws(GraphError) {
        requireTransaction()
        guard contains(relationship) else {
            throw GraphError(.notFound, "Cannot set property on relationship \(relationship.rawValue): it does not exist")
        }
        try checkNames(key: key)
        if property(key, of: relationship) == value { return }
        let (old, position) = putRelationshipProperty(key, value, of: relationship, insertAt: nil)
        record(undo: .restoreRelationshipProperty(relationship, key, old, position: position),
               redo: .setRelationshipProperty(relationship, key, value))
    }

    // MARK: primitives (no validation, no logging; used by writes and by rollback)

    mutating func insertRelationshipRecord(_ id: RelationshipID, _ record: RelationshipRecord, properties: [PropertyEntry]) {
        relationships[id.index] = record.ends
        if !properties.isEmpty { relationshipProperties[id] = properties }
        nodes[record.start.index].adjacency.insert(Adjacency(neighbor: record.end, relationship: id), type: record.type, direction: .outgoing)
        nodes[record.end.index].adjacency.insert(Adjacency(neighbor: record.start, relationship: id), type: record.type, direction: .incoming)
        liveRelationshipCount += 1
    }

    /// Removes relationship `id` (`record`: its type and ends, looked up when nil) from both
    /// ends' lists, except those of `node`, and frees its slot.
    mutating func removeRelationshipRecord(_ id: RelationshipID, _ record: RelationshipRecord? = nil, keepingListsOf node: NodeID? = nil) {
        let record = record ?? relationshipRecord(of: id)
        if record.start != node {
            nodes[record.start.index].adjacency.remove(Adjacency(neighbor: record.end, relationship: id), type: record.type, direction: .outgoing)
        }
        if record.end != node {
            nodes[record.end.index].adjacency.remove(Adjacency(neighbor: record.start, relationship: id), type: record.type, direction: .incoming)
        }
        relationshipProperties[id] = nil
        relationships[id.index] = .free
        liveRelationshipCount -= 1
    }

    /// As `putNodeProperty`, without indexes (relationships are not indexed).
    mutating func putRelationshipProperty(_ key: PropertyKeyID, _ value: Value, of relationship: RelationshipID,
                                          insertAt: Int?) -> (Value, Int) {
        var properties = relationshipProperties.removeValue(forKey: relationship) ?? []
        let position = properties.position(of: key)
        let old = position.map { properties[$0].value } ?? .null
        properties.put(key, value, at: position, insertAt: insertAt)
        let result = (old, position ?? properties.count)
        if !properties.isEmpty { relationshipProperties[relationship] = properties }
        return result
    }
}
