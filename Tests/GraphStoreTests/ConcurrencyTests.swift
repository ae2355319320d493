// ConcurrencyTests.swift — readers never see half a transaction while a writer churns.

import GraphTestSupport
import Testing
import Dispatch
@testable import GraphStore

@Suite struct ConcurrencyTests {
    @Test func readersSeeOnlyWholeTransactions() throws {
        let store = GraphStore.inMemory()
        try store.write { g in
            for _ in 0..<50 { _ = try g.createNode(labels: [g.internLabel("User")], properties: []) }
            _ = g.internRelationshipType("FRIEND")
        }
        let rounds = 300
        // Each transaction adds or removes a friendship in BOTH directions, so a reader that saw
        // half of one would find a FRIEND edge without its reverse.
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            if worker == 0 {
                var rng = SeededGenerator(seed: 7)
                for _ in 0..<rounds {
                    try? store.write { g in
                        let friend = g.relationshipTypeID(named: "FRIEND")!
                        let a = NodeID(Int.random(in: 0..<50, using: &rng)), b = NodeID(Int.random(in: 0..<50, using: &rng))
                        if let existing = g.steps(of: a, type: friend, direction: .outgoing).first(where: { $0.neighbor == b }) {
                            let reverse = g.steps(of: b, type: friend, direction: .outgoing).first { $0.neighbor == a }!
                            try g.deleteRelationship(Relationship(id: existing.relationship, type: friend, start: a, end: b))
                            if reverse.relationship != existing.relationship {
                                try g.deleteRelationship(Relationship(id: reverse.relationship, type: friend, start: b, end: a))
                            }
                        } else {
                            _ = try g.createRelationship(type: friend, from: a, to: b, properties: [])
                            if a != b { _ = try g.createRelationship(type: friend, from: b, to: a, properties: []) }
                        }
                    }
                }
            } else {
                for _ in 0..<rounds {
                    let broken = store.read { g -> Int in
                        let friend = g.relationshipTypeID(named: "FRIEND")!
                        var broken = 0
                        for node in g.nodeIDs() {
                            for step in g.steps(of: node, type: friend, direction: .outgoing)
                            where !g.adjacency(of: step.neighbor, type: friend, direction: .outgoing).contains(neighbor: node) {
                                broken += 1
                            }
                        }
                        return broken
                    }
                    #expect(broken == 0)
                }
            }
        }
    }
}
