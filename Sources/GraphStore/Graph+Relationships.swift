// Graph+Relationships.swift — reading relationships and adjacency.
// Writes to relationships are in Graph+RelationshipWrites.swift. A relationship is found by walking
// a list (which tells its type and ends); by id alone only its liveness and properties are known.

extension Graph {
    public func contains(_ relationship: RelationshipID) -> Bool { liveRelationships.contains(relationship) }

    /// Whether `relationship` exists with the type and ends it names.
    /// - Complexity: O(log degree of its start node).
    public func contains(_ relationship: Relationship) -> Bool {
        guard contains(relationship.id), relationship.start.index < nodes.count else { return false }
        let list = adjacency(of: relationship.start, type: relationship.type, direction: .outgoing)
        return list.positions(ofNeighbor: relationship.end).contains { list.relationship(at: $0) == relationship.id }
    }

    /// Every relationship slot (index = id; free slots have `RelationshipRecord.freeType`), read
    /// off the outgoing lists in one pass: for bulk readers (snapshots, copies) that need the
    /// relationships in id order. 12 bytes a slot, for as long as the caller keeps it.
    /// - Complexity: O(nodes + relationships).
    func relationshipSlots() -> [RelationshipRecord] {
        var slots = [RelationshipRecord](repeating: RelationshipRecord(), count: relationshipIDAllocator.capacity)
        for n in nodes.indices where !nodes[n].adjacency.isEmpty {
            nodes[n].adjacency.forEachSegment { type, direction, list in
                guard direction == .outgoing else { return }
                for p in list.indices {
                    slots[list.relationship(at: p).index] = RelationshipRecord(type: type, start: NodeID(n), end: list[p])
                }
            }
        }
        return slots
    }

    /// The live relationship `id` with its type and ends, found by a scan of the outgoing lists:
    /// for the rare reader that has an id alone (a log written before deletes carried their
    /// ends). No allocation; stops at the first match.
    /// - Complexity: O(nodes + relationships).
    func relationship(_ id: RelationshipID) -> Relationship? {
        guard contains(id) else { return nil }
        for n in nodes.indices where !nodes[n].adjacency.isEmpty {
            var found: Relationship?
            nodes[n].adjacency.forEachSegment { type, direction, list in
                guard found == nil, direction == .outgoing else { return }
                for p in list.indices where list.relationship(at: p) == id {
                    found = Relationship(id: id, type: type, start: NodeID(n), end: list[p])
                    return
                }
            }
            if let found { return found }
        }
        return nil
    }

    /// All live relationships with their types and ends, ascending by id.
    /// - Complexity: O(nodes + relationships), and a transient table of 12 bytes a slot.
    public func allRelationships() -> [Relationship] {
        var result: [Relationship] = []
        result.reserveCapacity(relationshipCount)
        for (i, slot) in relationshipSlots().enumerated() where slot.isLive {
            result.append(Relationship(id: RelationshipID(i), type: slot.type, start: slot.start, end: slot.end))
        }
        return result
    }

    /// How many relationships each type has (index = type id).
    /// - Complexity: O(nodes × the types a node has).
    public func relationshipCountsByType() -> [Int] {
        var counts = [Int](repeating: 0, count: typeTable.count)
        for record in nodes where !record.adjacency.isEmpty {
            record.adjacency.forEachSegment { type, direction, list in
                if direction == .outgoing { counts[type.index] += list.count }
            }
        }
        return counts
    }

    @inline(__always) public func property(_ key: PropertyKeyID, of relationship: RelationshipID) -> Value {
        relationshipProperties[relationship]?.value(of: key) ?? .null
    }

    /// The relationship's properties in the order they were first set.
    public func properties(of relationship: RelationshipID) -> [(key: PropertyKeyID, value: Value)] {
        relationshipProperties[relationship]?.tuples ?? []
    }

    /// All live relationship ids, ascending.
    public func relationshipIDs() -> [RelationshipID] { liveRelationships.members }

    /// The adjacency of `node` for one type and ONE direction (.outgoing or .incoming): its
    /// neighbours, ascending (an outgoing list by neighbour, then relationship, with the
    /// relationship ids beside them). A view of the stored buffer, no allocation. A self-loop
    /// appears in both directions; `.both` is the caller's business.
    public func adjacency(of node: NodeID, type: RelationshipTypeID, direction: Direction) -> AdjacencyList {
        Self.adjacency(of: node, type: type, direction: direction, in: nodes)
    }

    /// `adjacency(of:type:direction:)` read from the node records alone.
    @inline(__always)
    static func adjacency(of node: NodeID, type: RelationshipTypeID, direction: Direction, in nodes: [NodeRecord]) -> AdjacencyList {
        precondition(direction != .both, "adjacency(of:type:direction:) takes one direction")
        guard node.index < nodes.count else { return AdjacencyList() }
        // Free slots have no lists, so no liveness check is needed.
        return nodes[node.index].adjacency.list(type, direction)
    }

