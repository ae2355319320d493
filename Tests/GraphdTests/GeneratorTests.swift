// GeneratorTests.swift — the synthetic social graph (SocialData/Generator*): deterministic per
// seed, the promised shape and invariants, a lossless CSV round trip, and a load into a graph
// that the social kernels read back correctly.

import Foundation
import GraphStore
import GraphTestSupport
import SocialData
import Testing

@Suite struct GeneratorTests {
    static func parameters(seed: UInt64 = 42) -> SocialGraphParameters {
        var p = SocialGraphParameters(users: 2_000, averageDegree: 20, maximumDegree: 300, events: 50, invitesPerEvent: 10)
        p.seed = seed
        return p
    }

    @Test func sameSeedSameGraphOtherSeedOtherGraph() {
        let a = SocialGraphGenerator(parameters: Self.parameters()).generate()
        let b = SocialGraphGenerator(parameters: Self.parameters()).generate()
        let c = SocialGraphGenerator(parameters: Self.parameters(seed: 43)).generate()
        #expect(a.friendA == b.friendA && a.friendB == b.friendB && a.invitedUser == b.invitedUser && a.names == b.names)
        #expect(a.friendA != c.friendA || a.friendB != c.friendB)
    }

    @Test func shapeAndInvariants() {
        let p = Self.parameters()
        let d = SocialGraphGenerator(parameters: p).generate()
        let mean = 2.0 * Double(d.friendshipCount) / Double(d.userCount)
        #expect(abs(mean - p.averageDegree) / p.averageDegree < 0.015)
        var previous: (UInt32, UInt32)? = nil
        for i in 0..<d.friendshipCount {
            #expect(d.friendA[i] < d.friendB[i])
            if let (a, b) = previous { #expect(a < d.friendA[i] || (a == d.friendA[i] && b < d.friendB[i])) }
            previous = (d.friendA[i], d.friendB[i])
        }
        let (offsets, neighbours) = d.friendAdjacency()
        let degrees = (0..<d.userCount).map { offsets[$0 + 1] - offsets[$0] }
        #expect(degrees.max()! <= p.maximumDegree)
        #expect(degrees.max()! > 5 * Int(p.averageDegree))  // a heavy tail: hubs
        for u in 0..<d.userCount { #expect(neighbours[offsets[u]..<offsets[u + 1]].elementsEqual(neighbours[offsets[u]..<offsets[u + 1]].sorted())) }
        let friends = Set(zip(d.friendA, d.friendB).map { UInt64($0.0) << 32 | UInt64($0.1) })
        for (s, r) in zip(d.requestFrom, d.requestTo) {
            #expect(s != r && !friends.contains(UInt64(min(s, r)) << 32 | UInt64(max(s, r))))
        }
        let invited = Set(zip(d.invitedEvent, d.invitedUser).map { UInt64($0.0) << 32 | UInt64($0.1) })
        #expect(d.attendingEvent.count > 0)
        for (e, u) in zip(d.attendingEvent, d.attendingUser) { #expect(invited.contains(UInt64(e) << 32 | UInt64(u))) }
        for e in 0..<d.eventCount { #expect(!invited.contains(UInt64(e) << 32 | UInt64(d.eventHost[e]))) }
        #expect(Set(d.usernames).count == d.userCount)
    }

    @Test func csvRoundTripIsLossless() throws {
        let d = SocialGraphGenerator(parameters: Self.parameters()).generate()
        try withTemporaryDirectory { dir in
            try d.writeCSV(to: dir)
            let header = String(decoding: try fileBytes(dir + "/users.csv").prefix(17), as: UTF8.self)
            #expect(header == "id,name,username\n")
            let r = try SocialDataset(csvDirectory: dir)
            #expect(r.names == d.names && r.usernames == d.usernames)
            #expect(r.friendA == d.friendA && r.friendB == d.friendB)
            #expect(r.eventHost == d.eventHost && r.eventStartMinutes == d.eventStartMinutes && r.eventTitles == d.eventTitles)
            #expect(r.invitedEvent == d.invitedEvent && r.invitedUser == d.invitedUser)
            #expect(r.attendingUser == d.attendingUser && r.requestFrom == d.requestFrom && r.followTo == d.followTo)
        }
    }

    @Test func loadsIntoAGraphTheKernelsRead() throws {
        let d = SocialGraphGenerator(parameters: Self.parameters()).generate()
        let store = GraphStore.inMemory()
        let ids = try store.write { graph in try d.load(into: &graph) }
        let (offsets, _) = d.friendAdjacency()
        store.read { g in
            let schema = SocialSchema(graph: g)
            #expect(g.nodeCount == d.userCount + d.eventCount)
            for u in stride(from: 0, to: d.userCount, by: 97) {
                #expect(g.friendCount(of: ids.users[u], schema: schema) == offsets[u + 1] - offsets[u])
            }
            let e = 7
            #expect(g.host(of: ids.events[e], schema: schema) == ids.users[Int(d.eventHost[e])])
            #expect(g.property(g.propertyKeyID(named: "starts_at")!, of: ids.events[e]) == .integer(d.eventStartMinutes[e] * 60_000))
        }
    }
    @Test func aSNAPEdgeListBecomesUsersAndFriendships() throws {
        let dir = try TemporaryDirectory("graphd-edges")
        defer { dir.remove() }
        // Comments, a blank line, CRLF, a comma, extra columns, a self-loop, a pair twice (both ways).
        let dense = dir.path + "/dense.txt"
        try "# FromNodeId ToNodeId\n0 1\n1\t2\r\n\n% note\n2,0\n3 3\n1 0 17\n3 1\n".write(toFile: dense, atomically: true, encoding: .utf8)
        let d = try SocialDataset(edgeList: dense)
        #expect(d.userCount == 4)
        #expect(zip(d.friendA, d.friendB).map { [$0, $1] } == [[0, 1], [0, 2], [1, 2], [1, 3]])
        #expect(d.eventCount == 0 && d.usernames.count == 4 && Set(d.usernames).count == 4)
        // Ids that do not run 0..<n are numbered densely in ascending order.
        let sparse = dir.path + "/sparse.txt"
        try "10 500\n500 7\n".write(toFile: sparse, atomically: true, encoding: .utf8)
        let s = try SocialDataset(edgeList: sparse)
        #expect(s.userCount == 3)
        #expect(zip(s.friendA, s.friendB).map { [$0, $1] } == [[0, 2], [1, 2]])
        // A malformed line is named.
        let bad = dir.path + "/bad.txt"
        try "0 1\n1 x\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect { try SocialDataset(edgeList: bad) } throws: { ($0 as? SocialCSVError)?.line == 2 }
        #expect(throws: SocialCSVError.self) { try SocialDataset(edgeList: dir.path + "/missing.txt") }
    }
}
