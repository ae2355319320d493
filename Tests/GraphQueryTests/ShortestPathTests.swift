// ShortestPathTests.swift — `shortestPath(…)` and `allShortestPaths(…)` in MATCH, WITH and
// RETURN: lengths and path counts on seeded random graphs checked against a breadth-first
// reference written here over the edge list (sharing nothing with the store's search), and
// the bounds, types, directions, WHERE on the path, single hops, empty paths and errors.

import GraphStore
import Testing
@testable import GraphQuery

@Suite("Shortest paths")
struct ShortestPathTests {
    /// A seeded random multigraph: nodes `(:N {id: i})`, relationships `[:K {w}]` or `[:L {w}]`.
    struct RandomGraph {
        var nodeCount: Int
        var edges: [(from: Int, to: Int, type: String, weight: Int)] = []

        init(nodes: Int, edges count: Int, seed: UInt64) {
            nodeCount = nodes
            var state = seed
            func next() -> Int {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Int(truncatingIfNeeded: state >> 33)
            }
            for _ in 0..<count {
                edges.append((next() % nodes, next() % nodes, next() % 4 == 0 ? "L" : "K", next() % 10))
            }
        }

        func store() throws -> (QueryEngine, GraphStore) {
            let store = GraphStore.inMemory()
            let engine = QueryEngine()
            _ = try engine.execute("UNWIND range(0, $n - 1) AS i CREATE (:N {id: i})", on: store,
                                   parameters: ["n": .integer(Int64(nodeCount))])
            let list = Value.list(edges.map { .list([.integer(Int64($0.from)), .integer(Int64($0.to)), .string($0.type), .integer(Int64($0.weight))]) })
            _ = try engine.execute("CREATE INDEX FOR (n:N) ON (n.id)", on: store)
            for type in ["K", "L"] {
                _ = try engine.execute("""
                    UNWIND $edges AS e WITH e WHERE e[2] = '\(type)'
                    MATCH (a:N {id: e[0]}), (b:N {id: e[1]}) CREATE (a)-[:\(type) {w: e[3]}]->(b)
                    """, on: store, parameters: ["edges": list])
            }
            return (engine, store)
        }

        /// The reference: distance from `a` to `b` and the number of shortest paths (parallel
        /// relationships counted apart), by breadth-first layers over the edge list.
        func reference(_ a: Int, _ b: Int, types: Set<String>, directed: Bool, maxWeight: Int = .max, maxHops: Int = .max) -> (length: Int, paths: Int)? {
            if a == b { return nil }
            var distance = [Int](repeating: -1, count: nodeCount)
            var ways = [Int](repeating: 0, count: nodeCount)
            distance[a] = 0; ways[a] = 1
            var layer = [a]
            while !layer.isEmpty, distance[b] < 0 {
                var next: [Int] = []
                for u in layer {
                    for e in edges where types.contains(e.type) && e.weight <= maxWeight {
                        var steps: [Int] = []
                        if e.from == u { steps.append(e.to) }
                        if !directed, e.to == u, e.from != e.to { steps.append(e.from) }
                        for v in steps {
                            if distance[v] < 0 { distance[v] = distance[u] + 1; next.append(v) }
                            if distance[v] == distance[u] + 1 { ways[v] += ways[u] }
                        }
                    }
                }
                layer = next
            }
            guard distance[b] > 0, distance[b] <= maxHops else { return nil }
            return (distance[b], ways[b])
        }
    }

    static func pairs(_ n: Int, count: Int) -> [(Int, Int)] {
        (0..<count).map { i in ((i * 7919) % n, (i * 104_729 + 13) % n) }.filter { $0.0 != $0.1 }
    }

