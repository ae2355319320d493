// NodeAdjacencyTests.swift — one node's single adjacency buffer against a simple model: random
// inserts and removals over several types and both directions (parallel entries included),
// checking every list and the layout.

import GraphTestSupport
import Testing
@testable import GraphStore

@Suite struct NodeAdjacencyTests {
    struct Key: Hashable, Comparable {
        var incoming: Bool
        var type: UInt32
        static func < (a: Key, b: Key) -> Bool { (a.incoming ? 1 : 0, a.type) < (b.incoming ? 1 : 0, b.type) }
        var direction: Direction { incoming ? .incoming : .outgoing }
    }

    /// Checks every list, the segment count, descriptor order and that the buffer holds nothing
    /// else: outgoing lists hold (neighbour, relationship) in order, incoming lists neighbours only.
    static func check(_ adjacency: NodeAdjacency, against model: [Key: [Adjacency]]) {
        let live = model.filter { !$0.value.isEmpty }
        #expect(adjacency.segmentCount == live.count)
        #expect(adjacency.isEmpty == live.isEmpty)
        let words = live.isEmpty ? 0 : 1 + 2 * live.count + live.reduce(0) { $0 + ($1.key.incoming ? 1 : 2) * $1.value.count }
        #expect(adjacency.storage.count == words)
        func contents(_ list: AdjacencyList) -> [Adjacency] {
            list.indices.map { Adjacency(neighbor: list[$0], relationship: list.hasRelationshipIDs ? list.relationship(at: $0) : RelationshipID(rawValue: 0)) }
        }
        func expected(_ key: Key) -> [Adjacency] {
            (model[key] ?? []).map { key.incoming ? Adjacency(neighbor: $0.neighbor, relationship: RelationshipID(rawValue: 0)) : $0 }
        }
        for type in UInt32(0)..<4 {
            for incoming in [false, true] {
                let key = Key(incoming: incoming, type: type)
                let list = adjacency.list(RelationshipTypeID(rawValue: type), key.direction)
                #expect(list.hasRelationshipIDs == !incoming || list.isEmpty)
                #expect(contents(list) == expected(key), "type \(type) incoming \(incoming)")
            }
        }
        var seen: [Key] = []
        adjacency.forEachSegment { type, direction, list in
            let key = Key(incoming: direction == .incoming, type: type.rawValue)
            seen.append(key)
            #expect(contents(list) == expected(key))
        }
        #expect(seen == live.keys.sorted())
        #expect(adjacency.types(.outgoing).map(\.rawValue) == live.keys.filter { !$0.incoming }.map(\.type).sorted())
        #expect(adjacency.types(.incoming).map(\.rawValue) == live.keys.filter { $0.incoming }.map(\.type).sorted())
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func randomInsertsAndRemovalsMatchTheModel(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var adjacency = NodeAdjacency()
        var model: [Key: [Adjacency]] = [:]
        func ordered(_ a: Adjacency, _ b: Adjacency) -> Bool { (a.neighbor, a.relationship) < (b.neighbor, b.relationship) }
        for step in 0..<3000 {
            let key = Key(incoming: rng.next() % 2 == 0, type: UInt32(rng.next() % 4))
            let type = RelationshipTypeID(rawValue: key.type)
            // Removals grow likelier over time, so segments and the whole buffer empty out too.
            if rng.next() % 100 < 40 + UInt64(step / 100) {
                if let list = model[key], !list.isEmpty {
                    // An existing entry (with parallel neighbours now and then: any of them may go).
                    let entry = list[Int(rng.next() % UInt64(list.count))]
                    adjacency.remove(entry, type: type, direction: key.direction)
                    model[key]!.removeAll { $0 == entry }
                } else if !key.incoming {
                    // A missing outgoing entry: nothing changes.
                    adjacency.remove(Adjacency(neighbor: NodeID(rawValue: 7), relationship: RelationshipID(rawValue: 999)), type: type, direction: key.direction)
                }
            } else {
                let entry = Adjacency(neighbor: NodeID(rawValue: UInt32(rng.next() % 50)), relationship: RelationshipID(rawValue: UInt32(rng.next() % 100)))
                if model[key]?.contains(entry) != true {
                    adjacency.insert(entry, type: type, direction: key.direction)
                    model[key, default: []].append(entry)
                    model[key]!.sort(by: ordered)
                }
            }
            if step % 50 == 0 { Self.check(adjacency, against: model) }
        }
        Self.check(adjacency, against: model)
    }

    /// The branch-free search every membership test and insert position relies on, against a
    /// linear scan: every length up to 70 (odd and even halvings), runs of repeats, values
    /// below, between, equal to and above the entries, and sub-ranges of a larger array.
    @Test func theSearchFindsTheFirstEntryNotBelowTheValue() {
        var random = SeededGenerator(seed: 7)
        var checked = 0
        for length in 0...70 {
            let entries = ContiguousArray((0..<length).map { _ in UInt32(1 + 2 * random.next(40)) }.sorted())
            let padded = ContiguousArray([0, 0, 0] + entries + [.max, .max])
            for value in UInt32(0)...82 {
                let expected = entries.firstIndex { $0 >= value } ?? length
                #expect(entries.lowerBound(of: value, in: 0..<length) == expected, "length \(length), value \(value)")
                #expect(padded.lowerBound(of: value, in: 3..<(3 + length)) == 3 + expected)
                checked += 1
            }
        }
        #expect(checked == 71 * 83)
    }

    @Test func anEmptiedNodeHoldsNoBuffer() {
        var adjacency = NodeAdjacency()
        let a = Adjacency(neighbor: NodeID(rawValue: 3), relationship: RelationshipID(rawValue: 9))
        adjacency.insert(a, type: RelationshipTypeID(rawValue: 2), direction: .incoming)
        adjacency.insert(a, type: RelationshipTypeID(rawValue: 0), direction: .outgoing)
        #expect(adjacency.storage.count == 8)   // [2] [out 0, 1] [in 2, 1] [3, 9] [3]
        adjacency.remove(a, type: RelationshipTypeID(rawValue: 2), direction: .incoming)
        adjacency.remove(a, type: RelationshipTypeID(rawValue: 0), direction: .outgoing)
        #expect(adjacency.storage.capacity == 0)
    }
}
