// DirectProjectionTests.swift — a MATCH and the plain projection after it run as one step
// (DirectProjection, matchThroughProjection), whether the projection ends its stretch or more
// steps follow it: which plans qualify, and that each returns what the general path returns,
// row for row and in order.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Direct projection of a match")
struct DirectProjectionTests {
    /// 30 users (ids 0…29, every third without a name), FRIEND from each to the next three
    /// (with a `since`), a self-loop on user 4, and users 27…29 with no friends.
    static func store() throws -> (GraphStore, QueryEngine) {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("UNWIND range(0, 29) AS i CREATE (:User {id: i, name: CASE WHEN i % 3 = 0 THEN null ELSE 'u' + toString(i) END})", on: store)
        _ = try engine.execute("""
            MATCH (a:User), (b:User) WHERE a.id < 27 AND b.id < 27 AND b.id > a.id AND b.id <= a.id + 3
            CREATE (a)-[:FRIEND {since: (a.id * 7 + b.id) % 5}]->(b)
            """, on: store)
        _ = try engine.execute("MATCH (a:User {id: 4}) CREATE (a)-[:FRIEND {since: 9}]->(a)", on: store)
        return (store, engine)
    }

    /// Whether the plan of `text` runs its last MATCH through the projection after it.
    func isFused(_ engine: QueryEngine, _ text: String) throws -> Bool {
        let plan = try engine.compile(text, forRun: false).0.plan
        guard let i = plan.steps.lastIndex(where: { if case .match = $0.step { true } else { false } }) else { return false }
        return i + 2 == plan.steps.count && plan.stepBoxes[i].directProjection != nil
    }

    /// Whether the plan of `text` runs its last MATCH through the projection after it, with more
    /// steps after that projection.
    func isFusedBeforeMore(_ engine: QueryEngine, _ text: String) throws -> Bool {
        let plan = try engine.compile(text, forRun: false).0.plan
        guard let i = plan.steps.lastIndex(where: { if case .match = $0.step { true } else { false } }) else { return false }
        return i + 2 < plan.steps.count && plan.stepBoxes[i].directProjection != nil
    }

