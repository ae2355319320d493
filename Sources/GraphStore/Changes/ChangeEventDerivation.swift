// ChangeEventDerivation.swift — turns one commit's log record into its change events, reading
// the graph for what the record does not say: app ids, labels, and an event's host and guests.
// The graph read is the current one (the feed derives right after the commit is published, the
// log replay later): a node deleted in the record is never looked up (its id may be reused), so
// it is named by its node id alone unless the record created it. Rules (docs/social.md):
//   FRIEND created                       → friend-accepted to both ends (a request accepted, two
//                                          requests crossing, or a plain CREATE)
//   FRIEND_REQUEST created, no FRIEND     → friend-request to its recipient
//   FRIEND deleted, not re-created       → friend-removed to both ends (neutral: a block says no more)
//   BLOCKED created / deleted            → friend-blocked / friend-unblocked to the blocker only
//   :Event created                       → event-created to its hosts and attendees
//   INVITED created                      → event-invited to the guest
//   an event's properties, labels or HOSTS/INVITED/ATTENDING changed, or the event deleted
//                                        → event-updated to host and guests (not to one just invited)
//   a :User's own properties or labels changed → profile-updated to that user

extension GraphStore {
    /// The events of `records` (ascending, as published), derived under the read lock a few
    /// records at a time: a burst of thousands must not keep writers waiting for all of them.
    public func derive(_ records: [LogRecord]) -> [DerivedCommit] {
        var out: [DerivedCommit] = []
        out.reserveCapacity(records.count)
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + 16, records.endIndex)
            lock.withReadLock {
                let history = changes.history.id
                for record in records[start..<end] { out.append(graph.derive(record, history: history)) }
            }
            start = end
        }
        return out
    }
}

extension Graph {
    /// The events of one committed record, named with this graph's names and ids.
    public func derive(_ record: LogRecord, history: String) -> DerivedCommit {
        var reader = RecordReader(graph: self, schema: socialSchema())
        reader.read(record.mutations)
        return DerivedCommit(sequence: record.sequence, commitTime: record.commitTime, history: history,
                             social: reader.socialEvents(), changes: reader.entityChanges())
    }
}

/// One pass over a record's mutations, then the rules above over what it collected.
private struct RecordReader {
    let graph: Graph
    let schema: SocialSchema

    /// Nodes the record created, with their labels, in order.
    var createdNodes: [NodeID: [LabelID]] = [:]
    /// Nodes the record deleted.
    var deletedNodes: Set<NodeID> = []
    /// App ids the record itself gave (a node created or re-keyed in it).
    var recordIDs: [NodeID: Value] = [:]
    /// Every node and relationship change in record order, collapsed per entity.
    var changes: [Change] = []
    var nodeChangeIndex: [NodeID: Int] = [:]
    var relationshipChangeIndex: [RelationshipID: Int] = [:]
    var createdRelationships: [Relationship] = []
    var deletedRelationships: [Relationship] = []
    /// Nodes whose own properties or labels changed (created ones excluded).
    var touchedNodes: [NodeID] = []

    struct Change {
        var operation: EntityChange.Operation
        var node: NodeID?
        var relationship: Relationship?
        var changed: [String] = []
    }

    init(graph: Graph, schema: SocialSchema) {
        self.graph = graph
        self.schema = schema
    }