    @Test("allShortestPaths finds the reference's length and number of paths, undirected and directed, one type and all",
          arguments: [(UInt64(1), 60, 90), (2, 120, 200), (3, 200, 260)])
    func matchesTheReference(seed: UInt64, nodes: Int, edges: Int) throws {
        let graph = RandomGraph(nodes: nodes, edges: edges, seed: seed)
        let (engine, store) = try graph.store()
        var connected = 0, severalPaths = 0
        defer {
            // The seeds give both connected and unconnected pairs, and ties among shortest paths.
            #expect(connected > 20 && severalPaths > 5, "connected \(connected), with ties \(severalPaths)")
        }
        for (a, b) in Self.pairs(nodes, count: 40) {
            for (arrow, directed) in [("-", false), ("->", true)] {
                for (typeText, types) in [(":K", Set(["K"])), ("", Set(["K", "L"]))] {
                    let expected = graph.reference(a, b, types: types, directed: directed)
                    if let expected { connected += 1; if expected.paths > 1 { severalPaths += 1 } }
                    let rows = try engine.execute("""
                        MATCH (a:N {id: $a}), (b:N {id: $b})
                        MATCH p = allShortestPaths((a)-[\(typeText)*]\(arrow)(b)) RETURN length(p), nodes(p)[0].id, last(nodes(p)).id
                        """, on: store, parameters: ["a": .integer(Int64(a)), "b": .integer(Int64(b))]).rows
                    #expect(rows.count == (expected?.paths ?? 0), "\(a)\(arrow)\(b) \(typeText)")
                    for row in rows {
                        #expect(row == [.integer(Int64(expected?.length ?? -1)), .integer(Int64(a)), .integer(Int64(b))])
                    }
                    let one = try engine.execute("""
                        MATCH (a:N {id: $a}), (b:N {id: $b})
                        RETURN length(shortestPath((a)-[\(typeText)*]\(arrow)(b)))
                        """, on: store, parameters: ["a": .integer(Int64(a)), "b": .integer(Int64(b))]).rows
                    #expect(one == [[expected.map { .integer(Int64($0.length)) } ?? .null]])
                }
            }
        }
    }

    @Test("every path allShortestPaths returns is a real path of the least length, and no two are the same")
    func pathsAreRealAndDistinct() throws {
        let graph = RandomGraph(nodes: 80, edges: 160, seed: 9)
        let (engine, store) = try graph.store()
        for (a, b) in Self.pairs(80, count: 20) {
            let result = try engine.execute("""
                MATCH (a:N {id: $a}), (b:N {id: $b}) MATCH p = allShortestPaths((a)-[*]-(b))
                RETURN [n IN nodes(p) | n.id], [r IN relationships(p) | [startNode(r).id, endNode(r).id]], [r IN relationships(p) | id(r)]
                """, on: store, parameters: ["a": .integer(Int64(a)), "b": .integer(Int64(b))])
            var seen = Set<[ResultValue]>()
            for row in result.rows {
                #expect(seen.insert([row[2]]).inserted, "the same path twice")
                guard case .list(let ids) = row[0], case .list(let steps) = row[1] else { Issue.record("not lists"); continue }
                #expect(ids.first == .integer(Int64(a)) && ids.last == .integer(Int64(b)))
                #expect(steps.count == ids.count - 1)
                for (i, step) in steps.enumerated() {
                    guard case .list(let ends) = step else { continue }
                    #expect(Set(ends) == Set([ids[i], ids[i + 1]]) || (ends[0] == ends[1] && ids[i] == ids[i + 1]))
                }
            }
        }
    }

    @Test("a WHERE on the path's relationships finds the shortest path among those passing it, not a filtered shortest one")
    func predicateOnThePath() throws {
        let graph = RandomGraph(nodes: 60, edges: 140, seed: 5)
        let (engine, store) = try graph.store()
        for (a, b) in Self.pairs(60, count: 25) {
            let expected = graph.reference(a, b, types: ["K", "L"], directed: false, maxWeight: 5)
            let rows = try engine.execute("""
                MATCH (a:N {id: $a}), (b:N {id: $b}) MATCH p = allShortestPaths((a)-[*..8]-(b))
                WHERE all(r IN relationships(p) WHERE r.w <= 5) RETURN length(p)
                """, on: store, parameters: ["a": .integer(Int64(a)), "b": .integer(Int64(b))]).rows
            let within = expected.flatMap { $0.length <= 8 ? $0 : nil }
            #expect(rows.count == (within?.paths ?? 0), "\(a)-\(b)")
            #expect(Set(rows) == (within.map { Set([[ResultValue.integer(Int64($0.length))]]) } ?? []))
            // The same condition phrased so that it is checked on whole paths (every path of each
            // length in turn) gives the same answer as the per-step check of the search.
            let walked = try engine.execute("""
                MATCH (a:N {id: $a}), (b:N {id: $b}) MATCH p = allShortestPaths((a)-[*..8]-(b))
                WHERE [r IN relationships(p) WHERE r.w > 5] = [] RETURN length(p)
                """, on: store, parameters: ["a": .integer(Int64(a)), "b": .integer(Int64(b))]).rows
            #expect(walked == rows, "\(a)-\(b)")
        }
    }