    /// Each shape with `{with}` removed is fused; with `{with}` replaced by a WITH of the same
    /// variables, the match is fused with the WITH and the RETURN follows; with that WITH
    /// filtered (`WHERE true`), it takes the general path (a match, then two projections). All
    /// must return the same rows in the same order, for users with friends, with a self-loop
    /// and without.
    @Test("a fused match returns the general path's rows")
    func fusedMatchesReturnWhatTheGeneralPathReturns() throws {
        let (store, engine) = try Self.store()
        let shapes: [(text: String, with: String)] = [
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f:User) {with} RETURN f.id", "WITH u, f"),
            ("MATCH (u:User {id: $u})-[r:FRIEND]->(f) {with} RETURN f.id, r.since, f.name, u, r", "WITH u, r, f"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f) {with} RETURN f.id AS id, 1 AS one, $p AS p, f.id * 2 + u.id AS sum, f.missing",
             "WITH u, f"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f) WHERE f.id % 2 = 0 {with} RETURN f.id", "WITH u, f"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f) {with} RETURN f.id SKIP 1 LIMIT 2", "WITH u, f"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f) {with} RETURN f.id LIMIT 1", "WITH u, f"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(g) {with} RETURN DISTINCT g.id", "WITH u, f, g"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(g) {with} RETURN DISTINCT g.id SKIP 2 LIMIT 3", "WITH u, f, g"),
            ("MATCH (u:User {id: $u})-[r:FRIEND]-(f) {with} RETURN DISTINCT r.since", "WITH u, r, f"),
            ("MATCH p = (u:User {id: $u})-[:FRIEND]->(f) {with} RETURN p, length(p)", "WITH p"),
            ("MATCH (u:User {id: $u}) OPTIONAL MATCH (u)-[:FRIEND]->(f) {with} RETURN u.id, f.id, f", "WITH u, f"),
            ("MATCH (u:User {id: $u}) OPTIONAL MATCH (u)-[:FRIEND]->(f) WHERE f.id % 2 = 0 {with} RETURN u.id, f.id", "WITH u, f"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f) WHERE (f)-[:FRIEND]->(u) {with} RETURN f.id", "WITH u, f"),
            ("MATCH (u:User {id: $u}) OPTIONAL MATCH (u)-[:FRIEND]-(f) WHERE NOT (f)-[:FRIEND]->(u) {with} RETURN f.id", "WITH u, f"),
            ("UNWIND [$u, $u + 1, 100] AS k MATCH (u:User {id: k})-[:FRIEND]-(f) {with} RETURN k, f.id, $p", "WITH k, u, f"),
            ("UNWIND [$u, $u + 1] AS k MATCH (u:User {id: k})-[:FRIEND]-(f) {with} RETURN DISTINCT f.name", "WITH u, f"),
            ("MATCH (u:User {id: $u})-[:FRIEND]-(f) {with} RETURN CASE WHEN f.name IS NULL THEN 'none' ELSE f.name END AS n",
             "WITH u, f"),
        ]
        for (shape, with) in shapes {
            let fusedText = shape.replacingOccurrences(of: " {with}", with: "")
            let midText = shape.replacingOccurrences(of: "{with}", with: with)
            let generalText = shape.replacingOccurrences(of: "{with}", with: with + " WHERE true")
            #expect(try isFused(engine, fusedText), "\(fusedText) is not fused")
            #expect(try isFusedBeforeMore(engine, midText), "\(midText) is not fused with its WITH")
            #expect(try !isFused(engine, generalText) && !isFusedBeforeMore(engine, generalText), "\(generalText) is fused")
            var compared = 0
            for user in [0, 4, 13, 26, 28] {
                let parameters: [String: Value] = ["u": .integer(Int64(user)), "p": .string("x")]
                let fused = try engine.execute(fusedText, on: store, parameters: parameters).rows
                let general = try engine.execute(generalText, on: store, parameters: parameters).rows
                let mid = try engine.execute(midText, on: store, parameters: parameters).rows
                #expect(fused == general, "\(shape) for user \(user)")
                #expect(mid == general, "\(midText) for user \(user)")
                compared += fused.count
            }
            #expect(compared > 0, "\(shape) returned nothing: nothing compared")
        }
    }

    /// What the fused step hands on may be aggregated or collected by a later stretch, and a
    /// projection that sorts, aggregates or filters is never fused.
    @Test("fused rows feed what follows; sorting, aggregating and filtering projections are not fused")
    func fusedRowsFeedLaterSteps() throws {
        let (store, engine) = try Self.store()
        let counted = "MATCH (u:User {id: 5})-[:FRIEND]-(f) WITH f.id AS id RETURN count(id) AS n, sum(id) AS s"
        #expect(try engine.execute(counted, on: store).rows == [[.integer(6), .integer(30)]])
        for text in ["MATCH (u:User {id: 5})-[:FRIEND]-(f) RETURN f.id ORDER BY f.id",
                     "MATCH (u:User {id: 5})-[:FRIEND]-(f) RETURN count(f)",
                     "MATCH (u:User {id: 5})-[:FRIEND]-(f) WITH f WHERE f.id > 3 RETURN f.id"] {
            let plan = try engine.compile(text, forRun: false).0.plan
            #expect(plan.stepBoxes.allSatisfy { $0.directProjection == nil }, "\(text)")
        }
        let sorted = try engine.execute("MATCH (u:User {id: 5})-[:FRIEND]-(f) RETURN f.id ORDER BY f.id", on: store).rows
        #expect(sorted == [2, 3, 4, 6, 7, 8].map { [.integer($0)] })
    }

    /// A fused match's rows go straight into the result when nothing lies between (collectRow),
    /// and count as the general path's do: against the memory cap, the result-row limit and a
    /// LIMIT, for a match and for an optional match that finds nothing.
    @Test("a fused match's rows count against the memory cap, the result-row limit and LIMIT")
    func fusedRowsCountAgainstTheLimits() throws {
        let (store, engine) = try Self.store()
        let shapes = [
            ("MATCH (u:User {id: $u})-[r:FRIEND]-(f) {with} RETURN f.id, r.since, 'tag' AS tag, $p AS p, f.name", "WITH u, r, f"),
            ("MATCH (u:User {id: $u}) OPTIONAL MATCH (u)-[:FRIEND]->(f) {with} RETURN u.id, f.id, $p AS p", "WITH u, f"),
        ]
        for (shape, with) in shapes {
            let fused = shape.replacingOccurrences(of: " {with}", with: "")
            let general = shape.replacingOccurrences(of: "{with}", with: with + " WHERE true")
            #expect(try isFused(engine, fused), "\(fused) is not fused")
            for user in [5, 28] {
                let parameters: [String: Value] = ["u": .integer(Int64(user)), "p": .string("a parameter")]
                let rows = try engine.execute(general, on: store, parameters: parameters).rows
                #expect(try engine.execute(fused, on: store, parameters: parameters).rows == rows)
                let fusedCap = try smallestMemoryCap(engine, store, fused, parameters)
                #expect(fusedCap == (try smallestMemoryCap(engine, store, general, parameters)), "\(fused) for \(user)")
                #expect(fusedCap > rows.count * 3 * 24, "the rows' cells are charged")
                for text in [fused, general] {
                    engine.configuration.resultRowLimit = rows.count
                    #expect(try engine.execute(text, on: store, parameters: parameters).rows.count == rows.count)
                    guard rows.count > 0 else { continue }
                    engine.configuration.resultRowLimit = rows.count - 1
                    #expect(throws: QueryError.self) { try engine.execute(text, on: store, parameters: parameters) }
                }
                engine.configuration.resultRowLimit = nil
                for limit in Set([0, 1, rows.count - 1, rows.count, rows.count + 1]) where limit >= 0 {
                    let limited = try engine.execute(fused + " LIMIT \(limit)", on: store, parameters: parameters).rows
                    #expect(limited == Array(rows.prefix(limit)), "\(fused) LIMIT \(limit) for \(user)")
                }
            }
        }
    }

    /// An error in a projected expression surfaces from the fused step as from the general one;
    /// a user with no friends projects nothing, so nothing fails.
    @Test("an error in a projected item is thrown; no rows, no evaluation")
    func errorsSurface() throws {
        let (store, engine) = try Self.store()
        let bad = "MATCH (u:User {id: $u})-[:FRIEND]-(f) RETURN f.id.x"
        #expect(try isFused(engine, bad))
        #expect(throws: QueryError.self) { try engine.execute(bad, on: store, parameters: ["u": .integer(1)]) }
        #expect(try engine.execute(bad, on: store, parameters: ["u": .integer(28)]).rows.isEmpty)
    }
}
