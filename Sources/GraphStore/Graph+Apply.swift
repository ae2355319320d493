// Graph+Apply.swift — replays a logged Mutation with the ids it recorded.
// Used by log recovery; a mutation that does not fit the graph means a corrupt or foreign log.

extension Graph {
    /// Re-applies a logged mutation (replay), with the ids it recorded.
    public mutating func apply(_ mutation: Mutation) throws(GraphError) {
        requireTransaction()
        switch mutation {
        case .defineLabel(let id, let name):
            guard labelTable.id(of: name) == nil, id.index == labelTable.count else { throw misfit(mutation) }
            _ = internLabel(name)
        case .defineRelationshipType(let id, let name):
            guard typeTable.id(of: name) == nil, id.index == typeTable.count else { throw misfit(mutation) }
            _ = internRelationshipType(name)
        case .definePropertyKey(let id, let name):
            guard keyTable.id(of: name) == nil, id.index == keyTable.count else { throw misfit(mutation) }
            _ = internPropertyKey(name)
        case .createNode(let id, let labels, let properties):
            _ = try createNode(id: id, labels: labels, properties: properties)
        case .createRelationship(let id, let type, let start, let end, let properties):
            _ = try createRelationship(id: id, type: type, from: start, to: end, properties: properties)
        case .setNodeProperty(let node, let key, let value):
            try setProperty(key, to: value, of: node)
        case .setRelationshipProperty(let relationship, let key, let value):
            try setProperty(key, to: value, of: relationship)
        case .setRelationshipPropertyByID(let id, let key, let value):
            guard let relationship = relationship(id) else {
                throw GraphError(.notFound, "Cannot set property on relationship \(id.rawValue): it does not exist")
            }
            try setProperty(key, to: value, of: relationship)
        case .addLabel(let node, let label):
            try addLabel(label, to: node)
        case .removeLabel(let node, let label):
            try removeLabel(label, from: node)
        case .deleteRelationship(let relationship):
            try deleteRelationship(relationship)
        case .deleteRelationshipByID(let id):
            guard let relationship = relationship(id) else {
                throw GraphError(.notFound, "Cannot delete relationship \(id.rawValue): it does not exist")
            }
            try deleteRelationship(relationship)
        case .deleteNode(let node):
            try deleteNode(node, detach: false)
        case .createIndex(let descriptor):
            try createIndex(label: descriptor.label, key: descriptor.key, unique: descriptor.isUnique)
        case .dropIndex(let label, let key):
            try dropIndex(label: label, key: key)
        case .createFullTextIndex(let descriptor):
            try checkFullTextReplay(descriptor)
            defineFullTextIndex(descriptor)
        case .dropFullTextIndex(let entity, let schemaID):
            try dropFullTextIndex(entity, schemaID, keys: nil)
        }
    }

    private func misfit(_ mutation: Mutation) -> GraphError {
        GraphError(.invalidMutation, "cannot replay \(mutation): the name or id does not fit the graph")
    }
}
