// SocialEgoFacebookTests.swift — the social kernels against SNAP ego-Facebook's published figures
// (Tests/Fixtures/ego-facebook/expected.json): degrees, friends of friends, top connections with
// mutual counts, mutual friends of pairs, 2-hop reach.

import Foundation
import Testing
import GraphStore

@Suite struct SocialEgoFacebookTests {
    let graph = EgoFacebook.graph
    let schema = SocialSchema(graph: EgoFacebook.graph)
    let expected = EgoFacebook.expected()

    private func dictionary(_ key: String) -> [String: Any] { expected[key] as? [String: Any] ?? [:] }

    @Test func theDataAndItsExpectedFiguresAreThere() {
        #expect(EgoFacebook.edges.count == 88_234, "facebook_combined.txt missing or unreadable under \(EgoFacebook.directory.path)")
        #expect(expected["nodes"] as? Int == 4_039, "expected.json missing or unreadable")
        #expect(graph.nodeCount == expected["nodes"] as? Int)
        #expect(graph.relationshipCount == expected["edges"] as? Int)
    }

    @Test func degreesMatch() throws {
        let degrees = dictionary("degree")
        #expect(degrees.count == 10)
        for (node, degree) in degrees {
            let n = NodeID(try #require(Int(node)))
            #expect(graph.friendCount(of: n, schema: schema) == degree as? Int, "degree of \(node)")
            #expect(graph.friends(of: n, schema: schema).count == degree as? Int)
        }
        let maxDegree = (0..<graph.nodeCount).map { graph.friendCount(of: NodeID($0), schema: schema) }.max()
        #expect(maxDegree == expected["max_degree"] as? Int)
    }

    @Test func friendsAreSortedDistinctAndSymmetric() {
        let friends = graph.friends(of: NodeID(0), schema: schema).map(\.node)
        #expect(friends == friends.sorted() && Set(friends).count == friends.count)
        #expect(friends.allSatisfy { graph.areFriends($0, NodeID(0), schema: schema) })
        #expect(graph.friends(of: NodeID(107), schema: schema, limit: 5).map(\.node)
                == Array(graph.friends(of: NodeID(107), schema: schema).map(\.node).prefix(5)))
    }

    @Test func nodeZeroConnectionsMatch() throws {
        let node0 = dictionary("node_0")
        var scratch = TraversalScratch()
        let all = graph.connections(of: NodeID(0), schema: schema, scratch: &scratch)
        #expect(all.count == node0["fof_distinct_excluding_self_and_friends"] as? Int)
        #expect(graph.connectionCount(of: NodeID(0), schema: schema, scratch: &scratch) == all.count)

        let top = try #require(node0["top10_fof_by_mutual_friends"] as? [[String: Int]])
        let got = graph.connections(of: NodeID(0), schema: schema, options: ConnectionOptions(limit: 10), scratch: &scratch)
        #expect(got.map { [$0.node.index, $0.mutualFriends] } == top.map { [$0["node"]!, $0["mutual_friends"]!] })
        #expect(Array(all.prefix(10)) == got)

        var histogram: [String: Int] = [:]
        for c in all { histogram[String(c.mutualFriends), default: 0] += 1 }
        #expect(histogram == node0["fof_mutual_count_histogram"] as? [String: Int])

        let twos = graph.connections(of: NodeID(0), schema: schema, options: ConnectionOptions(minimumMutual: 2), scratch: &scratch)
            .filter { $0.mutualFriends == 2 }.map(\.node.index)
        #expect(twos == node0["fof_with_2_mutual"] as? [Int])
        #expect(graph.mutualFriendCount(NodeID(0), NodeID(348), schema: schema) == node0["check_mutual_0_348"] as? Int)
    }

