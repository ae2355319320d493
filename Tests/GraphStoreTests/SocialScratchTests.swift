// SocialScratchTests.swift — the traversal scratch is reusable and never shared: answers do not
// depend on what the scratch saw before (counters reset, marks cleared, epoch wrap-around), a
// pool lends concurrent callers distinct scratches, and a hub gives exact answers.

import Dispatch
import Synchronization
import GraphTestSupport
import Testing
@testable import GraphStore

@Suite struct SocialScratchTests {
    let graph = EgoFacebook.graph
    let schema = SocialSchema(graph: EgoFacebook.graph)

    @Test func answersDoNotDependOnEarlierQueriesOrOnTheEpochWrapping() {
        // Connections count into the counters; relationship labels mark friends with epochs.
        let users = [0, 107, 1684, 3980], listed = (0..<40).map { NodeID($0 * 97) }
        var fresh = TraversalScratch()
        let expected = users.map { graph.connections(of: NodeID($0), schema: schema, options: ConnectionOptions(limit: 20), scratch: &fresh) }
        let expectedLabels = users.map { graph.relations(of: NodeID($0), to: listed, schema: schema, scratch: &fresh) }
        var reused = TraversalScratch()
        reused.epoch = UInt32.max - 3  // the next few queries wrap the 32-bit epoch
        for _ in 0..<3 {
            for (i, u) in users.enumerated() {
                #expect(graph.connections(of: NodeID(u), schema: schema, options: ConnectionOptions(limit: 20), scratch: &reused) == expected[i])
                #expect(reused.touched.isEmpty)
                #expect(graph.relations(of: NodeID(u), to: listed, schema: schema, scratch: &reused) == expectedLabels[i])
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

    /// Connections against a model built from the friendship pairs alone (not from the graph's
    /// friend lists) on random graphs dense enough that most users have more friends than the
    /// 2-hop walk locates at once (it takes them in batches of 16): reversed, repeated and
    /// self friendships, and FOLLOWS beside FRIEND in every node's buffer. Every user, whole
    /// rankings and cut ones, on one reused scratch.
    @Test func connectionsAgreeWithAModelOnDenseRandomGraphs() throws {
        var random = SeededGenerator(seed: 1_124)
        func next(_ bound: Int) -> Int { random.next(bound) }
        var scratch = TraversalScratch()
        for round in 0..<4 {
            let n = 90 + next(60)
            let pairs = (0..<(n * (8 + 4 * round))).map { _ in (next(n), next(n)) }
            var g = SocialGraphBuilder.users(count: n, friendships: pairs)
            g.beginTransaction()
            let follows = g.internRelationshipType("FOLLOWS")
            for _ in 0..<(n * 4) {
                _ = try g.createRelationship(type: follows, from: NodeID(next(n)), to: NodeID(next(n)), properties: [])
            }
            _ = g.commitTransaction()
            let s = SocialSchema(graph: g)
            var friends = [Set<Int>](repeating: [], count: n)
            for (a, b) in pairs where a != b {
                friends[a].insert(b)
                friends[b].insert(a)
            }
            for user in 0..<n {
                var model: [Connection] = []
                for x in 0..<n where x != user && !friends[user].contains(x) {
                    let mutual = friends[user].intersection(friends[x]).count
                    if mutual > 0 { model.append(Connection(node: NodeID(x), mutualFriends: mutual)) }
                }
                model.sort { ($1.mutualFriends, $0.node.rawValue) < ($0.mutualFriends, $1.node.rawValue) }
                #expect(g.connections(of: NodeID(user), schema: s, scratch: &scratch) == model, "round \(round), user \(user)")
                #expect(g.connections(of: NodeID(user), schema: s, options: ConnectionOptions(limit: 5), scratch: &scratch)
                        == Array(model.prefix(5)), "round \(round), user \(user), limit 5")
                #expect(g.connectionCount(of: NodeID(user), schema: s, scratch: &scratch) == model.count)
            }
            #expect(scratch.counts.allSatisfy { $0 == 0 })
        }
    }

    /// Mutual friends against a model built from the pairs alone, on random graphs with hubs
    /// and users of middling degree, so that every way of intersecting runs (each is counted):
    /// the merge (few friends), the search of a short list in a hub's lists, and the bitmap
    /// (hundreds of friends on both sides). One hub's friends crowd the lowest ids, so that a
    /// search's guess from the ids' spread misses its window. Each graph is built twice:
    /// friendships stored either way round (lists that interleave, where the search and the
    /// bitmap step aside for the resumed search and the merge), and each stored from the lower
    /// id to the higher, as imports store them (where they run). Repeated and self friendships
    /// in both. Checked: the list, the count, and the count through kept friends.
    @Test(arguments: [false, true])
    func mutualFriendsAgreeWithAModelOnGraphsWithHubs(lowerFirst: Bool) {
        var random = SeededGenerator(seed: lowerFirst ? 2_612 : 2_611)
        func next(_ bound: Int) -> Int { random.next(bound) }
        var scratch = TraversalScratch()
        var compared = 0
        var ways: [String: Int] = [:]
        for round in 0..<3 {
            let n = 400 + next(200)
            let hubs = (0..<3).map { _ in next(n) }
            let middling = (0..<4).map { _ in next(n) }
            var pairs = (0..<(n * 3)).map { _ in (next(n), next(n)) }
            for hub in hubs { pairs += (0..<(n / 2)).map { _ in next(2) == 0 ? (hub, next(n)) : (next(n), hub) } }
            // The crowded hub: most of its friends among the lowest 60 ids, a few spread wide.
            pairs += (0..<(n / 2)).map { _ in (hubs[0], next(2) == 0 ? next(60) : next(60) + 1) }
            pairs += (0..<30).map { _ in (next(n), hubs[0]) }
            for user in middling { pairs += (0..<(n / 8)).map { _ in (user, next(n)) } }
            pairs += (0..<20).map { _ in let a = next(n); return (a, a) } + (hubs + middling).map { ($0, $0) }
            pairs += pairs.prefix(50).map { ($1, $0) }
            if lowerFirst { pairs = pairs.map { (min($0, $1), max($0, $1)) } }
            let g = SocialGraphBuilder.users(count: n, friendships: pairs)
            let s = SocialSchema(graph: g)
            var friends = [Set<Int>](repeating: [], count: n)
            for (a, b) in pairs where a != b {
                friends[a].insert(b)
                friends[b].insert(a)
            }
            let users = hubs + middling + (0..<40).map { _ in next(n) }
            for a in users {
                let kept = KeptFriends(NodeID(a), of: g, schema: s, scratch: scratch)
                for b in users + hubs {
                    let model = a == b ? [] : friends[a].intersection(friends[b]).sorted()
                    #expect(g.mutualFriends(NodeID(a), NodeID(b), schema: s).map { Int($0.rawValue) } == model, "round \(round), \(a) and \(b)")
                    #expect(g.mutualFriendCount(NodeID(a), NodeID(b), schema: s) == model.count)
                    #expect(g.mutualFriendCount(kept, NodeID(b), schema: s) == model.count, "kept \(a), \(b)")
                    if a != b && !model.isEmpty {
                        switch g.mutualFriendsWay(NodeID(a), NodeID(b), schema: s) {
                        case .search: ways["search", default: 0] += 1
                        case .resumedSearch: ways["resumed search", default: 0] += 1
                        case .bitmap: ways["bitmap", default: 0] += 1
                        case .merge: ways["merge", default: 0] += 1
                        }
                    }
                    compared += 1
                }
                scratch = kept.releaseScratch()
            }
        }
        #expect(compared > 5_000, "\(compared)")
        let expected = lowerFirst ? ["search", "bitmap", "merge"] : ["resumed search", "merge"]
        for way in expected { #expect(ways[way, default: 0] > 100, "\(way): \(ways)") }
    }

    /// The audience's size both ways it is counted: "seen" marks for a host with few friends,
    /// the bitmap for one with many (Graph.audienceBitsPerFriend decides, against the graph's
    /// size), on a graph of 20,000 users so that both run. Against a model from `friendIDs`:
    /// the host's friends and their friends, less the host, the invited, the attending and the
    /// blocked either way. Self-loops and repeated friendships included; the scratch's bits are
    /// zero after every count.
    @Test func audienceCountAgreesWithAModelThroughMarksAndBits() throws {
        var random = SeededGenerator(seed: 4_051)
        func next(_ bound: Int) -> Int { random.next(bound) }
        let n = 20_000
        let hubs = (0..<3).map { _ in next(n) }
        var pairs = (0..<(2 * n)).map { _ in (next(n), next(n)) }
        for hub in hubs { pairs += (0..<800).map { _ in next(2) == 0 ? (hub, next(n)) : (next(n), hub) } }
        pairs += (0..<30).map { _ in let a = next(n); return (a, a) } + hubs.map { ($0, $0) }
        pairs += pairs.prefix(40).map { ($1, $0) }
        var g = SocialGraphBuilder.users(count: n, friendships: pairs)
        var scratch = TraversalScratch()
        var throughBits = 0, throughMarks = 0
        for round in 0..<40 {
            let host = round < hubs.count ? hubs[round] : next(n)
            let invited = (0..<next(30)).map { _ in NodeID(next(n)) }, attending = (0..<next(10)).map { _ in NodeID(next(n)) }
            let event = SocialGraphBuilder.addEvent(to: &g, id: Int64(round), host: NodeID(host), startsAt: 1,
                                                    invited: invited, attending: attending)
            var blocked: [NodeID] = []
            for _ in 0..<next(3) {
                // Someone the host knows, so that blocking drops a friendship as well.
                let hostFriends = g.friendIDs(of: NodeID(host), schema: SocialSchema(graph: g))
                guard !hostFriends.isEmpty else { break }
                let other = NodeID(rawValue: hostFriends[next(hostFriends.count)])
                blocked.append(other)
                if next(2) == 0 {
                    _ = try SocialGraphBuilder.write(&g) { try $0.block(other, by: NodeID(host), at: 1) }
                } else {
                    _ = try SocialGraphBuilder.write(&g) { try $0.block(NodeID(host), by: other, at: 1) }
                }
            }
            let schema = SocialSchema(graph: g)
            let friends = g.friendIDs(of: NodeID(host), schema: schema)
            var reach = Set(friends)
            for f in friends { reach.formUnion(g.friendIDs(of: NodeID(rawValue: f), schema: schema)) }
            reach.subtract(([NodeID(host)] + invited + attending + blocked).map(\.rawValue))
            let count = g.invitableAudienceCount(of: event, schema: schema, scratch: &scratch)
            #expect(count == reach.count, "round \(round), host \(host) with \(friends.count) friends")
            #expect(scratch.touchedBits.allSatisfy { $0 == 0 }, "round \(round)")
            if (g.socialNodeCapacity + 63) / 64 <= Graph.audienceBitsPerFriend * friends.count { throughBits += 1 } else { throughMarks += 1 }
        }
        #expect(throughBits >= 5 && throughMarks >= 5, "\(throughBits) through bits, \(throughMarks) through marks")
    }

    /// Both ranking paths (the bounded heap and the whole-list counting sort) against a model:
    /// random counters on random nodes, a minimum and a filter, every limit shape. The same
    /// scratch is reused throughout, so a counter, bit or histogram slot left behind would change
    /// a later answer.
    @Test func rankingsAgreeWithAModelSortAndLeaveTheScratchClean() {
        var seed: UInt64 = 99
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 33) % bound
        }
        let nodeCount = 70_000
        var scratch = TraversalScratch(nodeCapacity: nodeCount)
        for (touchedNodes, maxCount) in [(0, 3), (1, 1), (5, 4), (700, 2), (5_000, 40), (30_000, 12)] {
            let increments = (0..<touchedNodes).flatMap { _ in
                let node = UInt32(next(nodeCount))
                return Array(repeating: node, count: 1 + next(maxCount))
            }
            var model: [UInt32: Int] = [:]
            for node in increments { model[node, default: 0] += 1 }
            let minimum = next(3)
            let keep: (UInt32) -> Bool = { $0 % 5 != 2 }
            let expected = model.filter { $0.value >= max(minimum, 1) && keep($0.key) }
                .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            for limit in [nil, 1, 50, TraversalScratch.heapRankingLimit, TraversalScratch.heapRankingLimit + 1, 3_000] {
                for node in increments { scratch.increment(node) }
                let ranked = scratch.rankTouched(limit: limit, minimum: minimum) { node, _ in keep(node) }
                scratch.resetCounts()
                let cut = expected.prefix(limit ?? Int.max)
                #expect(ranked.map(\.node) == cut.map(\.key), "\(touchedNodes) touched, limit \(String(describing: limit))")
                #expect(ranked.map(\.count) == cut.map(\.value))
                #expect(scratch.counts.allSatisfy { $0 == 0 })
                #expect(scratch.touchedBits.allSatisfy { $0 == 0 })
                #expect(scratch.countHistogram.allSatisfy { $0 == 0 })
            }
        }
    }
}
