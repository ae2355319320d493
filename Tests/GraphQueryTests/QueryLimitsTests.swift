// QueryLimitsTests.swift — stopping queries: per-query and default time limits end runaway
// queries (huge UNWIND, unbounded variable-length expansion) with a timeout error, a stopped
// write leaves nothing behind, and the memory cap and result-row limit stop what they bound.

import Foundation
import Synchronization
import Testing
@testable import GraphQuery
import GraphStore

@Suite("Query limits")
struct QueryLimitsTests {
    /// A complete directed graph on `n` nodes: `[:E*]` from any node explodes combinatorially.
    func denseStore(_ n: Int) throws -> GraphStore {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("UNWIND range(1, \(n)) AS i CREATE (:V {i: i})", on: store)
        _ = try engine.execute("MATCH (a:V), (b:V) WHERE a <> b CREATE (a)-[:E]->(b)", on: store)
        return store
    }

    func expectTimeout(_ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected a timeout")
        } catch let error as QueryError {
            #expect(error.kind == .timeout, "\(error)")
            #expect(error.message.hasPrefix("Query timed out"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a huge UNWIND stops at its per-query deadline")
    func hugeUnwind() {
        let engine = QueryEngine()
        expectTimeout {
            _ = try engine.execute("UNWIND range(1, 2000000000) AS x RETURN count(x)", on: .inMemory(), timeout: .milliseconds(30))
        }
    }

    @Test("a query cancelled from another thread stops with 'Query cancelled', and a write rolls back")
    func cancelledFromAnotherThread() throws {
        let engine = QueryEngine()
        let store = GraphStore.inMemory()
        _ = try engine.execute("CREATE (:Keep)", on: store)
        for query in ["UNWIND range(1, 2000000000) AS x RETURN count(x)",
                      "UNWIND range(1, 2000000000) AS i CREATE (:N {i: i})"] {
            let cancellation = QueryCancellation()
            let outcome = Mutex<QueryError?>(nil)
            let finished = Atomic<Bool>(false)
            let runner = Thread {
                do {
                    _ = try engine.execute(query, on: store, timeout: .seconds(600), cancellation: cancellation)
                } catch let error as QueryError {
                    outcome.withLock { $0 = error }
                } catch {}
                finished.store(true, ordering: .releasing)
            }
            runner.start()
            cancellation.cancel()   // before or after the query started: it stops either way
            while !finished.load(ordering: .acquiring) { usleep(1000) }   // waits for the outcome, times nothing
            let error = outcome.withLock { $0 }
            #expect(error?.kind == .timeout && error?.message == "Query cancelled", "\(String(describing: error))")
        }
        #expect(try engine.execute("MATCH (n) RETURN count(n)", on: store).rows == [[.integer(1)]])
    }

    @Test("UNWIND range(…) counts through the range instead of building the list first")
    func lazyRangeUnwind() throws {
        // A built list of 10^15 integers would exceed any memory cap; counted, LIMIT 3 ends it.
        let engine = QueryEngine(configuration: QueryConfiguration(memoryLimit: 1 << 20))
        let store = GraphStore.inMemory()
        let first = try engine.execute("UNWIND range(1, 1000000000000000) AS x RETURN x LIMIT 3", on: store)
        #expect(first.rows == [[.integer(1)], [.integer(2)], [.integer(3)]])
        #expect(try engine.execute("UNWIND range(10, 1, -3) AS x RETURN x", on: store).rows
                == [[.integer(10)], [.integer(7)], [.integer(4)], [.integer(1)]])
        #expect(try engine.execute("UNWIND range(null, 3) AS x RETURN x", on: store).rows.isEmpty)
        #expect(try engine.execute("UNWIND range(5, 1) AS x RETURN x", on: store).rows.isEmpty)
        #expect(throws: QueryError.self) { try engine.execute("UNWIND range(1, 10, 0) AS x RETURN x", on: store) }
        #expect(throws: QueryError.self) { try engine.execute("UNWIND range(1, 'a') AS x RETURN x", on: store) }
        // As a value, range() is still the list, and still charged against the memory cap.
        #expect(throws: QueryError.self) { try engine.execute("RETURN size(range(1, 1000000000000000))", on: store) }
    }

