// ChangeEventDerivationTests.swift — the change feed's events derived from real commits (social
// procedures and plain Cypher writes, read back from the log): which social event each write
// makes, for whom, with which ids; that a blocked user hears nothing naming the block; and the
// node and relationship changes with their changed keys.

import Foundation
import Testing
import GraphQuery
import GraphStore
import GraphTestSupport

@Suite struct ChangeEventDerivationTests {
    /// A durable graph with users 1–4 and event 100 hosted by 1 with 2 invited.
    final class Fixture {
        let directory: TemporaryDirectory
        let data: DataDirectory
        let store: GraphStore
        let engine = QueryEngine()
        var seen: UInt64

        init() throws {
            directory = try TemporaryDirectory("derivation")
            data = try DataDirectory(path: directory.path)
            store = try data.createGraph(named: "g")
            _ = try engine.execute("""
                CREATE (u1:User {id: 1}), (:User {id: 2}), (:User {id: 3}), (:User {id: 4}),
                       (u1)-[:HOSTS]->(e:Event {id: 100, title: 'Picnic'})
                """, on: store)
            _ = try engine.execute("MATCH (u:User {id: 2}), (e:Event {id: 100}) WITH u, e LIMIT 1 CREATE (u)-[:INVITED]->(e)", on: store)
            seen = store.publishedSequence
        }

        /// The events of the commits `query` made.
        func run(_ query: String) throws -> [DerivedCommit] {
            _ = try engine.execute(query, on: store)
            guard case .records(let records) = try store.committedRecords(after: seen, limit: 100) else {
                Issue.record("log gone")
                return []
            }
            seen = records.last?.sequence ?? seen
            return store.derive(records)
        }

        func social(_ query: String) throws -> [String] {
            try run(query).flatMap(\.social).map { event in
                var text = "\(event.type.rawValue) to \(event.to.appID?.description ?? "node")"
                if let user = event.user { text += " user \(user.appID?.description ?? "node")" }
                if let e = event.event { text += " event \(e.appID?.description ?? "node \(e.node)")" }
                return text
            }
        }
    }

    @Test func friendshipEvents() throws {
        let f = try Fixture()
        #expect(try f.social("CALL social.sendRequest(1, 3) YIELD outcome RETURN outcome") == ["friend-request to 3 user 1"])
        #expect(try f.social("CALL social.acceptRequest(3, 1) YIELD outcome RETURN outcome")
                == ["friend-accepted to 1 user 3", "friend-accepted to 3 user 1"])
        // Requests crossing: the second request is the acceptance.
        _ = try f.social("CALL social.sendRequest(1, 4) YIELD outcome RETURN outcome")
        #expect(try f.social("CALL social.sendRequest(4, 1) YIELD outcome RETURN outcome")
                == ["friend-accepted to 1 user 4", "friend-accepted to 4 user 1"])
        #expect(try f.social("CALL social.unfriend(1, 4) YIELD outcome RETURN outcome")
                == ["friend-removed to 1 user 4", "friend-removed to 4 user 1"])
        // A plain CREATE of FRIEND is a friendship too; a declined request tells no one.
        #expect(try f.social("MATCH (a:User {id: 2}), (b:User {id: 4}) CREATE (a)-[:FRIEND]->(b)")
                == ["friend-accepted to 2 user 4", "friend-accepted to 4 user 2"])
        _ = try f.social("CALL social.sendRequest(4, 3) YIELD outcome RETURN outcome")
        #expect(try f.social("CALL social.declineRequest(3, 4) YIELD outcome RETURN outcome") == [])
    }

    @Test func aBlockedUserHearsNothingNamingTheBlock() throws {
        let f = try Fixture()
        _ = try f.social("CALL social.sendRequest(1, 3) YIELD outcome RETURN outcome")
        _ = try f.social("CALL social.acceptRequest(3, 1) YIELD outcome RETURN outcome")
        let events = try f.run("CALL social.block(1, 3) YIELD outcome RETURN outcome").flatMap(\.social)
        let toBlocked = events.filter { $0.to.appID == .integer(3) }.map(\.type)
        #expect(toBlocked == [.friendRemoved])
        #expect(events.filter { $0.to.appID == .integer(1) }.map(\.type).contains(.friendBlocked))
        #expect(try f.social("CALL social.unblock(1, 3) YIELD outcome RETURN outcome") == ["friend-unblocked to 1 user 3"])
    }

    @Test func eventEvents() throws {
        let f = try Fixture()
        // An invitation: the guest is invited; host and the other guest see the guest list change.
        #expect(try f.social("MATCH (u:User {id: 3}), (e:Event {id: 100}) CREATE (u)-[:INVITED]->(e)")
                == ["event-invited to 3 event 100", "event-updated to 1 event 100", "event-updated to 2 event 100"])
        #expect(try f.social("MATCH (e:Event {id: 100}) SET e.title = 'Barbecue'")
                == ["event-updated to 1 event 100", "event-updated to 2 event 100", "event-updated to 3 event 100"])
        // A new event with its host and a guest in one commit.
        #expect(try f.social("MATCH (h:User {id: 4}), (g:User {id: 1}) CREATE (h)-[:HOSTS]->(e:Event {id: 200})<-[:INVITED]-(g)")
                == ["event-invited to 1 event 200", "event-created to 4 event 200"])
        // Deleted: everyone it had hears of it, the event by node id (its app id went with it).
        let deleted = try f.run("MATCH (e:Event {id: 200}) DETACH DELETE e").flatMap(\.social)
        #expect(Set(deleted.map { $0.to.appID }) == [.integer(1), .integer(4)])
        #expect(deleted.allSatisfy { $0.type == .eventUpdated && $0.event?.appID == nil })
        #expect(try f.social("MATCH (u:User {id: 2}) SET u.name = 'Bo'") == ["profile-updated to 2"])
    }

    @Test func entityChanges() throws {
        let f = try Fixture()
        let commits = try f.run("MATCH (u:User {id: 2}) SET u.name = 'Bo', u:Premium REMOVE u.missing")
        #expect(commits.count == 1)
        let changes = commits[0].changes
        #expect(changes.count == 1)
        guard case .node(let node, let labels) = changes[0].entity else { Issue.record("not a node"); return }
        #expect(node.appID == .integer(2) && labels == ["Premium", "User"] && changes[0].operation == .updated)
        #expect(changes[0].changed.contains("name") && changes[0].changed.contains(":Premium"))
        let created = try f.run("MATCH (a:User {id: 1}), (b:User {id: 4}) CREATE (a)-[:FOLLOWS {since: 1}]->(b)")[0]
        guard case .relationship(_, let type, let start, let end) = created.changes[0].entity else { Issue.record("not a rel"); return }
        #expect(type == "FOLLOWS" && start.appID == .integer(1) && end.appID == .integer(4) && created.changes[0].operation == .created)
        let payload = String(decoding: ChangePayload.encode(created.changes[0], of: created), as: UTF8.self)
        #expect(payload.hasPrefix("{\"token\":\"\(created.token)\",\"type\":\"relationship-created\""))
        #expect(payload.contains("\"relType\":\"FOLLOWS\",\"start\":1,\"end\":4"))
    }

    @Test func iso8601() {
        #expect(ChangePayload.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ChangePayload.iso8601(milliseconds: 1_764_345_601_123) == "2025-11-28T16:00:01.123Z")
        #expect(ChangePayload.iso8601(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }
}
