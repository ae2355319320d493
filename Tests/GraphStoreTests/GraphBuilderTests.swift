// GraphBuilderTests.swift — GraphBuilder against the transactional write path: a graph built in
// bulk must read exactly like the same graph built by transactions (every public read, the id
// allocators included, via `dump()`), and the builder's error cases must name what is wrong.

import GraphTestSupport
import Testing
@testable import GraphStore

/// A random graph's contents as plain data, fed once to a transaction and once to a builder.
private struct Contents {
    var labels = ["User", "Event", "Admin"]
    var types = ["FRIEND", "FOLLOWS", "HOSTS"]
    var keys = ["id", "name", "since"]
    var nodes: [(id: Int, labels: [Int], properties: [(Int, Value)])] = []
    var relationships: [(id: Int, type: Int, from: Int, to: Int, properties: [(Int, Value)])] = []
    var indexes: [(label: Int, key: Int, unique: Bool)] = [(0, 0, true), (1, 1, false)]

    /// Ids ascending with holes when `holes`; self-loops, parallel edges and a hub included.
    init(seed: UInt64, nodeCount: Int, relationshipCount: Int, holes: Bool) {
        var rng = SeededGenerator(seed: seed)
        var id = -1
        for n in 0..<nodeCount {
            id += holes && Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 2...4, using: &rng) : 1
            var labels = [Int]()
            if n % 5 != 4 { labels.append(0) } else { labels.append(1) }
            if n % 7 == 0 { labels.append(2) }
            var properties: [(Int, Value)] = [(0, .integer(Int64(n)))]
            if n % 3 == 0 { properties.append((1, .string("name \(n % 10)"))) }
            nodes.append((id, labels, properties))
        }
        var rid = -1
        for r in 0..<relationshipCount {
            rid += holes && Int.random(in: 0..<5, using: &rng) == 0 ? 2 : 1
            let from = r % 4 == 0 ? nodes[0].id : nodes.randomElement(using: &rng)!.id  // node 0: a hub
            let to = r % 11 == 0 ? from : nodes.randomElement(using: &rng)!.id           // some self-loops
            let type = Int.random(in: 0..<3, using: &rng)
            let properties: [(Int, Value)] = r % 6 == 0 ? [(2, .integer(Int64(r)))] : []
            relationships.append((rid, type, from, to, properties))
            if r % 13 == 0 { relationships.append((rid + 1, type, from, to, [])); rid += 1 }  // a parallel edge
        }
    }

    /// Through one transaction with explicit ids, as log replay does.
    func transactional(explicitIDs: Bool) throws -> Graph {
        var graph = Graph()
        try committed(&graph) { g in
            for name in labels { _ = g.internLabel(name) }
            for name in types { _ = g.internRelationshipType(name) }
            for name in keys { _ = g.internPropertyKey(name) }
            for n in nodes {
                _ = try g.createNode(id: explicitIDs ? NodeID(n.id) : nil, labels: n.labels.map(LabelID.init),
                                     properties: [PropertyEntry](normalizing: n.properties.map { (PropertyKeyID($0.0), $0.1) }))
            }
            for r in relationships {
                _ = try g.createRelationship(id: explicitIDs ? RelationshipID(r.id) : nil, type: RelationshipTypeID(r.type),
                                             from: NodeID(r.from), to: NodeID(r.to),
                                             properties: [PropertyEntry](normalizing: r.properties.map { (PropertyKeyID($0.0), $0.1) }))
            }
            for i in indexes { try g.createIndex(label: LabelID(i.label), key: PropertyKeyID(i.key), unique: i.unique) }
        }
        return graph
    }

    func builder(explicitIDs: Bool) -> GraphBuilder {
        var builder = GraphBuilder()
        for name in labels { _ = builder.label(name) }
        for name in types { _ = builder.relationshipType(name) }
        for name in keys { _ = builder.propertyKey(name) }
        for n in nodes {
            _ = builder.addNode(id: explicitIDs ? NodeID(n.id) : nil, labels: n.labels.map(LabelID.init),
                                properties: n.properties.map { (PropertyKeyID($0.0), $0.1) })
        }
        for r in relationships {
            builder.addRelationship(id: explicitIDs ? RelationshipID(r.id) : nil, type: RelationshipTypeID(r.type),
                                    from: NodeID(r.from), to: NodeID(r.to), properties: r.properties.map { (PropertyKeyID($0.0), $0.1) })
        }
        for i in indexes { builder.addIndex(label: LabelID(i.label), key: PropertyKeyID(i.key), unique: i.unique) }
        return builder
    }
}