    @Test("an unbounded variable-length expansion on a dense graph stops at the engine default")
    func unboundedExpansion() throws {
        let store = try denseStore(12)
        let engine = QueryEngine(configuration: QueryConfiguration(defaultTimeout: .milliseconds(30)))
        expectTimeout { _ = try engine.execute("MATCH (a:V {i: 1})-[:E*]->(b) RETURN count(*)", on: store) }
    }

    @Test("the maximum timeout caps what a query asks for")
    func maximumCaps() throws {
        let engine = QueryEngine(configuration: QueryConfiguration(maximumTimeout: .milliseconds(20)))
        expectTimeout {
            _ = try engine.execute("UNWIND range(1, 2000000000) AS x RETURN count(x)", on: .inMemory(), timeout: .seconds(3600))
        }
        #expect(QueryConfiguration(defaultTimeout: .seconds(5), maximumTimeout: .seconds(1)).effectiveTimeout(nil) == .seconds(1))
        #expect(QueryConfiguration(defaultTimeout: .seconds(5)).effectiveTimeout(.seconds(2)) == .seconds(2))
    }

    @Test("a write stopped by its deadline leaves nothing behind")
    func stoppedWriteRollsBack() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("CREATE (:Keep)", on: store)
        expectTimeout {
            _ = try engine.execute("UNWIND range(1, 50000000) AS i CREATE (:N {i: i})", on: store, timeout: .milliseconds(40))
        }
        let result = try engine.execute("MATCH (n) RETURN count(n)", on: store)
        #expect(result.rows == [[.integer(1)]])
    }

    @Test("the configuration can be changed while the engine runs")
    func configurationAtRunTime() throws {
        let engine = QueryEngine()
        let store = GraphStore.inMemory()
        #expect(try engine.execute("UNWIND range(1, 10) AS x RETURN x", on: store).rows.count == 10)
        engine.configuration.resultRowLimit = 5
        #expect(throws: QueryError.self) { try engine.execute("UNWIND range(1, 10) AS x RETURN x", on: store) }
        #expect(try engine.execute("UNWIND range(1, 5) AS x RETURN x", on: store).rows.count == 5)
        engine.configuration.defaultTimeout = .milliseconds(20)
        expectTimeout { _ = try engine.execute("UNWIND range(1, 2000000000) AS x RETURN count(x)", on: store) }
    }

    @Test("the memory cap stops a query that buffers too much")
    func memoryCap() throws {
        let engine = QueryEngine(configuration: QueryConfiguration(memoryLimit: 1 << 20))
        let store = GraphStore.inMemory()
        for query in ["UNWIND range(1, 1000000) AS i RETURN collect(i)",
                      "UNWIND range(1, 100000) AS i RETURN i ORDER BY i",
                      // An aggregation's groups are charged: a million distinct keys exceed the cap.
                      "UNWIND range(1, 1000000) AS i RETURN i AS k, count(*)",
                      "RETURN size(range(1, 10000000))"] {
            do {
                _ = try engine.execute(query, on: store)
                Issue.record("\(query): expected the memory cap to stop it")
            } catch {
                #expect(error.message.hasPrefix("Query's memory consumption exceeded capacity"), "\(query)")
            }
        }
        // Small queries still run under the cap.
        #expect(try engine.execute("UNWIND range(1, 100) AS i RETURN collect(i)", on: store).rows.count == 1)
    }

    /// An aggregation folds its rows into their groups as they arrive: a million-row count
    /// needs one group, not a million rows, so it runs under a cap those rows would exceed
    /// (and which still stops the same rows kept by collect or ORDER BY, or a million groups, above).
    @Test("an aggregation keeps its groups, not its input rows, under the memory cap")
    func aggregationStreams() throws {
        let engine = QueryEngine(configuration: QueryConfiguration(memoryLimit: 1 << 20))
        let store = GraphStore.inMemory()
        let total = try engine.execute("UNWIND range(1, 1000000) AS i RETURN count(*) AS n, sum(i) AS s, max(i) AS m", on: store)
        #expect(total.rows == [[.integer(1_000_000), .integer(500_000_500_000), .integer(1_000_000)]])
        let grouped = try engine.execute("UNWIND range(1, 300000) AS i WITH i % 3 AS k, count(*) AS n RETURN k, n ORDER BY k", on: store)
        #expect(grouped.rows == [[.integer(0), .integer(100_000)], [.integer(1), .integer(100_000)], [.integer(2), .integer(100_000)]])
        // Grouping items read from each group's first row; nothing at all still makes one group.
        let first = try engine.execute("UNWIND [3, 1, 3, 2] AS i WITH i, i * 10 AS t, count(*) AS n RETURN i, t, n ORDER BY i", on: store)
        #expect(first.rows == [[.integer(1), .integer(10), .integer(1)], [.integer(2), .integer(20), .integer(1)],
                               [.integer(3), .integer(30), .integer(2)]])
        #expect(try engine.execute("UNWIND [] AS i RETURN count(*)", on: store).rows == [[.integer(0)]])
        #expect(try engine.execute("UNWIND range(1, 10) AS i WITH i LIMIT 0 RETURN count(*)", on: store).rows == [[.integer(0)]])
    }

    /// Rows after `WITH collect(x) AS xs UNWIND xs AS x` all carry the one list `xs`: a group or
    /// a sorted row kept is charged for the list once, not for a copy of it each (2,000 rows of
    /// a 2,000-element list would be charged 96 MB). Rows holding lists of their own still are.
    @Test("rows sharing one collected list are charged for it once under the memory cap")
    func sharedListChargedOnce() throws {
        let engine = QueryEngine(configuration: QueryConfiguration(memoryLimit: 1 << 20))
        let store = GraphStore.inMemory()
        let grouped = try engine.execute("""
            UNWIND range(1, 2000) AS i WITH collect(i) AS xs UNWIND xs AS x
            WITH x, size(xs) AS n, count(*) AS c RETURN count(*) AS groups, sum(n) AS total, sum(c) AS rows
            """, on: store)
        #expect(grouped.rows == [[.integer(2000), .integer(4_000_000), .integer(2000)]])
        let sorted = try engine.execute("""
            UNWIND range(1, 2000) AS i WITH collect(i) AS xs UNWIND xs AS x
            WITH x, xs ORDER BY x DESC WITH x, size(xs) AS n LIMIT 2 RETURN x, n
            """, on: store)
        #expect(sorted.rows == [[.integer(2000), .integer(2000)], [.integer(1999), .integer(2000)]])
        // A list built per row (a literal; range() is charged where it is made) is its own.
        let own = "[" + Array(repeating: "i", count: 40).joined(separator: ", ") + "]"
        do {
            _ = try engine.execute("UNWIND range(1, 2000) AS i WITH i, \(own) AS l WITH i, size(l) AS n, count(*) AS c RETURN count(*)", on: store)
            Issue.record("rows with lists of their own: expected the memory cap to stop it")
        } catch {
            #expect(error.message.hasPrefix("Query's memory consumption exceeded capacity"))
        }
    }

    @Test("a variable-length walk deeper than the stack allows stops with an error, not a crash")
    func deepChain() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("CREATE INDEX FOR (c:C) ON (c.i)", on: store)
        _ = try engine.execute("UNWIND range(1, 1100) AS i CREATE (:C {i: i})", on: store)
        _ = try engine.execute("MATCH (a:C) MATCH (b:C {i: a.i + 1}) CREATE (a)-[:N]->(b)", on: store)
        #expect(try engine.execute("MATCH (:C {i: 1})-[:N*..900]->(b) RETURN count(b)", on: store).rows == [[.integer(900)]])
        do {
            _ = try engine.execute("MATCH (:C {i: 1})-[:N*]->(b) RETURN count(b)", on: store)
            Issue.record("expected the depth limit")
        } catch {
            #expect(error.message.hasPrefix("Variable-length pattern went deeper than 1000 hops"))
        }
    }

    @Test("arithmetic at the Int64 limits is an error, not a wrap or a trap")
    func int64Limits() {
        for query in ["RETURN range(-9223372036854775808, 9223372036854775807)", "WITH -9223372036854775808 AS m RETURN -m",
                      "RETURN abs(-9223372036854775808)"] {
            #expect(throws: QueryError.self, "\(query)") { try QueryEngine().execute(query, on: .inMemory()) }
        }
    }
}
