// RollbackTests.swift — a rolled-back transaction leaves the graph exactly as before:
// data, adjacency, indexes, interned names and the ids later creates will get.

import Testing
@testable import GraphStore

@Suite struct RollbackTests {
    /// A small social graph with an index, some deleted ids in the free lists.
    func fixture() throws -> Graph {
        var g = Graph()
        try committed(&g) { g in
            let user = g.internLabel("User"), friend = g.internRelationshipType("FRIEND")
            let id = g.internPropertyKey("id"), name = g.internPropertyKey("name")
            try g.createIndex(label: user, key: id, unique: true)
            var users: [NodeID] = []
            for i in 0..<6 {
                users.append(try g.createNode(labels: [user], properties: [(id, .integer(Int64(i))), (name, .string("u\(i)"))]))
            }
            for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0), (4, 4), (0, 5)] {
                _ = try g.createRelationship(type: friend, from: users[a], to: users[b], properties: [(id, .integer(Int64(a * 10 + b)))])
            }
            try g.deleteNode(users[5], detach: true)
            try g.deleteRelationship(g.relationship(RelationshipID(1))!)
        }
        return g
    }

    @Test func rollbackOfEveryKindOfWriteRestoresTheExactState() throws {
        var g = try fixture()
        let before = g.dump()
        g.beginTransaction()
        let user = g.labelID(named: "User")!, id = g.propertyKeyID(named: "id")!, name = g.propertyKeyID(named: "name")!
        let friend = g.relationshipTypeID(named: "FRIEND")!
        let admin = g.internLabel("Admin"), likes = g.internRelationshipType("LIKES"), age = g.internPropertyKey("age")
        let n = try g.createNode(labels: [user, admin], properties: [(id, .integer(100)), (age, .integer(30))])
        _ = try g.createNode(labels: [], properties: [])  // takes a fresh slot
        _ = try g.createRelationship(type: likes, from: n, to: NodeID(0), properties: [])
        _ = try g.createRelationship(type: friend, from: NodeID(1), to: NodeID(3), properties: [])
        try g.setProperty(name, to: .null, of: NodeID(0))          // removal from the middle
        try g.setProperty(id, to: .integer(42), of: NodeID(1))     // index update
        try g.setProperty(age, to: .integer(5), of: NodeID(2))     // a new key
        try g.setProperty(id, to: .null, of: try #require(g.relationship(RelationshipID(0))))
        try g.setProperty(age, to: .integer(1), of: try #require(g.relationship(RelationshipID(2))))
        try g.addLabel(admin, to: NodeID(3))
        try g.removeLabel(user, from: NodeID(4))
        try g.deleteNode(NodeID(0), detach: true)
        try g.deleteRelationship(g.relationship(RelationshipID(2))!)
        try g.createIndex(label: admin, key: age, unique: false)
        try g.dropIndex(label: user, key: id)
        #expect(g.dump() != before)
        g.rollbackTransaction()
        #expect(g.dump() == before)
        #expect(g.labelID(named: "Admin") == nil && g.relationshipTypeID(named: "LIKES") == nil && g.propertyKeyID(named: "age") == nil)
        // Ids handed out after the rollback are the ones that would have been handed out before.
        var fresh = try fixture()
        let (a, b) = try committed(&g) { g in (try g.createNode(labels: [], properties: []), try g.createNode(labels: [], properties: [])) }
        let (c, d) = try committed(&fresh) { g in (try g.createNode(labels: [], properties: []), try g.createNode(labels: [], properties: [])) }
        #expect(a == c && b == d)
    }

    @Test func failedWriteInTheMiddleIsUndoneByGraphStore() throws {
        let store = GraphStore.inMemory()
        try store.write { g in
            let user = g.internLabel("User"), id = g.internPropertyKey("id")
            try g.createIndex(label: user, key: id, unique: true)
            _ = try g.createNode(labels: [user], properties: [(id, .integer(1))])
        }
        let before = store.read { $0.dump() }
        #expect(throws: GraphError.self) {
            try store.write { g in
                let user = g.internLabel("User"), id = g.internPropertyKey("id"), city = g.internPropertyKey("city")
                _ = try g.createNode(labels: [user], properties: [(id, .integer(2)), (city, .string("Oslo"))])
                _ = try g.createNode(labels: [user], properties: [(id, .integer(3))])
                _ = try g.createNode(labels: [user], properties: [(id, .integer(1))])  // the third CREATE fails
            }
        }
        #expect(store.read { $0.dump() } == before)
        #expect(store.read { $0.propertyKeyID(named: "city") } == nil)
    }
}
