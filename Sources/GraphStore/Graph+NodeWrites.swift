// Graph+NodeWrites.swift — creating and deleting nodes, their labels and properties.
// Public writes validate first (so a refused call changes nothing), then call the primitives
// below, which keep labels, label bitsets and indexes in step and are reused by rollback.

extension Graph {
    public mutating func createNode(labels: [LabelID], properties: [(key: PropertyKeyID, value: Value)]) throws(GraphError) -> NodeID {
        try createNode(id: nil, labels: labels, properties: [PropertyEntry](normalizing: properties))
    }

    /// Creates a node with the next free id, or with `requested` (replay).
    mutating func createNode(id requested: NodeID?, labels: [LabelID], properties: [PropertyEntry]) throws(GraphError) -> NodeID {
        requireTransaction()
        let labels = Array(Set(labels)).sorted()
        try checkNames(labels: labels)
        for entry in properties { try checkNames(key: entry.key) }
        for label in labels {
            for entry in properties { try checkUnique(label: label, key: entry.key, value: entry.value, node: nil) }
        }
        if let requested, requested.index >= nodes.count {
            let limit = IDSlotLimit.slots(for: slotMemoryLimit, bytesPerSlot: IDSlotLimit.nodeSlotBytes)
            if requested.index >= limit {
                throw GraphError(.invalidMutation, "cannot create " + IDSlotLimit.refusal(
                    entity: "node", id: Int64(requested.rawValue), limit: Int64(limit), bytesPerSlot: IDSlotLimit.nodeSlotBytes))
            }
        }
        guard let (raw, allocation) = nodeIDAllocator.allocate(requested?.rawValue) else {
            throw GraphError(.invalidMutation, "cannot create node \(requested!.rawValue): the id is in use")  // nil request never fails
        }
        let id = NodeID(rawValue: raw)
        if nodes.count < nodeIDAllocator.capacity {
            nodes.append(contentsOf: repeatElement(NodeRecord(), count: nodeIDAllocator.capacity - nodes.count))
        }
        insertNodeRecord(id, labels: labels, properties: properties)
        record(undo: .uncreateNode(id, allocation), redo: .createNode(id, labels: labels, properties: properties))
        return id
    }

    /// Deletes `node`; with `detach`, its relationships first (each logged), else it must have none.
    public mutating func deleteNode(_ node: NodeID, detach: Bool) throws(GraphError) {
        requireTransaction()
        guard contains(node) else { throw GraphError(.notFound, "Cannot delete node \(node.rawValue): it does not exist") }
        let record = nodes[node.index]
        if !record.adjacency.isEmpty {
            guard detach else {
                throw GraphError(.stillHasRelationships,
                                 "Cannot delete node \(node.rawValue): it still has relationships; use DETACH DELETE")
            }
            // Every relationship is resolved first (id, type, ends); then the node's own buffer
            // (possibly huge: a hub) goes in one piece and only the neighbours' lists shift:
            // O(degree + Σ neighbour degrees), not O(degree²). A self-loop, in both lists, goes once.
            var doomed: [Relationship] = []
            record.adjacency.forEachSegment { type, direction, list in
                if direction == .outgoing {
                    for p in list.indices {
                        doomed.append(Relationship(id: list.relationship(at: p), type: type, start: node, end: list[p]))
                    }
                } else {
                    for step in steps(of: node, type: type, direction: .incoming) where step.neighbor != node {
                        doomed.append(Relationship(id: step.relationship, type: type, start: step.neighbor, end: node))
                    }
                }
            }
            nodes[node.index].adjacency = NodeAdjacency()
            for relationship in doomed { deleteRelationship(relationship, keepingListsOf: node) }
        }
        removeNodeRecord(node)
        nodeIDAllocator.release(node.rawValue)
        self.record(undo: .undeleteNode(node, labels: record.labels, properties: record.properties), redo: .deleteNode(node))
    }

    /// Sets a node property; `.null` removes it. A unique index may refuse the value.
    public mutating func setProperty(_ key: PropertyKeyID, to value: Value, of node: NodeID) throws(GraphError) {
        requireTransaction()
        guard contains(node) else { throw GraphError(.notFound, "Cannot set property on node \(node.rawValue): it does not exist") }
        try checkNames(key: key)
        let current = nodes[node.index].properties.value(of: key)
        if current == value { return }
        for label in nodes[node.index].labels { try checkUnique(label: label, key: key, value: value, node: node) }
        let (old, position) = putNodeProperty(key, value, of: node, insertAt: nil)
        record(undo: .restoreNodeProperty(node, key, old, position: position), redo: .setNodeProperty(node, key, value))
    }

    /// Adds a label; no-op if the node has it. A unique index on the label may refuse it.
    public mutating func addLabel(_ label: LabelID, to node: NodeID) throws(GraphError) {
        requireTransaction()
        guard contains(node) else { throw GraphError(.notFound, "Cannot add a label to node \(node.rawValue): it does not exist") }
        try checkNames(labels: [label])
        if self.node(node, hasLabel: label) { return }
        for entry in nodes[node.index].properties {
            try checkUnique(label: label, key: entry.key, value: entry.value, node: node)
        }
        insertLabel(label, node)
        record(undo: .removeLabel(node, label), redo: .addLabel(node, label))
    }

