// GraphOperationTests.swift — the in-memory graph's reads and writes, one behaviour per test.

import Testing
@testable import GraphStore

@Suite struct GraphOperationTests {
    @Test func createNodesWithLabelsAndProperties() throws {
        var g = Graph()
        let (ann, bo, user, name) = try committed(&g) { g in
            let user = g.internLabel("User"), admin = g.internLabel("Admin")
            let name = g.internPropertyKey("name"), id = g.internPropertyKey("id")
            let ann = try g.createNode(labels: [admin, user], properties: [(id, .integer(1)), (name, .string("Ann"))])
            let bo = try g.createNode(labels: [user], properties: [(name, .string("Bo")), (id, .null)])
            return (ann, bo, user, name)
        }
        #expect(ann == NodeID(0) && bo == NodeID(1))
        #expect(g.nodeCount == 2)
        #expect(g.labels(of: ann) == [LabelID(0), LabelID(1)])
        #expect(g.labelNames == ["User", "Admin"])
        #expect(g.property(name, of: ann) == .string("Ann"))
        #expect(g.properties(of: ann).map(\.key) == [PropertyKeyID(1), PropertyKeyID(0)])
        #expect(g.properties(of: bo).count == 1)  // the null was not stored
        #expect(g.nodeIDs(withLabel: user) == [ann, bo])
        #expect(g.node(bo, hasLabel: g.labelID(named: "Admin")!) == false)
        #expect(g.labelID(named: "Nope") == nil)
    }

    @Test func anIndexValueHeldByOneThenManyThenNoNodesAnswersEveryStep() throws {
        // A value is stored inline while one node holds it and as an array once several do.
        var g = Graph()
        let (user, city, nodes) = try committed(&g) { g in
            let user = g.internLabel("User"), city = g.internPropertyKey("city")
            try g.createIndex(label: user, key: city, unique: false)
            let nodes = try (0..<4).map { _ in try g.createNode(labels: [user], properties: [(city, .string("Oslo"))]) }
            return (user, city, nodes)
        }
        func oslo() -> [NodeID] { g.nodeIDs(withLabel: user, key: city, equalTo: .string("Oslo")) }
        #expect(oslo() == nodes)
        try committed(&g) { g in try g.deleteNode(nodes[1], detach: false) }
        #expect(oslo() == [nodes[0], nodes[2], nodes[3]])
        try committed(&g) { g in
            try g.deleteNode(nodes[0], detach: false)
            try g.deleteNode(nodes[3], detach: false)
        }
        #expect(oslo() == [nodes[2]])
        // A rollback of the last holder's removal brings the single entry back.
        g.beginTransaction()
        try g.deleteNode(nodes[2], detach: false)
        #expect(oslo() == [])
        g.rollbackTransaction()
        #expect(oslo() == [nodes[2]])
        let again = try committed(&g) { g in try g.createNode(labels: [user], properties: [(city, .integer(1))]) }
        #expect(g.nodeIDs(withLabel: user, key: city, equalTo: .double(1.0)) == [again])
        #expect(oslo() == [nodes[2]])
    }