    mutating func read(_ mutations: [Mutation]) {
        for mutation in mutations {
            switch mutation {
            case .createNode(let node, let labels, let properties):
                createdNodes[node] = labels
                deletedNodes.remove(node)
                if let key = schema.id ?? graph.propertyKeyID(named: SocialNames.standard.id),
                   let value = properties.first(where: { $0.key == key })?.value {
                    recordIDs[node] = value
                }
                nodeChangeIndex[node] = changes.count
                changes.append(Change(operation: .created, node: node))
            case .setNodeProperty(let node, let key, let value):
                if key == schema.id { recordIDs[node] = value }
                noteNodeUpdate(node, graph.name(of: key))
            case .addLabel(let node, let label):
                if createdNodes[node] != nil { createdNodes[node]?.append(label) }
                noteNodeUpdate(node, ":" + graph.name(of: label))
            case .removeLabel(let node, let label):
                if createdNodes[node] != nil { createdNodes[node]?.removeAll { $0 == label } }
                noteNodeUpdate(node, ":" + graph.name(of: label))
            case .deleteNode(let node):
                deletedNodes.insert(node)
                if let i = nodeChangeIndex[node], changes[i].operation == .created {
                    changes[i].operation = .deleted  // created and deleted in one commit: only the deletion is news
                } else if let i = nodeChangeIndex[node] {
                    changes[i] = Change(operation: .deleted, node: node)
                } else {
                    nodeChangeIndex[node] = changes.count
                    changes.append(Change(operation: .deleted, node: node))
                }
            case .createRelationship(let id, let type, let from, let to, _):
                let relationship = Relationship(id: id, type: type, start: from, end: to)
                createdRelationships.append(relationship)
                relationshipChangeIndex[id] = changes.count
                changes.append(Change(operation: .created, relationship: relationship))
            case .setRelationshipProperty(let relationship, let key, _):
                noteRelationshipUpdate(relationship, graph.name(of: key))
            case .setRelationshipPropertyByID(let id, let key, _):
                if let relationship = graph.relationship(id) { noteRelationshipUpdate(relationship, graph.name(of: key)) }
            case .deleteRelationship(let relationship):
                noteRelationshipDeletion(relationship)
            case .deleteRelationshipByID:
                // Older logs only (graphd writes deleteRelationship): the ends are gone with it.
                break
            case .defineLabel, .defineRelationshipType, .definePropertyKey, .createIndex, .dropIndex,
                 .createFullTextIndex, .dropFullTextIndex:
                break
            }
        }
    }

    private mutating func noteNodeUpdate(_ node: NodeID, _ what: String) {
        if let i = nodeChangeIndex[node] {
            guard changes[i].operation == .updated else { return }  // part of its creation
            if !changes[i].changed.contains(what) { changes[i].changed.append(what) }
            return
        }
        nodeChangeIndex[node] = changes.count
        changes.append(Change(operation: .updated, node: node, changed: [what]))
        touchedNodes.append(node)
    }

    private mutating func noteRelationshipUpdate(_ relationship: Relationship, _ key: String) {
        if let i = relationshipChangeIndex[relationship.id] {
            guard changes[i].operation == .updated else { return }
            if !changes[i].changed.contains(key) { changes[i].changed.append(key) }
            return
        }
        relationshipChangeIndex[relationship.id] = changes.count
        changes.append(Change(operation: .updated, relationship: relationship, changed: [key]))
    }

    private mutating func noteRelationshipDeletion(_ relationship: Relationship) {
        deletedRelationships.append(relationship)
        if let i = relationshipChangeIndex[relationship.id] {
            changes[i] = Change(operation: .deleted, relationship: relationship)
        } else {
            relationshipChangeIndex[relationship.id] = changes.count
            changes.append(Change(operation: .deleted, relationship: relationship))
        }
    }

    // MARK: naming

    /// The node with its app id: from the record when it set one, else from the graph unless the
    /// record deleted the node (its slot may hold another node by now).
    func ref(_ node: NodeID) -> EntityRef {
        let value: Value
        if let given = recordIDs[node] {
            value = given
        } else if !deletedNodes.contains(node), graph.contains(node), let key = schema.id {
            value = graph.property(key, of: node)
        } else {
            value = .null
        }
        switch value {
        case .integer(let i): return EntityRef(node: node.rawValue, appID: .integer(i))
        case .string(let s): return EntityRef(node: node.rawValue, appID: .string(s))
        default: return EntityRef(node: node.rawValue, appID: nil)
        }
    }

    /// The node's labels as of the commit, as far as the record and the graph tell.
    func labels(_ node: NodeID) -> [LabelID] {
        if let labels = createdNodes[node] { return labels }
        if deletedNodes.contains(node) { return [] }
        return graph.labels(of: node)
    }

    func entityChanges() -> [EntityChange] {
        changes.map { change in
            if let node = change.node {
                let names = labels(node).map { graph.name(of: $0) }.sorted()
                return EntityChange(operation: change.operation, entity: .node(ref(node), labels: names), changed: change.changed)
            }
            let r = change.relationship!
            return EntityChange(operation: change.operation,
                                entity: .relationship(id: r.id.rawValue, type: graph.name(of: r.type), start: ref(r.start), end: ref(r.end)),
                                changed: change.changed)
        }
    }

    // MARK: social rules

