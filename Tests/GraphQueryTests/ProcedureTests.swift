// ProcedureTests.swift — the CALL framework as another module uses it: a registered read-only
// procedure with typed arguments, a writing procedure that writes through the query's
// transaction (and is rolled back with it), and a registered scalar function used in WHERE.

import Testing
@testable import GraphQuery
import GraphStore

/// `test.repeat(value, times) YIELD item, index`: a read-only procedure with arguments.
struct RepeatProcedure: Procedure {
    var signature: ProcedureSignature {
        .init(name: "test.repeat", arguments: [.init("value", .any), .init("times", .integer)],
              outputs: [.init("item", .any), .init("index", .integer)])
    }
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        guard case .integer(let n) = arguments[1] else { return [] }
        var rows = ProcedureRows(width: 2, capacity: Int(max(0, n)))
        for i in 0..<max(0, n) { rows.append(arguments[0], .integer(i)) }
        return rows
    }
}

/// `test.createUser(id) YIELD node`: writes through the transaction and counts what it did.
struct CreateUserProcedure: Procedure {
    var signature: ProcedureSignature {
        .init(name: "test.createUser", arguments: [.init("id", .integer)], outputs: [.init("node", .node)], isReadOnly: false)
    }
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        try context.checkDeadline()
        let label = graph.internLabel("User"), key = graph.internPropertyKey("id")
        guard let value = arguments[0].storable else { return [] }
        do {
            let node = try graph.createNode(labels: [label], properties: [(key, value)])
            context.statistics.nodesCreated += 1
            return [[.node(node)]]
        } catch {
            throw QueryError(.constraint, error.message)
        }
    }
}

/// `test.counted(n) YIELD item`: n rows, but a count of n + 1000 when asked for one, so a
/// test sees which of the two a query used.
struct CountedProcedure: Procedure {
    var signature: ProcedureSignature {
        .init(name: "test.counted", arguments: [.init("n", .integer)], outputs: [.init("item", .integer)])
    }
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        guard case .integer(let n) = arguments[0] else { return [] }
        return ProcedureRows((0..<max(0, n)).map { [.integer($0)] })
    }
    func count(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> Int? {
        guard case .integer(let n) = arguments[0] else { return nil }
        if n < 0 { throw QueryError(.runtime, "test.counted: n must not be negative") }
        return Int(n) + 1000
    }
}

/// `test.isEven(n)`: a registered scalar function.
struct IsEvenFunction: RegisteredFunction {
    var name: String { "test.isEven" }
    var minArguments: Int { 1 }
    var maxArguments: Int { 1 }
    func call(_ arguments: [RuntimeValue], graph: Graph) throws(QueryError) -> RuntimeValue {
        guard case .integer(let i) = arguments[0] else { return .null }
        return .bool(i % 2 == 0)
    }
}

@Suite("Procedures")
struct ProcedureTests {
    let engine: QueryEngine = {
        var registry = ProcedureRegistry.standard
        registry.register(RepeatProcedure())
        registry.register(CreateUserProcedure())
        registry.register(CountedProcedure())
        registry.register(function: IsEvenFunction())
        return QueryEngine(procedures: registry)
    }()

    @Test("a read-only procedure yields rows, with arguments type-checked")
    func readOnly() throws {
        let store = GraphStore.inMemory()
        let result = try engine.execute("CALL test.repeat('x', 3) YIELD item, index WHERE index > 0 RETURN item, index", on: store)
        #expect(result.rows == [[.string("x"), .integer(1)], [.string("x"), .integer(2)]])
        let perRow = try engine.execute("UNWIND [1, 2] AS n CALL test.repeat(n, n) YIELD index RETURN n, count(index)", on: store)
        #expect(perRow.rows == [[.integer(1), .integer(1)], [.integer(2), .integer(2)]])
        #expect(throws: QueryError.self) { try engine.execute("CALL test.repeat('x', 'three')", on: store) }
        #expect(try engine.execute("CALL test.repeat(1, 2)", on: store, readOnly: true).rows.count == 2)
    }

