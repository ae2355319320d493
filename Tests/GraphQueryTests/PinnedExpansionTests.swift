// PinnedExpansionTests.swift — an expansion whose far node is pinned by a unique index
// (`-(b:User {id: $b})`) searches its list for that node instead of walking it
// (ExecutionContext.pinnedEnd): the rows must be those of the walk, and the walk must be gone.

import GraphTestSupport
import Testing
@testable import GraphQuery
import GraphStore

@Suite("Expansion to a node pinned by a unique index")
struct PinnedExpansionTests {
    /// The same seeded graph twice: with unique indexes on User.id and User.handle, and with
    /// none (where every expansion walks). FRIEND relationships point either way, some pairs
    /// twice, some nodes to themselves; `Other` nodes share users' ids; a few users are Admins.
    static func stores(seed: UInt64) throws -> (indexed: GraphStore, plain: GraphStore) {
        var rng = SeededGenerator(seed: seed)
        var text = "CREATE "
        var parts: [String] = []
        for i in 0..<24 {
            let labels = i % 7 == 3 ? ":User:Admin" : ":User"
            parts.append("(u\(i)\(labels) {id: \(i), handle: 'h\(i)', name: '\(["ann", "bo"][i % 2])'})")
        }
        for i in 0..<4 { parts.append("(o\(i):Other {id: \(i)})") }
        for _ in 0..<90 {
            let (a, b) = (rng.next(24), rng.next(24))
            parts.append("(u\(a))-[:FRIEND]->(u\(b))")
        }
        for i in 0..<4 { parts.append("(u\(i))-[:FRIEND]->(o\(i))") }
        text += parts.joined(separator: ", ")
        let indexed = GraphStore.inMemory(), plain = GraphStore.inMemory()
        try indexed.write { graph in
            try graph.createIndex(label: graph.internLabel("User"), key: graph.internPropertyKey("id"), unique: true)
            try graph.createIndex(label: graph.internLabel("User"), key: graph.internPropertyKey("handle"), unique: true)
        }
        let engine = QueryEngine()
        _ = try engine.execute(text, on: indexed)
        _ = try engine.execute(text, on: plain)
        return (indexed, plain)
    }

    /// The rows of `text`, sorted (a MATCH's order is not part of its answer), or its error.
    static func rows(_ text: String, _ parameters: [String: Value], on store: GraphStore) -> [String] {
        do {
            return try QueryEngine().execute(text, on: store, parameters: parameters).rows.map { "\($0)" }.sorted()
        } catch {
            return ["error \(error.kind): \(error.message)"]
        }
    }

    static let texts = [
        "MATCH (a:User {id: $a})-[:FRIEND]-(m:User)-[:FRIEND]-(b:User {id: $b}) RETURN m.id",
        "MATCH (a:User {id: $a})-[:FRIEND]->(m)<-[:FRIEND]-(b:User {id: $b}) RETURN m.id",
        "MATCH (a:User {id: $a})<-[:FRIEND]-(m)-[:FRIEND]->(b:User {id: $b}) RETURN m.id, b.name",
        "MATCH (a:User {id: $a})-[r:FRIEND]-(b:User {id: $b}) RETURN id(r)",
        "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {handle: $h}) RETURN m.id",
        "MATCH (a:User {id: $a})-[:FRIEND]-(b:User:Admin {id: $b}) RETURN b.id",
        "MATCH (a:User {id: $a})-[:FRIEND]-(b:User {id: $b, name: 'ann'}) RETURN b.id",
        "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: m.id + 1}) RETURN m.id, b.id",
        "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User) WHERE b.id = $b RETURN m.id",
        "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $a}) RETURN m.id",
        "MATCH (a:User {id: $a})-[:FRIEND]-(b:Other {id: $b}) RETURN b.id",
        "MATCH (a:User {id: $a}) OPTIONAL MATCH (a)-[:FRIEND]-(b:User {id: $b}) RETURN a.id, b.id",
    ]

    @Test("the rows are the walk's, whatever the ends, values and shapes", arguments: [1, 2, 3] as [UInt64])
    func rowsAreTheWalks(seed: UInt64) throws {
        let (indexed, plain) = try Self.stores(seed: seed)
        var rng = SeededGenerator(seed: seed &* 31)
        var nonEmpty = 0
        for _ in 0..<40 {
            let a = Int64(rng.next(26)), b = Int64(rng.next(26))  // 24 and 25 are nobody
            let bValues: [Value] = [.integer(b), .double(Double(b)), .null, .string("\(b)")]
            for text in Self.texts {
                for bValue in bValues {
                    let parameters: [String: Value] = ["a": .integer(a), "b": bValue, "h": .string("h\(b)")]
                    let pinned = Self.rows(text, parameters, on: indexed)
                    #expect(pinned == Self.rows(text, parameters, on: plain), "\(text) \(parameters)")
                    if !pinned.isEmpty, !pinned[0].hasPrefix("error") { nonEmpty += 1 }
                }
            }
        }
        #expect(nonEmpty > 200, "the graph must give the texts rows to compare")
    }

    /// Friends a—hub—b, the hub with 600 more friends; the query is cancelled before it
    /// starts, which it notices on its 256th step. Pinned, the hub's list is searched, not
    /// walked, and the query finishes first.
    @Test("a pinned far node is searched for, not walked to: a hub's list costs no steps")
    func hubIsNotWalked() throws {
        let store = GraphStore.inMemory()
        try store.write { graph in
            try graph.createIndex(label: graph.internLabel("User"), key: graph.internPropertyKey("id"), unique: true)
        }
        let engine = QueryEngine()
        _ = try engine.execute("""
            CREATE (a:User {id: 1, name: 'a'}), (h:User {id: 2, name: 'h'}), (b:User {id: 3, name: 'b'}),
                   (a)-[:FRIEND]->(h), (h)-[:FRIEND]->(b)
            """, on: store)
        _ = try engine.execute("MATCH (h:User {id: 2}) UNWIND range(1000, 1599) AS i CREATE (h)-[:FRIEND]->(:User {id: i})",
                               on: store)
        let cancelled = QueryCancellation()
        cancelled.cancel()
        let pinned = try engine.execute("MATCH (a:User {id: 1})-[:FRIEND]-(m:User)-[:FRIEND]-(b:User {id: 3}) RETURN m.id",
                                        on: store, timeout: nil, cancellation: cancelled)
        #expect(pinned.rows == [[.integer(2)]])
        // The same question by a condition no node can be sought by walks the hub's 602
        // friends, and is stopped.
        #expect(throws: QueryError.self) {
            try engine.execute("MATCH (a:User {id: 1})-[:FRIEND]-(m:User)-[:FRIEND]-(b:User) WHERE b.name STARTS WITH 'b' RETURN m.id",
                               on: store, timeout: nil, cancellation: cancelled)
        }
    }
}
