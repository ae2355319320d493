// PointLookupTests.swift — the point lookup's own path (PointLookup) against the general
// executor: which plans take it, and that both give the same columns, rows and errors.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Point lookup")
struct PointLookupTests {
    /// Users under a unique index on id (one without a name), tags under a plain index on name
    /// (two alike), items with no index (x stored as 1 and as 1.0).
    static func store() throws -> GraphStore {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        try store.write { graph in
            try graph.createIndex(label: graph.internLabel("User"), key: graph.internPropertyKey("id"), unique: true)
            try graph.createIndex(label: graph.internLabel("Tag"), key: graph.internPropertyKey("name"), unique: false)
        }
        _ = try engine.execute("""
            CREATE (:User {id: 1, name: 'Ada', age: 36}), (:User {id: 2, name: 'Bob'}), (:User {id: 3}),
                   (:User:Admin {id: 4, name: 'Cy', tags: ['a', 'b']}),
                   (:Tag {name: 'x', n: 1}), (:Tag {name: 'x', n: 2}), (:Tag {name: 'y', n: 3}),
                   (:Item {x: 1}), (:Item {x: 1.0}), (:Item {x: 2}), (:Other {id: 1})
            """, on: store)
        return store
    }

    static func plan(_ text: String) throws -> LogicalPlan {
        Planner.plan(try Binder.bind(try Parser.parse(text)))
    }

    /// The rows and columns of `plan` run as it is, and run on the general executor; or the
    /// error each threw.
    static func bothWays(_ plan: LogicalPlan, _ parameters: [String: RuntimeValue], on store: GraphStore,
                         rowLimit: Int? = nil) -> (quick: String, general: String) {
        var general = plan
        general.pointLookup = nil
        func outcome(_ plan: LogicalPlan) -> String {
            var graph = store.read { $0 }
            do {
                let result = try Executor.run(plan, graph: &graph, parameters: parameters, resultRowLimit: rowLimit)
                return "\(result.columns) \(result.rows) \(result.hasResultSet)"
            } catch {
                return "error \(error.kind): \(error.message)"
            }
        }
        return (outcome(plan), outcome(general))
    }

    @Test("a point lookup takes its own path and answers as the general executor does", arguments: [
        ("MATCH (u:User {id: $id}) RETURN u.name", ["id": RuntimeValue.integer(1)]),
        ("MATCH (u:User {id: $id}) RETURN u.name AS name, u.age, u.id, u", ["id": .integer(1)]),
        ("MATCH (u:User {id: $id}) RETURN u.name", ["id": .double(2.0)]),
        ("MATCH (u:User {id: $id}) RETURN u.name, u.missingKey", ["id": .integer(3)]),
        ("MATCH (u:User {id: $id}) RETURN u.tags", ["id": .integer(4)]),
        ("MATCH (u:User {id: $id}) RETURN u.name", ["id": .integer(99)]),
        ("MATCH (u:User {id: $id}) RETURN u.name", ["id": .null]),
        ("MATCH (u:User {id: $id}) RETURN u.name", ["id": .string("1")]),
        ("MATCH (u:User {id: $id}) RETURN u.name", ["id": .list([.integer(1)])]),
        ("MATCH (u:User {id: $id}) RETURN u.name", [:]),
        ("MATCH (u:User {id: 2}) RETURN u.name", [:]),
        ("MATCH (u:User {id: 2.0}) RETURN u.name", [:]),
        ("MATCH (u:Admin {id: 4}) RETURN u.name", [:]),
        ("MATCH (t:Tag {name: $n}) RETURN t.n", ["n": .string("x")]),
        ("MATCH (t:Tag {name: $n}) RETURN t.n, t.missingKey, t.name, t", ["n": .string("x")]),
        ("MATCH (t:Tag {name: 'y'}) RETURN t", [:]),
        ("MATCH (i:Item {x: 1}) RETURN i.x", [:]),
        ("MATCH (i:Item {x: $x}) RETURN i", ["x": .double(1)]),
        ("MATCH (n:Nobody {id: 1}) RETURN n.name", [:]),
        ("MATCH (u:User {nokey: 1}) RETURN u.name", [:]),
    ] as [(String, [String: RuntimeValue])])
    func answersAsTheGeneralExecutor(text: String, parameters: [String: RuntimeValue]) throws {
        let store = try Self.store()
        let plan = try Self.plan(text)
        #expect(plan.pointLookup != nil)
        let (quick, general) = Self.bothWays(plan, parameters, on: store)
        #expect(quick == general)
        // And the result-row limit, on lookups finding two nodes.
        let limited = Self.bothWays(plan, parameters, on: store, rowLimit: 1)
        #expect(limited.quick == limited.general)
    }

