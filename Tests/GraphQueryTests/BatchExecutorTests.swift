// BatchExecutorTests.swift — the batched executor (Executor/BatchExecutor.swift) against the
// row-at-a-time executor, both without the planner's rules, on the seeded graph of
// TriangleCountTests (self-loops, parallel and two-way relationships, two types, nodes without
// the label): rows, their order, and the groups' order must be the same.

import GraphStore
import Testing
@testable import GraphQuery

@Suite("The batched executor")
struct BatchExecutorTests {
    /// Queries whose aggregation the planner gives to the batched executor.
    static let batched = [
        // Expand and count grouped by node, from one user, from a label, from every node.
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN c, count(*) AS n",
        "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c) RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT 5",
        "MATCH (a:User)-[:FRIEND]->(b) RETURN b, count(*)",
        "MATCH (a:User)-[:FRIEND]->(b) RETURN b.id AS b, count(*) AS n, b.id * 2 + count(*) AS m",
        "MATCH (a)-[:FRIEND]-(b) RETURN a, count(b) AS n, count(DISTINCT b) AS d",
        "MATCH (a)<-[:FOLLOWS]-(b) WHERE id(b) > $u RETURN a.id AS id, count(*) AS n ORDER BY id",
        "MATCH (a:User)-[:FRIEND]-(b:User)-[:FRIEND]-(c:User) WHERE id(a) < id(c) RETURN count(*) AS n, count(DISTINCT c) AS d",
        // Triangles, two groups, merged groups (`c.id % 3` gives several nodes one key).
        "MATCH (a:User {id: $u})-[:FRIEND]-(b)-[:FRIEND]-(c)-[:FRIEND]-(a) RETURN b, count(*) AS n",
        "MATCH (a {id: $u})-[:FRIEND]-(b)-[:FOLLOWS]-(c) RETURN b.id AS b, c.id AS c, count(*) AS n ORDER BY b, c",
        "MATCH (a {id: $u})-[:FRIEND]-(b)-[:FRIEND]-(c) RETURN c.id % 3 AS k, count(*) AS n, count(DISTINCT c) AS d ORDER BY k",
        "MATCH (a {id: $u})-[:FRIEND]-(b)-[:FRIEND]-(c) RETURN 'all' AS label, count(*) AS n",
        // Several MATCH clauses and a WITH passing nodes on, with a filter after it.
        "MATCH (u:User {id: $u}) MATCH (u)-[:FRIEND]-(f) WITH u, f WHERE id(f) <> 3 MATCH (f)-[:FRIEND]-(c) RETURN c, count(*) AS n",
        "MATCH (u:User {id: $u})-[:FRIEND]-(f) MATCH (f)-[:FRIEND]-(c) RETURN c.id AS id, count(*) AS n ORDER BY n DESC, id",
        // An expansion into a bound node (parallel relationships count once each), labels, properties.
        "MATCH (a:User {id: $u})-[:FRIEND]-(b), (a)-[:FOLLOWS]-(b) RETURN b, count(*) AS n",
        "MATCH (a:User)-[:FRIEND]-(b {id: $u}) WHERE a:User RETURN count(*) AS n",
        "MATCH (a)-[:FRIEND|FOLLOWS]->(b) WHERE (b)-[:FRIEND]-(a) OR id(a) = $u RETURN a, count(*) AS n",
        // Input rows from an earlier stretch (UNWIND, an aggregation).
        "UNWIND [1, 2, 2, 30] AS i MATCH (u:User {id: i}) WITH u ORDER BY u.id MATCH (u)-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN c, count(*) AS n",
        "MATCH (u:User) WITH u ORDER BY u.id LIMIT 5 MATCH (u)-[:FRIEND]-(f) RETURN u, count(f) AS n",
        // Nothing matches: one row with 0 without grouping, none with it.
        "MATCH (a:Nobody)-[:FRIEND]-(b) RETURN count(*) AS n",
        "MATCH (a:Nobody)-[:FRIEND]-(b) RETURN b, count(*) AS n",
        "MATCH (a {id: $u})-[:NO_SUCH_TYPE]-(b) RETURN 'x' AS x, count(*) AS n",
    ]