    @Test func aRelationshipsTypeIsFoundThroughItsStartNodeAmongParallelEdgesAndLoops() throws {
        // The graph keeps only a relationship's ends; its type comes from the start node's lists.
        var g = Graph()
        let (types, rels) = try committed(&g) { g in
            let types = ["FRIEND", "FOLLOWS", "BLOCKED"].map { g.internRelationshipType($0) }
            let a = try g.createNode(labels: [], properties: []), b = try g.createNode(labels: [], properties: [])
            let rels = [
                try g.createRelationship(type: types[1], from: a, to: b, properties: []),
                try g.createRelationship(type: types[0], from: a, to: b, properties: []),
                try g.createRelationship(type: types[1], from: a, to: b, properties: []),
                try g.createRelationship(type: types[2], from: a, to: a, properties: []),
                try g.createRelationship(type: types[0], from: b, to: a, properties: []),
            ]
            return (types, rels)
        }
        #expect(rels.map(\.id) == (0..<5).map(RelationshipID.init))
        #expect(g.allRelationships() == rels && g.allRelationships().map(\.type) == [types[1], types[0], types[1], types[2], types[0]])
        #expect(rels.allSatisfy { g.contains($0) })
        #expect(g.relationshipCountsByType() == [2, 2, 1])
        // The slots, read off the outgoing lists, give each relationship its type and ends.
        #expect(g.relationshipSlots().map(\.type) == [types[1], types[0], types[1], types[2], types[0]])
        #expect(g.relationshipSlots()[3].start == g.relationshipSlots()[3].end)
        // A relationship named with the wrong type or ends is not there, and cannot be deleted.
        var wrong = rels[0]; wrong.type = types[0]
        #expect(!g.contains(wrong))
        g.beginTransaction()
        #expect(throws: GraphError.self) { try g.deleteRelationship(wrong) }
        g.rollbackTransaction()
        try committed(&g) { g in try g.deleteRelationship(rels[2]) }
        #expect(g.relationshipCountsByType() == [2, 1, 1])
        #expect(g.relationshipSlots()[2] == Graph.RelationshipRecord() && !g.contains(rels[2]) && !g.contains(rels[2].id))
        #expect(g.allRelationships().map(\.id) == [0, 1, 3, 4].map(RelationshipID.init))
        // Undoing the delete restores the type with the ends.
        g.beginTransaction()
        try g.deleteRelationship(rels[0])
        #expect(!g.contains(rels[0].id))
        g.rollbackTransaction()
        #expect(g.contains(rels[0]) && g.relationshipSlots()[0].type == types[1])
    }

    @Test func adjacencyIsSortedInBothDirections() throws {
        var g = Graph()
        let (hub, others, friend) = try committed(&g) { g in
            let friend = g.internRelationshipType("FRIEND")
            let hub = try g.createNode(labels: [], properties: [])
            var others: [NodeID] = []
            for _ in 0..<6 { others.append(try g.createNode(labels: [], properties: [])) }
            // Insert in scrambled order, and twice to one neighbour.
            for i in [4, 1, 5, 0, 3, 2, 1] {
                _ = try g.createRelationship(type: friend, from: hub, to: others[i], properties: [])
                _ = try g.createRelationship(type: friend, from: others[i], to: hub, properties: [])
            }
            return (hub, others, friend)
        }
        let out = g.steps(of: hub, type: friend, direction: .outgoing)
        let incoming = g.steps(of: hub, type: friend, direction: .incoming)
        #expect(out.map(\.neighbor) == [0, 1, 1, 2, 3, 4, 5].map { others[$0] })
        #expect(incoming.map(\.neighbor) == [0, 1, 1, 2, 3, 4, 5].map { others[$0] })
        let ones = out.filter { $0.neighbor == others[1] }.map(\.relationship)
        #expect(ones == ones.sorted() && ones.count == 2)
        for a in out {
            #expect(g.contains(Relationship(id: a.relationship, type: friend, start: hub, end: a.neighbor)))
        }
        // Incoming entries hold no ids: each is found in its neighbour's outgoing list, the two
        // parallel ones from others[1] as two different relationships.
        for a in incoming {
            #expect(g.contains(Relationship(id: a.relationship, type: friend, start: a.neighbor, end: hub)))
        }
        #expect(Set(incoming.map(\.relationship)).count == incoming.count)
        let list = g.adjacency(of: hub, type: friend, direction: .incoming)
        #expect(list.indices.map { g.incomingRelationship(of: hub, type: friend, in: list, at: $0) } == incoming.map(\.relationship))
        #expect(g.degree(of: hub, type: friend, direction: .both) == 14)
        #expect(g.adjacency(of: hub, type: friend, direction: .outgoing).contains(neighbor: others[3]))
        #expect(Array(g.adjacency(of: others[0], type: friend, direction: .outgoing)) == [hub])
        #expect(g.relationshipCount == 14)
    }

    @Test func selfLoopAppearsOnceInEachDirection() throws {
        var g = Graph()
        let (n, r, t) = try committed(&g) { g in
            let t = g.internRelationshipType("KNOWS")
            let n = try g.createNode(labels: [], properties: [])
            return (n, try g.createRelationship(type: t, from: n, to: n, properties: []), t)
        }
        #expect(g.steps(of: n, type: t, direction: .outgoing).map(\.relationship) == [r.id])
        #expect(g.steps(of: n, type: t, direction: .incoming).map(\.relationship) == [r.id])
        try committed(&g) { g in try g.deleteNode(n, detach: true) }
        #expect(g.nodeCount == 0 && g.relationshipCount == 0)
    }

