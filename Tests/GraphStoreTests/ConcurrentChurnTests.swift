// ConcurrentChurnTests.swift — two readers check graph-wide invariants while a writer churns
// users in and out (friendships made in both directions, users detach-deleted, ids reused).
// Bounded in count: the writer runs a fixed number of transactions; each reader scans while it
// runs and at least a fixed number of times; no timing.

import Dispatch
import Synchronization
import GraphTestSupport
import Testing
@testable import GraphStore

@Suite struct ConcurrentChurnTests {
    /// Problems one full scan finds: a FRIEND edge without its reverse, an outgoing entry
    /// without the matching incoming one, or an adjacency entry that disagrees with the
    /// relationship's own record.
    private static func violations(_ g: Graph) -> Int {
        guard let friend = g.relationshipTypeID(named: "FRIEND") else { return 0 }
        var broken = 0
        for node in g.nodeIDs() {
            for step in g.steps(of: node, type: friend, direction: .outgoing) {
                if !g.adjacency(of: step.neighbor, type: friend, direction: .outgoing).contains(neighbor: node) { broken += 1 }
                if !g.steps(of: step.neighbor, type: friend, direction: .incoming)
                    .contains(Adjacency(neighbor: node, relationship: step.relationship)) { broken += 1 }
                if !g.contains(Relationship(id: step.relationship, type: friend, start: node, end: step.neighbor)) { broken += 1 }
            }
        }
        return broken
    }

    @Test func readersSeeEveryFriendshipFromBothEndsWhileUsersComeAndGo() throws {
        let store = GraphStore.inMemory()
        try store.write { g in
            let user = g.internLabel("User")
            _ = g.internRelationshipType("FRIEND")
            for _ in 0..<40 { _ = try g.createNode(labels: [user], properties: []) }
        }
        let transactions = 400, scans = 60
        let scanned = Atomic<Int>(0)
        let writerDone = Atomic<Bool>(false)
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            if worker == 0 {
                var rng = SeededGenerator(seed: 17)
                for _ in 0..<transactions {
                    try? store.write { g in
                        let user = g.labelID(named: "User")!, friend = g.relationshipTypeID(named: "FRIEND")!
                        let live = g.nodeIDs()
                        if live.count > 20 && Bool.random(using: &rng) {
                            try g.deleteNode(live.randomElement(using: &rng)!, detach: true)
                        } else {
                            // A newcomer befriends a few users, each friendship in both directions.
                            let n = try g.createNode(labels: [user], properties: [])
                            for other in live.shuffled(using: &rng).prefix(Int.random(in: 1...6, using: &rng)) {
                                _ = try g.createRelationship(type: friend, from: n, to: other, properties: [])
                                _ = try g.createRelationship(type: friend, from: other, to: n, properties: [])
                            }
                        }
                    }
                }
                writerDone.store(true, ordering: .releasing)
            } else {
                // Scan for as long as the writer runs (bounded by its transaction count), and
                // at least `scans` times.
                var done = 0
                while done < scans || !writerDone.load(ordering: .acquiring) {
                    done += 1
                    let broken = store.read { Self.violations($0) }
                    #expect(broken == 0)
                    scanned.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(scanned.load(ordering: .relaxed) >= 2 * scans)
        #expect(store.read { Self.violations($0) } == 0)
        #expect(store.read { $0.relationshipCount } > 0)
    }
}
