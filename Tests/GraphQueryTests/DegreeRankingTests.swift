// DegreeRankingTests.swift — the degree-ranking rule (Planner/DegreeRanking.swift) against the
// plan as bound: "the k nodes with the most relationships", phrased as a grouping, from the
// other end, with a labelled far end, and as the size of a pattern comprehension, on a seeded
// graph with self-loops, parallel and two-way relationships and nodes without the label.

import GraphStore
import Testing
@testable import GraphQuery

@Suite("The degree-ranking rule")
struct DegreeRankingTests {
    static let ranked = [
        "MATCH (u:User)-[:FRIEND]-(f) WITH u, count(f) AS d ORDER BY d DESC, id(u) LIMIT $k RETURN u.id AS id, d",
        "MATCH (f)-[:FRIEND]-(u:User) WITH u, count(*) AS d ORDER BY d DESC, id(u) LIMIT 7 RETURN u.id AS id, d",
        "MATCH (u:User)-[:FRIEND]->(f:User) WITH u, count(f) AS d ORDER BY d DESC, id(u) LIMIT $k RETURN u.id AS id, d",
        "MATCH (u:User)-[:FRIEND]-(f) RETURN u, count(*) AS d ORDER BY d DESC, id(u) SKIP 2 LIMIT $k",
        "MATCH (u:User)-[:FRIEND]-(f) RETURN u.id AS id, u, count(*) AS d ORDER BY d DESC, id DESC LIMIT $k",
        "MATCH (u:User)-[:FRIEND]-(f:User) RETURN u.id AS id, u, count(*) AS d ORDER BY d DESC, id DESC LIMIT $k",
        "MATCH (u)-[:FOLLOWS]-(f:Page) WITH u, count(*) AS d ORDER BY d DESC, id(u) LIMIT $k RETURN u.id AS id, d",
        "MATCH (u)<-[:FOLLOWS]-(f) WITH u, count(f) AS d ORDER BY d DESC, id(u) LIMIT $k RETURN u.id AS id, d",
        "MATCH (u:User) WITH u, size([(u)-[:FRIEND]-(x) | x]) AS d WHERE d > 0 WITH u, d ORDER BY d DESC, id(u) LIMIT $k RETURN u.id AS id, d",
        "MATCH (u:User) WITH u, size([(u)-[:FRIEND]-(x:Page) | x.id]) AS d WITH u, d ORDER BY d DESC, id(u) LIMIT $k RETURN u.id AS id, d",
        "MATCH (u:User) RETURN u.id AS id, size([(u)-[:FOLLOWS]->(x) | 1]) AS d ORDER BY d DESC, id LIMIT $k",
        "MATCH (u:User)-[:NOPE]-(f) WITH u, count(f) AS d ORDER BY d DESC, id(u) LIMIT $k RETURN u.id AS id, d",
    ]


    @Test("Rankings by degree come from the kernel, in the walk's order")
    func rankings() throws {
        let store = try TriangleCountTests.store(selfLoops: true)
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        for text in Self.ranked {
            #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: degreeRanking)") }, "\(text)")
            for k in [0, 1, 5, 40, 100] {
                let p: [String: Value] = ["k": .integer(Int64(k))]
                // Ordered by the degree, then a unique key: one right answer, in one order.
                #expect(try RuleTestSupport.rows(engine, store, text, p) == (try RuleTestSupport.rows(reference, store, text, p)), "\(text) for k \(k)")
            }
        }
    }

    @Test("Rankings that are not by a node's degree alone keep their plans", arguments: [
        "MATCH (u:User)-[:FRIEND]-(f) WITH u.id AS id, count(f) AS d ORDER BY d DESC, id LIMIT 3 RETURN id, d",
        "MATCH (u:User)-[:FRIEND]-(f) WITH u, count(f) AS d ORDER BY d, id(u) LIMIT 3 RETURN u.id, d",
        "MATCH (u:User)-[:FRIEND]-(f) WITH u, count(f) AS d WHERE d > 2 WITH u, d ORDER BY d DESC, id(u) LIMIT 3 RETURN u.id, d",
        "MATCH (u:User {id: 1})-[:FRIEND]-(f) WITH u, count(f) AS d ORDER BY d DESC, id(u) LIMIT 3 RETURN u.id, d",
        "UNWIND [1, 2] AS i MATCH (u:User)-[:FRIEND]-(f) WITH u, count(f) AS d ORDER BY d DESC, id(u) LIMIT 3 RETURN u.id, d",
        "MATCH (u:User) WITH u, size([(u)-[:FRIEND]-(x) WHERE x.id > 3 | x]) AS d ORDER BY d DESC, id(u) LIMIT 3 RETURN u.id, d",
    ])
    func notRankings(text: String) throws {
        let store = try TriangleCountTests.store(selfLoops: false)
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        #expect(!(try engine.explain(text, on: store)).contains { $0.contains("(rule: degreeRanking)") })
        #expect(try RuleTestSupport.rows(engine, store, text, [:]) == (try RuleTestSupport.rows(reference, store, text, [:])))
    }
}
