// CollectUnwindTests.swift — the collect-and-unwind rewrite (Planner/CollectUnwind.swift): a
// neighbour list collected, unwound and searched with IN is the expansion and a semi-join. The
// rewritten queries must give the rows of the query as written (the plan as bound), on graphs
// where every friendship is not stored once: parallel and two-way relationships, self-loops.

import GraphStore
import Testing
@testable import GraphQuery

@Suite("Collected neighbour lists as semi-joins")
struct CollectUnwindTests {

    @Test("The collected forms run on the kernels, with the rows as written", arguments: [
        ("""
         MATCH (u:User {id: $u})-[:FRIEND]-(f:User) WITH u, collect(f) AS fs UNWIND fs AS f MATCH (f)-[:FRIEND]-(c:User)
         WHERE c <> u AND NOT c IN fs RETURN c.id AS id, count(*) AS mutual ORDER BY mutual DESC, id ASC LIMIT 5
         """, "(rule: pathCounts)"),
        ("""
         MATCH (u:User {id: $u})-[:FRIEND]-(f:User) WITH u, collect(f) AS fs UNWIND fs AS f MATCH (f)-[:FRIEND]-(c:User)
         WHERE c <> u AND NOT c IN fs RETURN count(DISTINCT c) AS n
         """, "(rule: connectionCount)"),
        ("""
         MATCH (u {id: $u})-[:FRIEND]-(f) WITH u, collect(f) AS fs UNWIND fs AS friend MATCH (friend)-[:FRIEND]-(c)
         WHERE NOT c IN fs AND NOT c = u RETURN c, count(DISTINCT friend) AS m ORDER BY m DESC, id(c) LIMIT 4
         """, "(rule: connections)"),
        ("""
         MATCH (u:User {id: $u})-[:FRIEND]-(f:User) WITH u, collect(f) AS fs UNWIND fs AS f MATCH (f)-[:FRIEND]-(c)
         WHERE NOT c = u AND NOT c IN fs RETURN c.id AS id, count(*) AS m ORDER BY m DESC, id LIMIT 5
         """, "(rule: pathCounts)"),
        ("""
         MATCH (u {id: $u})-[:FRIEND]->(f) WITH u, collect(f) AS fs UNWIND fs AS friend MATCH (friend)-[:FRIEND]->(c)
         WHERE NOT c IN fs AND NOT c = u RETURN c.id AS id, count(*) AS m ORDER BY m DESC, id LIMIT 4
         """, "(rule: pathCounts)"),
    ])
    func collected(text: String, rule: String) throws {
        for selfLoops in [false, true] {
            let store = try TriangleCountTests.store(selfLoops: selfLoops)
            let engine = QueryEngine(), reference = QueryEngine(optimize: false)
            #expect(try engine.explain(text, on: store).contains { $0.contains(rule) })
            var nonEmpty = 0
            for u in [0, 1, 7, 13, 30, 99] {
                let p: [String: Value] = ["u": .integer(Int64(u))]
                let expected = try RuleTestSupport.rows(reference, store, text, p)
                #expect(try RuleTestSupport.rows(engine, store, text, p) == expected, "for \(u)")
                if !expected.isEmpty && expected != ["0"] { nonEmpty += 1 }
            }
            #expect(nonEmpty > 3)
        }
    }

    @Test("A list used otherwise stays a list", arguments: [
        "MATCH (u:User {id: 1})-[:FRIEND]-(f) WITH u, collect(f) AS fs UNWIND fs AS f MATCH (f)-[:FRIEND]-(c) RETURN c.id, size(fs)",
        "MATCH (u:User {id: 1})-[:FRIEND]-(f) WITH u, collect(DISTINCT f) AS fs UNWIND fs AS f MATCH (f)-[:FRIEND]-(c) WHERE NOT c IN fs RETURN count(*)",
        "MATCH (u:User {id: 1})-[:FRIEND]-(f) WITH u, collect(f) AS fs UNWIND fs AS g MATCH (g)-[:FRIEND]-(f) WHERE NOT f IN fs RETURN count(*)",
        "MATCH (u:User {id: 1})-[r:FRIEND]-(f) WITH u, collect(f) AS fs UNWIND fs AS f MATCH (f)-[:FRIEND]-(c) WHERE NOT c IN fs RETURN count(*)",
        "MATCH (u:User {id: 1})-[:FRIEND]-(f) WITH u, collect(f) AS fs UNWIND fs AS f OPTIONAL MATCH (f)-[:FRIEND]-(c) WHERE NOT c IN fs RETURN count(c)",
    ])
    func notRewritten(text: String) throws {
        let query = try Parser.parse(text)
        #expect(CollectUnwind.rewrite(query) == nil)
        let store = try TriangleCountTests.store(selfLoops: true)
        #expect(try RuleTestSupport.rows(QueryEngine(), store, text, [:]) == (try RuleTestSupport.rows(QueryEngine(optimize: false), store, text, [:])))
    }
}
