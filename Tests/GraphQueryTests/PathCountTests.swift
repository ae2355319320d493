// PathCountTests.swift — the path-count rule (Planner/PathCount.swift) against the plan as bound,
// on the seeded graph of TriangleCountTests (self-loops, parallel and two-way relationships,
// two types, nodes without the label): paths per far node, the two-hop reach and the number of
// paths, with and without the connections query's exclusions.

import GraphStore
import Testing
@testable import GraphQuery

@Suite("The path-count rule")
struct PathCountTests {
    static let counted = [
        // Paths per far node, ranked: the kernel's order and limit.
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c) RETURN c, count(*) AS n ORDER BY n DESC, id(c) LIMIT 5",
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id",
        "MATCH (c)<-[:FOLLOWS]-(f:User)<-[:FRIEND]-(u {id: $u}) WITH c, count(f) AS n ORDER BY n DESC, id(c) LIMIT 3 RETURN c.id, n",
        "MATCH (u:User {id: $u})-[:FRIEND]->(f)-[:FRIEND]->(c:User) WHERE NOT EXISTS { MATCH (u)-[:FRIEND]->(c) } RETURN c, count(*) AS n",
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FOLLOWS]-(c) WHERE c.id > 5 RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT 4",
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN c.id % 4 AS k, count(*) AS n ORDER BY k",
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c:User) RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT 6",
        // The two-hop reach and the number of paths.
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN count(DISTINCT c) AS n",
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c:User) WHERE c <> u RETURN count(DISTINCT c) AS n",
        "MATCH (u:User {id: $u})-[:FRIEND]->(f)<-[:FRIEND]-(c) RETURN count(*) AS n",
        "MATCH (u:User)-[:FRIEND]-(f:User)-[:FOLLOWS]->(c) WHERE u.id < $u RETURN count(*) AS n",
        "MATCH (u:User)-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE u.id IN [$u, 3, 3] RETURN count(DISTINCT c) AS n",
        "MATCH (u:User)-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE u.id IN [$u, 3] AND NOT (c)-[:FRIEND]-(u) RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id",
        // Hops in two MATCH clauses may take one relationship twice: those walks are rows.
        "MATCH (u:User {id: $u})-[:FRIEND]-(f) MATCH (f)-[:FRIEND]-(c) RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id",
        "MATCH (u:User {id: $u})-[:FRIEND]->(f) MATCH (f)<-[:FRIEND]-(c) RETURN count(DISTINCT c) AS n",
        // A fixed-length variable relationship is its hops (the Normalizer splits it).
        "MATCH (u:User {id: $u})-[:FRIEND*2]-(c) RETURN count(DISTINCT c) AS n",
        "MATCH (u:User {id: $u})-[:FRIEND*2..2]->(c) WHERE c <> u RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id",
        // Each far end once, through a DISTINCT projection.
        "MATCH (u:User {id: $u})-[:FRIEND]-()-[:FOLLOWS]-(c) WITH DISTINCT c RETURN count(*) AS n",
        "MATCH (u:User {id: $u})<-[:FRIEND]-(f)-[:FRIEND]-(c:User) WITH DISTINCT c.id % 5 AS k RETURN k",
    ]


    @Test("Counts of two-hop paths come from the kernel, exactly the walk's", arguments: [false, true])
    func pathCounts(selfLoops: Bool) throws {
        let store = try TriangleCountTests.store(selfLoops: selfLoops)
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        var nonEmpty = 0
        for text in Self.counted {
            #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: pathCounts)") }, "\(text)")
            for u in [0, 1, 7, 13, 30, 99] {
                let p: [String: Value] = ["u": .integer(Int64(u))]
                var expected = try RuleTestSupport.rows(reference, store, text, p)
                var actual = try RuleTestSupport.rows(engine, store, text, p)
                // Without an ORDER BY the rows may come in any order.
                if !text.contains("ORDER BY") { (expected, actual) = (expected.sorted(), actual.sorted()) }
                #expect(actual == expected, "\(text) for \(u)")
                if !expected.isEmpty && expected != ["0"] { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty > 40)
    }

    /// Split hops keep the variable-length relationship's meaning: distinct relationships, in
    /// the uniqueness group of the MATCH they were written in.
    @Test("Fixed-length variable relationships are split into hops", arguments: [
        ("MATCH (u:User {id: $u})-[:FRIEND*1..1]-(c) RETURN count(*) AS n", "(rule: degree)"),
        ("MATCH (u:User {id: $u})-[:FRIEND*3]-(c) RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id", ":FRIEND]- c"),
        ("MATCH (u:User {id: $u})-[:FRIEND]-(f) MATCH (f)-[:FRIEND*2]-(c) RETURN count(*) AS n", "Expand"),
        ("MATCH (u:User {id: $u})-[r:FRIEND]-(f)-[:FRIEND*2]-(c) WHERE c.id > 3 RETURN count(r) AS n", "Expand"),
        ("MATCH (u:User {id: $u})-[r:FRIEND*2]-(c) RETURN count(*) AS n, max(size(r)) AS m", "VarLengthExpand"),
    ])
    func fixedLengths(text: String, plan: String) throws {
        let store = try TriangleCountTests.store(selfLoops: true)
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        let lines = try engine.explain(text, on: store)
        #expect(lines.contains { $0.contains(plan) }, "\(lines)")
        for u in [0, 1, 7, 13, 30] {
            let p: [String: Value] = ["u": .integer(Int64(u))]
            #expect(try RuleTestSupport.rows(engine, store, text, p) == (try RuleTestSupport.rows(reference, store, text, p)), "\(text) for \(u)")
        }
    }

    /// Grouped by a property of the far end, two far ends sharing its value (or both without
    /// it) are one group: the kernel finds the clash and the query runs as written.
    @Test func farEndsSharingTheGroupedValueRunAsWritten() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine(), reference = QueryEngine(optimize: false)
        _ = try engine.execute("""
            CREATE (u:User {id: 1})-[:FRIEND]->(f:User {id: 2}), (u)-[:FRIEND]->(g:User {id: 3}),
                   (f)-[:FRIEND]->(:User {id: 7}), (g)-[:FRIEND]->(:User {id: 7}), (f)-[:FRIEND]->(:User {id: 8}),
                   (f)-[:FRIEND]->(:User), (g)-[:FRIEND]->(:User), (f)-[:FRIEND]->(h:User {id: 9}), (g)-[:FRIEND]->(h),
                   (v:User {id: 10})-[:FRIEND]->(f), (v)-[:FRIEND]->(:User {id: 11})
            """, on: store)
        let text = "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT 3"
        #expect(try engine.explain(text, on: store).contains { $0.contains("(rule: pathCounts)") })
        for u in [1, 10] {
            let p: [String: Value] = ["u": .integer(Int64(u))]
            #expect(try RuleTestSupport.rows(engine, store, text, p) == (try RuleTestSupport.rows(reference, store, text, p)), "\(u)")
        }
        // The two 7s are one group of two paths: above 9's two only by the id order.
        #expect(try RuleTestSupport.rows(engine, store, text, ["u": .integer(1)]).contains("7 | 2"))
    }

    @Test("What reads the middle node or the start is not a count of paths per far node", arguments: [
        "MATCH (u:User {id: 1})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN c, count(DISTINCT f)",
        "MATCH (u:User {id: 1})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN c, max(f.id)",
        "MATCH (u:User)-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN u.id, c.id, count(*)",
        "MATCH (u:User {id: 1})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE f.id > 2 RETURN c, count(*)",
        "MATCH (u:User {id: 1})-[:FRIEND*1..2]-(f)-[:FRIEND]-(c) RETURN c, count(*)",
    ])
    func notPathCounts(text: String) throws {
        let store = try TriangleCountTests.store(selfLoops: false)
        #expect(!(try QueryEngine().explain(text, on: store)).contains { $0.contains("(rule: pathCounts)") })
    }
}
