// NodeAdjacencyTests.swift — one node's single adjacency buffer against a simple model: random
// inserts and removals over several types and both directions, checking every list and the layout.

import Testing
@testable import GraphStore

@Suite struct NodeAdjacencyTests {
    struct Key: Hashable, Comparable {
        var incoming: Bool
        var type: UInt32
        static func < (a: Key, b: Key) -> Bool { (a.incoming ? 1 : 0, a.type) < (b.incoming ? 1 : 0, b.type) }
        var direction: Direction { incoming ? .incoming : .outgoing }
    }

    /// Checks every list, the segment count, descriptor order and that the buffer holds nothing else.
    static func check(_ adjacency: NodeAdjacency, against model: [Key: [UInt64]]) {
        let live = model.filter { !$0.value.isEmpty }
        #expect(adjacency.segmentCount == live.count)
        #expect(adjacency.isEmpty == live.isEmpty)
        let words = live.isEmpty ? 0 : 1 + live.count + live.values.reduce(0) { $0 + $1.count }
        #expect(adjacency.storage.count == words)
        for type in UInt32(0)..<4 {
            for incoming in [false, true] {
                let key = Key(incoming: incoming, type: type)
                let list = adjacency.list(RelationshipTypeID(rawValue: type), key.direction)
                #expect(Array(list.entries) == (model[key] ?? []), "type \(type) incoming \(incoming)")
            }
        }
        var seen: [Key] = []
        adjacency.forEachSegment { type, direction, list in
            let key = Key(incoming: direction == .incoming, type: type.rawValue)
            seen.append(key)
            #expect(Array(list.entries) == model[key])
        }
        #expect(seen == live.keys.sorted())
        #expect(adjacency.types(.outgoing).map(\.rawValue) == live.keys.filter { !$0.incoming }.map(\.type).sorted())
        #expect(adjacency.types(.incoming).map(\.rawValue) == live.keys.filter { $0.incoming }.map(\.type).sorted())
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func randomInsertsAndRemovalsMatchTheModel(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var adjacency = NodeAdjacency()
        var model: [Key: [UInt64]] = [:]
        for step in 0..<3000 {
            let key = Key(incoming: rng.next() % 2 == 0, type: UInt32(rng.next() % 4))
            let entry = Adjacency(neighbor: NodeID(rawValue: UInt32(rng.next() % 50)), relationship: RelationshipID(rawValue: UInt32(rng.next() % 100)))
            // Removals grow likelier over time, so segments and the whole buffer empty out too.
            if rng.next() % 100 < 40 + UInt64(step / 100) {
                adjacency.remove(entry, type: RelationshipTypeID(rawValue: key.type), direction: key.direction)
                model[key]?.removeAll { $0 == entry.packed }
            } else if model[key]?.contains(entry.packed) != true {
                adjacency.insert(entry, type: RelationshipTypeID(rawValue: key.type), direction: key.direction)
                model[key, default: []].append(entry.packed)
                model[key]!.sort()
            }
            if step % 50 == 0 { Self.check(adjacency, against: model) }
        }
        Self.check(adjacency, against: model)
    }

    @Test func anEmptiedNodeHoldsNoBuffer() {
        var adjacency = NodeAdjacency()
        let a = Adjacency(neighbor: NodeID(rawValue: 3), relationship: RelationshipID(rawValue: 9))
        adjacency.insert(a, type: RelationshipTypeID(rawValue: 2), direction: .incoming)
        adjacency.insert(a, type: RelationshipTypeID(rawValue: 0), direction: .outgoing)
        #expect(adjacency.storage.count == 5)
        adjacency.remove(a, type: RelationshipTypeID(rawValue: 2), direction: .incoming)
        adjacency.remove(a, type: RelationshipTypeID(rawValue: 0), direction: .outgoing)
        #expect(adjacency.storage.capacity == 0)
    }
}
