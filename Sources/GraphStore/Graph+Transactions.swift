// Graph+Transactions.swift — begin/commit/rollback and the undo log behind them.
// Every write records its inverse (UndoEntry) and its redo (Mutation). Rollback applies the
// inverses newest first, so data, indexes, interned names and free-id lists end up exactly as
// they were at begin.

/// An open transaction's bookkeeping.
struct Transaction: Sendable {
    var undo: [UndoEntry] = []
    var redo: [Mutation] = []
}

/// The inverse of one primitive write.
enum UndoEntry: Sendable {
    case dropName(NameKind)
    case uncreateNode(NodeID, IDAllocator.Allocation)
    case undeleteNode(NodeID, labels: [LabelID], properties: [PropertyEntry])
    case uncreateRelationship(Relationship, IDAllocator.Allocation)
    case undeleteRelationship(Relationship, properties: [PropertyEntry]?)
    /// Put `value` back (null: remove); `position` is where a removed entry was.
    case restoreNodeProperty(NodeID, PropertyKeyID, Value, position: Int)
    case restoreRelationshipProperty(RelationshipID, PropertyKeyID, Value, position: Int)
    case addLabel(NodeID, LabelID)
    case removeLabel(NodeID, LabelID)
    case removeIndex(position: Int)
    case restoreIndex(PropertyIndex, position: Int)
    case removeFullTextIndex(position: Int)
    /// Put back a dropped or redefined full-text index.
    case restoreFullTextIndex(FullTextIndex, position: Int)
}

extension Graph {
    /// Whether a transaction is open (writes are allowed).
    public var isInTransaction: Bool { transaction != nil }

    /// - Precondition: no transaction is open.
    public mutating func beginTransaction() {
        precondition(transaction == nil, "a transaction is already open")
        transaction = Transaction()
    }

    /// Ends the transaction, keeping its writes; returns the redo records for the log.
    public mutating func commitTransaction() -> [Mutation] {
        precondition(transaction != nil, "no transaction is open")
        let redo = transaction!.redo  // checked just above
        transaction = nil
        nodeIDAllocator.settle()
        relationshipIDAllocator.settle()
        return redo
    }

    /// Ends the transaction, undoing its writes: the graph, its indexes and its interned
    /// names are exactly as before `beginTransaction`.
    public mutating func rollbackTransaction() {
        precondition(transaction != nil, "no transaction is open")
        let undo = transaction!.undo  // checked just above
        transaction = nil
        for entry in undo.reversed() { revert(entry) }
    }

    /// The redo records of the open transaction so far (GraphStore logs them before commit).
    var pendingMutations: [Mutation] { transaction?.redo ?? [] }

    /// Whether the open transaction has changed anything yet (it will then commit as one record).
    public var hasPendingWrites: Bool { !(transaction?.redo.isEmpty ?? true) }

    func requireTransaction() {
        precondition(transaction != nil, "graph writes need an open transaction (beginTransaction)")
    }

    mutating func record(undo: UndoEntry, redo: Mutation) {
        transaction?.undo.append(undo)
        transaction?.redo.append(redo)
    }

    private mutating func revert(_ entry: UndoEntry) {
        switch entry {
        case .dropName(.label):
            labelTable.removeLast()
            labelMembers.removeLast()
        case .dropName(.relationshipType):
            typeTable.removeLast()
        case .dropName(.propertyKey):
            keyTable.removeLast()
        case .uncreateNode(let id, let allocation):
            removeNodeRecord(id)
            nodeIDAllocator.undo(allocation, of: id.rawValue)
            nodes.removeLast(nodes.count - nodeIDAllocator.capacity)
            liveNodes.truncate(toSlots: nodeIDAllocator.capacity)
        case .undeleteNode(let id, let labels, let properties):
            nodeIDAllocator.unrelease(id.rawValue)
            insertNodeRecord(id, labels: labels, properties: properties)
        case .uncreateRelationship(let relationship, let allocation):
            removeRelationshipRecord(relationship)
            relationshipIDAllocator.undo(allocation, of: relationship.id.rawValue)
            liveRelationships.truncate(toSlots: relationshipIDAllocator.capacity)
        case .undeleteRelationship(let relationship, let properties):
            relationshipIDAllocator.unrelease(relationship.id.rawValue)
            insertRelationshipRecord(relationship, properties: properties ?? [])
        case .restoreNodeProperty(let node, let key, let value, let position):
            _ = putNodeProperty(key, value, of: node, insertAt: position)
        case .restoreRelationshipProperty(let rel, let key, let value, let position):
            _ = putRelationshipProperty(key, value, of: rel, insertAt: position)
        case .addLabel(let node, let label):
            insertLabel(label, node)
        case .removeLabel(let node, let label):
            deleteLabel(label, node)
        case .removeIndex(let position):
            propertyIndexes.remove(at: position)
        case .restoreIndex(let index, let position):
            propertyIndexes.insert(index, at: position)
        case .removeFullTextIndex(let position):
            fullTextIndexes.remove(at: position)
        case .restoreFullTextIndex(let index, let position):
            if position < fullTextIndexes.count, fullTextIndexes[position].descriptor.entity == index.descriptor.entity,
               fullTextIndexes[position].descriptor.schemaID == index.descriptor.schemaID {
                fullTextIndexes[position] = index   // a redefinition
            } else {
                fullTextIndexes.insert(index, at: position)  // a drop
            }
        }
    }
}
