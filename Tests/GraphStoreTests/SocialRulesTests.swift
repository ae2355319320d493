// SocialRulesTests.swift — every rule of friend requests and blocking, the exclusions of the
// invitable audience, relationship labels, the invitation feed and friends-only visibility,
// on small hand-made graphs.

import Testing
@testable import GraphStore

@Suite struct SocialRulesTests {
    /// Users 0…5; friendships 0–1, 0–2, 1–3, 2–3, 3–4 (4 is a connection of 1 and 2, not of 0).
    func people() -> Graph {
        SocialGraphBuilder.users(count: 6, friendships: [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)])
    }

    func u(_ i: Int) -> NodeID { NodeID(i) }

    func schema(_ g: Graph) -> SocialSchema { SocialSchema(graph: g) }

    @Test func aRequestIsSentOnceAndNotDuplicated() throws {
        var g = people()
        #expect(try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(0), to: u(4), at: 10) } == .sent)
        #expect(try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(0), to: u(4), at: 11) } == .alreadyPending)
        let s = schema(g)
        let requests = g.steps(of: u(0), type: try #require(s.friendRequest), direction: .outgoing)
        #expect(requests.count == 1 && requests[0].neighbor == u(4))
        #expect(g.property(try #require(s.createdAt), of: requests[0].relationship) == .integer(10))
        var scratch = TraversalScratch()
        let seen = g.relation(of: u(4), to: u(0), schema: s, scratch: &scratch)
        #expect(seen.requestReceived && !seen.requestSent && seen.kind == .none)
        #expect(g.relation(of: u(0), to: u(4), schema: s, scratch: &scratch).requestSent)
    }

    @Test func noRequestToOneself() {
        var g = people()
        #expect(throws: SocialError.self) { try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(5), to: u(5), at: 1) } }
        do {
            _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(5), to: u(5), at: 1) }
        } catch let error as SocialError {
            #expect(error.kind == .selfRequest)
            #expect(error.message.contains("user 5"))
        } catch { Issue.record("unexpected \(error)") }
        #expect(g.relationshipCount == 5)
    }

    @Test func aRequestToSomeoneWhoAlreadyAskedBecomesAFriendship() throws {
        var g = people()
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(4), to: u(5), at: 1) }
        #expect(try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(5), to: u(4), at: 2) } == .becameFriends)
        let s = schema(g)
        #expect(g.areFriends(u(4), u(5), schema: s))
        #expect(g.adjacency(of: u(4), type: try #require(s.friendRequest), direction: .outgoing).isEmpty)
        #expect(g.adjacency(of: u(5), type: try #require(s.friendRequest), direction: .outgoing).isEmpty)
        #expect(try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(5), to: u(4), at: 3) } == .alreadyFriends)
        #expect(g.friends(of: u(4), schema: s).count == 2)
    }

    @Test func acceptingCreatesOneFriendshipAndRemovesTheRequest() throws {
        var g = people()
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(0), to: u(5), at: 7) }
        try SocialGraphBuilder.write(&g) { try $0.acceptFriendRequest(by: u(5), from: u(0), at: 8) }
        let s = schema(g)
        #expect(g.areFriends(u(0), u(5), schema: s) && g.areFriends(u(5), u(0), schema: s))
        #expect(g.adjacency(of: u(0), type: try #require(s.friendRequest), direction: .outgoing).isEmpty)
        let friendship = g.steps(of: u(0), type: try #require(s.friend), direction: .outgoing).filter { $0.neighbor == u(5) }
        #expect(friendship.count == 1)
        #expect(g.property(try #require(s.createdAt), of: friendship[0].relationship) == .integer(8))
        // Newest first puts the new friend before the timeless old ones.
        #expect(g.friends(of: u(0), schema: s, order: .newestFirst).map(\.node) == [u(5), u(1), u(2)])
    }

    @Test func acceptingDecliningOrCancellingAMissingRequestIsAnError() throws {
        var g = people()
        for attempt in 0..<3 {
            do {
                try SocialGraphBuilder.write(&g) { graph in
                    switch attempt {
                    case 0: try graph.acceptFriendRequest(by: u(5), from: u(0), at: 1)
                    case 1: try graph.declineFriendRequest(by: u(5), from: u(0))
                    default: try graph.cancelFriendRequest(from: u(0), to: u(5))
                    }
                }
                Issue.record("attempt \(attempt) should have thrown")
            } catch let error as SocialError {
                #expect(error.kind == .requestNotFound)
            }
        }
        // The recipient cannot accept its own outgoing request either.
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(0), to: u(5), at: 1) }
        #expect(throws: SocialError.self) { try SocialGraphBuilder.write(&g) { try $0.acceptFriendRequest(by: u(0), from: u(5), at: 2) } }
        #expect(!g.areFriends(u(0), u(5), schema: schema(g)))
    }

    @Test func declineAndCancelRemoveThePendingRequestOnly() throws {
        var g = people()
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(0), to: u(5), at: 1) }
        try SocialGraphBuilder.write(&g) { try $0.declineFriendRequest(by: u(5), from: u(0)) }
        var s = schema(g)
        #expect(!g.areFriends(u(0), u(5), schema: s))
        #expect(g.adjacency(of: u(5), type: try #require(s.friendRequest), direction: .incoming).isEmpty)
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(4), to: u(5), at: 2) }
        try SocialGraphBuilder.write(&g) { try $0.cancelFriendRequest(from: u(4), to: u(5)) }
        s = schema(g)
        #expect(g.adjacency(of: u(4), type: try #require(s.friendRequest), direction: .outgoing).isEmpty)
        #expect(g.relationshipCount == 5)
    }

    @Test func unfriendRemovesTheFriendshipWhicheverWayItWasStored() throws {
        var g = people()
        #expect(try SocialGraphBuilder.write(&g) { try $0.unfriend(u(1), u(0)) })  // stored 0 → 1
        #expect(!g.areFriends(u(0), u(1), schema: schema(g)))
        #expect(try SocialGraphBuilder.write(&g) { try $0.unfriend(u(1), u(0)) } == false)
        #expect(g.relationshipCount == 4)
    }

    @Test func blockingRemovesFriendshipAndRequestsBothWaysAndStopsRequests() throws {
        var g = people()
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(1), to: u(0), at: 1) }  // odd but possible: already friends → no-op
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(4), to: u(0), at: 1) }
        _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(0), to: u(3), at: 1) }
        #expect(try SocialGraphBuilder.write(&g) { try $0.block(u(0), by: u(3), at: 5) })
        #expect(try SocialGraphBuilder.write(&g) { try $0.block(u(4), by: u(0), at: 5) })
        #expect(try SocialGraphBuilder.write(&g) { try $0.block(u(1), by: u(0), at: 5) })
        let s = schema(g)
        #expect(!g.areFriends(u(0), u(1), schema: s))
        #expect(g.adjacency(of: u(0), type: try #require(s.friendRequest), direction: .outgoing).isEmpty)
        #expect(g.adjacency(of: u(0), type: try #require(s.friendRequest), direction: .incoming).isEmpty)
        #expect(try SocialGraphBuilder.write(&g) { try $0.block(u(1), by: u(0), at: 6) } == false)
        // Blocked either way: no request in either direction.
        for (a, b) in [(0, 3), (3, 0), (4, 0), (0, 4), (1, 0)] {
            do {
                _ = try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(a), to: u(b), at: 9) }
                Issue.record("request \(a) → \(b) should be refused")
            } catch let error as SocialError {
                #expect(error.kind == .blocked)
            }
        }
        var scratch = TraversalScratch()
        let r = g.relation(of: u(0), to: u(3), schema: s, scratch: &scratch)
        #expect(r.blocksViewer && !r.blockedByViewer && r.isBlocked)
        #expect(g.relation(of: u(0), to: u(4), schema: s, scratch: &scratch).blockedByViewer)
        #expect(throws: SocialError.self) { try SocialGraphBuilder.write(&g) { try $0.block(u(2), by: u(2), at: 1) } }
    }

    @Test func unblockLiftsOnlyTheBlockersOwnBlock() throws {
        var g = people()
        _ = try SocialGraphBuilder.write(&g) { try $0.block(u(5), by: u(4), at: 1) }
        _ = try SocialGraphBuilder.write(&g) { try $0.block(u(4), by: u(5), at: 1) }
        #expect(try SocialGraphBuilder.write(&g) { try $0.unblock(u(5), by: u(4)) })
        #expect(try SocialGraphBuilder.write(&g) { try $0.unblock(u(5), by: u(4)) } == false)
        #expect(throws: SocialError.self) { try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(4), to: u(5), at: 2) } }
        #expect(try SocialGraphBuilder.write(&g) { try $0.unblock(u(4), by: u(5)) })
        #expect(try SocialGraphBuilder.write(&g) { try $0.sendFriendRequest(from: u(4), to: u(5), at: 3) } == .sent)
    }

    @Test func aRefusedWriteInsideALargerTransactionRollsBackCleanly() throws {
        var g = people()
        let before = g.relationshipCount
        #expect(throws: SocialError.self) {
            try SocialGraphBuilder.write(&g) { graph in
                _ = try graph.sendFriendRequest(from: u(4), to: u(5), at: 1)
                try graph.acceptFriendRequest(by: u(0), from: u(5), at: 1)
            }
        }
        #expect(g.relationshipCount == before)
        #expect(g.relationshipTypeID(named: "FRIEND_REQUEST") == nil)
    }

    @Test func relationLabelsForAList() {
        let g = people()
        var scratch = TraversalScratch()
        let labels = g.relations(of: u(0), to: [u(0), u(1), u(3), u(4), u(5), NodeID(99)], schema: schema(g), scratch: &scratch)
        #expect(labels.map(\.kind) == [.self, .friend, .connection, .none, .none, .none])
        #expect(labels.map(\.mutualFriends) == [0, 0, 2, 0, 0, 0])
        #expect(g.relations(of: u(1), to: [u(2)], schema: schema(g), scratch: &scratch)[0].mutualFriends == 2)
    }

    @Test func visibilityIsSelfAndFriendsOnly() throws {
        var g = people()
        let s = schema(g)
        #expect(g.canView(viewer: u(0), user: u(0), schema: s))
        #expect(g.canView(viewer: u(1), user: u(0), schema: s) && g.canView(viewer: u(0), user: u(1), schema: s))
        #expect(!g.canView(viewer: u(3), user: u(0), schema: s))
        #expect(!g.canView(viewer: u(5), user: u(0), schema: s))
        _ = try SocialGraphBuilder.write(&g) { try $0.block(u(1), by: u(0), at: 1) }
        #expect(!g.canView(viewer: u(1), user: u(0), schema: schema(g)))
    }

    /// The audience against a brute-force model on random graphs: friends who are also invited
    /// or blocked, connections reached through several friends, duplicate and reversed
    /// friendships, both hop counts and limits that cut inside either part.
    @Test func audienceAgreesWithABruteForceModelOnRandomGraphs() throws {
        var seed: UInt64 = 2_026
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 33) % bound
        }
        var scratch = TraversalScratch()
        for round in 0..<12 {
            let n = 40 + next(40)
            let pairs = (0..<(n * 3)).map { _ in (next(n), next(n)) }.filter { $0.0 != $0.1 }
            var g = SocialGraphBuilder.users(count: n, friendships: pairs)
            let host = u(next(n))
            let invited = (0..<next(8)).map { _ in u(next(n)) }, attending = (0..<next(5)).map { _ in u(next(n)) }
            let event = SocialGraphBuilder.addEvent(to: &g, id: 7, host: host, startsAt: 1, invited: invited, attending: attending)
            var blocked: [NodeID] = []
            for _ in 0..<next(4) {
                let other = u(next(n))
                guard other != host else { continue }
                blocked.append(other)
                if next(2) == 0 {
                    _ = try SocialGraphBuilder.write(&g) { try $0.block(other, by: host, at: 1) }
                } else {
                    _ = try SocialGraphBuilder.write(&g) { try $0.block(host, by: other, at: 1) }
                }
            }
            let s = schema(g)
            let friendsOf = { (x: NodeID) in Set(g.friendIDs(of: x, schema: s)) }
            let hostFriends = friendsOf(host)
            let excluded = Set([host] + invited + attending + blocked).map(\.rawValue)
            func mutual(_ x: UInt32) -> Int { hostFriends.intersection(friendsOf(NodeID(rawValue: x))).count }
            func ranked(_ nodes: [UInt32], _ kind: SocialRelationKind) -> [AudienceMember] {
                nodes.map { AudienceMember(node: NodeID(rawValue: $0), kind: kind, mutualFriends: mutual($0)) }
                    .sorted { $0.mutualFriends != $1.mutualFriends ? $0.mutualFriends > $1.mutualFriends : $0.node < $1.node }
            }
            let friends = ranked(hostFriends.filter { !excluded.contains($0) }.sorted(), .friend)
            let connections = ranked((0..<UInt32(n)).filter { x in
                !hostFriends.contains(x) && !excluded.contains(x) && mutual(x) > 0
            }, .connection)
            for hops in [1, 2] {
                let all = hops == 1 ? friends : friends + connections
                for limit in [nil, 0, 1, friends.count, friends.count + 1, all.count + 3] {
                    let got = g.invitableAudience(of: event, schema: s, options: AudienceOptions(hops: hops, limit: limit), scratch: &scratch)
                    #expect(got == Array(all.prefix(limit ?? Int.max)), "round \(round), hops \(hops), limit \(String(describing: limit))")
                }
            }
            #expect(g.invitableAudienceCount(of: event, schema: s, scratch: &scratch) == friends.count + connections.count)
        }
    }

    @Test func anAudienceMemberKeepsItsKindAndCountApartInEightBytes() {
        #expect(MemoryLayout<AudienceMember>.stride == 8)
        var friend = AudienceMember(node: NodeID(7), kind: .friend, mutualFriends: 4_319)
        var connection = AudienceMember(node: NodeID(7), kind: .connection, mutualFriends: 4_319)
        #expect(friend.kind == .friend && friend.mutualFriends == 4_319)
        #expect(connection.kind == .connection && connection.mutualFriends == 4_319)
        #expect(friend != connection)
        // Changing the count keeps the kind, and the other way round (the plain audience form
        // adds self-loops to friends' counts).
        friend.mutualFriends += 2
        #expect(friend.kind == .friend && friend.mutualFriends == 4_321)
        connection.kind = .friend
        #expect(connection.mutualFriends == 4_319)
        connection.kind = .connection
        connection.mutualFriends = Int(Int32.max)
        #expect(connection.kind == .connection && connection.mutualFriends == Int(Int32.max))
    }

    @Test func audienceExcludesHostInvitedAttendingAndBlockedEitherWay() throws {
        // Host 0: friends 1, 2, 6, 7; connections 3 (via 1 and 2), 4 (via 6), 5 (via 7), 8 (via 7).
        var g = SocialGraphBuilder.users(count: 9, friendships: [(0, 1), (0, 2), (1, 3), (2, 3), (6, 0), (6, 4), (0, 7), (7, 5), (8, 7), (1, 2)])
        let event = SocialGraphBuilder.addEvent(to: &g, id: 100, host: u(0), startsAt: 1000, invited: [u(2)], attending: [u(4)])
        _ = try SocialGraphBuilder.write(&g) { try $0.block(u(5), by: u(0), at: 1) }     // host blocked 5
        _ = try SocialGraphBuilder.write(&g) { try $0.block(u(0), by: u(8), at: 1) }     // 8 blocked the host
        let s = schema(g)
        var scratch = TraversalScratch()
        let audience = g.invitableAudience(of: event, schema: s, scratch: &scratch)
        #expect(audience == [
            AudienceMember(node: u(1), kind: .friend, mutualFriends: 1),
            AudienceMember(node: u(6), kind: .friend, mutualFriends: 0),
            AudienceMember(node: u(7), kind: .friend, mutualFriends: 0),
            AudienceMember(node: u(3), kind: .connection, mutualFriends: 2),
        ])
        #expect(g.invitableAudienceCount(of: event, schema: s, scratch: &scratch) == 4)
        #expect(g.invitableAudience(of: event, schema: s, options: AudienceOptions(hops: 1), scratch: &scratch).map(\.node) == [u(1), u(6), u(7)])
        #expect(g.invitableAudience(of: event, schema: s, options: AudienceOptions(limit: 2), scratch: &scratch).map(\.node) == [u(1), u(6)])
        #expect(g.invitableAudience(of: event, schema: s, options: AudienceOptions(limit: 4), scratch: &scratch).count == 4)
        #expect(g.host(of: event, schema: s) == u(0))
        // The scratch is clean between queries: the same answer twice.
        #expect(g.invitableAudience(of: event, schema: s, scratch: &scratch) == audience)
    }

    @Test func invitationFeedIsOrderedByStartTimeWithTheHostsLabel() {
        var g = people()
        let late = SocialGraphBuilder.addEvent(to: &g, id: 1, host: u(0), startsAt: 3000, invited: [u(3)])
        let early = SocialGraphBuilder.addEvent(to: &g, id: 2, host: u(1), startsAt: 1000, invited: [u(3)], attending: [u(3)])
        let undated = SocialGraphBuilder.addEvent(to: &g, id: 3, host: u(4), startsAt: nil, invited: [u(3)])
        _ = SocialGraphBuilder.addEvent(to: &g, id: 4, host: u(4), startsAt: 10, invited: [u(5)])
        var scratch = TraversalScratch()
        let feed = g.invitations(of: u(3), schema: schema(g), scratch: &scratch)
        #expect(feed.map(\.event) == [early, late, undated])
        #expect(feed.map(\.attending) == [true, false, false])
        #expect(feed.map(\.startsAt) == [.integer(1000), .integer(3000), .null])
        #expect(feed.map { $0.hostRelation?.kind } == [.friend, .connection, .friend])
        #expect(feed[1].hostRelation?.mutualFriends == 2)
        #expect(g.invitations(of: u(3), schema: schema(g), limit: 1, scratch: &scratch).map(\.event) == [early])
    }

    @Test func parallelEdgesAndBothDirectionsCountOnce() {
        let g = SocialGraphBuilder.users(count: 4, friendships: [(0, 1), (1, 0), (0, 1), (1, 2), (2, 1), (0, 3), (3, 2)])
        let s = SocialSchema(graph: g)
        var scratch = TraversalScratch()
        #expect(g.friends(of: u(1), schema: s).map(\.node) == [u(0), u(2)])
        #expect(g.mutualFriendCount(u(0), u(2), schema: s) == 2)
        #expect(g.connections(of: u(0), schema: s, scratch: &scratch) == [Connection(node: u(2), mutualFriends: 2)])
    }

    @Test func aFreshGraphAnswersEmpty() {
        let g = Graph()
        let s = SocialSchema(graph: g)
        var scratch = TraversalScratch()
        #expect(g.friends(of: u(0), schema: s).isEmpty)
        #expect(g.connections(of: u(0), schema: s, scratch: &scratch).isEmpty)
        #expect(g.relations(of: u(0), to: [u(1)], schema: s, scratch: &scratch).map(\.kind) == [.none])
        #expect(!g.canView(viewer: u(0), user: u(0), schema: s))
    }

    @Test("The graph's resolution of the standard names follows interning, rollback and a bulk build")
    func standardNamesStayResolved() throws {
        var g = Graph()
        #expect(g.socialSchema() == SocialSchema(graph: g) && g.socialSchema().friend == nil)
        g.beginTransaction()
        _ = g.internRelationshipType("FOLLOWS")
        let friend = g.internRelationshipType("FRIEND")
        #expect(g.socialSchema().friend == friend && g.socialSchema().follows != nil)
        #expect(g.standardSocialSchema?.friend == friend)  // kept, not looked up per call
        g.rollbackTransaction()
        #expect(g.socialSchema().friend == nil && g.socialSchema().follows == nil)
        // The same ids, other names: a count-based check would keep the rolled-back answer.
        g.beginTransaction()
        _ = g.internRelationshipType("KNOWS")
        let again = g.internRelationshipType("FRIEND")
        let user = g.internLabel("User"), id = g.internPropertyKey("id")
        _ = g.commitTransaction()
        #expect(again == friend)
        #expect(g.socialSchema() == SocialSchema(graph: g))
        #expect(g.socialSchema().follows == nil && g.socialSchema().user == user && g.socialSchema().id == id)

        var builder = GraphBuilder()
        _ = builder.label("Event")
        let built = try (consume builder).build()
        #expect(built.socialSchema() == SocialSchema(graph: built) && built.socialSchema().event != nil)
        let people = people()
        #expect(people.socialSchema() == SocialSchema(graph: people) && people.socialSchema().friend != nil)
        var renamed = SocialNames.standard
        renamed.friend = "KNOWS"
        #expect(g.socialSchema(names: renamed).friend == g.relationshipTypeID(named: "KNOWS"))
    }
}
