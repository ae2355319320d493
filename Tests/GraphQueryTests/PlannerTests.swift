// PlannerTests.swift — golden plans in compact form: which start the planner picks for a
// pattern and how it expands, for the queries that matter.

import Testing
@testable import GraphQuery

@Suite("Planner")
struct PlannerTests {
    func plan(_ text: String) throws -> String {
        Planner.plan(try Binder.bind(try Parser.parse(text))).compactDescription
    }

    /// Slots: a pattern's nodes are numbered first, then its relationships.
    @Test("plans pick the most selective start and expand both ways", arguments: [
        ("MATCH (a:User {id: 1})-[:FRIEND]-(b:User) RETURN b.name, b.id", """
            NodeByPropertySeek #0 :User {id}
            Expand #0 -[#2:FRIEND]- #1
            NodeFilter #1:User
            Project b.name, b.id
            """),
        ("MATCH (b)-[:FRIEND]->(a:User {id: $id}) RETURN count(DISTINCT b)", """
            NodeByPropertySeek #1 :User {id}
            Expand #1 <-[#2:FRIEND]- #0
            Aggregate count(DISTINCT b)
            """),
        ("MATCH (a)-[r]->(b:Admin:User) RETURN a", """
            NodeByLabelScan #1 :Admin
            NodeFilter #1:User
            Expand #1 <-[#2]- #0
            Project a
            """),
        ("MATCH (a {name: 'x'})-->(b) WHERE b.age > 3 RETURN a", """
            NodeByPropertySeek #0 {name}
            Expand #0 -[#2]-> #1
            Filter
            Project a
            """),
        ("MATCH (a)-->(b) WHERE b.age > 3 RETURN a", """
            AllNodesScan #0
            Expand #0 -[#2]-> #1
            Filter
            Project a
            """),
        // Two sought ends: the chain starts from one and reaches the other by expansion (its
        // filter finds a uniquely indexed end by binary search), never pairing the two seeks.
        ("MATCH (a:U {id: 1}), (b:U {id: 2}) MATCH (a)-[:F]-(b) RETURN count(*)", """
            NodeByPropertySeek #0 :U {id}
            Expand #0 -[#2:F]- #1
            NodeFilter #1:U {id}
            Aggregate count(*)
            """),
        ("UNWIND [1, 2] AS i CREATE (:N {i: i})-[:R]->(:M)", """
            Unwind #0
            Create 2 nodes, 1 relationships
            """),
    ])
    func golden(query: String, expected: String) throws {
        let actual = try plan(query)
        #expect(actual == expected, "actual:\n\(actual)")
    }
}