    @Test func twoHopReachOfEveryListedNodeMatches() throws {
        var scratch = TraversalScratch()
        let twoHop = dictionary("two_hop")
        #expect(twoHop.count == 10)
        for (node, value) in twoHop {
            let figures = try #require(value as? [String: Int])
            let n = NodeID(try #require(Int(node)))
            #expect(graph.friendCount(of: n, schema: schema) == figures["friends"])
            #expect(graph.connectionCount(of: n, schema: schema, scratch: &scratch) == figures["fof_excl_friends"], "FoF of \(node)")
            // The invitable audience of an event hosted by `n` with nobody invited is its 2-hop reach.
            var withEvent = graph
            let event = SocialGraphBuilder.addEvent(to: &withEvent, id: 1, host: n, startsAt: nil)
            let s = SocialSchema(graph: withEvent)
            #expect(withEvent.invitableAudienceCount(of: event, schema: s, scratch: &scratch) == figures["within_2_hops_excl_self"])
            let audience = withEvent.invitableAudience(of: event, schema: s, scratch: &scratch)
            #expect(audience.count == figures["within_2_hops_excl_self"])
            #expect(audience.filter { $0.kind == .friend }.count == figures["friends"])
            // Friends first, then connections; each by mutual friends descending, then id.
            #expect(zip(audience, audience.dropFirst()).allSatisfy { a, b in
                (a.kind == .friend && b.kind == .connection)
                    || (a.kind == b.kind && (a.mutualFriends > b.mutualFriends || (a.mutualFriends == b.mutualFriends && a.node < b.node)))
            }, "audience order of \(node)")
            #expect(withEvent.invitableAudienceCount(of: event, schema: s, hops: 1, scratch: &scratch) == figures["friends"])
        }
    }

    @Test func mutualFriendsThroughKeptFriendsAgreeWithTheDirectOnes() {
        // Hubs (107: 1,045 friends; 1684, 1912, 0) beside ordinary users, both ways round, and a
        // user with itself: both paths of mutualFriends(_ kept:_:) (the marks, and the kept
        // list looked up in a hub's lists) must give the two-list answer. One scratch serves
        // every kept user in turn, as a run's does: a mark left from the last one would show.
        let users = [0, 107, 1684, 1912, 348, 414, 686, 698, 3437, 3980, 1, 2, 500, 2000, 4038].map(NodeID.init)
        var compared = 0, nonEmpty = 0
        var kept = KeptFriends(users[0], of: graph, schema: schema, scratch: TraversalScratch())
        for a in users {
            kept.keep(a, of: graph, schema: schema)
            #expect(kept.count == graph.friends(of: a, schema: schema).count)
            #expect(graph.friendIDs(of: a, schema: schema) == graph.friends(of: a, schema: schema).map(\.node.rawValue))
            for b in users {
                let direct = graph.mutualFriends(a, b, schema: schema)
                #expect(graph.mutualFriends(kept, b, schema: schema) == direct, "\(a) \(b)")
                #expect(graph.mutualFriendCount(kept, b, schema: schema) == direct.count, "\(a) \(b)")
                #expect(kept.contains(b) == graph.areFriends(a, b, schema: schema))
                compared += 1
                if !direct.isEmpty { nonEmpty += 1 }
            }
        }
        #expect(compared == 225 && nonEmpty > 40)
    }

    @Test func mutualFriendsOfTheListedPairsMatch() throws {
        var scratch = TraversalScratch()
        let pairs = dictionary("mutual_friends")
        let direct = dictionary("pair_is_direct_friend")
        #expect(pairs.count == 7)
        for (pair, count) in pairs {
            let ids = pair.split(separator: ",").compactMap { Int($0) }
            let a = NodeID(ids[0]), b = NodeID(ids[1])
            #expect(graph.mutualFriendCount(a, b, schema: schema) == count as? Int, "mutual \(pair)")
            let list = graph.mutualFriends(a, b, schema: schema)
            #expect(list.count == count as? Int)
            #expect(list.allSatisfy { graph.areFriends($0, a, schema: schema) && graph.areFriends($0, b, schema: schema) })
            #expect(graph.mutualFriends(b, a, schema: schema) == list)
            let isFriend = try #require(direct[pair] as? Bool)
            #expect(graph.areFriends(a, b, schema: schema) == isFriend)
            let relation = graph.relation(of: a, to: b, schema: schema, scratch: &scratch)
            #expect(relation.mutualFriends == count as? Int)
            let expectedKind: SocialRelationKind = isFriend ? .friend : ((count as? Int ?? 0) > 0 ? .connection : .none)
            #expect(relation.kind == expectedKind, "relation \(pair)")
        }
    }

    @Test func connectionsAgreeWithANaiveCountForASampleOfUsers() {
        var scratch = TraversalScratch()
        var neighbours = [Set<Int>](repeating: [], count: graph.nodeCount)
        for (a, b) in EgoFacebook.edges { neighbours[a].insert(b); neighbours[b].insert(a) }
        for u in stride(from: 3, to: graph.nodeCount, by: 401) {
            var counts: [Int: Int] = [:]
            for f in neighbours[u] { for w in neighbours[f] where w != u && !neighbours[u].contains(w) { counts[w, default: 0] += 1 } }
            let naive = counts.map { Connection(node: NodeID($0.key), mutualFriends: $0.value) }
                .sorted { $0.mutualFriends != $1.mutualFriends ? $0.mutualFriends > $1.mutualFriends : $0.node < $1.node }
            let got = graph.connections(of: NodeID(u), schema: schema, options: ConnectionOptions(limit: 50), scratch: &scratch)
            #expect(got == Array(naive.prefix(50)), "connections of \(u)")
        }
    }
}
