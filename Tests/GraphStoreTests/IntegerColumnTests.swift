// IntegerColumnTests.swift — the unique index's integer column against a dictionary model:
// random inserts, moves and removals (with duplicate keys, which the column must tolerate),
// a churn that must not grow the table, and the graph reading app ids through the column.

import GraphTestSupport
import Testing
@testable import GraphStore

@Suite struct IntegerColumnTests {
    /// Every node's value and every key's nodes agree with the model.
    private static func check(_ column: IntegerColumn, _ model: [UInt32: Int64], keys: ClosedRange<Int64>) {
        for n in 0..<70 as Range<UInt32> {
            #expect(column.value(of: NodeID(rawValue: n)) == model[n])
        }
        for key in keys {
            var found: [UInt32] = []
            column.forEachNode(holding: key) { found.append($0.rawValue) }
            let holders = model.filter { $0.value == key }.keys.sorted()
            #expect(found.sorted() == holders)
            // A unique index never has two holders; with one or none, the run's arithmetic
            // and the table must agree.
            if holders.count <= 1 { #expect(column.uniqueNode(holding: key)?.rawValue == holders.first) }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomWritesMatchAModel(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var column = IntegerColumn()
        var model: [UInt32: Int64] = [:]
        for step in 0..<2_000 {
            let node = UInt32.random(in: 0..<64, using: &rng)
            // Few keys, so several nodes share one and probe runs collide.
            let key = Int64.random(in: -8...8, using: &rng)
            if Int.random(in: 0..<3, using: &rng) == 0 {
                column.remove(NodeID(rawValue: node))
                model[node] = nil
            } else {
                column.insert(NodeID(rawValue: node), key)
                model[node] = key
            }
            if step % 50 == 0 { Self.check(column, model, keys: -9...9) }
        }
        Self.check(column, model, keys: -9...9)
    }

    /// Values numbered in slot order (a bulk import) form the affine run that reads answer
    /// by arithmetic; writes that agree with it, contradict it, or remove from it must leave
    /// every read equal to the model's.
    @Test(arguments: [4, 5, 6] as [UInt64])
    func writesAroundTheAffineRunMatchAModel(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var column = IntegerColumn()
        var model: [UInt32: Int64] = [:]
        for n in 0..<48 as Range<UInt32> {
            column.insert(NodeID(rawValue: n), Int64(n) + 100)
            model[n] = Int64(n) + 100
        }
        Self.check(column, model, keys: 90...170)
        for step in 0..<1_500 {
            let node = UInt32.random(in: 0..<64, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                column.remove(NodeID(rawValue: node))
                model[node] = nil
            case 1:
                // The value the run would give: extends it at its end, rewrites it inside.
                column.insert(NodeID(rawValue: node), Int64(node) + 100)
                model[node] = Int64(node) + 100
            default:
                let key = Int64.random(in: 95...170, using: &rng)
                column.insert(NodeID(rawValue: node), key)
                model[node] = key
            }
            if step % 25 == 0 { Self.check(column, model, keys: 90...175) }
        }
        Self.check(column, model, keys: 90...175)
    }

    @Test func aRunReadsWithoutTheColumnAndIsCutByAContradictingWrite() {
        var column = IntegerColumn()
        for n in 0..<1_000 as Range<UInt32> { column.insert(NodeID(rawValue: n), Int64(n) + 7) }
        #expect(column.value(of: NodeID(rawValue: 999)) == 1_006)
        #expect(column.value(of: NodeID(rawValue: 1_000)) == nil)
        column.insert(NodeID(rawValue: 500), -3)
        #expect(column.value(of: NodeID(rawValue: 500)) == -3)
        #expect(column.value(of: NodeID(rawValue: 499)) == 506)
        #expect(column.value(of: NodeID(rawValue: 501)) == 508)
        column.remove(NodeID(rawValue: 10))
        #expect(column.value(of: NodeID(rawValue: 10)) == nil)
        #expect(column.value(of: NodeID(rawValue: 11)) == 18)
        var found: [NodeID] = []
        column.forEachNode(holding: 507) { found.append($0) }
        #expect(found.isEmpty)
        column.forEachNode(holding: -3) { found.append($0) }
        #expect(found == [NodeID(rawValue: 500)])
        // By arithmetic inside the run, through the table outside it, nothing where a cut was.
        #expect(column.uniqueNode(holding: 12) == NodeID(rawValue: 5))     // slots 0..<10 are the run now
        #expect(column.uniqueNode(holding: 506) == NodeID(rawValue: 499))
        #expect(column.uniqueNode(holding: 508) == NodeID(rawValue: 501))
        #expect(column.uniqueNode(holding: -3) == NodeID(rawValue: 500))
        #expect(column.uniqueNode(holding: 507) == nil)
        #expect(column.uniqueNode(holding: 17) == nil)
        #expect(column.uniqueNode(holding: .max) == nil)
        #expect(column.uniqueNode(holding: .min) == nil)
    }

    @Test func int64MinIsLeftToThePropertyRead() {
        var column = IntegerColumn()
        column.insert(NodeID(rawValue: 3), .min)
        #expect(column.value(of: NodeID(rawValue: 3)) == nil)
        var found = 0
        column.forEachNode(holding: .min) { _ in found += 1 }
        #expect(found == 0)
    }

    @Test func churnDoesNotGrowTheTable() {
        var column = IntegerColumn()
        for n in 0..<1_000 as Range<UInt32> { column.insert(NodeID(rawValue: n), Int64(n)) }
        let settled = column.slotCount
        // Each round deletes a node and gives it a key never seen before: tombstones pile up
        // unless the table cleans them.
        for round in 0..<50_000 {
            let node = NodeID(rawValue: UInt32(round % 1_000))
            column.remove(node)
            column.insert(node, Int64(1_000 + round))
        }
        #expect(column.slotCount <= settled)
        var found: [NodeID] = []
        column.forEachNode(holding: 1_000 + 49_999) { found.append($0) }
        #expect(found == [NodeID(rawValue: 49_999 % 1_000)])
    }

    @Test func aUniqueIndexAnswersFromItsColumn() throws {
        var graph = Graph()
        graph.beginTransaction()
        let user = graph.internLabel("User"), id = graph.internPropertyKey("id")
        try graph.createIndex(label: user, key: id, unique: true)
        let ann = try graph.createNode(labels: [user], properties: [(id, .integer(42))])
        let bo = try graph.createNode(labels: [user], properties: [(id, .double(7))])
        _ = graph.commitTransaction()
        let index = try #require(graph.propertyIndexes.first)
        #expect(index.integer(of: ann) == 42)
        #expect(index.integer(of: bo) == nil)                  // a double stays a double
        #expect(graph.property(id, of: bo) == .double(7))
        #expect(graph.firstNodeID(withLabel: user, key: id, equalTo: .double(42)) == ann)
        #expect(graph.firstNodeID(withLabel: user, key: id, equalTo: .integer(7)) == bo)
        // 42.0 clashes with 42 under the constraint, whichever store holds each.
        graph.beginTransaction()
        #expect(throws: GraphError.self) { try graph.createNode(labels: [user], properties: [(id, .double(42))]) }
        #expect(throws: GraphError.self) { try graph.createNode(labels: [user], properties: [(id, .integer(7))]) }
        graph.rollbackTransaction()
        // Losing the label takes the node out of the column; the property stays readable.
        graph.beginTransaction()
        try graph.removeLabel(user, from: ann)
        _ = graph.commitTransaction()
        #expect(graph.propertyIndexes[0].integer(of: ann) == nil)
        #expect(graph.property(id, of: ann) == .integer(42))
        #expect(graph.firstNodeID(withLabel: user, key: id, equalTo: .integer(42)) == nil)
    }

    /// `integerValues` reads the column where it can and the property everywhere else: nodes
    /// of another indexed label, unindexed nodes, non-integers, missing values, dead nodes.
    @Test func integerValuesAgreeWithPropertyReads() throws {
        var graph = Graph()
        graph.beginTransaction()
        let user = graph.internLabel("User"), event = graph.internLabel("Event"), id = graph.internPropertyKey("id")
        try graph.createIndex(label: user, key: id, unique: true)
        try graph.createIndex(label: event, key: id, unique: true)
        var nodes: [NodeID] = []
        nodes.append(try graph.createNode(labels: [user], properties: [(id, .integer(42))]))
        nodes.append(try graph.createNode(labels: [event], properties: [(id, .integer(42))]))
        nodes.append(try graph.createNode(labels: [], properties: [(id, .integer(-5))]))
        nodes.append(try graph.createNode(labels: [user], properties: [(id, .string("x"))]))
        nodes.append(try graph.createNode(labels: [user], properties: []))
        nodes.append(try graph.createNode(labels: [user], properties: [(id, .integer(.min))]))
        let gone = try graph.createNode(labels: [user], properties: [(id, .integer(9))])
        try graph.deleteNode(gone, detach: false)
        let other = graph.internPropertyKey("other")
        _ = graph.commitTransaction()
        let raw = (nodes + [gone, NodeID(rawValue: 1_000)]).map(\.rawValue)
        let expected: [Int64?] = raw.map { if case .integer(let v) = graph.property(id, of: NodeID(rawValue: $0)) { v } else { nil } }
        #expect(graph.integerValues(id, of: raw) == expected)
        #expect(expected == [42, 42, -5, nil, nil, .min, nil, nil])
        #expect(graph.integerValues(other, of: raw) == Array(repeating: nil, count: raw.count))
    }

    /// `friendIntegerValues` is `integerValues` of `friendIDs` in one pass: friends stored in
    /// either direction and twice, of either indexed label, unindexed, without an integer.
    @Test func friendIntegerValuesAreTheFriendsValuesInFriendOrder() throws {
        var graph = Graph()
        graph.beginTransaction()
        let user = graph.internLabel("User"), event = graph.internLabel("Event"), id = graph.internPropertyKey("id")
        let friend = graph.internRelationshipType("FRIEND")
        try graph.createIndex(label: user, key: id, unique: true)
        try graph.createIndex(label: event, key: id, unique: true)
        let hub = try graph.createNode(labels: [user], properties: [(id, .integer(0))])
        let values: [(LabelID?, Value?)] = [(user, .integer(7)), (event, .integer(8)), (nil, .integer(-3)),
                                            (user, .string("x")), (user, nil), (user, .integer(11))]
        for (k, (label, value)) in values.enumerated() {
            let node = try graph.createNode(labels: label.map { [$0] } ?? [], properties: value.map { [(id, $0)] } ?? [])
            let (from, to) = k.isMultiple(of: 2) ? (hub, node) : (node, hub)
            _ = try graph.createRelationship(type: friend, from: from, to: to, properties: [])
            if k == 1 { _ = try graph.createRelationship(type: friend, from: hub, to: node, properties: []) }
        }
        _ = graph.commitTransaction()
        let schema = graph.socialSchema()
        let read = graph.friendIntegerValues(id, of: hub, schema: schema)
        #expect(read == graph.integerValues(id, of: graph.friendIDs(of: hub, schema: schema)))
        #expect(read == [7, 8, -3, nil, nil, 11])
        #expect(graph.friendIntegerValues(id, of: NodeID(rawValue: 1_000), schema: schema).isEmpty)
    }
}
