// QueryEngineTests.swift — the engine as the server uses it: plan cache, read-only refusal,
// store errors mapped to query errors with nothing left behind, results with schema ids,
// header offsets, and many threads at once.

import Dispatch
import Testing
@testable import GraphQuery
import GraphStore
import Synchronization

@Suite("QueryEngine")
struct QueryEngineTests {
    @Test("every built-in scalar function in the catalog has a body, and every body is in the catalog")
    func scalarFunctionsMatchTheCatalog() {
        let scalars = FunctionCatalog.signatures.values.filter { $0.kind == .scalar }.map(\.name)
        #expect(Set(scalars) == Set(ScalarFunction.nameable.map(\.rawValue)))
        #expect(scalars.count == ScalarFunction.nameable.count)
    }

    @Test("a plan is cached by body text, whatever the CYPHER header's values")
    func planCache() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        let first = try engine.execute("CYPHER x=1 RETURN $x", on: store)
        let second = try engine.execute("CYPHER x=2 RETURN $x", on: store)
        #expect(!first.statistics.cachedExecution)
        #expect(second.statistics.cachedExecution)
        #expect(second.rows == [[.integer(2)]])
        #expect(second.statistics.executionTimeMilliseconds >= 0)
        let other = try engine.execute("RETURN $x", on: store, parameters: ["x": .string("p")])
        #expect(other.statistics.cachedExecution)
        #expect(other.rows == [[.string("p")]])
    }

    @Test("a plan made to see whether a text writes, to explain it, or declined by the quick path, is not a cached execution on its first run")
    func planningAloneIsNotACachedExecution() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        let text = "UNWIND [1, 2] AS x RETURN x"
        #expect(!engine.writes(text))
        _ = try engine.explain(text, on: store)
        #expect(!(try engine.execute("EXPLAIN " + text, on: store).statistics.cachedExecution))
        let quick = try #require(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(60)))
        #expect(!quick.statistics.cachedExecution)
        #expect(quick.rows == [[.integer(1)], [.integer(2)]])
        #expect(try engine.execute(text, on: store).statistics.cachedExecution)
        // Texts the quick path declines untried (a write, a procedure that may walk two hops)
        // have not run either.
        for declined in ["CREATE (:X)", "CALL social.connections(1, {}) YIELD user RETURN count(user)"] {
            #expect(try engine.executeIfQuick(declined, on: store, timeout: nil, budget: .seconds(60)) == nil)
            #expect(!(try engine.execute(declined, on: store).statistics.cachedExecution), "\(declined)")
            #expect(try engine.execute(declined, on: store).statistics.cachedExecution, "\(declined)")
        }
    }

    @Test("the cache forgets everything when full, and still answers right")
    func cacheCapacity() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine(cacheCapacity: 2)
        for i in 0..<5 { #expect(try engine.execute("RETURN \(i)", on: store).rows == [[.integer(Int64(i))]]) }
        #expect(try engine.execute("RETURN 4", on: store).statistics.cachedExecution)
    }

    @Test("nodes and relationships come back with ids, schema ids and names")
    func materialisation() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("CREATE (:A {x: 1})-[:R {w: 2.5}]->(:B:A {y: 'z'})", on: store)
        let result = try engine.execute("MATCH (a)-[r]->(b) RETURN a, r, b", on: store)
        #expect(result.columns == ["a", "r", "b"])
        let a = SchemaName(id: 0, name: "A"), b = SchemaName(id: 1, name: "B")
        // A CREATE makes all of a pattern's nodes before its relationships, so `y` is interned before `w`.
        let x = SchemaName(id: 0, name: "x"), y = SchemaName(id: 1, name: "y"), w = SchemaName(id: 2, name: "w")
        #expect(result.rows == [[
            .node(ResultNode(id: 0, labels: [a], properties: [ResultProperty(key: x, value: .integer(1))])),
            .relationship(ResultRelationship(id: 0, type: SchemaName(id: 0, name: "R"), startNodeID: 0, endNodeID: 1,
                                             properties: [ResultProperty(key: w, value: .double(2.5))])),
            .node(ResultNode(id: 1, labels: [a, b], properties: [ResultProperty(key: y, value: .string("z"))])),
        ]])
    }

    @Test("a read-only run refuses a write before it happens")
    func readOnly() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        #expect(throws: QueryError(.semantic, "graph.RO_QUERY is to be executed only on read-only queries")) {
            try engine.execute("UNWIND [1] AS i CREATE (:X)", on: store, readOnly: true)
        }
        #expect(store.read { $0.nodeCount } == 0)
        #expect(try engine.execute("MATCH (n) RETURN count(n)", on: store, readOnly: true).rows == [[.integer(0)]])
    }

    @Test("a unique-constraint violation is a constraint error and rolls the whole query back")
    func constraintViolation() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        try store.write { graph in
            try graph.createIndex(label: graph.internLabel("User"), key: graph.internPropertyKey("id"), unique: true)
        }
        _ = try engine.execute("CREATE (:User {id: 1})", on: store)
        do {
            _ = try engine.execute("CREATE (:User {id: 2}), (:Other), (:User {id: 1})", on: store)
            Issue.record("the duplicate was accepted")
        } catch {
            #expect(error.kind == .constraint)
            #expect(!error.message.isEmpty)
        }
        let count = try engine.execute("MATCH (n) RETURN count(n)", on: store)
        #expect(count.rows == [[.integer(1)]])
    }

    @Test("syntax error offsets count from the start of the body, after the CYPHER header")
    func headerOffsets() {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        #expect {
            try engine.execute("CYPHER a=1 b='x' MATCH (n RETURN n", on: store)
        } throws: { error in
            let error = error as? QueryError
            return error?.location == SourceLocation(line: 1, column: 10, offset: 9)
                && error?.contextLine == "MATCH (n RETURN n"
        }
    }

    @Test("a CYPHER header is found in any case, after blanks or a comment; a longer word is no header")
    func headerForms() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        #expect(try engine.execute("  cypher x=1 RETURN $x", on: store).rows == [[.integer(1)]])
        #expect(try engine.execute("/* app */ CYPHER x=2 RETURN $x", on: store).rows == [[.integer(2)]])
        #expect(try engine.execute("RETURN 3 AS cypher", on: store).rows == [[.integer(3)]])
        #expect(throws: QueryError.self) { try engine.execute("CYPHERx=1 RETURN 1", on: store) }
    }

    @Test("the issue's example, with readers and writers on many threads at once")
    func concurrency() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("CREATE (:User {id: 1, name: 'Ann'})-[:FRIEND]->(:User {id: 2, name: 'Bo'})", on: store)
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            do {
                if i % 4 == 0 {
                    _ = try engine.execute("CYPHER i=\(i) CREATE (:Item {i: $i})", on: store)
                } else {
                    let r = try engine.execute("MATCH (a:User {id: 1})-[:FRIEND]-(b:User) RETURN b.name, b.id", on: store)
                    if r.rows != [[.string("Bo"), .integer(2)]] { failures.add("wrong rows \(r.rows)") }
                }
            } catch {
                failures.add("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try engine.execute("MATCH (i:Item) RETURN count(i)", on: store).rows == [[.integer(16)]])
    }
}

