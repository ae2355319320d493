// IdSeekTests.swift — `WHERE id(n) = value` finds the node by its id (NodeByIdSeek) instead of
// scanning, however the equality is written, and answers exactly what the scan and filter
// answer: a missing or deleted id, a non-integral or non-numeric value, null, and a label the
// node lacks all find nothing.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Id seek")
struct IdSeekTests {
    /// Five users in a friendship chain, one admin user, and one deleted node (id 2).
    func store() throws -> GraphStore {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("""
            CREATE (a:User {name: 'a'}), (b:User {name: 'b'}), (c:User {name: 'c'}), (d:User:Admin {name: 'd'}),
                   (e:User {name: 'e'}), (f:Page {name: 'f'}),
                   (a)-[:FRIEND]->(b), (b)-[:FRIEND]->(c), (c)-[:FRIEND]->(d), (d)-[:FRIEND]->(e), (e)-[:FRIEND]->(f)
            """, on: store)
        _ = try engine.execute("MATCH (n {name: 'c'}) DETACH DELETE n", on: store)
        return store
    }

    func plan(_ text: String) throws -> String {
        Planner.plan(try Binder.bind(try Parser.parse(text))).compactDescription
    }

    @Test("id equality is sought, written either way round, with a parameter, and as the far end of a pattern", arguments: [
        "MATCH (n) WHERE id(n) = 1 RETURN n.name",
        "MATCH (n:User) WHERE 1 = id(n) RETURN n.name",
        "MATCH (n) WHERE id(n) = $id AND n.name <> 'x' RETURN n.name",
        "MATCH (a)-[:FRIEND]->(b:User) WHERE id(b) = $id RETURN a.name",
        "MATCH (a)-[:FRIEND]->(b) WHERE ID(a) = $id RETURN b.name",
        "MATCH (n:User) WHERE id(n) IN $ids RETURN n.name",
        "MATCH (n:User) WHERE id(n) = 1 OR id(n) = $id RETURN n.name",
        "MATCH (a)-[:FRIEND]->(b) WHERE b.name <> 'x' AND id(b) IN [1, 3] RETURN a.name",
    ])
    func sought(query: String) throws {
        let plan = try plan(query)
        #expect(plan.contains("NodeByIdSeek"), "\(query):\n\(plan)")
        #expect(!plan.contains("Scan"), "\(query):\n\(plan)")
    }

    @Test("the seek answers what the scan and filter answer", arguments: [
        ("MATCH (n) WHERE id(n) = X RETURN n.name ORDER BY n.name", "MATCH (n) WHERE id(n) + 0 = X RETURN n.name ORDER BY n.name"),
        ("MATCH (n:Admin) WHERE X = id(n) RETURN n.name", "MATCH (n:Admin) WHERE X = id(n) + 0 RETURN n.name"),
        ("MATCH (a)-[:FRIEND]->(b:User) WHERE id(b) = X RETURN a.name", "MATCH (a)-[:FRIEND]->(b:User) WHERE id(b) + 0 = X RETURN a.name"),
        ("MATCH (a)-[:FRIEND]-(b) WHERE id(a) = X RETURN b.name ORDER BY b.name",
         "MATCH (a)-[:FRIEND]-(b) WHERE id(a) + 0 = X RETURN b.name ORDER BY b.name"),
        ("MATCH (n {name: 'd'}) WHERE id(n) = X RETURN n.name", "MATCH (n {name: 'd'}) WHERE id(n) + 0 = X RETURN n.name"),
    ])
    func sameAnswers(sought: String, scanned: String) throws {
        let store = try store()
        let engine = QueryEngine()
        #expect(try plan(scanned.replacingOccurrences(of: "X", with: "1")).contains("NodeByIdSeek") == false)
        let values = ["0", "1", "2", "3", "4", "5", "6", "99", "-1", "1.0", "3.0", "1.5", "'1'", "null", "true", "4294967296"]
        for value in values {
            let a = try engine.execute(sought.replacingOccurrences(of: "X", with: value), on: store).rows
            let b = try engine.execute(scanned.replacingOccurrences(of: "X", with: value), on: store).rows
            #expect(a == b, "\(sought) with \(value): \(a) against \(b)")
        }
        // The parameter form too, cached once and run with each value.
        for id: Int64 in [0, 1, 2, 3, 5, 99] {
            let parameterized = sought.replacingOccurrences(of: "X", with: "$id")
            let a = try engine.execute(parameterized, on: store, parameters: ["id": .integer(id)]).rows
            let b = try engine.execute(scanned.replacingOccurrences(of: "X", with: "$id"), on: store, parameters: ["id": .integer(id)]).rows
            #expect(a == b, "\(parameterized) with $id = \(id): \(a) against \(b)")
        }
    }

    @Test("a seek by a list of ids answers what the scan and filter answer", arguments: [
        ("MATCH (n) WHERE id(n) IN X RETURN n.name", "MATCH (n) WHERE id(n) + 0 IN X RETURN n.name"),
        ("MATCH (a)-[:FRIEND]->(b:User) WHERE id(b) IN X RETURN a.name, b.name",
         "MATCH (a)-[:FRIEND]->(b:User) WHERE id(b) + 0 IN X RETURN a.name, b.name"),
    ])
    func sameAnswersForLists(sought: String, scanned: String) throws {
        let store = try store()
        let engine = QueryEngine()
        let lists = ["[]", "[1]", "[4, 0, 4, 1]", "[2, 3, 99, -1]", "[1.0, '0', null, true, 5]", "null", "[null]", "range(0, 10)"]
        for list in lists {
            let a = try engine.execute(sought.replacingOccurrences(of: "X", with: list), on: store).rows
            let b = try engine.execute(scanned.replacingOccurrences(of: "X", with: list), on: store).rows
            // In id order, as the scan finds them.
            #expect(a == b, "\(sought) with \(list): \(a) against \(b)")
        }
        // Not a list: the same error as the filter's.
        let query = sought.replacingOccurrences(of: "X", with: "5")
        #expect(throws: QueryError.self, "\(query)") { try engine.execute(query, on: store) }
    }

    @Test("a node sought by id and found is the one created with it")
    func findsTheNode() throws {
        let store = try store()
        let engine = QueryEngine()
        let id = try engine.execute("MATCH (n {name: 'e'}) RETURN id(n)", on: store).rows
        guard case .integer(let e)? = id.first?.first else { Issue.record("no id: \(id)"); return }
        let found = try engine.execute("MATCH (n:User) WHERE id(n) = $id RETURN n.name", on: store, parameters: ["id": .integer(e)])
        #expect(found.rows == [[.string("e")]])
    }
}
