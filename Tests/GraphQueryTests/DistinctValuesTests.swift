// DistinctValuesTests.swift — what DISTINCT has seen: IntegerKeySet against a Set of the same
// keys, DistinctValues and DistinctRows against a Set of RuntimeValue (whose hashing follows
// openCypher's equivalence), and DISTINCT in queries over the kinds each table holds.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Distinct values")
struct DistinctValuesTests {
    /// A fixed LCG: the same keys on every run.
    struct Keys {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state
        }
    }

    @Test("IntegerKeySet says new exactly when a Set says inserted, through growth and at the edges")
    func integerKeySetAgreesWithASet() {
        var keys = Keys(state: 7)
        var set = IntegerKeySet()
        var model = Set<UInt64>()
        // Dense runs (ids), scattered keys, repeats and the key that marks an empty slot.
        var inputs: [UInt64] = Array(0..<300) + Array(0..<300).map { $0 * 1024 } + [.max, .max, 0, .max - 1, 1 << 63]
        for _ in 0..<3000 { inputs.append(keys.next() >> (keys.next() % 64)) }
        inputs += inputs.prefix(500)
        for key in inputs {
            let new = set.insert(key)
            #expect(new == model.insert(key).inserted, "key \(key)")
        }
        #expect(set.count == model.count)
        for key in model {
            let new = set.insert(key)
            #expect(!new, "key \(key)")
        }
    }

    @Test("DistinctValues follows openCypher's equivalence: 1 ≡ 1.0, NaN ≡ NaN, a node is not its id")
    func distinctValuesFollowEquivalence() {
        var keys = Keys(state: 11)
        var values: [RuntimeValue] = [
            .integer(1), .double(1.0), .double(1.5), .double(.nan), .double(.nan), .double(-0.0), .integer(0),
            .node(NodeID(rawValue: 1)), .node(NodeID(rawValue: 1)), .integer(-1), .double(-1), .null, .null,
            .string("1"), .string("1"), .bool(true), .bool(true), .integer(.max), .integer(.min), .integer(-1),
            .double(9.3e18), .double(.infinity), .list([.integer(1)]), .list([.double(1)]),
        ]
        for _ in 0..<2000 {
            let k = keys.next()
            switch k % 5 {
            case 0: values.append(.integer(Int64(k >> 54)))
            case 1: values.append(.double(Double(k >> 56)))
            case 2: values.append(.double(Double(k >> 56) + 0.5))
            case 3: values.append(.node(NodeID(rawValue: UInt32(k >> 56))))
            default: values.append(.string(String(k >> 58)))
            }
        }
        var distinct = DistinctValues(), rows = DistinctRows(), wide = DistinctRows()
        var model = Set<RuntimeValue>()
        for value in values {
            let inserted = model.insert(value).inserted
            let asValue = distinct.insert(value), asRow = rows.insert([value]), inWideRow = wide.insert([value, .integer(0)])
            #expect(asValue == inserted, "\(value)")
            #expect(asRow == inserted, "[\(value)]")
            #expect(inWideRow == inserted, "[\(value), 0]")
        }
    }

    @Test("RETURN DISTINCT and count(DISTINCT) over ids, whole floats, nodes and strings")
    func distinctInQueries() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("UNWIND range(0, 99) AS i CREATE (:N {id: i, k: i % 7, f: toFloat(i % 5), s: toString(i % 3)})", on: store)
        func rows(_ text: String) throws -> [[ResultValue]] { try engine.execute(text, on: store).rows }
        #expect(try rows("MATCH (n:N) RETURN DISTINCT n.k ORDER BY n.k") == (0..<7).map { [.integer(Int64($0))] })
        #expect(try rows("UNWIND [1, 1.0, 2, 2.5, 2.5, null, null] AS x RETURN DISTINCT x").count == 4)
        #expect(try rows("MATCH (n:N) RETURN count(DISTINCT n.k) AS k, count(DISTINCT n.f) AS f, count(DISTINCT n.s) AS s, count(DISTINCT n) AS n")
                == [[.integer(7), .integer(5), .integer(3), .integer(100)]])
        #expect(try rows("UNWIND [1, 1.0, 2] AS x RETURN count(DISTINCT x) AS c") == [[.integer(2)]])
        #expect(try rows("MATCH (n:N) WHERE n.id < 40 UNWIND [n.k, toFloat(n.k)] AS x RETURN count(DISTINCT x) AS c") == [[.integer(7)]])
        #expect(try rows("MATCH (n:N), (m:N) WHERE n.k = m.k AND n.id < 20 RETURN DISTINCT n").count == 20)
    }
}
