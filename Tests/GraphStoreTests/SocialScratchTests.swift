// SocialScratchTests.swift — the traversal scratch is reusable and never shared: answers do not
// depend on what the scratch saw before (counters reset, marks cleared, epoch wrap-around), a
// pool lends concurrent callers distinct scratches, and a hub gives exact answers.

import Dispatch
import Synchronization
import Testing
@testable import GraphStore

@Suite struct SocialScratchTests {
    let graph = EgoFacebook.graph
    let schema = SocialSchema(graph: EgoFacebook.graph)

    @Test func answersDoNotDependOnEarlierQueriesOrOnTheEpochWrapping() {
        var fresh = TraversalScratch()
        let expected = [0, 107, 1684, 3980].map { graph.connections(of: NodeID($0), schema: schema, options: ConnectionOptions(limit: 20), scratch: &fresh) }
        var reused = TraversalScratch()
        reused.epoch = UInt32.max - 3  // the next few queries wrap the 32-bit epoch
        for _ in 0..<3 {
            for (i, u) in [0, 107, 1684, 3980].enumerated() {
                #expect(graph.connections(of: NodeID(u), schema: schema, options: ConnectionOptions(limit: 20), scratch: &reused) == expected[i])
                #expect(reused.touched.isEmpty)
            }
        }
        #expect(reused.counts.allSatisfy { $0 == 0 })
        #expect(reused.epoch < 100)
    }

    @Test func aPoolNeverLendsOneScratchToTwoCallersAtOnce() {
        let pool = TraversalScratchPool(keep: 2)
        let inUse = Mutex<Set<UInt>>([])
        let clashes = Mutex(0)
        let results = Mutex<[Int: Int]>([:])
        let g = graph, s = schema
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            pool.withScratch { scratch in
                let n = g.connectionCount(of: NodeID(i * 100), schema: s, scratch: &scratch)
                // Once grown, the counters' buffer identifies the scratch while it is lent out.
                let address = scratch.counts.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
                inUse.withLock { if !$0.insert(address).inserted { clashes.withLock { $0 += 1 } } }
                let again = g.connectionCount(of: NodeID(i * 100), schema: s, scratch: &scratch)
                inUse.withLock { _ = $0.remove(address) }
                results.withLock { $0[i] = n == again ? n : -1 }
            }
        }
        #expect(clashes.withLock { $0 } == 0)
        var single = TraversalScratch()
        for i in 0..<16 {
            #expect(results.withLock { $0[i] } == graph.connectionCount(of: NodeID(i * 100), schema: schema, scratch: &single))
        }
    }

    @Test func aHubIsExact() {
        // Hub 0 with 3,000 friends, each also friends with its successor: every friend but the
        // ends has 2 mutual friends with the hub; a far node 3,001 is a connection through all.
        let n = 3_000
        var pairs: [(Int, Int)] = (1...n).map { (0, $0) }
        pairs += (1..<n).map { ($0, $0 + 1) }
        pairs += (1...n).map { ($0, n + 1) }
        let g = SocialGraphBuilder.users(count: n + 2, friendships: pairs)
        let s = SocialSchema(graph: g)
        var scratch = TraversalScratch()
        #expect(g.friendCount(of: NodeID(0), schema: s) == n)
        #expect(g.connections(of: NodeID(0), schema: s, scratch: &scratch) == [Connection(node: NodeID(n + 1), mutualFriends: n)])
        #expect(g.mutualFriendCount(NodeID(0), NodeID(n + 1), schema: s) == n)
        #expect(g.mutualFriendCount(NodeID(0), NodeID(5), schema: s) == 2)
        let labels = g.relations(of: NodeID(n + 1), to: [NodeID(0), NodeID(7)], schema: s, scratch: &scratch)
        #expect(labels.map(\.kind) == [.connection, .friend])
        #expect(labels.map(\.mutualFriends) == [n, 2])
    }

    @Test func theRankingRadixSortAgreesWithTheStandardSort() {
        var seed: UInt64 = 99
        var spare: [UInt64] = []
        for n in [0, 1, 5, 2_047, 2_048, 10_000, 70_000] {
            var keys: [UInt64] = (0..<n).map { i in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                // Ranking-shaped keys (small count, inverted id) and, every 7th, arbitrary bits.
                return i % 7 == 0 ? seed : (seed >> 52) << 32 | UInt64(UInt32.max - UInt32(truncatingIfNeeded: seed >> 20) % 300_000)
            }
            let expected = keys.sorted()
            keys.radixSortAscending(spare: &spare)
            #expect(keys == expected, "n = \(n)")
        }
    }
}