    @Test("a condition on every node of the path is kept by the search, as the same condition on the whole path")
    func conditionOnNodes() throws {
        let graph = RandomGraph(nodes: 40, edges: 90, seed: 21)
        let (engine, store) = try graph.store()
        var differs = 0
        for (a, b) in Self.pairs(40, count: 15) {
            let avoid = (a + b) % 40
            let parameters: [String: Value] = ["a": .integer(Int64(a)), "b": .integer(Int64(b)), "c": .integer(Int64(avoid))]
            let head = "MATCH (a:N {id: $a}), (b:N {id: $b}) MATCH p = allShortestPaths((a)-[*..6]-(b)) "
            let tail = " RETURN [n IN nodes(p) | n.id] ORDER BY [n IN nodes(p) | n.id]"
            let searched = try engine.execute(head + "WHERE none(n IN nodes(p) WHERE n.id = $c)" + tail, on: store, parameters: parameters).rows
            let walked = try engine.execute(head + "WHERE NOT $c IN [n IN nodes(p) | n.id]" + tail, on: store, parameters: parameters).rows
            let unconstrained = try engine.execute(head + "RETURN [n IN nodes(p) | n.id] ORDER BY [n IN nodes(p) | n.id]", on: store, parameters: parameters).rows
            #expect(searched == walked, "\(a)-\(b) avoiding \(avoid)")
            if searched != unconstrained { differs += 1 }
        }
        #expect(differs > 0, "the condition never mattered")
    }

