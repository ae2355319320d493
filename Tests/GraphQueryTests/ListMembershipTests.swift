// ListMembershipTests.swift — `x IN list` through the index of a long list asked again: the
// answers the scan gives (true, false, null) for integers, nodes and nulls, the lists it must
// leave to the scan, and queries testing one collected list row after row.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("List membership")
struct ListMembershipTests {
    /// `value IN list` by scanning, as the evaluator does without the index.
    func scan(_ value: RuntimeValue, _ list: [RuntimeValue]) -> RuntimeValue {
        var sawNull = false
        for element in list {
            switch RuntimeValue.equals(value, element) {
            case .some(true): return .bool(true)
            case .none: sawNull = true
            case .some(false): break
            }
        }
        return sawNull ? .null : .bool(false)
    }

    @Test("the second ask of one long list is answered from its index, as the scan answers")
    func answersAsTheScanDoes() {
        let nodes = (0..<40).map { RuntimeValue.node(NodeID(rawValue: UInt32($0 * 3))) }
        let integers = (0..<60).map { RuntimeValue.integer(Int64($0 * 7 - 100)) }
        let withNulls = integers + [.null] + nodes
        let probes: [RuntimeValue] = [.integer(-100), .integer(313), .integer(0), .integer(1), .integer(.max), .integer(.min),
                                      .node(NodeID(rawValue: 0)), .node(NodeID(rawValue: 117)), .node(NodeID(rawValue: 1)),
                                      .integer(3)]  // 3 is node 1's id, not node 1
        for list in [nodes, integers, withNulls] {
            var membership = ListMembership()
            #expect(membership.contains(probes[0], in: list) == nil, "the first ask is scanned")
            for probe in probes {
                #expect(membership.contains(probe, in: list) == scan(probe, list), "\(probe) IN a list of \(list.count)")
            }
        }
    }

    @Test("what only the scan answers exactly is left to it")
    func leavesTheRestToTheScan() {
        let integers = (0..<50).map { RuntimeValue.integer(Int64($0)) }
        var membership = ListMembership()
        // A float in the list compares with integers through rounding: never indexed.
        let withFloat = integers + [.double(2.5)]
        _ = membership.contains(.integer(1), in: withFloat)
        #expect(membership.contains(.integer(1), in: withFloat) == nil)
        // Asked values of other kinds, and null, go to the scan even for an indexed list.
        _ = membership.contains(.integer(1), in: integers)
        #expect(membership.contains(.integer(1), in: integers) == .bool(true))
        for value: RuntimeValue in [.double(1), .double(1.5), .string("1"), .null, .list([.integer(1)])] {
            #expect(membership.contains(value, in: integers) == nil, "\(value)")
        }
        // Short lists are scanned.
        let short = Array(integers.prefix(ListMembership.minimumCount - 1))
        _ = membership.contains(.integer(1), in: short)
        #expect(membership.contains(.integer(1), in: short) == nil)
        // A list with equal contents in another buffer is a new list: asked once before it is indexed.
        let copy = integers.map { $0 }
        _ = membership.contains(.integer(1), in: integers)
        #expect(membership.contains(.integer(1), in: copy) == nil)
        #expect(membership.contains(.integer(99), in: copy) == .bool(false))
    }

    @Test("IN over a collected list, row after row, gives the scan's answers with nulls and nodes")
    func inQueries() throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        _ = try engine.execute("UNWIND range(0, 99) AS i CREATE (:P {i: i})", on: store)
        let held = try engine.execute("""
            UNWIND range(1, 100) AS i WITH collect(CASE WHEN i % 10 = 0 THEN null ELSE i END) + [null] AS xs
            UNWIND range(95, 105) AS y RETURN y, y IN xs, NOT y IN xs ORDER BY y
            """, on: store)
        // collect() leaves the nulls out; the one null appended makes a miss null, not false.
        let xs: [RuntimeValue] = (1...100).filter { $0 % 10 != 0 }.map { .integer(Int64($0)) } + [.null]
        #expect(held.rows == (95...105).map { y -> [ResultValue] in
            switch scan(.integer(Int64(y)), xs) {
            case .bool(let held): return [.integer(Int64(y)), .bool(held), .bool(!held)]
            default: return [.integer(Int64(y)), .null, .null]
            }
        })
        // Nodes: the even ones collected; every node asked; count those in and those out.
        let nodes = try engine.execute("""
            MATCH (p:P) WHERE p.i % 2 = 0 WITH collect(p) AS evens
            MATCH (q:P) RETURN q IN evens AS held, count(*) AS n ORDER BY held
            """, on: store)
        #expect(nodes.rows == [[.bool(false), .integer(50)], [.bool(true), .integer(50)]])
    }
}
