// QuickExecutionTests.swift — QueryEngine.executeIfQuick, the trial run the server's I/O thread
// makes before waking a worker: it answers quick reads, and declines (changing nothing) writes,
// EXPLAIN/PROFILE, queries past their budget, texts that keep overrunning it, and a busy graph.

import Dispatch
import Testing
@testable import GraphQuery
import GraphStore

@Suite("Quick execution")
struct QuickExecutionTests {
    /// A store holding users 0..<count, each FRIEND of the next.
    static func chain(_ count: Int) throws -> GraphStore {
        let store = GraphStore.inMemory()
        _ = try QueryEngine().execute("UNWIND range(0, \(count - 1)) AS i CREATE (:User {id: i})", on: store)
        _ = try QueryEngine().execute("""
            MATCH (a:User), (b:User) WHERE b.id = a.id + 1 CREATE (a)-[:FRIEND]->(b)
            """, on: store)
        return store
    }

    @Test("a quick read is answered, with the rows execute gives")
    func quickRead() throws {
        let store = try Self.chain(20)
        let engine = QueryEngine()
        let text = "CYPHER id=3 MATCH (u:User {id: $id})-[:FRIEND]-(f) RETURN f.id ORDER BY f.id"
        let quick = try #require(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(5)))
        #expect(quick.rows == [[.integer(2)], [.integer(4)]])
        #expect(quick.rows == (try engine.execute(text, on: store)).rows)
    }

    @Test("a write, EXPLAIN and PROFILE are declined and change nothing")
    func declinesWrites() throws {
        let store = try Self.chain(5)
        let engine = QueryEngine()
        let before = store.read { ($0.nodeCount, $0.relationshipCount) }
        #expect(try engine.executeIfQuick("CREATE (:User {id: 99})", on: store, timeout: nil, budget: .seconds(5)) == nil)
        #expect(try engine.executeIfQuick("EXPLAIN MATCH (n) RETURN n", on: store, timeout: nil, budget: .seconds(5)) == nil)
        #expect(try engine.executeIfQuick("PROFILE MATCH (n) RETURN n", on: store, timeout: nil, budget: .seconds(5)) == nil)
        #expect(store.read { ($0.nodeCount, $0.relationshipCount) } == before)
    }

    @Test("read-only: a write is refused with RO_QUERY's error, as execute refuses it")
    func readOnlyRefusal() throws {
        let store = try Self.chain(2)
        #expect(throws: QueryError.self) {
            try QueryEngine().executeIfQuick("CREATE (:X)", on: store, readOnly: true, timeout: nil, budget: .seconds(5))
        }
        #expect(store.read { $0.nodeCount } == 2)
    }

    /// Runs `text` on a budget of zero until it strikes out, checking each try is declined.
    func strikeOut(_ text: String, _ engine: QueryEngine, _ store: GraphStore) throws {
        for _ in 0..<QueryEngine.strikesOut {
            #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .zero) == nil)
        }
    }

    @Test("a query past its budget is declined, and after three overruns declined untried")
    func budget() throws {
        let store = try Self.chain(200)
        let engine = QueryEngine()
        // Every pair of users: 40,000 rows, far beyond a budget of zero.
        let slow = "MATCH (a:User), (b:User) RETURN count(*)"
        try strikeOut(slow, engine, store)
        // Struck out: declined even with all the time in the world.
        #expect(try engine.executeIfQuick(slow, on: store, timeout: nil, budget: .seconds(60)) == nil)
        // Other texts are still tried, and the declined one still runs the ordinary way.
        #expect(try engine.executeIfQuick("RETURN 1", on: store, timeout: nil, budget: .seconds(60))?.rows == [[.integer(1)]])
        #expect(try engine.execute(slow, on: store).rows == [[.integer(40_000)]])
    }

    @Test("a struck-out text is tried again on probation, and back on the quick path once it is quick")
    func probation() throws {
        let store = try Self.chain(50)
        let engine = QueryEngine()
        let text = "MATCH (a:User), (b:User) RETURN count(*)"
        try strikeOut(text, engine, store)
        // Declined untried (even with an hour's budget) until the probation call, which overruns
        // again: still out.
        for _ in 1..<QueryEngine.probation {
            #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(3600)) == nil)
        }
        #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .zero) == nil)
        for _ in 1..<QueryEngine.probation {
            #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(3600)) == nil)
        }
        // The next probation call is quick: tried on every call from then on.
        #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(3600))?.rows == [[.integer(2500)]])
        for _ in 0..<3 {
            #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(3600)) != nil)
        }
    }

    @Test("one overrun is forgiven by the quick runs after it")
    func strikesDecay() throws {
        let store = try Self.chain(50)
        let engine = QueryEngine()
        let text = "MATCH (a:User), (b:User) RETURN count(*)"
        #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .zero) == nil)
        #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .zero) == nil)
        // Two strikes; a quick run takes one back, so two more overruns are needed to strike out.
        #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(60)) != nil)
        #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .zero) == nil)
        #expect(try engine.executeIfQuick(text, on: store, timeout: nil, budget: .seconds(60)) != nil)
    }

    @Test("a procedure that may walk two hops from a hub is never tried; one bounded by a node's lists is")
    func procedures() throws {
        let store = try Self.chain(10)
        let engine = QueryEngine()
        #expect(try engine.executeIfQuick("CALL social.connections(3, {}) YIELD user RETURN user.id", on: store,
                                          timeout: nil, budget: .seconds(60)) == nil)
        let friends = try engine.executeIfQuick("CALL social.friends(3, {order: 'id'}) YIELD friend RETURN friend.id",
                                                on: store, timeout: nil, budget: .seconds(60))
        #expect(friends?.rows == [[.integer(2)], [.integer(4)]])
    }

    @Test("a syntax error is thrown as execute throws it")
    func errors() throws {
        let store = GraphStore.inMemory()
        let error = try #require(throws: QueryError.self) {
            try QueryEngine().executeIfQuick("MATCH (n RETURN n", on: store, timeout: nil, budget: .seconds(5))
        }
        #expect(error.kind == .syntax)
    }

    @Test("a graph whose write lock is taken is declined at once, not waited for")
    func busyGraph() throws {
        let store = try Self.chain(3)
        let engine = QueryEngine()
        let writing = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? store.write { _ in
                writing.signal()
                release.wait()
            }
            done.signal()
        }
        writing.wait()
        let declined = try engine.executeIfQuick("MATCH (n) RETURN count(n)", on: store, timeout: nil, budget: .seconds(5))
        release.signal()
        done.wait()
        #expect(declined == nil)
        #expect(try engine.executeIfQuick("MATCH (n) RETURN count(n)", on: store, timeout: nil, budget: .seconds(5))?.rows
                == [[.integer(3)]])
    }
}