    @Test func deleteNodeWithRelationshipsNeedsDetach() throws {
        var g = Graph()
        let (a, b, r) = try committed(&g) { g in
            let t = g.internRelationshipType("FRIEND")
            let a = try g.createNode(labels: [], properties: []), b = try g.createNode(labels: [], properties: [])
            return (a, b, try g.createRelationship(type: t, from: a, to: b, properties: []))
        }
        g.beginTransaction()
        #expect(throws: GraphError(.stillHasRelationships,
                                   "Cannot delete node 0: it still has relationships; use DETACH DELETE")) {
            try g.deleteNode(a, detach: false)
        }
        g.rollbackTransaction()
        try committed(&g) { g in try g.deleteNode(a, detach: true) }
        #expect(!g.contains(a) && !g.contains(r) && g.contains(b))
        #expect(g.adjacency(of: b, type: RelationshipTypeID(0), direction: .incoming).isEmpty)
        // A plain delete of an unconnected node works, and its id is reused.
        try committed(&g) { g in try g.deleteNode(b, detach: false) }
        let c = try committed(&g) { g in try g.createNode(labels: [], properties: []) }
        #expect(c == b)
    }

    @Test func setAndRemoveLabelsAndProperties() throws {
        var g = Graph()
        let n = try committed(&g) { g in try g.createNode(labels: [], properties: []) }
        let (l, k) = try committed(&g) { g in
            let l = g.internLabel("L"), k = g.internPropertyKey("k")
            try g.addLabel(l, to: n)
            try g.addLabel(l, to: n)  // no-op
            try g.setProperty(k, to: .list([.integer(1), .string("x")]), of: n)
            return (l, k)
        }
        #expect(g.labels(of: n) == [l])
        #expect(g.property(k, of: n) == .list([.integer(1), .string("x")]))
        try committed(&g) { g in
            try g.removeLabel(l, from: n)
            try g.setProperty(k, to: .null, of: n)
        }
        #expect(g.labels(of: n).isEmpty && g.nodeIDs(withLabel: l).isEmpty)
        #expect(g.properties(of: n).isEmpty)
        g.beginTransaction()
        #expect(throws: GraphError.self) { try g.setProperty(k, to: .bool(true), of: NodeID(99)) }
        g.rollbackTransaction()
    }

    @Test func relationshipProperties() throws {
        var g = Graph()
        let (r, since) = try committed(&g) { g in
            let t = g.internRelationshipType("FRIEND"), since = g.internPropertyKey("since")
            let a = try g.createNode(labels: [], properties: [])
            return (try g.createRelationship(type: t, from: a, to: a, properties: [(since, .integer(2020))]), since)
        }
        #expect(g.property(since, of: r.id) == .integer(2020))
        try committed(&g) { g in try g.setProperty(since, to: .double(2.5), of: r) }
        #expect(g.properties(of: r.id).map(\.value) == [.double(2.5)])
        try committed(&g) { g in try g.setProperty(since, to: .null, of: r) }
        #expect(g.properties(of: r.id).isEmpty)
        // A relationship named with the wrong ends does not exist.
        let misnamed = Relationship(id: r.id, type: r.type, start: r.start, end: NodeID(rawValue: r.end.rawValue + 1))
        #expect(throws: GraphError.self) { try committed(&g) { g in try g.setProperty(since, to: .integer(1), of: misnamed) } }
    }

    @Test func lookupByPropertyTreatsIntegerAndIntegralDoubleAsEqual() throws {
        var g = Graph()
        let (user, id, nodes) = try committed(&g) { g in
            let user = g.internLabel("User"), id = g.internPropertyKey("id")
            let nodes = [
                try g.createNode(labels: [user], properties: [(id, .integer(1))]),
                try g.createNode(labels: [user], properties: [(id, .double(1.0))]),
                try g.createNode(labels: [user], properties: [(id, .double(1.5))]),
                try g.createNode(labels: [user], properties: [(id, .double(.nan))]),
                try g.createNode(labels: [], properties: [(id, .integer(1))]),
            ]
            return (user, id, nodes)
        }
        for indexed in [false, true] {
            if indexed { try committed(&g) { g in try g.createIndex(label: user, key: id, unique: false) } }
            #expect(g.hasIndex(label: user, key: id) == indexed)
            #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .integer(1)) == [nodes[0], nodes[1]])
            #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .double(1)) == [nodes[0], nodes[1]])
            #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .double(1.5)) == [nodes[2]])
            #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .double(.nan)).isEmpty)
            #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .null).isEmpty)
            #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .string("1")).isEmpty)
        }
        #expect(g.indexes == [IndexDescriptor(label: user, key: id, isUnique: false)])
        // The index follows later writes.
        try committed(&g) { g in
            try g.setProperty(id, to: .integer(2), of: nodes[0])
            try g.addLabel(user, to: nodes[4])
            try g.deleteNode(nodes[1], detach: false)
        }
        #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .integer(1)) == [nodes[4]])
        #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .integer(2)) == [nodes[0]])
        try committed(&g) { g in try g.dropIndex(label: user, key: id) }
        #expect(!g.hasIndex(label: user, key: id) && g.indexes.isEmpty)
    }

    /// A lookup by value without a label reads every index on the key and only the nodes none
    /// of them covers: the same nodes as a scan, whichever labels are indexed.
    @Test func lookupByPropertyWithoutALabelFindsEveryNodeHoldingTheValue() throws {
        var g = Graph()
        let (labels, id, nodes) = try committed(&g) { g in
            let labels = ["User", "Page", "Other"].map { g.internLabel($0) }
            let id = g.internPropertyKey("id")
            let nodes = [
                try g.createNode(labels: [labels[0]], properties: [(id, .integer(1))]),
                try g.createNode(labels: [labels[0], labels[1]], properties: [(id, .double(1.0))]),
                try g.createNode(labels: [labels[1]], properties: [(id, .integer(1))]),
                try g.createNode(labels: [labels[2]], properties: [(id, .integer(1))]),
                try g.createNode(labels: [], properties: [(id, .integer(1))]),
                try g.createNode(labels: [labels[0]], properties: [(id, .integer(2))]),
                try g.createNode(labels: [], properties: []),
            ]
            return (labels, id, nodes)
        }
        let ones = Array(nodes[0...4])
        #expect(g.nodeIDs(key: id, equalTo: .integer(1)) == ones)
        for label in labels.prefix(2) {
            try committed(&g) { g in try g.createIndex(label: label, key: id, unique: false) }
            #expect(g.nodeIDs(key: id, equalTo: .integer(1)) == ones)
            #expect(g.nodeIDs(key: id, equalTo: .double(1)) == ones)
            #expect(g.nodeIDs(key: id, equalTo: .integer(2)) == [nodes[5]])
            #expect(g.nodeIDs(key: id, equalTo: .integer(3)).isEmpty)
        }
    }

    @Test func uniqueConstraintViolationNamesLabelPropertyAndValue() throws {
        var g = Graph()
        let (user, id) = try committed(&g) { g in
            let user = g.internLabel("User"), id = g.internPropertyKey("id")
            try g.createIndex(label: user, key: id, unique: true)
            _ = try g.createNode(labels: [user], properties: [(id, .integer(1))])
            return (user, id)
        }
        let message = "unique constraint violation on :User(id): a node with id = 1 already exists"
        g.beginTransaction()
        #expect(throws: GraphError(.constraintViolation,
                                   "unique constraint violation on :User(id): a node with id = 1.0 already exists")) {
            try g.createNode(labels: [user], properties: [(id, .double(1.0))])
        }
        let other = try g.createNode(labels: [], properties: [(id, .integer(1))])
        #expect(throws: GraphError(.constraintViolation, message)) { try g.addLabel(user, to: other) }
        let second = try g.createNode(labels: [user], properties: [(id, .integer(2))])
        #expect(throws: GraphError(.constraintViolation, message)) { try g.setProperty(id, to: .integer(1), of: second) }
        try g.setProperty(id, to: .integer(3), of: second)  // a fresh value is fine
        #expect(g.nodeIDs(withLabel: user, key: id, equalTo: .integer(3)) == [second])
        g.rollbackTransaction()
        // Creating a unique index over existing duplicates is refused.
        g.beginTransaction()
        let city = g.internPropertyKey("city")
        _ = try g.createNode(labels: [user], properties: [(city, .string("Oslo"))])
        _ = try g.createNode(labels: [user], properties: [(city, .string("Oslo"))])
        #expect(throws: GraphError.self) { try g.createIndex(label: user, key: city, unique: true) }
        g.rollbackTransaction()
    }
}
