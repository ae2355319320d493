// ChurnTests.swift — a long run of create/delete churn must not grow the graph's storage: freed
// ids are reused, and adjacency memory of deleted relationships is given back. Measured on the
// graph's own structures (slot counts, list capacities), not on process memory.

import GraphTestSupport
import Testing
@testable import GraphStore

/// What the graph's storage holds, counted from its own arrays.
private struct StorageFigures: Equatable {
    var nodeSlots = 0
    var relationshipSlots = 0
    var freeNodeIDs = 0
    var freeRelationshipIDs = 0
    /// Entries the adjacency lists have room for, over all nodes, types and directions.
    var adjacencyCapacity = 0
    var relationshipPropertySets = 0

    init(_ graph: Graph) {
        nodeSlots = graph.nodes.count
        relationshipSlots = graph.relationshipIDAllocator.capacity
        freeNodeIDs = graph.nodeIDAllocator.free.count
        freeRelationshipIDs = graph.relationshipIDAllocator.free.count
        for record in graph.nodes { adjacencyCapacity += record.adjacency.storage.capacity }
        relationshipPropertySets = graph.relationshipProperties.count
    }
}

@Suite struct ChurnTests {
    @Test func createDeleteChurnKeepsStorageBounded() throws {
        var graph = Graph()
        let (user, friend, key) = committed(&graph) { g in
            (g.internLabel("User"), g.internRelationshipType("FRIEND"), g.internPropertyKey("since"))
        }
        let hub = try committed(&graph) { g in try g.createNode(labels: [user], properties: []) }
        var rng = SeededGenerator(seed: 99)
        var afterWarmUp: StorageFigures?
        for round in 0..<300 {
            // A batch of users befriends the hub and each other, then leaves again.
            let batch = try committed(&graph) { g in
                var nodes: [NodeID] = []
                for _ in 0..<40 { nodes.append(try g.createNode(labels: [user], properties: [(key, .integer(Int64(round)))])) }
                for (i, n) in nodes.enumerated() {
                    _ = try g.createRelationship(type: friend, from: n, to: hub, properties: [(key, .integer(1))])
                    _ = try g.createRelationship(type: friend, from: hub, to: n, properties: [])
                    _ = try g.createRelationship(type: friend, from: n, to: nodes[(i + 1) % nodes.count], properties: [])
                }
                return nodes
            }
            // Delete in a random order, sometimes relationships first, sometimes by detach.
            try committed(&graph) { g in
                for n in batch.shuffled(using: &rng) {
                    if Bool.random(using: &rng) {
                        for type in g.relationshipTypes(of: n, direction: .outgoing) {
                            for r in g.steps(of: n, type: type, direction: .outgoing) {
                                try g.deleteRelationship(Relationship(id: r.relationship, type: type, start: n, end: r.neighbor))
                            }
                        }
                    }
                    try g.deleteNode(n, detach: true)
                }
            }
            // A rolled-back round must not leak either.
            graph.beginTransaction()
            for _ in 0..<10 { _ = try graph.createNode(labels: [user], properties: []) }
            graph.rollbackTransaction()
            if round == 9 { afterWarmUp = StorageFigures(graph) }
        }
        let final = StorageFigures(graph)
        #expect(graph.nodeCount == 1 && graph.relationshipCount == 0)
        #expect(final == afterWarmUp)
        // 41 node slots and 120 relationship slots were the most ever live at once.
        #expect(final.nodeSlots == 41 && final.relationshipSlots == 120)
        #expect(final.adjacencyCapacity == 0 && final.relationshipPropertySets == 0)
        #expect(graph.nodeIDs(withLabel: user) == [hub])
    }

    /// The per-entity budget behind the ≤ 24 bytes a friendship
    /// (docs/benchmarks.md#memory-and-building): a node slot is three buffer references (liveness
    /// is a bit elsewhere), a relationship held by a reader fits in a query value's payload, and a
    /// relationship slot only exists while built.
    @Test func recordSizesStayWithinTheMemoryBudget() {
        #expect(MemoryLayout<Graph.NodeRecord>.stride == 24)
        #expect(MemoryLayout<Relationship>.size == 16)
        #expect(MemoryLayout<Graph.RelationshipRecord>.stride == 12)
        #expect(MemoryLayout<PropertyEntry>.stride == 24)
    }

    @Test func aHubThatLosesMostFriendsGivesTheListMemoryBack() throws {
        var graph = Graph()
        let friend = committed(&graph) { g in g.internRelationshipType("FRIEND") }
        let (hub, rels) = try committed(&graph) { g in
            let hub = try g.createNode(labels: [], properties: [])
            var rels: [Relationship] = []
            for _ in 0..<5000 {
                let n = try g.createNode(labels: [], properties: [])
                rels.append(try g.createRelationship(type: friend, from: hub, to: n, properties: []))
            }
            return (hub, rels)
        }
        let grown = graph.nodes[hub.index].adjacency.storage.capacity
        #expect(grown >= 5000)
        try committed(&graph) { g in for r in rels.dropFirst(10) { try g.deleteRelationship(r) } }
        let buffer = graph.nodes[hub.index].adjacency.storage
        #expect(buffer.count == 1 + 2 + 2 * 10)   // segment count, one descriptor, ten (neighbour, id) entries
        #expect(buffer.capacity < NodeAdjacency.shrinkThreshold * 2, "capacity \(buffer.capacity) after shrinking from \(grown)")
        #expect(graph.steps(of: hub, type: friend, direction: .outgoing).map(\.relationship) == rels.prefix(10).map(\.id))
    }
}
