// ChangedSinceQueryTests.swift — graph.token(), graph.changedSince() and social.changedSince()
// through the query engine: tokens and times as "since", items, and the errors for a since or
// a category that cannot be read (never an answer of "unchanged").

import Foundation
import Testing
@testable import GraphQuery
import GraphStore

@Suite struct ChangedSinceQueryTests {
    func token(_ engine: QueryEngine, _ store: GraphStore) throws -> String {
        guard case .string(let token)? = try engine.execute("RETURN graph.token()", on: store).rows.first?.first else {
            Issue.record("graph.token() did not return a string")
            return ""
        }
        return token
    }

    func changed(_ engine: QueryEngine, _ store: GraphStore, _ user: Int, _ categories: String,
                 _ parameters: [String: Value] = [:]) throws -> [String: Bool] {
        let rows = try engine.execute("CALL social.changedSince(\(user), \(categories)) YIELD category, changed RETURN category, changed",
                                      on: store, parameters: parameters).rows
        var result: [String: Bool] = [:]
        for row in rows {
            if case .string(let c) = row[0], case .bool(let b) = row[1] { result[c] = b }
        }
        return result
    }

    @Test func categoriesFollowTheWritesThatTouchThem() throws {
        let (store, engine) = try SocialProcedureTests.socialStore()
        let t0 = try token(engine, store)
        let all = "{friends: $t, friendRequests: $t, events: $t, profile: $t, blocked: $t}"
        #expect(try changed(engine, store, 1, all, ["t": .string(t0)]).values.allSatisfy { !$0 })
        // A friend of user 1 renames itself: 1's friends changed, nothing else of 1's did.
        let friendOf1 = try engine.execute("MATCH (:User {id: 1})-[:FRIEND]-(f) RETURN f.id ORDER BY f.id LIMIT 1", on: store).rows[0][0]
        guard case .integer(let f) = friendOf1 else { Issue.record("no friend"); return }
        _ = try engine.execute("MATCH (u:User {id: $f}) SET u.name = 'Renamed'", on: store, parameters: ["f": .integer(f)])
        var answer = try changed(engine, store, 1, all, ["t": .string(t0)])
        #expect(answer == ["friends": true, "friendRequests": false, "events": false, "profile": false, "blocked": false])
        // Event 101 (user 1 is invited and attends) gets a new guest: 1's events changed.
        let t1 = try token(engine, store)
        _ = try engine.execute("MATCH (u:User {id: 20}), (e:Event {id: 101}) CREATE (u)-[:INVITED]->(e)", on: store)
        answer = try changed(engine, store, 1, all, ["t": .string(t1)])
        #expect(answer["events"] == true && answer["friends"] == false)
        // Someone blocking user 1 is not visible in 1's own blocked list, and not reported.
        let t2 = try token(engine, store)
        _ = try engine.execute("MATCH (a:User {id: 30}), (b:User {id: 1}) CREATE (a)-[:BLOCKED]->(b)", on: store)
        answer = try changed(engine, store, 1, all, ["t": .string(t2)])
        #expect(answer["blocked"] == false)
        #expect(try changed(engine, store, 30, "{blocked: $t}", ["t": .string(t2)])["blocked"] == true)
    }

    @Test func sinceMayBeATokenATimeOrNullAndAnythingElseIsAnError() throws {
        let (store, engine) = try SocialProcedureTests.socialStore()
        let t = try token(engine, store)
        // A time in the future, one long before the graph, null, another history's token: changed.
        for since: Value in [.string("2999-01-01T00:00:00Z"), .string("1999-01-01T00:00:00+02:00"), .null,
                             .string("00000000deadbeef-3"), .integer(0)] {
            #expect(try changed(engine, store, 1, "{profile: $t}", ["t": since])["profile"] == true, "\(since)")
        }
        #expect(try changed(engine, store, 1, "{profile: $t}", ["t": .string(t)])["profile"] == false)
        for bad in ["yesterday", "12-", "abc-def", "2026-13-45T00:00:00Z"] {
            #expect(throws: QueryError.self) { _ = try changed(engine, store, 1, "{profile: $t}", ["t": .string(bad)]) }
        }
        #expect(throws: QueryError.self) { _ = try changed(engine, store, 1, "{profle: $t}", ["t": .string(t)]) }
        #expect(throws: QueryError.self) { _ = try changed(engine, store, 1, "'friends'") }
        #expect(throws: QueryError.self) { _ = try engine.execute("MATCH (u:User {id: 1}) RETURN graph.changedSince(u, 'nonsense-')", on: store) }
    }

    @Test func theGenericFunctionsAnswerForANodeAndForOneType() throws {
        let (store, engine) = try SocialProcedureTests.socialStore()
        let t = try token(engine, store)
        let query = "MATCH (u:User {id: $u}) RETURN graph.changedSince(u, $t), graph.changedSince(u, 'FRIEND', $t), graph.changedSince(u, 'NO_SUCH_TYPE', $t)"
        #expect(try engine.execute(query, on: store, parameters: ["u": .integer(5), "t": .string(t)]).rows[0] == [.bool(false), .bool(false), .bool(false)])
        _ = try engine.execute("MATCH (a:User {id: 5}), (b:User {id: 6}) CREATE (a)-[:FRIEND]->(b)", on: store)
        #expect(try engine.execute(query, on: store, parameters: ["u": .integer(6), "t": .string(t)]).rows[0] == [.bool(false), .bool(true), .bool(false)])
        _ = try engine.execute("MATCH (a:User {id: 6}) SET a.name = 'x'", on: store)
        #expect(try engine.execute(query, on: store, parameters: ["u": .integer(6), "t": .string(t)]).rows[0] == [.bool(true), .bool(true), .bool(false)])
        // The token moves with each commit and keeps its history.
        let next = try token(engine, store)
        #expect(next != t && next.split(separator: "-").first == t.split(separator: "-").first)
        // A writing query's token is its own commit's; before any write, the last commit's.
        let own = try engine.execute("CREATE (:User {id: 999}) RETURN graph.token()", on: store).rows[0][0]
        #expect(own == .string(try token(engine, store)) && own != .string(next))
        let before = try engine.execute("WITH graph.token() AS t CREATE (:User {id: 998}) RETURN t", on: store).rows[0][0]
        #expect(before == own)
    }

    @Test func itemsComeWithAChangedCategoryOnly() throws {
        let (store, engine) = try SocialProcedureTests.socialStore()
        let t = try token(engine, store)
        _ = try engine.execute("MATCH (a:User {id: 1}), (b:User {id: 38}) MERGE (a)-[:FRIEND]->(b)", on: store)
        let rows = try engine.execute("""
            CALL social.changedSince(1, {friends: $t, profile: $t}, {items: true}) YIELD category, changed, token, items
            RETURN category, changed, size(items), token = graph.token(), [i IN coalesce(items, []) | i.friend.id]
            """, on: store, parameters: ["t": .string(t)]).rows
        let friends = try engine.execute("MATCH (:User {id: 1})-[:FRIEND]-(f) RETURN f.id ORDER BY id(f)", on: store).rows.map { $0[0] }
        #expect(rows.count == 2)
        #expect(rows[0][0] == .string("friends") && rows[0][1] == .bool(true) && rows[0][2] == .integer(Int64(friends.count)))
        #expect(rows[0][4] == .list(friends))
        #expect(rows[1] == [.string("profile"), .bool(false), .null, .bool(true), .list([])])
    }
}
