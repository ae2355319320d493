// IncomingRelationshipTests.swift — incoming adjacency holds neighbour ids only, so a query that
// walks a relationship backwards finds its id in the neighbour's outgoing list, and only when
// something reads it. On random multigraphs (parallel relationships, self-loops), matches must
// equal a model's, named or anonymous, and every id read backwards must be the right one.

import Testing
@testable import GraphQuery
import GraphStore

@Suite struct IncomingRelationshipTests {
    /// A random multigraph: `nodes` nodes `(:N {i})`, relationships `F` as (start, end) pairs,
    /// parallel pairs and self-loops included.
    static func graph(seed: UInt64, nodes: Int, relationships: Int) throws -> (GraphStore, [(Int, Int)]) {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var edges: [(Int, Int)] = []
        for _ in 0..<relationships {
            let a = next(nodes)
            let b = next(5) == 0 ? a : next(nodes)
            edges.append((a, b))
            if next(4) == 0 { edges.append((a, b)) }   // a parallel one
        }
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("UNWIND range(0, \(nodes - 1)) AS i CREATE (:N {i: i})", on: store)
        _ = try engine.execute("CREATE INDEX FOR (n:N) ON (n.i)", on: store)
        let list = "[" + edges.map { "[\($0.0), \($0.1)]" }.joined(separator: ", ") + "]"
        _ = try engine.execute("UNWIND \(list) AS e MATCH (a:N {i: e[0]}), (b:N {i: e[1]}) CREATE (a)-[:F]->(b)", on: store)
        return (store, edges)
    }

    static func triples(_ rows: [[ResultValue]]) -> [[Int64]] {
        rows.map { row in row.map { if case .integer(let i) = $0 { i } else { -1 } } }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// openCypher's undirected 2-hop matches (a)-(b)-(c) over two different relationships; an
    /// undirected step takes a self-loop once.
    static func twoHops(_ edges: [(Int, Int)], nodes: Int) -> [[Int64]] {
        var incident = [[(edge: Int, other: Int)]](repeating: [], count: nodes)
        for (k, (s, e)) in edges.enumerated() {
            incident[s].append((k, e))
            if s != e { incident[e].append((k, s)) }
        }
        var result: [[Int64]] = []
        for a in 0..<nodes {
            for first in incident[a] {
                for second in incident[first.other] where second.edge != first.edge {
                    result.append([Int64(a), Int64(first.other), Int64(second.other)])
                }
            }
        }
        return result.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func twoHopMatchesEqualTheModelNamedOrAnonymous(seed: UInt64) throws {
        let (store, edges) = try Self.graph(seed: seed, nodes: 12, relationships: 30)
        let engine = QueryEngine()
        let expected = Self.twoHops(edges, nodes: 12)
        let anonymous = try engine.execute("MATCH (a:N)-[:F]-(b)-[:F]-(c) RETURN a.i, b.i, c.i", on: store)
        let named = try engine.execute("MATCH (a:N)-[r:F]-(b)-[s:F]-(c) RETURN a.i, b.i, c.i", on: store)
        let backwards = try engine.execute("MATCH (a:N)<-[:F]-(b)-[:F]-(c) RETURN a.i, b.i, c.i", on: store)
        #expect(Self.triples(anonymous.rows) == expected)
        #expect(Self.triples(named.rows) == expected)
        // Only the steps whose first relationship points at a: the model's, filtered.
        var pointing: [[Int64]] = []
        for (k, (s, e)) in edges.enumerated() {
            for (j, (s2, e2)) in edges.enumerated() where j != k {
                if s2 == s { pointing.append([Int64(e), Int64(s), Int64(e2)]) }
                if e2 == s && s2 != e2 { pointing.append([Int64(e), Int64(s), Int64(s2)]) }
            }
        }
        #expect(Self.triples(backwards.rows) == pointing.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test(arguments: [UInt64(4), 5])
    func relationshipsReadBackwardsAreTheRightOnes(seed: UInt64) throws {
        let (store, edges) = try Self.graph(seed: seed, nodes: 10, relationships: 40)
        let engine = QueryEngine()
        let result = try engine.execute("""
            MATCH (a:N)<-[r:F]-(b) RETURN id(r), startNode(r) = b AND endNode(r) = a, a.i, b.i
            """, on: store)
        #expect(result.rows.count == edges.count)
        #expect(Set(result.rows.map { $0[0] }).count == edges.count, "each relationship once, parallel ones apart")
        #expect(result.rows.allSatisfy { $0[1] == .bool(true) })
        let pairs = result.rows.map { row -> [Int64] in [row[3], row[2]].map { if case .integer(let i) = $0 { i } else { -1 } } }
        #expect(pairs.sorted { $0.lexicographicallyPrecedes($1) }
                == edges.map { [Int64($0.0), Int64($0.1)] }.sorted { $0.lexicographicallyPrecedes($1) })
        // A variable-length walk reads ids backwards too; paths never reuse a relationship.
        let walks = try engine.execute("MATCH p = (a:N)<-[:F*2]-(c) RETURN a.i, c.i, [x IN relationships(p) | id(x)]", on: store)
        for row in walks.rows {
            guard case .list(let ids) = row[2] else { Issue.record("no id list"); continue }
            #expect(ids.count == 2 && ids[0] != ids[1])
        }
        var expected = 0
        for (k, first) in edges.enumerated() {
            for (j, second) in edges.enumerated() where j != k && second.1 == first.0 { expected += 1 }
        }
        #expect(walks.rows.count == expected)
    }

    @Test func deletingThroughAnIncomingListRemovesTheRightRelationship() throws {
        let (store, edges) = try Self.graph(seed: 9, nodes: 8, relationships: 25)
        let engine = QueryEngine()
        // Delete every relationship pointing at node 0, found from node 0's incoming list.
        let deleted = try engine.execute("MATCH (a:N {i: 0})<-[r:F]-() DELETE r", on: store)
        let into = edges.filter { $0.1 == 0 }.count
        #expect(deleted.statistics.relationshipsDeleted == into)
        let left = try engine.execute("MATCH (a)-[r:F]->(b) RETURN a.i, b.i", on: store)
        #expect(Self.triples(left.rows) == edges.filter { $0.1 != 0 }.map { [Int64($0.0), Int64($0.1)] }.sorted { $0.lexicographicallyPrecedes($1) })
    }
}