@Suite struct GraphBuilderTests {
    @Test(arguments: [(1, false), (2, false), (3, true), (4, true)] as [(UInt64, Bool)])
    func builtGraphReadsExactlyLikeTheTransactionalOne(seed: UInt64, holes: Bool) throws {
        let contents = Contents(seed: seed, nodeCount: 120, relationshipCount: 600, holes: holes)
        let expected = try contents.transactional(explicitIDs: holes)
        let built = try contents.builder(explicitIDs: holes).build()
        #expect(built.dump() == expected.dump())
        #expect(built.nodeCount == expected.nodeCount && built.relationshipCount == expected.relationshipCount)
        #expect(built.indexes == expected.indexes)
        let user = built.labelID(named: "User")!, id = built.propertyKeyID(named: "id")!
        #expect(built.nodeIDs(withLabel: user, key: id, equalTo: .integer(0)) == [NodeID(contents.nodes[0].id)])
        #expect(!built.isInTransaction)
    }

    @Test func holesBecomeFreeIdsReusedInTheSameOrderAsAfterReplay() throws {
        let contents = Contents(seed: 7, nodeCount: 40, relationshipCount: 80, holes: true)
        var expected = try contents.transactional(explicitIDs: true)
        var built = try contents.builder(explicitIDs: true).build()
        #expect(!built.nodeIDAllocator.free.isEmpty, "the seed must leave holes")
        func grow(_ graph: inout Graph) throws -> ([NodeID], [RelationshipID]) {
            try committed(&graph) { g in
                var nodes: [NodeID] = [], rels: [RelationshipID] = []
                for _ in 0..<(g.nodeIDAllocator.free.count + 2) {
                    nodes.append(try g.createNode(labels: [], properties: []))
                }
                for _ in 0..<(g.relationshipIDAllocator.free.count + 2) {
                    rels.append(try g.createRelationship(type: RelationshipTypeID(0), from: nodes[0], to: nodes[1], properties: []).id)
                }
                return (nodes, rels)
            }
        }
        let a = try grow(&expected), b = try grow(&built)
        #expect(a.0 == b.0)
        #expect(a.1 == b.1)
        #expect(built.dump() == expected.dump())
    }

    @Test func bulkRelationshipsMatchOneByOneCreates() throws {
        var rng = SeededGenerator(seed: 11)
        let n = 300
        var from: [NodeID] = [], to: [NodeID] = []
        for _ in 0..<3000 {
            from.append(NodeID(Int.random(in: 0..<n, using: &rng)))
            to.append(NodeID(Int.random(in: 0..<n, using: &rng)))
        }
        var builder = GraphBuilder()
        let user = builder.label("User"), friend = builder.relationshipType("FRIEND"), follows = builder.relationshipType("FOLLOWS")
        for _ in 0..<n { _ = builder.addNode(labels: [user], properties: []) }
        builder.addRelationships(type: friend, from: Array(from[..<2000]), to: Array(to[..<2000]))
        builder.addRelationships(type: follows, from: Array(from[2000...]), to: Array(to[2000...]))
        let built = try builder.build()

        var expected = Graph()
        try committed(&expected) { g in
            let user = g.internLabel("User"), friend = g.internRelationshipType("FRIEND"), follows = g.internRelationshipType("FOLLOWS")
            for _ in 0..<n { _ = try g.createNode(labels: [user], properties: []) }
            for i in from.indices {
                _ = try g.createRelationship(type: i < 2000 ? friend : follows, from: from[i], to: to[i], properties: [])
            }
        }
        #expect(built.dump() == expected.dump())
        // Every node's buffer is requested at its exact size; the capacity Swift reports is malloc's
        // usable size, rounded up by at most 32 bytes (a transaction-built buffer grows by doubling).
        for record in built.nodes {
            #expect(record.adjacency.storage.capacity - record.adjacency.storage.count <= 8)
        }
    }

    @Test func nodesWithTheSameLabelsShareOneLabelArray() throws {
        var builder = GraphBuilder()
        let user = builder.label("User")
        for _ in 0..<3 { _ = builder.addNode(labels: [user], properties: []) }
        let graph = try builder.build()
        let buffers = graph.nodes.map { $0.labels.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        #expect(Set(buffers).count == 1)
        // Copy-on-write keeps sharing safe: changing one node's labels leaves the others alone.
        var g = graph
        try committed(&g) { g in try g.addLabel(g.internLabel("Admin"), to: NodeID(1)) }
        #expect(g.labels(of: NodeID(0)) == [user] && g.labels(of: NodeID(1)).count == 2)
    }

    @Test func builtGraphTakesTransactionsAndRollsBack() throws {
        let contents = Contents(seed: 5, nodeCount: 30, relationshipCount: 90, holes: false)
        var graph = try contents.builder(explicitIDs: false).build()
        let before = graph.dump()
        graph.beginTransaction()
        try graph.deleteNode(NodeID(0), detach: true)
        _ = try graph.createNode(labels: [LabelID(0)], properties: [(PropertyKeyID(0), .integer(-1))])
        #expect(throws: GraphError.self) {
            try graph.createNode(labels: [LabelID(0)], properties: [(PropertyKeyID(0), .integer(1))])
        }
        graph.rollbackTransaction()
        #expect(graph.dump() == before)
    }

