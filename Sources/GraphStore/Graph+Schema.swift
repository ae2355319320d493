// Graph+Schema.swift — interning names and creating/dropping property indexes.
// Both are transactional: a rollback forgets names interned and indexes made since begin.

extension Graph {
    /// The id of label `name`, interned (and logged) on first use.
    public mutating func internLabel(_ name: String) -> LabelID {
        if let id = labelTable.id(of: name) { return LabelID(rawValue: id) }
        requireTransaction()
        let id = LabelID(rawValue: labelTable.append(name))
        labelMembers.append(NodeBitSet())
        record(undo: .dropName(.label), redo: .defineLabel(id, name))
        return id
    }

    public mutating func internRelationshipType(_ name: String) -> RelationshipTypeID {
        if let id = typeTable.id(of: name) { return RelationshipTypeID(rawValue: id) }
        requireTransaction()
        let id = RelationshipTypeID(rawValue: typeTable.append(name))
        record(undo: .dropName(.relationshipType), redo: .defineRelationshipType(id, name))
        return id
    }

    public mutating func internPropertyKey(_ name: String) -> PropertyKeyID {
        if let id = keyTable.id(of: name) { return PropertyKeyID(rawValue: id) }
        requireTransaction()
        let id = PropertyKeyID(rawValue: keyTable.append(name))
        record(undo: .dropName(.propertyKey), redo: .definePropertyKey(id, name))
        return id
    }

    // MARK: indexes

    public func hasIndex(label: LabelID, key: PropertyKeyID) -> Bool {
        indexPosition(label: label, key: key) != nil
    }

    /// Every index, in creation order.
    public var indexes: [IndexDescriptor] { propertyIndexes.map(\.descriptor) }

    /// Whether a unique index on (label, key) exists: then at most one node holds a value, and
    /// `firstNodeID(withLabel:key:equalTo:)` is the whole answer.
    public func isUniquelyIndexed(label: LabelID, key: PropertyKeyID) -> Bool {
        indexPosition(label: label, key: key).map { propertyIndexes[$0].descriptor.isUnique } ?? false
    }

    func indexPosition(label: LabelID, key: PropertyKeyID) -> Int? {
        propertyIndexes.firstIndex { $0.descriptor.label == label && $0.descriptor.key == key }
    }

    /// Builds an index over the existing nodes; a unique one fails if two nodes share a value.
    public mutating func createIndex(label: LabelID, key: PropertyKeyID, unique: Bool) throws(GraphError) {
        requireTransaction()
        try checkNames(labels: [label], key: key)
        if hasIndex(label: label, key: key) {
            throw GraphError(.indexExists, "an index on :\(name(of: label))(\(name(of: key))) already exists")
        }
        var index = PropertyIndex(IndexDescriptor(label: label, key: key, isUnique: unique))
        for node in nodeIDs(withLabel: label) {
            let value = property(key, of: node)
            if value == .null { continue }
            if unique, let other = index.holder(of: value, other: node) {
                throw GraphError(.constraintViolation,
                    "cannot create unique constraint on :\(name(of: label))(\(name(of: key))): "
                    + "nodes \(other.rawValue) and \(node.rawValue) both have \(name(of: key)) = \(value.cypherLiteral)")
            }
            index.insert(node, value: value)
        }
        propertyIndexes.append(index)
        record(undo: .removeIndex(position: propertyIndexes.count - 1), redo: .createIndex(index.descriptor))
    }

    public mutating func dropIndex(label: LabelID, key: PropertyKeyID) throws(GraphError) {
        requireTransaction()
        guard let position = indexPosition(label: label, key: key) else {
            let labelName = label.index < labelTable.count ? name(of: label) : "#\(label.rawValue)"
            let keyName = key.index < keyTable.count ? name(of: key) : "#\(key.rawValue)"
            throw GraphError(.indexMissing, "there is no index on :\(labelName)(\(keyName))")
        }
        let index = propertyIndexes.remove(at: position)
        record(undo: .restoreIndex(index, position: position), redo: .dropIndex(label, key))
    }

    /// Refuses ids that were never interned (only a corrupt log or a caller bug makes them).
    func checkNames(labels: [LabelID] = [], type: RelationshipTypeID? = nil, key: PropertyKeyID? = nil) throws(GraphError) {
        for label in labels where label.index >= labelTable.count {
            throw GraphError(.invalidMutation, "unknown label id \(label.rawValue)")
        }
        if let type, type.index >= typeTable.count {
            throw GraphError(.invalidMutation, "unknown relationship type id \(type.rawValue)")
        }
        if let key, key.index >= keyTable.count {
            throw GraphError(.invalidMutation, "unknown property key id \(key.rawValue)")
        }
    }

    /// Throws if giving `node` the value `value` for `key` under `label` breaks a unique index.
    func checkUnique(label: LabelID, key: PropertyKeyID, value: Value, node: NodeID?) throws(GraphError) {
        if value == .null { return }
        for index in propertyIndexes where index.descriptor.isUnique
            && index.descriptor.label == label && index.descriptor.key == key {
            let other = index.holder(of: value, other: node ?? NodeID(rawValue: .max))
            if other != nil {
                throw GraphError(.constraintViolation,
                    "unique constraint violation on :\(name(of: label))(\(name(of: key))): "
                    + "a node with \(name(of: key)) = \(value.cypherLiteral) already exists")
            }
        }
    }

    /// Adds (or removes) `node` to every index its label set and properties put it in.
    mutating func updateIndexes(for node: NodeID, labels: [LabelID], properties: [PropertyEntry], insert: Bool) {
        for i in propertyIndexes.indices {
            let d = propertyIndexes[i].descriptor
            guard labels.contains(d.label) else { continue }
            let value = properties.value(of: d.key)
            if insert { propertyIndexes[i].insert(node, value: value) } else { propertyIndexes[i].remove(node, value: value) }
        }
    }
}
