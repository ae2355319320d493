// ExplainTests.swift — EXPLAIN and PROFILE: golden operator trees for the important social
// queries (start at the index seek, expand along adjacency, anti-join as an adjacency check),
// and PROFILE's per-operator row counts.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("EXPLAIN and PROFILE")
struct ExplainTests {
    let engine = QueryEngine()

    @Test("friends of a user start at the property seek and expand along FRIEND",
          arguments: [
            ("MATCH (u:User {id: $id})-[:FRIEND]-(f:User) RETURN f.name",
             ["Results", "    Project f.name", "        NodeFilter f:User", "            Expand u -[#2:FRIEND]- f",
              "                NodeByPropertySeek u :User {id}"]),
            // Friends of friends who are not yet friends: the connections kernel lists each once.
            ("MATCH (u:User {id: $id})-[:FRIEND]-(f)-[:FRIEND]-(fof) WHERE fof <> u AND NOT (u)-[:FRIEND]-(fof) RETURN DISTINCT fof.id",
             ["Results", "    Project fof.id DISTINCT", "        ProcedureCall social.connections (rule: distinctConnections)",
              "            NodeByPropertySeek u :User {id}"]),
            // Followed one way, no kernel: two expansions, then the anti-join as a lookup.
            ("MATCH (u:User {id: $id})-[:FRIEND]->(f)-[:FRIEND]->(fof) WHERE fof <> u AND NOT (u)-[:FRIEND]-(fof) RETURN DISTINCT fof.id",
             ["Results", "    Project fof.id DISTINCT", "        Filter", "            Filter",
              "                Expand f -[#4:FRIEND]-> fof", "                    Expand u -[#3:FRIEND]-> f",
              "                        NodeByPropertySeek u :User {id}"]),
            // WHERE n.key = $x on a labelled node seeks like a property map; other conjuncts run
            // right after the operator that binds what they read.
            ("MATCH (u:User)-[:FRIEND]->(f) WHERE u.id = $id AND u.age > 20 AND f.age < 30 RETURN f",
             ["Results", "    Project f", "        Filter", "            Expand u -[#2:FRIEND]-> f", "                Filter",
              "                    NodeByPropertySeek u :User {id}"]),
            ("MATCH (a:User) WHERE a.age > 30 RETURN count(a)",
             ["Results", "    Aggregate count(a)", "        Filter", "            NodeByLabelScan a :User"]),
            ("MATCH (n) RETURN n LIMIT 1", ["Results", "    Project n LIMIT", "        AllNodesScan n"]),
            ("CREATE INDEX FOR (u:User) ON (u.id)", ["CreateIndex :User(id)"]),
            ("MERGE (u:User {id: 1}) ON CREATE SET u.new = true RETURN u",
             ["Results", "    Project u", "        Merge", "            NodeByPropertySeek u :User {id}"]),
          ])
    func golden(query: String, expected: [String]) throws {
        #expect(try engine.explain(query, on: .inMemory()) == expected)
    }

    @Test("EXPLAIN as a prefix returns the plan without running the query")
    func explainPrefix() throws {
        let store = GraphStore.inMemory()
        let result = try engine.execute("EXPLAIN CREATE (:User {id: 1})", on: store)
        #expect(result.columns == ["QUERY PLAN"])
        #expect(result.rows == [[.string("Create 1 nodes, 0 relationships")]])
        #expect(try engine.execute("MATCH (n) RETURN count(n)", on: store).rows == [[.integer(0)]])
    }

    @Test("the EXPLAIN and PROFILE prefixes in any case after blanks; error columns count the keyword")
    func prefixForms() throws {
        let store = GraphStore.inMemory()
        #expect(try engine.execute("  \n\texplain RETURN 1", on: store).columns == ["QUERY PLAN"])
        #expect(try engine.execute("Profile\nRETURN 1", on: store).columns == ["QUERY PLAN"])
        // A word that only starts like the keyword is the query's own text.
        #expect(throws: QueryError.self) { try engine.execute("EXPLAINED RETURN 1", on: store) }
        #expect(try engine.execute("RETURN 'EXPLAIN ' AS x", on: store).rows == [[.string("EXPLAIN ")]])
        #expect {
            try engine.execute(" explain MATCH (n RETURN n", on: store)
        } throws: { error in
            (error as? QueryError)?.location == SourceLocation(line: 1, column: 19, offset: 18)
        }
    }

    @Test("the anti-join inside NOT (a)-[:T]-(b) is an adjacency lookup, not a walk")
    func antiJoinIsAdjacencyCheck() throws {
        let query = try Parser.parse("MATCH (a), (b) WHERE NOT (a)-[:FRIEND]-(b) RETURN a")
        let plan = Planner.plan(try Binder.bind(query))
        guard case .match(_, let predicate?, _, _) = plan.steps[0].step,
              case .unary(.not, .patternPredicate(let pattern)) = predicate else {
            Issue.record("no pattern predicate in \(plan.compactDescription)")
            return
        }
        #expect(pattern.plan.compactMap { LogicalPlan.line(of: $0) } == ["Argument #0", "AdjacencyCheck #0 -[:FRIEND]- #1"])
    }

    @Test("PROFILE runs the query and reports rows per operator")
    func profile() throws {
        let store = GraphStore.inMemory()
        _ = try engine.execute("UNWIND range(1, 5) AS i CREATE (:User {id: i})", on: store)
        let lines = try engine.profile("MATCH (u:User) WHERE u.id > 2 RETURN u.id", on: store)
        #expect(lines.count == 4)
        #expect(lines[0] == "Results")
        #expect(lines[1].hasPrefix("    Project u.id | Records produced: 3, Execution time: "))
        #expect(lines[2].hasPrefix("        Filter | Records produced: 3, Execution time: "))
        #expect(lines[3] == "            NodeByLabelScan u :User")
        let prefixed = try engine.execute("PROFILE MATCH (u:User) RETURN count(u)", on: store)
        #expect(prefixed.columns == ["QUERY PLAN"])
        #expect(prefixed.rows.first == [.string("Results")])
    }
}
