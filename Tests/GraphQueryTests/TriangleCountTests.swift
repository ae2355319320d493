// TriangleCountTests.swift — the triangles rule (Planner/TriangleCount.swift) against the plan as
// bound, on a seeded graph with every awkwardness a count can trip on: friendships stored both
// ways, parallel relationships, two relationship types, nodes without the label, and self-loops
// (where the closing count gives way to the walk).

import GraphStore
import Testing
@testable import GraphQuery

@Suite("The triangles rule")
struct TriangleCountTests {
    /// 40 nodes, most `:User` (some `:Page`), with seeded FRIEND and FOLLOWS relationships:
    /// about one pair in six related, some both ways, some twice; self-loops on nodes 7 and 30
    /// when `selfLoops`.
    static func store(selfLoops: Bool) throws -> GraphStore {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        var state: UInt64 = 0x7121
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var creates: [String] = []
        for i in 0..<40 { creates.append("(n\(i):\(i % 9 == 4 ? "Page" : "User") {id: \(i)})") }
        var relationships: [String] = []
        for i in 0..<40 {
            for j in 0..<40 where i != j && next() % 6 == 0 {
                let type = next() % 4 == 0 ? "FOLLOWS" : "FRIEND"
                relationships.append("(n\(i))-[:\(type)]->(n\(j))")
                if next() % 8 == 0 { relationships.append("(n\(i))-[:\(type)]->(n\(j))") }
            }
        }
        if selfLoops { relationships += ["(n7)-[:FRIEND]->(n7)", "(n30)-[:FOLLOWS]->(n30)"] }
        _ = try engine.execute("CREATE " + (creates + relationships).joined(separator: ", "), on: store)
        return store
    }

    /// The rows of `text` as a multiset (sorted): the counts compared come in no set order.
    static func rows(_ engine: QueryEngine, _ store: GraphStore, _ text: String, _ parameters: [String: Value] = [:]) throws -> [String] {
        try RuleTestSupport.rows(engine, store, text, parameters).sorted()
    }

    static let counted = [
        "MATCH (u:User {id: $u})-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) RETURN count(*) AS n",
        "MATCH (u:User)-[:FRIEND]-(a:User), (u)-[:FRIEND]-(b:User), (a)-[:FRIEND]-(b) WHERE u.id = $u AND id(a) < id(b) RETURN count(*) AS n",
        "MATCH (u {id: $u})-[:FRIEND]-(a)-[:FRIEND]-(b) MATCH (b)-[:FRIEND]-(u) WHERE a <> b RETURN count(a) AS n",
        "MATCH (u:User)-[:FRIEND]->(a)-[:FRIEND]->(b)-[:FRIEND]->(u) RETURN u.id AS id, count(*) AS n",
        "MATCH (u:User)<-[:FRIEND]-(a:Page)-[:FOLLOWS]-(b)<-[r:FRIEND]-(u) RETURN u.id AS id, count(r) AS n",
        "MATCH (a)-[:FOLLOWS]->(u:User)-[:FRIEND]->(b), (b)<-[:FRIEND]-(a) WHERE id(b) > id(a) RETURN u.id % 3 AS k, count(*) AS n",
        "MATCH (u)-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) RETURN count(*) AS n",
        // Counted by whichever node the projection reads.
        "MATCH (u:User)-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) RETURN a.id AS id, count(*) AS n",
        "MATCH (u:User)-[:FRIEND]-(a)-[:FOLLOWS]-(b)-[:FRIEND]-(u) WHERE b.id > $u RETURN count(*) AS n",
        "MATCH (u:User)-[:FRIEND]-(a)-[:NOPE]-(b)-[:FRIEND]-(u) RETURN count(*) AS n",
    ]

    @Test("Counts of triangle rows are the closing count, exactly the walk's", arguments: [false, true])
    func closingCounts(selfLoops: Bool) throws {
        let store = try Self.store(selfLoops: selfLoops)
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        var nonZero = 0
        for text in Self.counted {
            #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: triangles)") }, "\(text)")
            for u in [0, 1, 7, 13, 30, 33, 99] {
                let p: [String: Value] = ["u": .integer(Int64(u))]
                let expected = try Self.rows(reference, store, text, p)
                #expect(try Self.rows(engine, store, text, p) == expected, "\(text) for \(u)")
                if expected != ["0"] { nonZero += 1 }
            }
        }
        #expect(nonZero > 30)
    }

    /// Where a self-loop puts a node of the triangle twice, the count would be wrong: the query
    /// runs on its plan as bound instead, and the self-loop's rows are there.
    @Test func aSelfLoopRunsThePlanAsBound() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        _ = try engine.execute("""
            CREATE (u:User {id: 1}), (v:User {id: 2}), (u)-[:FRIEND]->(v), (v)-[:FRIEND]->(u), (u)-[:FRIEND]->(u), (v)-[:FRIEND]->(v)
            """, on: store)
        let text = "MATCH (u:User {id: 1})-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) RETURN count(*) AS n"
        #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: triangles)") })
        let expected = try Self.rows(reference, store, text)
        #expect(expected != ["0"])
        #expect(try Self.rows(engine, store, text) == expected)
    }

    @Test("What reads the triangle's other nodes is not a count of its rows", arguments: [
        "MATCH (u:User)-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) RETURN u.id, count(DISTINCT a)",
        "MATCH (u:User)-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) RETURN u.id, a.id, count(*)",
        "MATCH (u:User)-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) WHERE a.id > u.id RETURN count(*)",
        "MATCH (u:User)-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(u) RETURN count(*), max(b.id)",
        "MATCH (u:User)-[:FRIEND]-(a)-[:FRIEND]-(b)-[:FRIEND]-(c) RETURN count(*)",
        "MATCH (u:User)-[:FRIEND]-(a)-[:FRIEND*1..2]-(b)-[:FRIEND]-(u) RETURN count(*)",
    ])
    func notCounts(text: String) throws {
        let store = try Self.store(selfLoops: false)
        let engine = QueryEngine()
        #expect(!(try engine.explain(text, on: store)).contains { $0.contains("(rule: triangles)") })
    }
}