    @Test("EXPLAIN names the search")
    func explain() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        let plan = try engine.explain("MATCH (a:N {id: 1}), (b:N {id: 2}) MATCH p = shortestPath((a)-[:K*..5]-(b)) RETURN p", on: store)
        #expect(plan.joined(separator: "\n").contains("ShortestPath a -[#"), "\(plan)")
        let walked = try engine.explain("MATCH (a:N {id: 1}), (b:N {id: 2}) MATCH p = allShortestPaths((a)-[:K*..5]-(b)) WHERE length(p) > 2 RETURN p", on: store)
        #expect(walked.joined(separator: "\n").contains("AllShortestPaths"))
        #expect(walked.joined(separator: "\n").contains("every path by length"))
    }

    @Test("a relationship property map in the pattern restricts the search like the WHERE does")
    func propertyMapOnTheRelationship() throws {
        let graph = RandomGraph(nodes: 50, edges: 150, seed: 11)
        let (engine, store) = try graph.store()
        for (a, b) in Self.pairs(50, count: 20) {
            let expected = graph.reference(a, b, types: ["K"], directed: true, maxWeight: 0)
            let rows = try engine.execute("""
                MATCH (a:N {id: $a}), (b:N {id: $b}) MATCH p = allShortestPaths((a)-[:K* {w: 0}]->(b)) RETURN length(p)
                """, on: store, parameters: ["a": .integer(Int64(a)), "b": .integer(Int64(b))]).rows
            #expect(rows.count == (expected?.paths ?? 0))
        }
    }

    @Test("bounds, single hops, the empty path, OPTIONAL MATCH and WITH")
    func forms() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        // a -> b -> c -> d, and a long way a -> x -> y -> z -> d.
        _ = try engine.execute("""
            CREATE (a:P {name: 'a'})-[:R]->(b:P {name: 'b'})-[:R]->(c:P {name: 'c'})-[:R]->(d:P {name: 'd'}),
                   (a)-[:S]->(:P {name: 'x'})-[:S]->(:P {name: 'y'})-[:S]->(:P {name: 'z'})-[:S]->(d), (:P {name: 'lone'})
            """, on: store)
        func rows(_ text: String) throws -> [[ResultValue]] { try engine.execute(text, on: store).rows }
        let ends = "MATCH (a:P {name: 'a'}), (d:P {name: 'd'}) "
        #expect(try rows(ends + "MATCH p = shortestPath((a)-[*]->(d)) RETURN [n IN nodes(p) | n.name]")
                == [[.list(["a", "b", "c", "d"].map { .string($0) })]])
        #expect(try rows(ends + "MATCH p = shortestPath((a)-[*..2]->(d)) RETURN p").isEmpty)
        #expect(try rows(ends + "MATCH p = shortestPath((a)-[:S*]->(d)) RETURN length(p)") == [[.integer(4)]])
        #expect(try rows(ends + "MATCH p = shortestPath((d)<-[*]-(a)) RETURN [n IN nodes(p) | n.name]")
                == [[.list(["d", "c", "b", "a"].map { .string($0) })]])
        #expect(try rows(ends + "MATCH p = shortestPath((a)<-[*]-(d)) RETURN p").isEmpty)
        // The relationship variable holds the list; written without a length, the one relationship.
        #expect(try rows(ends + "MATCH shortestPath((a)-[r*]->(d)) RETURN size(r), type(r[0])") == [[.integer(3), .string("R")]])
        #expect(try rows("MATCH (a:P {name: 'a'}), (b:P {name: 'b'}) MATCH shortestPath((a)-[r]->(b)) RETURN type(r)")
                == [[.string("R")]])
        // A minimum of more than one hop: the shortest path at least that long.
        #expect(try rows("MATCH (a:P {name: 'a'}), (b:P {name: 'b'}) MATCH p = shortestPath((a)-[*2..]-(b)) RETURN length(p)")
                == [[.integer(6)]])
        // Same start and end: the empty path with a minimum of 0, nothing otherwise.
        #expect(try rows("MATCH (a:P {name: 'a'}) MATCH p = shortestPath((a)-[*0..]-(a)) RETURN length(p)") == [[.integer(0)]])
        #expect(try rows("MATCH (a:P {name: 'a'}) MATCH p = shortestPath((a)-[*]-(a)) RETURN length(p)").isEmpty)
        // Not connected: OPTIONAL MATCH gives null, the expression null, allShortestPaths an empty list.
        let lone = "MATCH (a:P {name: 'a'}), (l:P {name: 'lone'}) "
        #expect(try rows(lone + "OPTIONAL MATCH p = shortestPath((a)-[*]-(l)) RETURN p") == [[.null]])
        #expect(try rows(lone + "RETURN shortestPath((a)-[*]-(l)), allShortestPaths((a)-[*]-(l))") == [[.null, .list([])]])
        // In WITH, and path functions over it.
        #expect(try rows(ends + "WITH shortestPath((a)-[*]-(d)) AS p RETURN length(p), size(relationships(p))")
                == [[.integer(3), .integer(3)]])
        #expect(try rows(ends + "RETURN size(allShortestPaths((a)-[*]-(d)))") == [[.integer(1)]])
        // A LIMIT stops a read's search; a write goes on with the paths found.
        let diamond = "MATCH (a:P {name: 'a'}), (c:P {name: 'c'}) "
        _ = try engine.execute("MATCH (a:P {name: 'a'}), (c:P {name: 'c'}) CREATE (a)-[:R]->(:P {name: 'e'})-[:R]->(c)", on: store)
        #expect(try rows(diamond + "MATCH p = allShortestPaths((a)-[*]->(c)) RETURN length(p)") == [[.integer(2)], [.integer(2)]])
        #expect(try rows(diamond + "MATCH p = allShortestPaths((a)-[*]->(c)) RETURN length(p) LIMIT 1") == [[.integer(2)]])
        let written = try engine.execute(diamond + "MATCH p = allShortestPaths((a)-[*]->(c)) CREATE (:Found {length: length(p)})", on: store)
        #expect(written.statistics.nodesCreated == 2)
        #expect(try rows("MATCH (f:Found) RETURN f.length") == [[.integer(2)], [.integer(2)]])
        // Ends found by the shortest path's own node patterns.
        #expect(try rows("MATCH p = shortestPath((a:P {name: 'a'})-[*]-(d:P {name: 'd'})) RETURN length(p)") == [[.integer(3)]])
    }

    @Test("malformed shortest paths are errors that say what is wrong")
    func errors() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        for text in ["MATCH p = shortestPath((a)-->(b)-->(c)) RETURN p",
                     "MATCH p = shortestPath((a)) RETURN p",
                     "CREATE p = shortestPath((a)-[:R]->(b))"] {
            #expect(throws: QueryError.self, "\(text)") { try engine.execute(text, on: store) }
        }
        do {
            _ = try engine.execute("MATCH p = shortestPath((a)-->(b)-->(c)) RETURN p", on: store)
            Issue.record("no error")
        } catch {
            #expect("\(error)".contains("exactly one relationship"))
        }
    }
}
