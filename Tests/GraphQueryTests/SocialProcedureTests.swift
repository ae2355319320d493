// SocialProcedureTests.swift — the social.* procedures and functions through the query engine:
// each read procedure returns the same rows as its plain-Cypher form in docs/social.md, and the
// writing procedures keep the friend-request rules, report statistics and refuse RO_QUERY.

import Foundation
import Testing
@testable import GraphQuery
import GraphStore

@Suite struct SocialProcedureTests {
    /// 40 users (ids 0…39) with pseudo-random friendships (a fixed LCG), two events, invitations,
    /// a block and pending requests.
    static func socialStore() throws -> (GraphStore, QueryEngine) {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("UNWIND range(0, 39) AS i CREATE (:User {id: i})", on: store)
        var seed: UInt64 = 12345
        var pairs = Set<[Int64]>()
        while pairs.count < 160 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let a = Int64((seed >> 33) % 40)
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let b = Int64((seed >> 33) % 40)
            if a != b && !pairs.contains([b, a]) { pairs.insert([a, b]) }
        }
        let list = Value.list(pairs.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }.enumerated().map { i, p in
            .list([.integer(p[0]), .integer(p[1]), .integer(Int64(i % 7))])
        })
        _ = try engine.execute("UNWIND $pairs AS p MATCH (a:User {id: p[0]}), (b:User {id: p[1]}) CREATE (a)-[:FRIEND {created_at: p[2]}]->(b)",
                               on: store, parameters: ["pairs": list])
        _ = try engine.execute("""
            MATCH (h:User {id: 0}), (g:User {id: 1}), (k:User {id: 3})
            CREATE (h)-[:HOSTS]->(e:Event {id: 100, starts_at: 2000}), (g)-[:INVITED]->(e), (k)-[:ATTENDING]->(e)
            """, on: store)
        _ = try engine.execute("""
            MATCH (h:User {id: 5}), (g:User {id: 1}), (x:User {id: 9})
            CREATE (h)-[:HOSTS]->(e:Event {id: 101, starts_at: 1000}), (g)-[:INVITED]->(e), (g)-[:ATTENDING]->(e), (x)-[:INVITED]->(e)
            """, on: store)
        _ = try engine.execute("MATCH (a:User {id: 0}), (b:User {id: 2}) CREATE (a)-[:BLOCKED]->(b)", on: store)
        _ = try engine.execute("MATCH (a:User {id: 7}), (b:User {id: 0}) CREATE (a)-[:FRIEND_REQUEST]->(b)", on: store)
        return (store, engine)
    }

    func rows(_ engine: QueryEngine, _ store: GraphStore, _ text: String, _ parameters: [String: Value] = [:]) throws -> [[ResultValue]] {
        try engine.execute(text, on: store, parameters: parameters).rows
    }

    @Test func friendsMatchThePlainForm() throws {
        let (store, engine) = try Self.socialStore()
        for user in [0, 1, 17] {
            let p: [String: Value] = ["u": .integer(Int64(user))]
            let byID = try rows(engine, store, "CALL social.friends($u, null) YIELD friend, since RETURN friend.id, since", p)
            let plainByID = try rows(engine, store, "MATCH (u:User {id: $u})-[r:FRIEND]-(friend) WHERE friend <> u RETURN friend.id, r.created_at AS since ORDER BY id(friend)", p)
            #expect(!byID.isEmpty && byID == plainByID)
            let newest = try rows(engine, store, "CALL social.friends($u, {order: 'newest', limit: 5}) YIELD friend, since RETURN friend.id, since", p)
            let plainNewest = try rows(engine, store, """
                MATCH (u:User {id: $u})-[r:FRIEND]-(friend) WHERE friend <> u
                RETURN friend.id, r.created_at AS since
                ORDER BY coalesce(r.created_at, -9223372036854775808) DESC, id(friend) LIMIT 5
                """, p)
            #expect(newest == plainNewest)
        }
    }

    @Test func connectionsMatchThePlainForm() throws {
        let (store, engine) = try Self.socialStore()
        for user in [0, 4, 33] {
            for (limit, minimum) in [(50, 1), (3, 2)] {
                let p: [String: Value] = ["u": .integer(Int64(user)), "limit": .integer(Int64(limit)), "min": .integer(Int64(minimum))]
                let procedure = try rows(engine, store, "CALL social.connections($u, {limit: $limit, minMutual: $min}) YIELD user, mutual RETURN user.id, mutual", p)
                let plain = try rows(engine, store, """
                    MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c)
                    WHERE c <> u AND NOT (u)-[:FRIEND]-(c)
                    WITH c, count(DISTINCT f) AS mutual WHERE mutual >= $min
                    RETURN c.id, mutual ORDER BY mutual DESC, id(c) LIMIT $limit
                    """, p)
                #expect(!procedure.isEmpty && procedure == plain, "connections of \(user)")
            }
        }
    }

    @Test func mutualFriendsMatchThePlainFormAndTheFunction() throws {
        let (store, engine) = try Self.socialStore()
        for (a, b) in [(0, 1), (2, 3), (10, 20), (5, 5)] {
            let p: [String: Value] = ["a": .integer(Int64(a)), "b": .integer(Int64(b))]
            let procedure = try rows(engine, store, "CALL social.mutualFriends($a, $b) YIELD friend RETURN friend.id", p)
            let plain = try rows(engine, store, "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $b}) WHERE a <> b RETURN DISTINCT m.id ORDER BY m.id", p)
            #expect(procedure == plain)
            let count = try rows(engine, store, "RETURN social.mutualFriendCount($a, $b)", p)
            #expect(count == [[.integer(Int64(procedure.count))]])
        }
    }

    @Test func relationshipsMatchThePlainForm() throws {
        let (store, engine) = try Self.socialStore()
        let p: [String: Value] = ["v": .integer(0), "users": .list([0, 1, 2, 7, 15, 31, 39].map { .integer($0) })]
        let procedure = try rows(engine, store, """
            CALL social.relationships($v, $users) YIELD user, relation, mutual, requestSent, requestReceived, blockedByViewer, blocksViewer
            RETURN user.id, relation, mutual, requestSent, requestReceived, blockedByViewer, blocksViewer
            """, p)
        // docs/social.md's plain form (the planner runs it on the kernel: SocialPipelineTests).
        let plain = try rows(engine, store, SocialPipelineTests.plainLabels, ["viewer": p["v"]!, "users": p["users"]!])
        #expect(procedure.count == 7)
        #expect(procedure == plain)
        #expect(procedure[0][1] == .string("SELF"))
        #expect(procedure[2][5] == .bool(true))   // 0 blocked 2
        #expect(procedure[3][4] == .bool(true))   // 7 asked 0
    }

    @Test func invitableAudienceMatchesThePlainForm() throws {
        let (store, engine) = try Self.socialStore()
        let procedure = try rows(engine, store, "CALL social.invitableAudience(100, {hops: 2}) YIELD user, relation, mutual RETURN user.id, relation, mutual")
        // The plain form through the general plan (as written it runs on the kernel:
        // SocialPipelineTests).
        let plain = try rows(engine, store, SocialPipelineTests.general(SocialPipelineTests.plainAudience), ["event": .integer(100)])
        #expect(!procedure.isEmpty && procedure == plain)
        let ids = procedure.map { $0[0] }
        for excluded in [0, 1, 2, 3] { #expect(!ids.contains(.integer(Int64(excluded)))) }
        let friendsOnly = try rows(engine, store, "CALL social.invitableAudience(100, {hops: 1, limit: 4}) YIELD user, relation RETURN relation")
        #expect(friendsOnly.count <= 4 && friendsOnly.allSatisfy { $0 == [.string("FRIEND")] })
    }

    @Test func invitationsMatchThePlainForm() throws {
        let (store, engine) = try Self.socialStore()
        let procedure = try rows(engine, store, """
            CALL social.invitations(1, null) YIELD event, startsAt, attending, host, hostRelation, hostMutual
            RETURN event.id, startsAt, attending, host.id, hostRelation, hostMutual
            """)
        let plain = try rows(engine, store, """
            MATCH (u:User {id: 1})-[r:INVITED|ATTENDING]->(event:Event)
            WITH u, event, max(CASE type(r) WHEN 'ATTENDING' THEN 1 ELSE 0 END) = 1 AS attending
            OPTIONAL MATCH (h:User)-[:HOSTS]->(event)
            OPTIONAL MATCH (u)-[:FRIEND]-(m)-[:FRIEND]-(h) WHERE u <> h
            WITH u, event, attending, h, count(DISTINCT m) AS mutual
            RETURN event.id, event.starts_at AS startsAt, attending, h.id,
                   CASE WHEN h IS NULL THEN null WHEN h = u THEN 'SELF' WHEN (u)-[:FRIEND]-(h) THEN 'FRIEND'
                        WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END AS hostRelation,
                   CASE WHEN h IS NULL THEN null ELSE mutual END AS hostMutual
            ORDER BY event.starts_at, id(event)
            """)
        #expect(procedure.count == 2)
        #expect(procedure == plain)
        #expect(procedure.map { $0[0] } == [.integer(101), .integer(100)])
        #expect(procedure.map { $0[2] } == [.bool(true), .bool(false)])
    }

    /// A read-only call and the projection after it run as one step (DirectProjection) when the
    /// projection ends its stretch. `YIELD … WHERE true` keeps a query on the general path (a
    /// filtered call is never fused), so each query is checked against its general twin: every
    /// kind of projected item, DISTINCT, SKIP and LIMIT, and what may follow (the result, an aggregation,
    /// a sort, an earlier variable).
    @Test func aFusedCallAndProjectionReturnWhatTheGeneralPathReturns() throws {
        let (store, engine) = try Self.socialStore()
        let shapes = [
            "CALL social.friends($u, null) YIELD friend, since {where} RETURN friend.id, friend, since",
            "CALL social.friends($u, null) YIELD friend, since {where} RETURN friend.id AS id, 1 AS one, $p AS p, friend.id + coalesce(since, 0) AS sum",
            "CALL social.friends($u, null) YIELD friend, since {where} RETURN CASE WHEN since > 3 THEN 'late' ELSE 'early' END AS kind, friend.missing",
            "CALL social.friends($u, null) YIELD friend, since {where} RETURN friend.id SKIP 2 LIMIT 3",
            "CALL social.friends($u, null) YIELD friend {where} RETURN friend.id LIMIT 1",
            "CALL social.friends($u, null) YIELD friend, since {where} RETURN DISTINCT since",
            "CALL social.friends($u, null) YIELD friend, since {where} RETURN DISTINCT since SKIP 1 LIMIT 2",
            "CALL social.friends($u, null) YIELD friend, since {where} RETURN DISTINCT since % 3 AS k SKIP 1",
            "CALL social.friends($u, null) YIELD friend, since {where} WITH since, friend.id AS id RETURN since, count(id) AS n ORDER BY since",
            "CALL social.friends($u, null) YIELD friend {where} WITH friend.id AS id, friend RETURN id ORDER BY id DESC LIMIT 4",
            // The fused projection is not the stretch's last step: more follow it.
            "CALL social.friends($u, null) YIELD friend, since {where} WITH friend.id AS id, since RETURN id, since + 1 AS later LIMIT 5",
            "CALL social.friends($u, null) YIELD friend, since {where} WITH DISTINCT since RETURN since SKIP 1",
            "CALL social.friends($u, null) YIELD friend {where} WITH friend SKIP 1 MATCH (friend)-[:FRIEND]-(x) RETURN friend.id, x.id",
            "MATCH (v:User {id: $u}) CALL social.friends(v, null) YIELD friend {where} RETURN v.id, friend.id, v",
            "CALL social.connections($u, {limit: 5}) YIELD user, mutual {where} RETURN user.id, mutual",
            "CALL social.invitableAudience(100, {hops: 2}) YIELD user, relation, mutual {where} RETURN user.id, relation, mutual",
        ]
        for user in [0, 1, 17] {
            let parameters: [String: Value] = ["u": .integer(Int64(user)), "p": .string("x")]
            for shape in shapes {
                let fused = try rows(engine, store, shape.replacingOccurrences(of: "{where}", with: ""), parameters)
                let general = try rows(engine, store, shape.replacingOccurrences(of: "{where}", with: "WHERE true"), parameters)
                #expect(!fused.isEmpty, "\(shape) for user \(user) returned nothing: nothing compared")
                #expect(fused == general, "\(shape) for user \(user)")
            }
        }
        // A property of something that is not a node, a relationship or a map fails the same way.
        let bad = "CALL social.friends(0, null) YIELD friend, since {where} RETURN friend.id.x"
        #expect(throws: QueryError.self) { try rows(engine, store, bad.replacingOccurrences(of: "{where}", with: "")) }
        // A value from before the call is read only for a row that is projected: a user without
        // friends gets no rows and no error from `k.x`, on either path.
        _ = try engine.execute("CREATE (:User {id: 999})", on: store)
        let lonely = "WITH toInteger('5') AS k CALL social.friends(999, null) YIELD friend {where} RETURN k.x, friend.id"
        for variant in ["", "WHERE true"] {
            #expect(try rows(engine, store, lonely.replacingOccurrences(of: "{where}", with: variant)).isEmpty)
        }
    }

    /// A fused call's rows go straight into the result (ExecutionContext.collectDirectly), and
    /// count as the general path's do: against the result-row limit, the memory cap and a LIMIT.
    @Test func aFusedCallCountsAgainstTheResultAndMemoryLimits() throws {
        let (store, engine) = try Self.socialStore()
        let busiest = try rows(engine, store, """
            UNWIND range(0, 39) AS u CALL social.friends(u, null) YIELD friend
            WITH u, count(friend) AS n RETURN u, n ORDER BY n DESC, u LIMIT 1
            """)
        guard case .integer(let user) = busiest[0][0], case .integer(let n) = busiest[0][1] else {
            Issue.record("no busiest user: \(busiest)")
            return
        }
        #expect(n > 4)
        let shape = "CALL social.friends($u, null) YIELD friend, since {where} RETURN friend.id, since, 'tag' AS tag, $p AS p"
        let parameters: [String: Value] = ["u": .integer(user), "p": .string("a parameter")]
        let fused = shape.replacingOccurrences(of: "{where}", with: "")
        let general = shape.replacingOccurrences(of: "{where}", with: "WHERE true")
        // The same rows, and the same memory charged for them.
        #expect(try rows(engine, store, fused, parameters) == rows(engine, store, general, parameters))
        let fusedCap = try smallestMemoryCap(engine, store, fused, parameters)
        #expect(fusedCap == (try smallestMemoryCap(engine, store, general, parameters)))
        #expect(fusedCap > Int(n) * 4 * 24, "the rows' cells are charged")
        // The result-row limit: n rows are allowed at n, not at n - 1.
        for text in [fused, general] {
            engine.configuration.resultRowLimit = Int(n)
            #expect(try rows(engine, store, text, parameters).count == Int(n))
            engine.configuration.resultRowLimit = Int(n) - 1
            #expect(throws: QueryError.self) { try rows(engine, store, text, parameters) }
        }
        engine.configuration.resultRowLimit = nil
        // A LIMIT stops the call's rows where it says: before the first, at the last and past it.
        for limit in [0, 1, Int(n) - 1, Int(n), Int(n) + 1] {
            let limited = try rows(engine, store, fused + " LIMIT \(limit)", parameters)
            #expect(limited == Array(try rows(engine, store, general, parameters).prefix(limit)))
        }
    }

    @Test func canViewFiltersInWhere() throws {
        let (store, engine) = try Self.socialStore()
        let withFunction = try rows(engine, store, "MATCH (u:User) WHERE social.canView(3, u) RETURN u.id ORDER BY u.id")
        let plain = try rows(engine, store, "MATCH (u:User) WHERE u.id = 3 OR (:User {id: 3})-[:FRIEND]-(u) RETURN u.id ORDER BY u.id")
        #expect(withFunction.count > 1)
        #expect(withFunction == plain)
        #expect(try rows(engine, store, "RETURN social.canView(null, 1)") == [[.null]])
    }

    @Test func requestProceduresFollowTheRules() throws {
        let (store, engine) = try Self.socialStore()
        // 7 already asked 0: 0 asking 7 makes them friends.
        let became = try engine.execute("CALL social.sendRequest(0, 7) YIELD outcome RETURN outcome", on: store)
        #expect(became.rows == [[.string("FRIENDS")]])
        #expect(became.statistics.relationshipsCreated == 1 && became.statistics.relationshipsDeleted == 1)
        #expect(try rows(engine, store, "RETURN social.canView(7, 0)") == [[.bool(true)]])
        // 38 → 39 (not friends in the fixture unless the LCG made them so): sent once, then not duplicated.
        let first = try rows(engine, store, "CALL social.sendRequest(38, 39) YIELD outcome RETURN outcome")
        let again = try rows(engine, store, "CALL social.sendRequest(38, 39) YIELD outcome RETURN outcome")
        #expect(first == [[.string("SENT")]] ? again == [[.string("ALREADY_PENDING")]] : again == first)
        // The sender cannot accept its own request.
        #expect(throws: QueryError.self) { try engine.execute("CALL social.acceptRequest(38, 39) YIELD outcome RETURN outcome", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("CALL social.sendRequest(2, 0) YIELD outcome RETURN outcome", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("CALL social.sendRequest(4, 4) YIELD outcome RETURN outcome", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("CALL social.sendRequest(4, 999) YIELD outcome RETURN outcome", on: store) }
        #expect(throws: QueryError.self) {
            try engine.execute("CALL social.block(0, 7) YIELD outcome RETURN outcome", on: store, readOnly: true)
        }
        let blocked = try engine.execute("CALL social.block(0, 7) YIELD outcome RETURN outcome", on: store)
        #expect(blocked.rows == [[.string("CHANGED")]] && blocked.statistics.relationshipsDeleted == 1)
        #expect(try rows(engine, store, "RETURN social.canView(7, 0)") == [[.bool(false)]])
        #expect(try rows(engine, store, "CALL social.unblock(0, 7) YIELD outcome RETURN outcome") == [[.string("CHANGED")]])
        #expect(try rows(engine, store, "CALL social.unblock(0, 7) YIELD outcome RETURN outcome") == [[.string("UNCHANGED")]])
    }

    @Test func badOptionsAreErrors() throws {
        let (store, engine) = try Self.socialStore()
        #expect(throws: QueryError.self) { try engine.execute("CALL social.connections(0, {limt: 5}) YIELD user RETURN user", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("CALL social.connections(0, {limit: -1}) YIELD user RETURN user", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("CALL social.invitableAudience(100, {hops: 3}) YIELD user RETURN user", on: store) }
        #expect(try rows(engine, store, "CALL social.friends(12345, null) YIELD friend RETURN friend").isEmpty)
    }

    /// Grouped by `c.id` instead of c, the connections query runs on the kernel while no two
    /// connections share an id; when two do, the group's count is over both (the distinct
    /// friends they share, not the sum), so the query runs again on its plan as bound.
    @Test func aGroupingByValuesOfCRunsAsBoundWhenTwoConnectionsShareThem() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        _ = try engine.execute("""
            CREATE (u:User {id: 1})-[:FRIEND]->(f:User {id: 2}), (f)-[:FRIEND]->(:User {id: 7}), (f)-[:FRIEND]->(:User {id: 7}),
                   (g:User {id: 3})-[:FRIEND]->(u), (g)-[:FRIEND]->(:User {id: 8}), (f)-[:FRIEND]->(:User {id: 9}), (g)-[:FRIEND]->(:User {id: 9})
            """, on: store)
        let text = """
            MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c)
            RETURN c.id AS id, count(DISTINCT f) AS m ORDER BY m DESC, id
            """
        #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: connections)") })
        let shared = try rows(engine, store, text, ["u": .integer(1)])
        // Both 7s are reached through f alone: one mutual friend, not two.
        #expect(shared == [[.integer(9), .integer(2)], [.integer(7), .integer(1)], [.integer(8), .integer(1)]])
        #expect(shared == (try rows(reference, store, text, ["u": .integer(1)])))
        // No shared id among user 3's connections: the kernel's rows, the same answer.
        #expect(try rows(engine, store, text, ["u": .integer(3)]) == (try rows(reference, store, text, ["u": .integer(3)])))
        // With a LIMIT, cut by the kernel after it checked every row (option distinctBy); two
        // connections without an id are one group of nulls.
        let limited = text + " LIMIT 2"
        #expect(!(try engine.explain(limited, on: store)).contains { $0.contains("Aggregate") })
        for u in [1, 3] {
            #expect(try rows(engine, store, limited, ["u": .integer(Int64(u))]) == (try rows(reference, store, limited, ["u": .integer(Int64(u))])))
        }
        _ = try engine.execute("""
            CREATE (t:User {id: 20})-[:FRIEND]->(x:User {id: 21}), (t)-[:FRIEND]->(y:User {id: 22}), (x)-[:FRIEND]->(n:User),
                   (x)-[:FRIEND]->(o:User), (y)-[:FRIEND]->(n), (y)-[:FRIEND]->(o), (y)-[:FRIEND]->(:User {id: 23})
            """, on: store)
        let nulls = try rows(reference, store, text, ["u": .integer(20)])
        #expect(nulls.contains { $0.first == .null && $0.last == .integer(2) })
        #expect(try rows(engine, store, text, ["u": .integer(20)]) == nulls)
        let keys = text.replacingOccurrences(of: "c.id AS id,", with: "c.id AS id, c.name AS name,") + " LIMIT 3"
        #expect(try rows(engine, store, keys, ["u": .integer(20)]) == (try rows(reference, store, keys, ["u": .integer(20)])))
    }

    /// Without `a <> b` the mutual-friends pattern still runs on the kernel; given one user
    /// twice, it is the pattern's cycle through that user, and runs on its plan as bound.
    @Test func mutualFriendsWithoutDistinctEndsRunAsBoundForOneUserTwice() throws {
        let (store, _) = try Self.awkwardSocialStore()
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        let text = "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $b}) RETURN DISTINCT m.id AS id ORDER BY id"
        #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: mutualFriends)") })
        for (a, b) in [(0, 1), (0, 0), (1, 1), (2, 2), (3, 5)] {
            let p: [String: Value] = ["a": .integer(Int64(a)), "b": .integer(Int64(b))]
            #expect(try rows(engine, store, text, p) == (try rows(reference, store, text, p)), "\(a), \(b)")
        }
        // User 0 and user 1 are friends twice over: as one user twice, 0 reaches 1 both ways.
        #expect(try !rows(engine, store, text, ["a": .integer(0), "b": .integer(0)]).isEmpty)
    }

    /// Counting a one-hop expansion whose far end nothing reads is the stored degree: the same
    /// rows as the walk, self-loops (one row each, either way) and pairs stored twice included.
    @Test func countsOfOneHopAreDegrees() throws {
        let (store, _) = try Self.awkwardSocialStore()
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        // A friend who is not a user, for the labelled far ends.
        _ = try engine.execute("MATCH (a:User {id: 0}) CREATE (a)-[:FRIEND]->(:Other)<-[:FRIEND]-(a)", on: store)
        let texts = [
            "MATCH (u:User)-[:FRIEND]-(f) RETURN u.id AS id, count(f) AS d ORDER BY d DESC, id",
            "MATCH (u:User)-[r:FRIEND]->() WITH u, count(r) AS d RETURN u.id AS id, d ORDER BY id, d",
            "MATCH (f)-[:FRIEND]->(u:User) WHERE u.id < 10 RETURN u.id AS id, count(*) AS d ORDER BY id, d",
            "MATCH (u:User {id: $u})-[:FRIEND]-(f) RETURN count(f) AS d",
            "MATCH (u:User {id: $u})-[:FRIEND]-(f) RETURN count(*) AS a, count(f) AS b",
            "MATCH (u:User)-[:NOPE]-(f) RETURN count(*) AS d",
            // A labelled far end: a walk of u's lists counting the labelled (a self-loop once).
            "MATCH (u:User)-[:FRIEND]-(f:User) RETURN u.id AS id, count(f) AS d ORDER BY id, d",
            "MATCH (u)<-[:FRIEND]-(f:User) RETURN u.id AS id, count(*) AS d ORDER BY id, d",
            "MATCH (u:User)-[:FRIEND]-(f:Nobody) RETURN count(*) AS d",
        ]
        for text in texts {
            #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: degree)") }, "\(text)")
            for u in [0, 2, 39, 12345] {
                let p: [String: Value] = ["u": .integer(Int64(u))]
                #expect(try rows(engine, store, text, p) == (try rows(reference, store, text, p)), "\(text) for \(u)")
            }
        }
        // Read the far end, or count it DISTINCT: the walk.
        for text in ["MATCH (u:User)-[:FRIEND]-(f) RETURN u.id, count(DISTINCT f)", "MATCH (u:User)-[:FRIEND]-(f:User {id: 1}) RETURN u.id, count(f)",
                     "MATCH (u:User)-[:FRIEND]-(f) RETURN u.id, count(f), max(f.id)"] {
            #expect(!(try engine.explain(text, on: store)).contains { $0.contains("(rule: degree)") }, "\(text)")
        }
    }

    /// `count(DISTINCT c)` over the connections path counts the kernel's rows.
    @Test func theNumberOfConnectionsIsTheKernelsRows() throws {
        let (store, _) = try Self.awkwardSocialStore()
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        let text = "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c:User) WHERE c <> u AND NOT (u)-[:FRIEND]-(c) RETURN count(DISTINCT c) AS n"
        #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: connectionCount)") })
        for u in [0, 2, 39, 12345] {
            let p: [String: Value] = ["u": .integer(Int64(u))]
            #expect(try rows(engine, store, text, p) == (try rows(reference, store, text, p)), "\(u)")
        }
        #expect(try rows(engine, store, text, ["u": .integer(0)]) != [[.integer(0)]])
        // WITH DISTINCT c first, then the count: the kernel's rows too.
        let distinct = "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c) WITH DISTINCT c RETURN count(*) AS n"
        #expect(try engine.explain(distinct, on: store).contains { $0.contains("(rule: distinctConnections)") })
        for u in [0, 2, 39, 12345] {
            let p: [String: Value] = ["u": .integer(Int64(u))]
            #expect(try rows(engine, store, distinct, p) == (try rows(reference, store, distinct, p)), "\(u)")
            #expect(try rows(engine, store, distinct, p) == (try rows(engine, store, text.replacingOccurrences(of: "(c:User)", with: "(c)"), p)))
        }
    }

    @Test func theOptionsMapMayBeLeftOut() throws {
        let (store, engine) = try Self.socialStore()
        // Each social.* procedure with an options map answers without it as with `{}`.
        let calls = [("social.friends", "0", "friend.id"), ("social.connections", "0", "user.id, mutual"),
                     ("social.invitableAudience", "100", "user.id, relation, mutual"),
                     ("social.invitations", "1", "event.id, attending")]
        for (name, argument, columns) in calls {
            let yields = columns.split(separator: ",").map { $0.split(separator: ".")[0].trimmingCharacters(in: .whitespaces) }
            let tail = "YIELD \(Set(yields).sorted().joined(separator: ", ")) RETURN \(columns)"
            let without = try rows(engine, store, "CALL \(name)(\(argument)) \(tail)")
            let withEmpty = try rows(engine, store, "CALL \(name)(\(argument), {}) \(tail)")
            #expect(!without.isEmpty && without == withEmpty, "\(name)")
        }
        #expect(try rows(engine, store, "CALL social.friends(0) YIELD friend RETURN count(friend)")
                == rows(engine, store, "MATCH (:User {id: 0})-[:FRIEND]-(f) RETURN count(DISTINCT f)"))
        // Only the options may be left out, and no more arguments than the procedure takes.
        #expect(throws: QueryError.self) { try engine.execute("CALL social.friends() YIELD friend RETURN friend", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("CALL social.friends(0, {}, 1) YIELD friend RETURN friend", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("CALL social.mutualFriends(0) YIELD friend RETURN friend", on: store) }
    }

    static let plainConnections = """
        MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c)
        WHERE c <> u AND NOT (u)-[:FRIEND]-(c)
        WITH c, count(DISTINCT f) AS mutual
        RETURN c.id, mutual ORDER BY mutual DESC, id(c) LIMIT 10
        """

    @Test func thePlannerRunsThePlainConnectionsQueryOnTheKernel() throws {
        let (store, engine) = try Self.socialStore()
        let plan = try engine.explain(Self.plainConnections, on: store)
        #expect(plan.contains { $0.contains("ProcedureCall social.connections") }, "\(plan)")
        // The same query with a conjunct the recognizer does not know (always true here) runs the
        // general way: both must give the procedure's rows.
        let general = Self.plainConnections.replacingOccurrences(of: "AND NOT (u)", with: "AND f <> c AND NOT (u)")
        #expect(!(try engine.explain(general, on: store)).contains { $0.contains("ProcedureCall") })
        for user in [0, 4, 33] {
            let p: [String: Value] = ["u": .integer(Int64(user))]
            let recognised = try rows(engine, store, Self.plainConnections, p)
            #expect(!recognised.isEmpty)
            #expect(recognised == (try rows(engine, store, general, p)))
            #expect(recognised == (try rows(engine, store, "CALL social.connections($u, {limit: 10}) YIELD user, mutual RETURN user.id, mutual", p)))
        }
        // Labelled (f:User), (c:User), u's condition in WHERE, items swapped: still recognised.
        // (Grouping must be by c itself: `c.id` as the key is left to the general plan.)
        let labelled = """
            MATCH (u:User)-[:FRIEND]-(f:User)-[:FRIEND]-(c:User)
            WHERE u.id = $u AND NOT (u)-[:FRIEND]-(c) AND u <> c
            WITH count(DISTINCT f) AS mutual, c
            RETURN c.id, mutual ORDER BY mutual DESC, id(c) LIMIT 10
            """
        #expect(try engine.explain(labelled, on: store).contains { $0.contains("ProcedureCall social.connections") })
        let p: [String: Value] = ["u": .integer(4)]
        #expect(try rows(engine, store, labelled, p) == (try rows(engine, store, Self.plainConnections, p)))
        // ORDER BY and LIMIT on the grouping projection itself, with a minimum: pushed into the
        // kernel, same rows as the general plan and as the procedure.
        let ordered = """
            MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c)
            WHERE c <> u AND NOT (u)-[:FRIEND]-(c)
            WITH c, count(DISTINCT f) AS mutual ORDER BY mutual DESC, id(c) LIMIT $k
            RETURN c.id, mutual
            """
        let minimum = """
            MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c)
            WHERE c <> u AND NOT (u)-[:FRIEND]-(c)
            WITH c, count(DISTINCT f) AS mutual WHERE mutual >= $min
            RETURN c.id, mutual ORDER BY mutual DESC, id(c) LIMIT $k
            """
        for user in [0, 4] {
            let q: [String: Value] = ["u": .integer(Int64(user)), "min": .integer(2), "k": .integer(3)]
            for (text, call) in [(ordered, "{limit: $k}"), (minimum, "{limit: $k, minMutual: $min}")] {
                let got = try rows(engine, store, text, q)
                #expect(!got.isEmpty)
                #expect(got == (try rows(engine, store, text.replacingOccurrences(of: "AND NOT (u)", with: "AND f <> c AND NOT (u)"), q)))
                #expect(got == (try rows(engine, store, "CALL social.connections($u, \(call)) YIELD user, mutual RETURN user.id, mutual", q)))
            }
        }
        // count(*) is not the connections kernel's count when a pair is stored twice: it is
        // the path-count kernel's, paths and not mutual friends.
        let star = Self.plainConnections.replacingOccurrences(of: "count(DISTINCT f)", with: "count(*)")
        #expect(try engine.explain(star, on: store).contains { $0.contains("(rule: pathCounts)") })
        for user in [0, 1, 2, 39] {
            let q: [String: Value] = ["u": .integer(Int64(user))]
            #expect(try rows(engine, store, star, q) == (try rows(QueryEngine(optimize: false), store, star, q)), "\(user)")
        }
    }

    /// The plain connections query groups by c alone, so when its MATCH finds several users
    /// each c's count is over all of them (one row per c). The call then takes them together,
    /// and the rows are the general plan's: same rows, and the same order wherever the query
    /// orders them. An ORDER BY restating the kernel's order is dropped from the plan; any
    /// other is kept.
    @Test func thePlainConnectionsQueryCountsSeveralUsersTogether() throws {
        let (store, engine) = try Self.awkwardSocialStore()   // two users share id 39
        let several = [
            "MATCH (u:User {id: 39})",
            "MATCH (u:User) WHERE u.id IN [0, 4, 33]",
            "UNWIND [4, 0, 4] AS k MATCH (u:User {id: k})",
            "MATCH (u:User) WHERE u.id < 2",
        ]
        let tails = [
            "WITH c, count(DISTINCT f) AS mutual RETURN c.id, mutual ORDER BY mutual DESC, id(c) LIMIT 10",
            "WITH c, count(DISTINCT f) AS mutual WHERE mutual >= 2 RETURN c.id AS id, mutual ORDER BY mutual DESC, id(c)",
            "WITH c, count(DISTINCT f) AS mutual ORDER BY mutual DESC, id(c) LIMIT 7 RETURN c.id, mutual",
            // Not the kernel's order: kept.
            "WITH c, count(DISTINCT f) AS mutual RETURN c.id, mutual ORDER BY mutual, id(c) DESC LIMIT 6",
            "WITH c, count(DISTINCT f) AS mutual ORDER BY id(c) LIMIT 5 RETURN c.id, mutual ORDER BY mutual DESC, id(c)",
        ]
        let pattern = " MATCH (u)-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c) "
        func general(_ text: String) -> String { text.replacingOccurrences(of: "AND NOT (u)", with: "AND f <> c AND NOT (u)") }
        for start in several {
            for tail in tails {
                let text = start + pattern + tail
                #expect(try engine.explain(text, on: store).contains { $0.contains("ProcedureCall social.connections") })
                let got = try rows(engine, store, text)
                #expect(!got.isEmpty, "\(text) returned nothing: nothing compared")
                #expect(got == (try rows(engine, store, general(text))), "\(text)")
            }
            // Without an ORDER BY the rows are the same set, one per c.
            let unordered = start + pattern + "WITH c, count(DISTINCT f) AS mutual RETURN c.id, mutual"
            let got = try rows(engine, store, unordered).map { "\($0)" }
            let expected = try rows(engine, store, general(unordered)).map { "\($0)" }
            #expect(got.count == expected.count && Set(got) == Set(expected), "\(unordered)")
        }
        // The procedure takes a list too: the same rows as the pattern over those users.
        let listed = try rows(engine, store, "CALL social.connections([0, 4, 33, 4], {limit: 10}) YIELD user, mutual RETURN user.id, mutual")
        let matched = try rows(engine, store, general("MATCH (u:User) WHERE u.id IN [0, 4, 33]" + pattern
            + "WITH c, count(DISTINCT f) AS mutual RETURN c.id, mutual ORDER BY mutual DESC, id(c) LIMIT 10"))
        #expect(!listed.isEmpty && listed == matched)
        // One user, or none, in a list: the single user's answer.
        #expect(try rows(engine, store, "CALL social.connections([4, null, 4], {limit: 10}) YIELD user, mutual RETURN user.id, mutual")
                == (try rows(engine, store, "CALL social.connections(4, {limit: 10}) YIELD user, mutual RETURN user.id, mutual")))
        #expect(try rows(engine, store, "CALL social.connections([], {}) YIELD user RETURN user").isEmpty)
        // The documented form's sort restates the kernel's order: no sort in the plan. Another order keeps its sort.
        func sorts(_ text: String) throws -> Bool {
            try engine.compile(text, forRun: false).0.plan.steps.contains { step in
                if case .projection(let p) = step.step { !p.orderBy.isEmpty } else { false }
            }
        }
        #expect(try !sorts(Self.plainConnections))
        #expect(try sorts(Self.plainConnections.replacingOccurrences(of: "mutual DESC", with: "mutual")))
    }

    /// `socialStore()` plus awkward data for the planner's rewrites: a pair stored twice, a
    /// FRIEND self-loop, and two users sharing id 39.
    static func awkwardSocialStore() throws -> (GraphStore, QueryEngine) {
        let (store, engine) = try socialStore()
        _ = try engine.execute("MATCH (a:User {id: 0}), (b:User {id: 1}) CREATE (a)-[:FRIEND]->(b), (b)-[:FRIEND]->(a)", on: store)
        _ = try engine.execute("MATCH (a:User {id: 2}) CREATE (a)-[:FRIEND]->(a)", on: store)
        _ = try engine.execute("MATCH (a:User {id: 0}), (b:User {id: 2}) CREATE (:User {id: 39})-[:FRIEND]->(a), (b)-[:FRIEND]->(a)", on: store)
        return (store, engine)
    }

    @Test func thePlannerRunsThePlainMutualFriendsQueryOnTheKernel() throws {
        let (store, engine) = try Self.awkwardSocialStore()
        let plain = "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $b}) WHERE a <> b RETURN DISTINCT m.id ORDER BY m.id"
        #expect(try engine.explain(plain, on: store).contains { $0.contains("ProcedureCall social.mutualFriends") })
        // The same with a conjunct the recognizer does not know (always true): the general plan.
        let general = plain.replacingOccurrences(of: "WHERE a <> b", with: "WHERE a <> b AND m = m")
        #expect(!(try engine.explain(general, on: store)).contains { $0.contains("ProcedureCall") })
        var nonEmpty = 0
        for a in [0, 1, 2, 5, 39] {
            for b in [0, 1, 2, 3, 20, 39] {
                let p: [String: Value] = ["a": .integer(Int64(a)), "b": .integer(Int64(b))]
                let recognised = try rows(engine, store, plain, p)
                if !recognised.isEmpty { nonEmpty += 1 }
                let expected = try rows(engine, store, general, p)
                #expect(recognised == expected, "a \(a), b \(b): \(recognised) vs \(expected)")
            }
        }
        #expect(nonEmpty > 10)
        // Other DISTINCT projections over a, m, b are rewritten too and agree with the general plan.
        let pairs = "MATCH (a:User)-[:FRIEND]-(m:User)-[:FRIEND]-(b:User) WHERE a <> b AND a.id < 3 AND b.id IN [1, 2, 39] "
            + "RETURN DISTINCT a.id, b.id, m.id ORDER BY a.id, b.id, m.id"
        #expect(try engine.explain(pairs, on: store).contains { $0.contains("ProcedureCall social.mutualFriends") })
        #expect(try rows(engine, store, pairs) == (try rows(engine, store, pairs.replacingOccurrences(of: "a <> b AND", with: "a <> b AND m = m AND"))))
        // Not rewritten: without DISTINCT (path multiplicity shows), counting paths, naming a
        // relationship, ends without :User.
        for text in [
            "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN m.id",
            "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN count(*)",
            "MATCH (a:User {id: 0})-[r:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN DISTINCT m.id, id(r)",
            "MATCH (a {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN DISTINCT m.id",
        ] {
            #expect(!(try engine.explain(text, on: store)).contains { $0.contains("ProcedureCall") }, "\(text)")
        }
        // Without `a <> b`: rewritten, and a row with one user twice runs as bound.
        let open = "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) RETURN DISTINCT m.id"
        #expect(try engine.explain(open, on: store).contains { $0.contains("(rule: mutualFriends)") })
    }

    @Test func thePlannerRunsTheOptionalMutualFriendCountOnTheKernel() throws {
        let (store, engine) = try Self.awkwardSocialStore()
        // A friend who is not a user: `(m)` counts it, `(m:User)` does not.
        _ = try engine.execute("MATCH (a:User {id: 0}), (b:User {id: 3}) CREATE (a)-[:FRIEND]->(:Bot {id: 900})<-[:FRIEND]-(b)", on: store)
        let ids: Value = .list([0, 1, 2, 3, 5, 20, 39, 4242].map { .integer($0) })   // 4242: nobody
        // (shape, whether the call counts: the projection groups by both ends and reads m only
        // through count(DISTINCT m)).
        let shapes: [(String, counts: Bool)] = [
            // The relationship-label query: a viewer, each listed user (null when unknown).
            ("MATCH (v:User {id: $v}) UNWIND $ids AS i OPTIONAL MATCH (x:User {id: i}) "
                + "OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x WITH i, v, x, count(DISTINCT m) AS mutual RETURN i, mutual ORDER BY i", true),
            // Grouped without v: two viewers with one id (39) share a group, so rows per m.
            ("MATCH (v:User {id: $v}) UNWIND $ids AS i OPTIONAL MATCH (x:User {id: i}) "
                + "OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x WITH i, x, count(DISTINCT m) AS mutual RETURN i, mutual ORDER BY i", false),
            ("MATCH (v:User {id: $v}) UNWIND $ids AS i OPTIONAL MATCH (x:User {id: i}) "
                + "OPTIONAL MATCH (v)-[:FRIEND]-(m:User)-[:FRIEND]-(x) WHERE v <> x WITH i, v, x, count(DISTINCT m) AS mutual RETURN i, mutual ORDER BY i", false),
            // A condition on the ends that fails for some rows: those count 0, as OPTIONAL MATCH says.
            ("MATCH (v:User {id: $v}) UNWIND $ids AS i OPTIONAL MATCH (x:User {id: i}) "
                + "OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x AND x.id > 2 WITH i, count(DISTINCT m) AS mutual RETURN i, mutual ORDER BY i", false),
            ("MATCH (v:User {id: $v}) UNWIND $ids AS i OPTIONAL MATCH (x:User {id: i}) "
                + "OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x AND x.id > 2 "
                + "WITH x, i, v, count(DISTINCT m) AS mutual, count(DISTINCT m) AS again RETURN i, mutual + again ORDER BY i", true),
            // DISTINCT instead of a count: a null m where nothing matched.
            ("MATCH (v:User {id: $v}) UNWIND $ids AS i OPTIONAL MATCH (x:User {id: i}) "
                + "OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x RETURN DISTINCT i, m.id ORDER BY i, m.id", false),
        ]
        var counted = 0
        for (shape, counts) in shapes {
            let plan = try engine.explain(shape, on: store)
            #expect(plan.contains { $0.contains("ProcedureCall social.mutualFriends") }, "\(shape)")
            #expect(plan.contains { $0.contains("Optional ProcedureCall") } == !counts, "\(shape): \(plan)")
            // `m = m` (true whenever m exists) keeps the general plan: the reference.
            let general = shape.replacingOccurrences(of: "WHERE v <> x", with: "WHERE v <> x AND m = m")
            #expect(!(try engine.explain(general, on: store)).contains { $0.contains("ProcedureCall") })
            for viewer in [0, 1, 2, 3, 39] {
                let p: [String: Value] = ["v": .integer(Int64(viewer)), "ids": ids]
                let recognised = try rows(engine, store, shape, p)
                let reference = try rows(engine, store, general, p)
                #expect(recognised == reference, "viewer \(viewer): \(shape)")
                counted += recognised.filter { $0.count == 2 && $0[1] != .integer(0) && $0[1] != .null }.count
            }
        }
        #expect(counted > 20, "the data must give mutual friends")
        // Not rewritten: a relationship named and read later, an end with a label in the
        // OPTIONAL MATCH (a filter that could fail), no `v <> x`.
        for text in [
            "MATCH (v:User {id: 0}), (x:User {id: 1}) OPTIONAL MATCH (v)-[r:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x RETURN count(DISTINCT id(r))",
            "MATCH (v:User {id: 0}), (x:User {id: 1}) OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x:User) WHERE v <> x RETURN count(DISTINCT m)",
            "MATCH (v:User {id: 0}), (x:User {id: 1}) OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) RETURN count(DISTINCT m)",
        ] {
            #expect(!(try engine.explain(text, on: store)).contains { $0.contains("ProcedureCall") }, "\(text)")
        }
    }

    @Test func thePlannerRunsThePlainMutualFriendCountOnTheKernel() throws {
        let (store, engine) = try Self.awkwardSocialStore()
        let plain = "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $b}) WHERE a <> b RETURN count(DISTINCT m) AS mutual"
        #expect(try engine.explain(plain, on: store).contains { $0.contains("ProcedureCall social.mutualFriends") })
        let general = plain.replacingOccurrences(of: "WHERE a <> b", with: "WHERE a <> b AND m = m")
        #expect(!(try engine.explain(general, on: store)).contains { $0.contains("ProcedureCall") })
        var positive = 0
        for a in [0, 1, 2, 5, 39, 77] {
            for b in [0, 1, 2, 3, 20, 39] {
                let p: [String: Value] = ["a": .integer(Int64(a)), "b": .integer(Int64(b))]
                let recognised = try rows(engine, store, plain, p)
                let expected = try rows(engine, store, general, p)
                #expect(recognised == expected, "a \(a), b \(b): \(recognised) vs \(expected)")
                if recognised != [[.integer(0)]] { positive += 1 }
            }
        }
        #expect(positive > 10)
        // Grouped by the ends, with a WITH filter and an ORDER BY on the outputs: rewritten, same rows.
        let grouped = "MATCH (a:User)-[:FRIEND]-(m:User)-[:FRIEND]-(b:User) WHERE a <> b AND a.id < 4 AND b.id IN [1, 2, 39] "
            + "WITH a.id AS x, b.id AS y, count(DISTINCT m.id) AS n WHERE n > 1 RETURN x, y, n ORDER BY x, y"
        #expect(try engine.explain(grouped, on: store).contains { $0.contains("ProcedureCall social.mutualFriends") })
        let groupedRows = try rows(engine, store, grouped)
        #expect(!groupedRows.isEmpty)
        #expect(groupedRows == (try rows(engine, store, grouped.replacingOccurrences(of: "a <> b AND", with: "a <> b AND m = m AND"))))
        // Not rewritten (path multiplicity or row order would show): count without DISTINCT,
        // count(*), collect(DISTINCT …), an aggregate inside an expression, another aggregate.
        for text in [
            "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN count(m)",
            "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN count(*)",
            "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN collect(DISTINCT m.id)",
            "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN count(DISTINCT m) + 1",
            "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: 1}) WHERE a <> b RETURN count(DISTINCT m), sum(m.id)",
        ] {
            #expect(!(try engine.explain(text, on: store)).contains { $0.contains("ProcedureCall") }, "\(text)")
        }
        // Near misses still answer right: count(m) counts both paths through the pair 0–1
        // stored twice, so for some b it differs from the (rewritten) distinct count.
        var differs = 0
        for b in 2..<39 {
            let p: [String: Value] = ["b": .integer(Int64(b))]
            let paths = try rows(engine, store, "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $b}) WHERE a <> b RETURN count(m)", p)
            let distinct = try rows(engine, store, "MATCH (a:User {id: 0})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $b}) WHERE a <> b RETURN count(DISTINCT m)", p)
            if paths != distinct { differs += 1 }
        }
        #expect(differs > 0)
    }
}