    @Test("Counts grouped by node are the row executor's, row for row", arguments: [false, true])
    func sameAnswers(selfLoops: Bool) throws {
        let store = try TriangleCountTests.store(selfLoops: selfLoops)
        let batched = QueryEngine(optimize: false, batched: true), rowAtATime = QueryEngine(optimize: false)
        var nonEmpty = 0
        for text in Self.batched {
            #expect(try batched.explain(text, on: store).contains { $0.contains("(batched)") }, "\(text)")
            #expect(!(try rowAtATime.explain(text, on: store).contains { $0.contains("(batched)") }), "\(text)")
            for u in [0, 1, 7, 13, 30, 99] {
                let p: [String: Value] = ["u": .integer(Int64(u))]
                let expected = try RuleTestSupport.rows(rowAtATime, store, text, p)
                #expect(try RuleTestSupport.rows(batched, store, text, p) == expected, "\(text) for \(u)")
                if !expected.isEmpty && expected != ["0"] { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty > 60)
    }

    /// Stretches the batched executor cannot hold keep the row executor, and say so.
    @Test("Anything but nodes read stays row at a time")
    func notBatched() throws {
        let store = try TriangleCountTests.store(selfLoops: true)
        let engine = QueryEngine(optimize: false, batched: true)
        for text in [
            "MATCH (a)-[r:FRIEND]-(b) RETURN a, count(r)",  // a relationship is read
            "MATCH (a)-[:FRIEND]-(b) RETURN a, sum(b.id)",  // not a count
            "MATCH (a)-[:FRIEND*1..2]-(b) RETURN a, count(*)",  // variable length
            "OPTIONAL MATCH (a)-[:FRIEND]-(b) RETURN a, count(*)",
            "MATCH (a)-[:FRIEND]-(b) WHERE b.id + 1 > 3 RETURN a, count(*)",  // a property compared
            "MATCH (a)-[:FRIEND]-(b {id: toInteger(rand() * 3)}) RETURN a, count(*)",  // not one value a run
        ] {
            #expect(!(try engine.explain(text, on: store).contains { $0.contains("(batched)") }), "\(text)")
        }
    }

    /// Values a program cannot compare at run time (a float id bound, a node in an input slot
    /// that is not one) send the stretch to the row executor, which gives its own answer or error.
    @Test("Run-time values the program cannot hold fall back to the row executor")
    func fallsBack() throws {
        let store = try TriangleCountTests.store(selfLoops: false)
        let batched = QueryEngine(optimize: false, batched: true), rowAtATime = QueryEngine(optimize: false)
        let text = "MATCH (a)-[:FRIEND]-(b) WHERE id(a) < $u RETURN b, count(*) AS n"
        for u: Value in [.double(5.5), .string("x"), .null] {
            let p = ["u": u]
            #expect(try RuleTestSupport.rows(batched, store, text, p) == (try RuleTestSupport.rows(rowAtATime, store, text, p)))
        }
        let unwound = "UNWIND [1, 'x'] AS u WITH u ORDER BY toString(u) MATCH (u)-[:FRIEND]-(b) RETURN count(*)"
        #expect(throws: QueryError.self) { try batched.execute(unwound, on: store) }
    }

    /// Relationship uniqueness within one MATCH: a walk back along the same relationship is no
    /// row, a walk back along a parallel one is.
    @Test("One MATCH never takes a relationship twice")
    func uniqueness() throws {
        let store = GraphStore.inMemory(name: "g")
        let engine = QueryEngine(optimize: false, batched: true), reference = QueryEngine(optimize: false)
        _ = try reference.execute("CREATE (a:U {id: 1}), (b:U {id: 2}), (c:U {id: 3}), (a)-[:F]->(b), (a)-[:F]->(b), (b)-[:F]->(c), (c)-[:F]->(c)", on: store)
        for text in [
            "MATCH (x:U {id: 1})-[:F]-(y)-[:F]-(z) RETURN z.id AS z, count(*) AS n ORDER BY z",
            "MATCH (x)-[:F]-(y)-[:F]-(z)-[:F]-(w) RETURN w.id AS w, count(*) AS n ORDER BY w",
            "MATCH (x)<-[:F]-(y)-[:F]->(z) RETURN x.id AS x, count(*) AS n ORDER BY x",
        ] {
            let expected = try RuleTestSupport.rows(reference, store, text)
            #expect(try RuleTestSupport.rows(engine, store, text) == expected, "\(text)")
            #expect(!expected.isEmpty)
        }
        // Two parallel relationships a→b: from a, back to a along the other one, twice.
        #expect(try RuleTestSupport.rows(engine, store, "MATCH (x:U {id: 1})-[:F]-(y)-[:F]-(z) RETURN z.id AS z, count(*) AS n ORDER BY z")
                == ["1 | 2", "3 | 2"])
    }
}