    @Test("a writing procedure writes through the query's transaction")
    func writing() throws {
        let store = GraphStore.inMemory()
        let result = try engine.execute("UNWIND [1, 2] AS i CALL test.createUser(i) YIELD node RETURN node.id", on: store)
        #expect(result.rows == [[.integer(1)], [.integer(2)]])
        #expect(result.statistics.nodesCreated == 2)
        #expect(throws: QueryError.self) { try engine.execute("CALL test.createUser(3)", on: store, readOnly: true) }
        // A failure after the procedure rolls its writes back with the rest of the query.
        #expect(throws: QueryError.self) {
            try engine.execute("CALL test.createUser(4) YIELD node RETURN node.id / 0", on: store)
        }
        #expect(try engine.execute("MATCH (u:User) RETURN count(u)", on: store).rows == [[.integer(2)]])
    }

    @Test("a query that only counts a call's rows asks the procedure for the number")
    func countedRows() throws {
        let store = GraphStore.inMemory()
        func value(_ text: String) throws -> [[ResultValue]] { try engine.execute(text, on: store).rows }
        // test.counted answers 1003 when counted and makes 3 rows when called.
        #expect(try value("CALL test.counted(3) YIELD item RETURN count(item)") == [[.integer(1003)]])
        #expect(try value("CALL test.counted(3) YIELD item RETURN count(*) AS n, count(item) AS m") == [[.integer(1003), .integer(1003)]])
        #expect(try value("UNWIND [1, 2] AS n CALL test.counted(n) YIELD item RETURN count(item)") == [[.integer(2003)]])
        #expect(try value("CALL test.counted(3) YIELD item WITH count(item) AS n RETURN n + 1") == [[.integer(1004)]])
        // Anything but plain counts of the call's rows, with no grouping, makes the rows.
        #expect(try value("CALL test.counted(3) YIELD item RETURN count(DISTINCT item)") == [[.integer(3)]])
        #expect(try value("CALL test.counted(3) YIELD item WHERE item > 0 RETURN count(item)") == [[.integer(2)]])
        #expect(try value("CALL test.counted(3) YIELD item RETURN count(item), sum(item)") == [[.integer(3), .integer(3)]])
        #expect(try value("CALL test.counted(3) YIELD item RETURN count(item) + 1") == [[.integer(4)]])
        #expect(try value("CALL test.counted(3) YIELD item RETURN count(item * 2)") == [[.integer(3)]])
        #expect(try value("UNWIND [2] AS n CALL test.counted(n) YIELD item RETURN n, count(item)") == [[.integer(2), .integer(2)]])
        #expect(try value("UNWIND [null] AS x CALL test.counted(3) YIELD item RETURN count(x)") == [[.integer(0)]])
        #expect(try value("CALL test.counted(3) YIELD item WITH item RETURN count(item)") == [[.integer(3)]])
        // PROFILE reports each step's rows: the call makes them.
        let profiled = try engine.profile("CALL test.counted(3) YIELD item RETURN count(item)", on: store)
        #expect(profiled.contains { $0.contains("ProcedureCall") && $0.contains("Records produced: 3,") }, "\(profiled)")
        // The count's errors are the query's.
        #expect(throws: QueryError.self) { try engine.execute("CALL test.counted(-1) YIELD item RETURN count(item)", on: store) }
        // A procedure that cannot count is called and its rows counted.
        #expect(try value("CALL test.repeat('x', 4) YIELD item RETURN count(item)") == [[.integer(4)]])
    }

    @Test("a registered function works in WHERE and RETURN, with its arity checked")
    func function() throws {
        let store = GraphStore.inMemory()
        let result = try engine.execute("UNWIND range(1, 6) AS i WITH i WHERE test.isEven(i) RETURN collect(i), test.ISEVEN(3)", on: store)
        #expect(result.rows == [[.list([.integer(2), .integer(4), .integer(6)]), .bool(false)]])
        do {
            _ = try engine.execute("RETURN test.isEven(1, 2)", on: store)
            Issue.record("expected an arity error")
        } catch {
            #expect(error.message == "Received 2 arguments to function 'test.isEven', expected at most 1")
        }
        #expect(throws: QueryError.self) { try QueryEngine().execute("RETURN test.isEven(2)", on: store) }
    }

    @Test("procedure rows are stored flat; a literal's short rows read as null in their missing columns")
    func procedureRows() {
        let literal: ProcedureRows = [[.integer(1), .string("a")], [.integer(2)], []]
        #expect(literal.width == 2 && literal.count == 3)
        #expect(literal[0, 1] == .string("a") && literal[1, 1] == .null && literal[2, 0] == .null)
        var built = ProcedureRows(width: 3)
        built.append(.integer(7), .bool(true), .null)
        built.append(row: [.integer(8)])
        #expect(built.count == 2 && built.values == [.integer(7), .bool(true), .null, .integer(8), .null, .null])
        var none = ProcedureRows(width: 0)
        none.append(row: [])
        #expect(none.count == 1 && none.values.isEmpty)
        let empty: ProcedureRows = []
        #expect(empty.count == 0 && empty.width == 0)
    }

    @Test("a procedure's rows reach YIELD, WHERE and RETURN in order, thousands of them")
    func manyProcedureRows() throws {
        let store = GraphStore.inMemory()
        let result = try engine.execute("CALL test.repeat('x', 5000) YIELD item, index WHERE index % 1000 = 999 RETURN index, item", on: store)
        #expect(result.rows == [999, 1999, 2999, 3999, 4999].map { [.integer($0), .string("x")] })
    }
}