extension QueryEngineTests {
    @Test("an expansion between two bound nodes finds every relationship between them, parallel, reversed and looped")
    func expandInto() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("""
            CREATE (a:N {id: 1}), (b:N {id: 2}), (c:N {id: 3}),
                   (a)-[:R {w: 1}]->(b), (a)-[:R {w: 2}]->(b), (b)-[:R {w: 3}]->(a), (a)-[:R {w: 4}]->(a),
                   (a)-[:S {w: 5}]->(b), (c)-[:R {w: 6}]->(a), (b)-[:R {w: 7}]->(c)
            """, on: store)
        func weights(_ pattern: String, _ x: Int, _ y: Int) throws -> [Int64] {
            let rows = try engine.execute(
                "MATCH (x:N {id: \(x)}), (y:N {id: \(y)}) MATCH \(pattern) RETURN r.w ORDER BY r.w", on: store).rows
            return rows.map { if case .integer(let w) = $0[0] { w } else { -1 } }
        }
        #expect(try weights("(x)-[r:R]-(y)", 1, 2) == [1, 2, 3])
        #expect(try weights("(x)-[r:R]->(y)", 1, 2) == [1, 2])
        #expect(try weights("(x)<-[r:R]-(y)", 1, 2) == [3])
        #expect(try weights("(x)-[r:R|S]-(y)", 1, 2) == [1, 2, 3, 5])
        #expect(try weights("(x)-[r]-(y)", 2, 1) == [1, 2, 3, 5])
        #expect(try weights("(x)-[r:R]-(y)", 1, 1) == [4])        // a self-loop, once
        #expect(try weights("(x)-[r:R]->(y)", 1, 1) == [4])
        #expect(try weights("(x)-[r:R]-(y)", 2, 2) == [])
        #expect(try weights("(x)-[r:R]-(y)", 1, 3) == [6])
        // Two hops between bound ends: every path. Through b: three relationships a–b, then b→c.
        // Through a itself: the self-loop (once, undirected), then c→a.
        let paths = try engine.execute(
            "MATCH (x:N {id: 1}), (y:N {id: 3}) MATCH (x)-[:R]-(m)-[:R]-(y) RETURN m.id, count(*) ORDER BY m.id", on: store).rows
        #expect(paths == [[.integer(1), .integer(1)], [.integer(2), .integer(3)]])
    }

    @Test("labels on the far node of an expansion filter it: all of them, unknown ones match nothing, a property map still applies")
    func expandWithFarLabels() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("""
            CREATE (a:N {id: 1}), (b:N:User {id: 2}), (c:User {id: 3}), (d:N:User {id: 4, vip: true}),
                   (a)-[:R {w: 1}]->(b), (c)-[:R {w: 2}]->(a), (a)-[:R {w: 3}]->(d), (a)-[:R {w: 4}]->(a)
            """, on: store)
        func weights(_ far: String) throws -> [Int64] {
            let rows = try engine.execute("MATCH (x:N {id: 1})-[r:R]-\(far) RETURN r.w ORDER BY r.w", on: store).rows
            return rows.map { if case .integer(let w) = $0[0] { w } else { -1 } }
        }
        #expect(try weights("(y)") == [1, 2, 3, 4])
        #expect(try weights("(y:User)") == [1, 2, 3])
        #expect(try weights("(y:N)") == [1, 3, 4])
        #expect(try weights("(y:N:User)") == [1, 3])
        #expect(try weights("(y:Nobody)") == [])
        #expect(try weights("(y:User {vip: true})") == [3])
        #expect(try weights("(:User)") == [1, 2, 3])
        // The far node is bound by the filter's row, not left over from a rejected neighbour.
        let ids = try engine.execute("MATCH (x:N {id: 1})-[:R]-(y:User) RETURN y.id ORDER BY y.id", on: store).rows
        #expect(ids == [[.integer(2)], [.integer(3)], [.integer(4)]])
    }

    @Test("DISTINCT without ORDER BY streams: SKIP and LIMIT count distinct rows, WHERE filters after, a LIMIT stops the input")
    func streamingDistinct() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        func ints(_ query: String) throws -> [Int64] {
            try engine.execute(query, on: store, timeout: .seconds(20)).rows.map { if case .integer(let i) = $0[0] { i } else { -1 } }
        }
        // Few rows (compared one by one) and many (hashed): 1 and 1.0 are one value.
        #expect(try ints("UNWIND [1, 2, 1.0, 2, 3, 1] AS x RETURN DISTINCT toInteger(x) AS v") == [1, 2, 3])
        #expect(try ints("UNWIND range(1, 100) AS x WITH DISTINCT x % 40 AS v RETURN v").sorted() == Array(0..<40))
        #expect(try engine.execute("UNWIND [null, 1, null, 1.0] AS x RETURN DISTINCT x", on: store).rows.count == 2)
        // SKIP and LIMIT apply to the distinct rows, then WITH's WHERE.
        #expect(try ints("UNWIND [5, 5, 6, 6, 7, 8, 8, 9] AS x WITH DISTINCT x AS v SKIP 1 LIMIT 2 RETURN v") == [6, 7])
        #expect(try ints("UNWIND [5, 5, 6, 7, 8] AS x WITH DISTINCT x AS v SKIP 1 LIMIT 3 WHERE v > 6 RETURN v") == [7, 8])
        // The input is a billion rows; three distinct values end it (a buffering DISTINCT would
        // run into the 20-second limit above).
        #expect(try ints("UNWIND range(1, 1000000000) AS i WITH DISTINCT i % 3 AS r RETURN r LIMIT 3").sorted() == [0, 1, 2])
        // With ORDER BY it still sees every row first.
        #expect(try ints("UNWIND [3, 1, 3, 2, 1] AS x RETURN DISTINCT x ORDER BY x DESC LIMIT 2") == [3, 2])
    }

    @Test("readers on the store's own graph (in place, quick or not) never see half of a writer's transaction")
    func readersInPlaceSeeWholeTransactions() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        let failures = Failures()
        let writes = 300
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            do {
                if worker == 0 {
                    // Each transaction adds two nodes with the same k and a relationship between them.
                    for i in 0..<writes {
                        _ = try engine.execute("CYPHER k=\(i) CREATE (:P {k: $k})-[:R]->(:P {k: $k})", on: store)
                    }
                    return
                }
                let counts = "MATCH (p:P) OPTIONAL MATCH (p)-[r:R]->() RETURN count(p), count(r)"
                let mismatched = "MATCH (a:P)-[:R]->(b:P) WHERE a.k <> b.k RETURN count(*)"
                for round in 0..<400 {
                    let quick = round % 2 == 1
                    let r = quick ? try engine.executeIfQuick(counts, on: store, timeout: nil, budget: .seconds(10))
                                  : try engine.execute(counts, on: store)
                    if let r, case .integer(let nodes) = r.rows[0][0], case .integer(let relationships) = r.rows[0][1],
                       nodes != 2 * relationships {
                        failures.add("saw \(nodes) nodes with \(relationships) relationships")
                    }
                    if try engine.execute(mismatched, on: store).rows != [[.integer(0)]] {
                        failures.add("a relationship joined nodes of different transactions")
                    }
                }
            } catch {
                failures.add("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try engine.execute("MATCH (p:P) RETURN count(p)", on: store).rows == [[.integer(Int64(2 * writes))]])
    }
}

/// Collects failures from concurrent closures.
final class Failures: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ message: String) { list.withLock { $0.append(message) } }
    var all: [String] { list.withLock { $0 } }
}
