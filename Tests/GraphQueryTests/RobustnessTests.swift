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
        "MERGE (u:User {id: 1}) ON CREATE SET u.n = 1 ON MATCH SET u += {m: 2} WITH u MATCH p = (u)-[:F*1..2]-(v) WHERE NOT (u)-[:B]->(v) SET v:Seen REMOVE v.x DETACH DELETE v",
        "CALL db.labels() YIELD label AS l WHERE l <> 'x' RETURN CASE l WHEN 'a' THEN [x IN range(1, 3) WHERE x > 1 | x][0..1] ELSE all(y IN [1] WHERE y = 1) END AS c UNION RETURN 1 AS c",
        "MATCH (n) WHERE exists { MATCH (n)-->(m) WHERE m.k = 1 } RETURN n {.name, .*, k: 1}",
        "CREATE CONSTRAINT FOR (u:User) REQUIRE u.id IS UNIQUE",
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

    /// The fuzzer's `[({k: [({k: …` (found in CI): each level is tried as a pattern (`({k: …})`
    /// is a node with properties) and parsed again as a map, so without memory of failed
    /// attempts the work doubles at every level: 30 levels would take about a billion attempts.
    /// The parser remembers where an attempt failed.
    @Test func nestedMapsInListsParseOnceNotExponentially() throws {
        var expression = "1"
        for _ in 0..<30 { expression = "[({k: \(expression)})]" }
        let rows = try QueryEngine().execute("RETURN " + expression + " AS v", on: .inMemory()).rows
        var value = try #require(rows.first?.first)
        for _ in 0..<30 {
            guard case .list(let items) = value, case .map(let entries)? = items.first, let inner = entries.first?.value else {
                Issue.record("expected [{k: …}], got \(value)")
                return
            }
            value = inner
        }
        #expect(value == .integer(1))
        // The fuzzer's own input (not a query) fails as a syntax error, promptly.
        let fuzzed = "UNWIND [({k:\u{BB}\u{BB}x" + String(repeating: "UNWIND [({k:[({k:\u{BB}x", count: 12) + "}"
        #expect(throws: QueryError.self) { try Parser.parse(fuzzed) }
    }

    @Test("hostile nesting is a located syntax error, not a stack overflow", arguments: [
        String(repeating: "(", count: 20_000) + "1" + String(repeating: ")", count: 20_000),
        String(repeating: "NOT ", count: 20_000) + "true",
        String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000),
        String(repeating: "- ", count: 20_000) + "1",
    ])
    func deepNesting(expression: String) {
        do {
            _ = try QueryEngine().execute("RETURN " + expression, on: .inMemory())
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .syntax)
            #expect(error.message == "Expression nested too deeply (more than 200 levels)")
        }
        // Nesting within the limit still works.
        let fine = String(repeating: "(", count: 150) + "1" + String(repeating: ")", count: 150)
        #expect((try? QueryEngine().execute("RETURN " + fine, on: .inMemory()).rows) == [[.integer(1)]])
    }
}
