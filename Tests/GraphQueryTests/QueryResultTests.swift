// QueryResultTests.swift — the result's flat row storage (rows of any width, read in place or
// as arrays), and the executor streaming the plan's last rows straight into it: a result-row
// limit stops the run at the first row too many, and a projection's reused row buffer never
// changes a row that something downstream kept.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Query results")
struct QueryResultTests {
    @Test("rows are stored flat and read back in place or as arrays, whatever their widths")
    func flatRows() {
        var result = QueryResult(columns: ["a", "b"], rows: [[.integer(1), .string("x")], [.null, .bool(true)]])
        #expect(result.rowCount == 2)
        #expect(Array(result.row(1)) == [.null, .bool(true)])
        result.appendRow([.double(2.5)])              // a decoded remote reply may be ragged
        result.appendRow([])
        #expect(result.rowCount == 4)
        #expect(result.rows == [[.integer(1), .string("x")], [.null, .bool(true)], [.double(2.5)], []])
        #expect(Array(result.row(2)) == [.double(2.5)])
        #expect(result.row(3).isEmpty)
        result.rows = [[.integer(7)]]
        #expect(result.rowCount == 1 && result.cells == [.integer(7)])
    }

    @Test("a result-row limit stops the run at the first row over it, before later rows are computed")
    func rowLimitStopsEarly() throws {
        let engine = QueryEngine()
        engine.configuration.resultRowLimit = 2
        let store = GraphStore.inMemory()
        // The fourth row divides by zero: running to the end would report that instead.
        do {
            _ = try engine.execute("UNWIND [1, 2, 3, 0] AS x RETURN 10 / x", on: store)
            Issue.record("expected the result-row limit")
        } catch {
            #expect(error.message == "Query result has more than 2 rows, the result-row limit")
        }
        #expect(try engine.execute("UNWIND [1, 2] AS x RETURN 10 / x", on: store).rows == [[.integer(10)], [.integer(5)]])
        // Rows a breaker returns (ORDER BY) count against the limit too.
        #expect(throws: QueryError.self) { try engine.execute("UNWIND [3, 1, 2] AS x RETURN x ORDER BY x", on: store) }
    }

    @Test("rows a projection passed on keep their values while its buffer is reused")
    func reusedProjectionBuffers() throws {
        let engine = QueryEngine()
        let store = GraphStore.inMemory()
        // The WITH streams into ORDER BY, which keeps every row it is given.
        #expect(try engine.execute("UNWIND [3, 1, 2] AS x WITH x, x * 10 AS y RETURN x, y ORDER BY x", on: store).rows
                == [[.integer(1), .integer(10)], [.integer(2), .integer(20)], [.integer(3), .integer(30)]])
        // DISTINCT keeps the rows it has seen; aggregation keeps its groups' keys.
        #expect(try engine.execute("UNWIND [1, 1, 2, 3, 3, 2] AS x WITH DISTINCT x RETURN x", on: store).rows
                == [[.integer(1)], [.integer(2)], [.integer(3)]])
        #expect(try engine.execute("UNWIND [1, 2, 1, 3] AS x WITH x, x + 1 AS y RETURN y, count(*) ORDER BY y", on: store).rows
                == [[.integer(2), .integer(2)], [.integer(3), .integer(1)], [.integer(4), .integer(1)]])
        // Two streamed projections in a row, each with its own buffer, under UNION.
        #expect(try engine.execute("UNWIND [1, 2] AS x WITH x AS a WITH a, a * a AS b RETURN a, b UNION ALL RETURN 0 AS a, 0 AS b", on: store).rows
                == [[.integer(1), .integer(1)], [.integer(2), .integer(4)], [.integer(0), .integer(0)]])
    }

    @Test("nodes in a streamed result carry their labels and properties")
    func streamedEntities() throws {
        let engine = QueryEngine()
        let store = GraphStore.inMemory()
        _ = try engine.execute("CREATE (:User {id: 1, name: 'Ann'}), (:User {id: 2, name: 'Bo'})", on: store)
        let result = try engine.execute("MATCH (u:User) RETURN u, u.name ORDER BY u.id", on: store)
        #expect(result.rowCount == 2)
        guard case .node(let ann) = result.row(0).first else { Issue.record("expected a node"); return }
        #expect(ann.labels.map(\.name) == ["User"])
        #expect(ann.properties.map(\.value) == [.integer(1), .string("Ann")])
        #expect(result.row(1).last == .string("Bo"))
    }
}