    /// Removes a label; no-op if the node does not have it.
    public mutating func removeLabel(_ label: LabelID, from node: NodeID) throws(GraphError) {
        requireTransaction()
        guard contains(node) else { throw GraphError(.notFound, "Cannot remove a label from node \(node.rawValue): it does not exist") }
        try checkNames(labels: [label])
        guard self.node(node, hasLabel: label) else { return }
        deleteLabel(label, node)
        record(undo: .addLabel(node, label), redo: .removeLabel(node, label))
    }

    // MARK: primitives (no validation, no logging; used by writes and by rollback)

    mutating func insertNodeRecord(_ id: NodeID, labels: [LabelID], properties: [PropertyEntry]) {
        nodes[id.index] = NodeRecord(labels: labels, properties: properties)
        liveNodes.insert(id)
        for label in labels { labelMembers[label.index].insert(id) }
        updateIndexes(for: id, labels: labels, properties: properties, insert: true)
        if !fullTextIndexes.isEmpty { updateFullText(node: id, labels: labels, properties: properties, insert: true) }
    }

    /// - Precondition: the node has no relationships.
    mutating func removeNodeRecord(_ id: NodeID) {
        let record = nodes[id.index]
        updateIndexes(for: id, labels: record.labels, properties: record.properties, insert: false)
        if !fullTextIndexes.isEmpty { updateFullText(node: id, labels: record.labels, properties: record.properties, insert: false) }
        for label in record.labels { labelMembers[label.index].remove(id) }
        nodes[id.index] = NodeRecord()
        liveNodes.remove(id)
    }

    /// Writes `value` (null removes) and keeps indexes in step. An existing entry is updated in
    /// place, a new one goes at `insertAt` (rollback) or the end. Returns the previous value and
    /// the position it had (or the end, when absent), which is exactly what undo needs.
    mutating func putNodeProperty(_ key: PropertyKeyID, _ value: Value, of node: NodeID, insertAt: Int?) -> (Value, Int) {
        let labels = nodes[node.index].labels
        let position = nodes[node.index].properties.position(of: key)
        let old = position.map { nodes[node.index].properties[$0].value } ?? .null
        for i in propertyIndexes.indices where propertyIndexes[i].descriptor.key == key && labels.contains(propertyIndexes[i].descriptor.label) {
            propertyIndexes[i].remove(node, value: old)
            propertyIndexes[i].insert(node, value: value)
        }
        // A full-text document is every indexed property of the node (two may share a word), so
        // it is taken out whole with the old values and put back whole with the new.
        let fullText = !fullTextIndexes.isEmpty && fullTextReads(key: key, labels: labels)
        if fullText { updateFullText(node: node, labels: labels, properties: nodes[node.index].properties, insert: false) }
        nodes[node.index].properties.put(key, value, at: position, insertAt: insertAt)
        if fullText { updateFullText(node: node, labels: labels, properties: nodes[node.index].properties, insert: true) }
        return (old, position ?? nodes[node.index].properties.count)
    }

    mutating func insertLabel(_ label: LabelID, _ node: NodeID) {
        nodes[node.index].labels.insert(label, at: nodes[node.index].labels.firstIndex { $0 > label } ?? nodes[node.index].labels.count)
        labelMembers[label.index].insert(node)
        let properties = nodes[node.index].properties
        for i in propertyIndexes.indices where propertyIndexes[i].descriptor.label == label {
            propertyIndexes[i].insert(node, value: properties.value(of: propertyIndexes[i].descriptor.key))
        }
        if !fullTextIndexes.isEmpty { updateFullText(node: node, label: label, properties: properties, insert: true) }
    }

    mutating func deleteLabel(_ label: LabelID, _ node: NodeID) {
        let properties = nodes[node.index].properties
        for i in propertyIndexes.indices where propertyIndexes[i].descriptor.label == label {
            propertyIndexes[i].remove(node, value: properties.value(of: propertyIndexes[i].descriptor.key))
        }
        if !fullTextIndexes.isEmpty { updateFullText(node: node, label: label, properties: properties, insert: false) }
        nodes[node.index].labels.removeAll { $0 == label }
        labelMembers[label.index].remove(node)
    }
}

extension Array where Element == PropertyEntry {
    /// Sets, updates or removes one entry; `position` is the key's current position if present.
    mutating func put(_ key: PropertyKeyID, _ value: Value, at position: Int?, insertAt: Int?) {
        switch (position, value) {
        case (let p?, .null): remove(at: p)
        case (let p?, _): self[p].value = value
        case (nil, .null): break
        case (nil, _): insert(PropertyEntry(key: key, value: value), at: Swift.min(insertAt ?? count, count))
        }
    }
}