    func socialEvents() -> [SocialEvent] {
        var out: [SocialEvent] = []
        let friend = schema.friend, request = schema.friendRequest, blocked = schema.blocked
        func pair(_ r: Relationship) -> [NodeID] { [min(r.start, r.end), max(r.start, r.end)] }
        let friendsMade = Set(createdRelationships.filter { $0.type == friend }.map(pair))
        var seenPairs: Set<[NodeID]> = []
        for r in createdRelationships where r.type == friend && seenPairs.insert(pair(r)).inserted && r.start != r.end {
            out.append(SocialEvent(type: .friendAccepted, to: ref(r.start), user: ref(r.end)))
            out.append(SocialEvent(type: .friendAccepted, to: ref(r.end), user: ref(r.start)))
        }
        for r in createdRelationships where r.type == request && !friendsMade.contains(pair(r)) {
            out.append(SocialEvent(type: .friendRequest, to: ref(r.end), user: ref(r.start)))
        }
        seenPairs = []
        for r in deletedRelationships where r.type == friend && !friendsMade.contains(pair(r))
            && seenPairs.insert(pair(r)).inserted && r.start != r.end {
            out.append(SocialEvent(type: .friendRemoved, to: ref(r.start), user: ref(r.end)))
            out.append(SocialEvent(type: .friendRemoved, to: ref(r.end), user: ref(r.start)))
        }
        for r in createdRelationships where r.type == blocked {
            out.append(SocialEvent(type: .friendBlocked, to: ref(r.start), user: ref(r.end)))
        }
        for r in deletedRelationships where r.type == blocked {
            out.append(SocialEvent(type: .friendUnblocked, to: ref(r.start), user: ref(r.end)))
        }
        out += eventEvents()
        if let user = schema.user {
            for node in touchedNodes where !deletedNodes.contains(node) && labels(node).contains(user) {
                out.append(SocialEvent(type: .profileUpdated, to: ref(node)))
            }
        }
        return out
    }

    /// event-created, event-invited and event-updated, event by event in record order. Linear in
    /// the record and the events' guest lists (a bulk record may hold a million relationships).
    private func eventEvents() -> [SocialEvent] {
        let guestTypes = Set([schema.hosts, schema.invited, schema.attending].compactMap { $0 })
        guard !guestTypes.isEmpty || schema.event != nil else { return [] }
        // The record's HOSTS/INVITED/ATTENDING, by event.
        var created: [NodeID: [Relationship]] = [:], deleted: [NodeID: [Relationship]] = [:]
        for r in createdRelationships where guestTypes.contains(r.type) { created[r.end, default: []].append(r) }
        for r in deletedRelationships where guestTypes.contains(r.type) { deleted[r.end, default: []].append(r) }
        var order: [NodeID] = []
        var seen: Set<NodeID> = []
        func note(_ e: NodeID) { if seen.insert(e).inserted { order.append(e) } }
        // Which events the record touched, in the order it touched them.
        for change in changes {
            if let node = change.node, let label = schema.event,
               labels(node).contains(label) || (deletedNodes.contains(node) && deleted[node] != nil) { note(node) }
            if let r = change.relationship, guestTypes.contains(r.type) { note(r.end) }
        }
        var out: [SocialEvent] = []
        for e in order {
            let event = ref(e)
            // Guests invited by this record hear event-invited, not event-updated.
            var invited: [NodeID] = [], invitedSet: Set<NodeID> = []
            for r in created[e] ?? [] where r.type == schema.invited && invitedSet.insert(r.start).inserted { invited.append(r.start) }
            for guest in invited { out.append(SocialEvent(type: .eventInvited, to: ref(guest), event: event)) }
            var audience: [NodeID] = [], inAudience = invitedSet
            func add(_ n: NodeID) { if inAudience.insert(n).inserted { audience.append(n) } }
            // Host first, then guests, as the graph has them now; then whoever the record removed.
            if !deletedNodes.contains(e) && graph.contains(e) {
                for type in [schema.hosts, schema.invited, schema.attending].compactMap({ $0 }) {
                    for guest in graph.adjacency(of: e, type: type, direction: .incoming) { add(guest) }
                }
            }
            for r in created[e] ?? [] { add(r.start) }
            for r in deleted[e] ?? [] { add(r.start) }
            let isNew = createdNodes[e] != nil && !deletedNodes.contains(e)
            let type: SocialEventType = isNew ? .eventCreated : .eventUpdated
            // A created event's only news beyond invitations is its creation; an event whose only
            // change was invitations still changed its guest list for everyone else.
            for n in audience { out.append(SocialEvent(type: type, to: ref(n), event: event)) }
        }
        return out
    }
}
