// SubqueryTests.swift — `EXISTS { … }` and `COUNT { … }` around whole queries: they see the
// row's variables, may aggregate and nest, count rather than return, and may not write.

import GraphStore
import Testing
@testable import GraphQuery

@Suite("EXISTS and COUNT subqueries")
struct SubqueryTests {
    func graph() throws -> (QueryEngine, GraphStore) {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        // ann — bob, ann — cid, bob — cid, cid — dan; eve alone.
        _ = try engine.execute("""
            CREATE (ann:U {name: 'ann'}), (bob:U {name: 'bob'}), (cid:U {name: 'cid'}), (dan:U {name: 'dan'}), (:U {name: 'eve'}),
                   (ann)-[:F]->(bob), (ann)-[:F]->(cid), (bob)-[:F]->(cid), (cid)-[:F]->(dan)
            """, on: store)
        return (engine, store)
    }

    @Test("COUNT { pattern } and COUNT { query } count rows per outer row")
    func count() throws {
        let (engine, store) = try graph()
        let friends = try engine.execute("MATCH (u:U) RETURN u.name, COUNT { (u)-[:F]-() } AS n ORDER BY u.name", on: store).rows
        #expect(friends.map { $0[1] } == [2, 2, 3, 1, 0].map { ResultValue.integer($0) })
        let withWhere = try engine.execute("MATCH (u:U) RETURN u.name, COUNT { (u)-[:F]-(f) WHERE f.name > 'b' } AS n ORDER BY u.name",
                                           on: store).rows
        #expect(withWhere.map { $0[1] } == [2, 1, 2, 1, 0].map { ResultValue.integer($0) })
        let full = try engine.execute("""
            MATCH (u:U) WHERE COUNT { MATCH (u)-[:F]-(f) MATCH (f)-[:F]-(g) WHERE g <> u RETURN DISTINCT g } >= 3
            RETURN u.name ORDER BY u.name
            """, on: store).rows
        #expect(full == [[.string("ann")], [.string("bob")]])
    }

    @Test("EXISTS { … } runs a whole query: WITH, aggregation, RETURN, nesting")
    func exists() throws {
        let (engine, store) = try graph()
        let hubs = try engine.execute("""
            MATCH (u:U) WHERE EXISTS { MATCH (u)-[:F]-(f) WITH u, count(f) AS n WHERE n >= 3 RETURN n }
            RETURN u.name
            """, on: store).rows
        #expect(hubs == [[.string("cid")]])
        let nested = try engine.execute("""
            MATCH (u:U) WHERE EXISTS { MATCH (u)-[:F]->(f) WHERE EXISTS { MATCH (f)-[:F]->(g) RETURN g } RETURN f }
            RETURN u.name ORDER BY u.name
            """, on: store).rows
        #expect(nested == [[.string("ann")], [.string("bob")]])
        // As a value in RETURN, and false (not null) when nothing matches.
        let values = try engine.execute("MATCH (u:U {name: 'eve'}) RETURN EXISTS { MATCH (u)--() RETURN 1 } AS e", on: store).rows
        #expect(values == [[.bool(false)]])
    }

    @Test("a subquery may not write, and its errors are located")
    func errors() throws {
        let (engine, store) = try graph()
        #expect(throws: QueryError.self) {
            try engine.execute("MATCH (u:U) WHERE EXISTS { MATCH (u)-->(f) CREATE (:X) RETURN f } RETURN u", on: store)
        }
        #expect(throws: QueryError.self) { try engine.execute("MATCH (u:U) RETURN COUNT { MATCH (u)-->(f) RETURN nope }", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("MATCH (u:U) RETURN COUNT { }", on: store) }
        #expect(try engine.execute("MATCH (x:X) RETURN count(x)", on: store).rows == [[.integer(0)]])
    }
}