    /// The steps of `node` for one type and ONE direction, each with its relationship, in the
    /// list's order (an incoming list's relationships are read off its neighbours' outgoing
    /// lists). For writes and callers that need the relationships; traversals that only need
    /// the neighbours read `adjacency(of:type:direction:)`.
    /// - Complexity: O(degree) outgoing; O(degree × log degree of the neighbours) incoming.
    public func steps(of node: NodeID, type: RelationshipTypeID, direction: Direction) -> [Adjacency] {
        let list = adjacency(of: node, type: type, direction: direction)
        var result: [Adjacency] = []
        result.reserveCapacity(list.count)
        if list.hasRelationshipIDs {
            for p in list.indices { result.append(Adjacency(neighbor: list[p], relationship: list.relationship(at: p))) }
            return result
        }
        var p = 0
        while p < list.count {
            // A run of equal neighbours is that neighbour's parallel relationships to `node`.
            let neighbor = list[p]
            let back = adjacency(of: neighbor, type: type, direction: .outgoing)
            let matching = back.positions(ofNeighbor: node)
            precondition(!matching.isEmpty, "node \(node.rawValue)'s incoming entry from \(neighbor.rawValue) is missing from its outgoing list")
            for q in matching {
                result.append(Adjacency(neighbor: neighbor, relationship: back.relationship(at: q)))
                p += 1
            }
        }
        return result
    }

    /// The relationships of `type` from `start` to `end`, ascending.
    /// - Complexity: O(log degree of `start` + the answer).
    public func relationships(of type: RelationshipTypeID, from start: NodeID, to end: NodeID) -> [Relationship] {
        let list = adjacency(of: start, type: type, direction: .outgoing)
        return list.positions(ofNeighbor: end).map { Relationship(id: list.relationship(at: $0), type: type, start: start, end: end) }
    }

    /// The relationship of the entry at `position` of `list`, `node`'s incoming list of `type`:
    /// the matching entry of the neighbour's outgoing list.
    /// - Complexity: O(log degree of the neighbour).
    public func incomingRelationship(of node: NodeID, type: RelationshipTypeID, in list: AdjacencyList, at position: Int) -> RelationshipID {
        let back = adjacency(of: list[position], type: type, direction: .outgoing)
        let first = back.positions(ofNeighbor: node).lowerBound
        return back.relationship(at: first + list.occurrence(at: position))
    }

    public func degree(of node: NodeID, type: RelationshipTypeID, direction: Direction) -> Int {
        switch direction {
        case .both:
            return adjacency(of: node, type: type, direction: .outgoing).count
                + adjacency(of: node, type: type, direction: .incoming).count
        default:
            return adjacency(of: node, type: type, direction: direction).count
        }
    }

    /// The rows the pattern `(node)-[:type]-()` (or `->`, `<-` for one direction) matches: the
    /// relationships of `type` in `direction`, a self-loop once when matched either way (it is
    /// in both of the node's lists, one relationship). What `count(*)` of that expansion is.
    /// - Complexity: O(log degree).
    public func expansionCount(of node: NodeID, type: RelationshipTypeID, direction: Direction) -> Int {
        expansionCount(of: node, type: type, direction: direction, neighborLabel: nil)
    }

    /// As `expansionCount(of:type:direction:)`, counting only relationships whose far end has
    /// `neighborLabel` (`(node)-[:type]-(:Label)`): a walk of the lists then, O(degree).
    public func expansionCount(of node: NodeID, type: RelationshipTypeID, direction: Direction, neighborLabel: LabelID?) -> Int {
        guard contains(node) else { return 0 }
        if let label = neighborLabel {
            var n = 0
            forEachNeighbor(of: node, type, direction) { id in
                if self.node(NodeID(rawValue: id), hasLabel: label) { n &+= 1 }
            }
            // A self-loop is in both lists, one row when matched either way.
            if direction == .both, self.node(node, hasLabel: label) {
                n -= adjacency(of: node, type: type, direction: .outgoing).positions(ofNeighbor: node).count
            }
            return n
        }
        guard direction == .both else { return degree(of: node, type: type, direction: direction) }
        let outgoing = adjacency(of: node, type: type, direction: .outgoing)
        return outgoing.count + adjacency(of: node, type: type, direction: .incoming).count
            - outgoing.positions(ofNeighbor: node).count
    }

    /// The types for which `node` has relationships in `direction` (ascending); lets a caller
    /// expand an untyped pattern `(a)-->(b)` without trying every type.
    public func relationshipTypes(of node: NodeID, direction: Direction) -> [RelationshipTypeID] {
        guard contains(node) else { return [] }
        let adjacency = nodes[node.index].adjacency
        switch direction {
        case .both: return Array(Set(adjacency.types(.outgoing) + adjacency.types(.incoming))).sorted()
        default: return adjacency.types(direction)
        }
    }

    /// Calls `body` with the neighbour of every relationship of `type` of `node` in `direction`,
    /// with repeats (a neighbour once per relationship; a self-loop twice for `.both`).
    @inline(__always) func forEachNeighbor(of node: NodeID, _ type: RelationshipTypeID, _ direction: Direction,
                                           _ body: (UInt32) -> Void) {
        if direction != .incoming {
            for id in adjacency(of: node, type: type, direction: .outgoing).neighborIDs { body(id) }
        }
        if direction != .outgoing {
            for id in adjacency(of: node, type: type, direction: .incoming).neighborIDs { body(id) }
        }
    }

    /// Calls `body` with the far end of each row the expansion `(node)-[:type]-(x)` in
    /// `direction` matches: a neighbour once per relationship, a self-loop once (for `.both`,
    /// its incoming entry is its outgoing one).
    @inline(__always) func forEachExpansion(of node: NodeID, _ type: RelationshipTypeID, _ direction: Direction,
                                            _ body: (UInt32) -> Void) {
        if direction != .incoming {
            for id in adjacency(of: node, type: type, direction: .outgoing).neighborIDs { body(id) }
        }
        if direction != .outgoing {
            let own = node.rawValue
            for id in adjacency(of: node, type: type, direction: .incoming).neighborIDs where direction == .incoming || id != own {
                body(id)
            }
        }
    }
}
