// PropertyListSeekTests.swift — `WHERE n.key IN list` on a labelled node seeks each listed value
// in the (label, key) index instead of scanning the label, and answers exactly what the scan and
// filter answer, with and without the index, whatever the list holds.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Property list seek")
struct PropertyListSeekTests {
    /// Users with integer ids, a float id, a string id, no id; friendships between some.
    func store(indexed: Bool) throws -> GraphStore {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        if indexed { _ = try engine.execute("CREATE INDEX FOR (u:User) ON (u.id)", on: store) }
        _ = try engine.execute("""
            CREATE (a:User {id: 1, name: 'a'}), (b:User {id: 2, name: 'b'}), (c:User {id: 3.0, name: 'c'}),
                   (d:User {id: '2', name: 'd'}), (e:User {name: 'e'}), (f:Page {id: 1, name: 'f'}),
                   (g:User {id: 4, name: 'g'}),
                   (a)-[:FRIEND]->(b), (b)-[:FRIEND]->(c), (c)-[:FRIEND]->(d), (g)-[:FRIEND]->(a)
            """, on: store)
        return store
    }

    func plan(_ text: String) throws -> String {
        Planner.plan(try Binder.bind(try Parser.parse(text))).compactDescription
    }

    @Test("a labelled node's IN list is sought, also as a pattern's far end", arguments: [
        "MATCH (n:User) WHERE n.id IN $ids RETURN n.name",
        "MATCH (a)-[:FRIEND]->(b:User) WHERE b.id IN [1, 2] RETURN a.name",
        "MATCH (n:User) WHERE n.id = 1 OR n.id = $two OR 3 = n.id RETURN n.name",
        "MATCH (n:User) WHERE n.name <> 'x' AND (n.id = 1 OR n.id = 2) RETURN n.name",
    ])
    func sought(query: String) throws {
        let plan = try plan(query)
        #expect(plan.contains("NodeByPropertyListSeek"), "\(query):\n\(plan)")
        #expect(!plan.contains("Scan"), "\(query):\n\(plan)")
    }

    @Test("equalities of one property joined by OR answer what they answer unsought", arguments: [
        ("1 OR n.id = 2", "[1, 2]"), ("1 OR 2 = n.id OR n.id = '2'", "[1, 2, '2']"), ("3.0 OR n.id = null", "[3.0, null]"),
        ("null OR n.id = null", "[null, null]"), ("4 OR n.id = 4", "[4, 4]"),
    ])
    func orOfEqualities(rest: String, list: String) throws {
        let sought = "MATCH (n:User) WHERE n.id = \(rest) RETURN n.name"
        let scanned = "MATCH (n:User) WHERE (n.id = \(rest)) = true RETURN n.name"
        #expect(try plan(sought).contains("NodeByPropertyListSeek"), "\(sought)")
        for indexed in [true, false] {
            let store = try store(indexed: indexed)
            let engine = QueryEngine()
            let a = try engine.execute(sought, on: store).rows
            let b = try engine.execute(scanned, on: store).rows
            #expect(a == b, "\(sought), indexed \(indexed): \(a) against \(b)")
        }
        // The rewrite's premise: the OR and the IN have the same truth value, null included,
        // for every user (a projection, which nothing rewrites).
        let store = try store(indexed: true)
        let engine = QueryEngine()
        let or = try engine.execute("MATCH (n:User) RETURN n.name, n.id = \(rest) ORDER BY n.name", on: store).rows
        let inList = try engine.execute("MATCH (n:User) RETURN n.name, n.id IN \(list) ORDER BY n.name", on: store).rows
        #expect(or == inList, "\(rest) against IN \(list)")
    }

    @Test("the seek answers what the scan and filter answer", arguments: [
        ("MATCH (n:User) WHERE n.id IN X RETURN n.name", "MATCH (n:User) WHERE (n.id IN X) = true RETURN n.name"),
        ("MATCH (a)-[:FRIEND]->(b:User) WHERE b.id IN X RETURN a.name, b.name",
         "MATCH (a)-[:FRIEND]->(b:User) WHERE (b.id IN X) = true RETURN a.name, b.name"),
        ("MATCH (n:User) WHERE n.name <> 'b' AND n.id IN X RETURN n.name",
         "MATCH (n:User) WHERE n.name <> 'b' AND (n.id IN X) = true RETURN n.name"),
    ])
    func sameAnswers(sought: String, scanned: String) throws {
        #expect(try plan(scanned.replacingOccurrences(of: "X", with: "[1]")).contains("NodeByPropertyListSeek") == false)
        let lists = ["[]", "[1]", "[2, 1, 2]", "[3]", "[3.0, '2']", "['2', 2]", "[1.0, 4, 99]", "[null]", "[null, 1]",
                     "null", "[[1]]", "range(0, 5)"]
        for indexed in [true, false] {
            let store = try store(indexed: indexed)
            let engine = QueryEngine()
            for list in lists {
                let a = try engine.execute(sought.replacingOccurrences(of: "X", with: list), on: store).rows
                let b = try engine.execute(scanned.replacingOccurrences(of: "X", with: list), on: store).rows
                #expect(a == b, "\(sought) with \(list), indexed \(indexed): \(a) against \(b)")
            }
            let parameterized = sought.replacingOccurrences(of: "X", with: "$ids")
            let a = try engine.execute(parameterized, on: store, parameters: ["ids": .list([.integer(4), .integer(1)])]).rows
            let b = try engine.execute(scanned.replacingOccurrences(of: "X", with: "$ids"), on: store,
                                       parameters: ["ids": .list([.integer(4), .integer(1)])]).rows
            #expect(a == b, "\(parameterized), indexed \(indexed): \(a) against \(b)")
        }
    }
}
