// RobustnessTests.swift — every prefix of valid queries, cut at each character, either runs or
// fails with a located syntax error or another QueryError; nothing traps or hangs.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Robustness")
struct RobustnessTests {
    static let queries = [
        "CREATE (:User {id: 1, name: 'Ann'})-[:FRIEND {since: 2020}]->(:User {id: 2, name: \"Bo\"})",
        "MATCH (a:User {id: 1})-[:FRIEND|FOLLOWS]-(b:User) WHERE b.age >= 3 AND NOT b.name IS NULL RETURN b.name, b.id",
        "CYPHER `p`=[1, 'x', {a: true}] UNWIND $p AS x WITH x, count(*) AS n RETURN DISTINCT x AS y ORDER BY y DESC SKIP 0 LIMIT 5",
        "MATCH (a)<-[r]-(b), (c) OPTIONAL MATCH (c)-->(d) RETURN *, id(a), labels(b), type(r), [1, 2][0], {k: 010}.k // done",
        "RETURN 1.5e3 + -2 * (3 % 2) ^ 2, 'é\\n\\'', `odd`.x /* c */",
    ]

    @Test("every prefix parses or fails with a QueryError", arguments: queries)
    func prefixes(of query: String) {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        var prefix = ""
        for character in query {
            prefix.append(character)
            do {
                _ = try engine.execute(prefix, on: store)
            } catch {
                if error.kind == .syntax, !error.message.hasPrefix("Failed to parse query parameter") {
                    #expect(error.location != nil, "\(prefix): \(error.message)")
                    #expect(error.contextLine != nil, "\(prefix)")
                }
            }
        }
    }
}