    @Test("the lookups find what they should (the comparison above is not of two empty answers)")
    func findsTheRows() throws {
        let store = try Self.store()
        let engine = QueryEngine()
        #expect(try engine.execute("CYPHER id=1 MATCH (u:User {id: $id}) RETURN u.name AS name, u.age", on: store).rows
            == [[.string("Ada"), .integer(36)]])
        let result = try engine.execute("MATCH (t:Tag {name: $n}) RETURN t.n", on: store, parameters: ["n": .string("x")])
        #expect(result.columns == ["t.n"])
        #expect(Set(result.rows.map { "\($0)" }).count == 2)
        #expect(try engine.execute("MATCH (i:Item {x: 1}) RETURN i.x", on: store).rows.count == 2)
        #expect(throws: QueryError.self) { try engine.execute("MATCH (u:User {id: $id}) RETURN u.name", on: store) }
        let quick = try #require(try engine.executeIfQuick("CYPHER id=2 MATCH (u:User {id: $id}) RETURN u.name", on: store,
                                                           timeout: nil, budget: .seconds(60)))
        #expect(quick.rows == [[.string("Bob")]])
        #expect(quick.columns == ["u.name"])
    }

    @Test("anything more than a seek and a projection of its node runs on the general executor", arguments: [
        "MATCH (u:User {id: $id}) WHERE u.age > 3 RETURN u.name",
        "MATCH (u:User) WHERE u.id = $id AND u.age > 3 RETURN u.name",
        "MATCH (u:User {id: $id}) RETURN DISTINCT u.name",
        "MATCH (u:User {id: $id}) RETURN u.name ORDER BY u.name",
        "MATCH (u:User {id: $id}) RETURN u.name LIMIT 1",
        "MATCH (u:User {id: $id}) RETURN u.name SKIP 1",
        "MATCH (u:User {id: $id}) RETURN count(u)",
        "MATCH (u:User {id: $id}) RETURN u.name + '!'",
        "MATCH (u:User {id: $id}) RETURN 1",
        "MATCH (u:User {id: $id + 1}) RETURN u.name",
        "MATCH (u:User {id: $id}), (v:User {id: 2}) RETURN u.name",
        "MATCH (u:User {id: $id})-[:FRIEND]-(f) RETURN f.name",
        "OPTIONAL MATCH (u:User {id: $id}) RETURN u.name",
        "MATCH (u:User {id: $id}) WITH u RETURN u.name",
        "MATCH (u:User {id: $id}) RETURN u.name UNION MATCH (u:User {id: 2}) RETURN u.name",
        "MATCH (u:User {id: $id}) SET u.seen = true RETURN u.name",
        "MATCH (u {id: $id}) RETURN u.name",
        "MATCH (u:User:Admin {id: $id}) RETURN u.name",
        "MATCH (u:User {id: null}) RETURN u.name",
        "MATCH (u:User {id: $id, name: 'Ada'}) RETURN u.name",
    ])
    func otherPlansDoNotTakeIt(text: String) throws {
        #expect(try Self.plan(text).pointLookup == nil)
    }
}