    @Test func missingEndpointIsNamed() {
        var builder = GraphBuilder()
        let friend = builder.relationshipType("FRIEND")
        _ = builder.addNode(labels: [], properties: [])
        builder.addRelationships(type: friend, from: [NodeID(0), NodeID(0)], to: [NodeID(0), NodeID(9)])
        #expect { try builder.build() } throws: { error in
            let e = error as! GraphError
            return e.kind == .notFound && e.message.contains("relationship 1") && e.message.contains("node 9")
        }
    }

    @Test func deletedNodeHoleIsNotAnEndpoint() {
        var builder = GraphBuilder()
        let friend = builder.relationshipType("FRIEND")
        _ = builder.addNode(id: NodeID(2), labels: [], properties: [])
        builder.addRelationship(type: friend, from: NodeID(2), to: NodeID(1))
        #expect(throws: GraphError.self) { try builder.build() }
    }

    @Test func uniqueViolationNamesLabelPropertyAndValue() {
        var builder = GraphBuilder()
        let user = builder.label("User"), id = builder.propertyKey("id")
        _ = builder.addNode(labels: [user], properties: [(id, .string("alice"))])
        _ = builder.addNode(labels: [user], properties: [(id, .string("bob"))])
        _ = builder.addNode(labels: [user], properties: [(id, .string("alice"))])
        builder.addIndex(label: user, key: id, unique: true)
        #expect { try builder.build() } throws: { error in
            let e = error as! GraphError
            return e.kind == .constraintViolation && e.message.contains(":User(id)") && e.message.contains("'alice'")
                && e.message.contains("nodes 0 and 2")
        }
    }

    @Test func nonUniqueIndexAcceptsSharedValuesAndFindsThem() throws {
        var builder = GraphBuilder()
        let user = builder.label("User"), city = builder.propertyKey("city")
        for i in 0..<6 { _ = builder.addNode(labels: [user], properties: [(city, .integer(Int64(i % 2)))]) }
        builder.addIndex(label: user, key: city, unique: false)
        let graph = try builder.build()
        #expect(graph.nodeIDs(withLabel: user, key: city, equalTo: .double(1)) == [NodeID(1), NodeID(3), NodeID(5)])
    }

    @Test func problemsOfAddCallsAreThrownByBuild() {
        var twice = GraphBuilder()
        _ = twice.addNode(id: NodeID(3), labels: [], properties: [])
        _ = twice.addNode(id: NodeID(3), labels: [], properties: [])
        #expect { try twice.build() } throws: { ($0 as! GraphError).message.contains("node 3") }

        var relTwice = GraphBuilder()
        let t = relTwice.relationshipType("R")
        _ = relTwice.addNode(labels: [], properties: [])
        relTwice.addRelationship(id: RelationshipID(0), type: t, from: NodeID(0), to: NodeID(0))
        relTwice.addRelationship(id: RelationshipID(0), type: t, from: NodeID(0), to: NodeID(0))
        #expect { try relTwice.build() } throws: { ($0 as! GraphError).message.contains("relationship 0") }

        var unknown = GraphBuilder()
        _ = unknown.addNode(labels: [LabelID(4)], properties: [])
        #expect { try unknown.build() } throws: { ($0 as! GraphError).message.contains("unknown label id 4") }

        var unknownType = GraphBuilder()
        unknownType.addRelationships(type: RelationshipTypeID(0), from: [], to: [])
        #expect { try unknownType.build() } throws: { ($0 as! GraphError).message.contains("unknown relationship type id 0") }

        var index = GraphBuilder()
        let l = index.label("L"), k = index.propertyKey("k")
        index.addIndex(label: l, key: k, unique: false)
        index.addIndex(label: l, key: k, unique: true)
        #expect { try index.build() } throws: { ($0 as! GraphError).kind == .indexExists }
    }

    @Test func emptyBuilderBuildsAnEmptyGraph() throws {
        let graph = try GraphBuilder().build()
        #expect(graph.dump() == Graph().dump())
    }
}
