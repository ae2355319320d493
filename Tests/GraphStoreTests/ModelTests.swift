// ModelTests.swift — random sequences of writes and rollbacks, checked against a plain model.
// The model is dictionaries keyed by id; after every transaction the graph must agree with it.

import GraphTestSupport
import Testing
@testable import GraphStore

/// The obvious, slow representation of a graph.
struct GraphModel: Equatable {
    var nodes: [NodeID: (labels: Set<LabelID>, properties: [PropertyKeyID: Value])] = [:]
    var relationships: [RelationshipID: (type: RelationshipTypeID, start: NodeID, end: NodeID)] = [:]

    static func == (a: GraphModel, b: GraphModel) -> Bool {
        a.nodes.keys == b.nodes.keys && a.relationships.keys == b.relationships.keys
            && a.nodes.allSatisfy { id, n in b.nodes[id]!.labels == n.labels && b.nodes[id]!.properties == n.properties }
            && a.relationships.allSatisfy { id, r in
                let s = b.relationships[id]!
                return s.type == r.type && s.start == r.start && s.end == r.end
            }
    }

    /// Checks every public read of `graph` against the model.
    func check(_ graph: Graph) {
        #expect(graph.nodeCount == nodes.count)
        #expect(graph.relationshipCount == relationships.count)
        #expect(graph.nodeIDs() == nodes.keys.sorted())
        #expect(graph.relationshipIDs() == relationships.keys.sorted())
        // Every relationship with its type and ends, read off the lists, as the model has it.
        #expect(graph.allRelationships().map { [$0.id.index, $0.type.index, $0.start.index, $0.end.index] }
                == relationships.sorted { $0.key < $1.key }.map { [$0.key.index, $0.value.type.index, $0.value.start.index, $0.value.end.index] })
        for (id, node) in nodes {
            #expect(graph.labels(of: id) == node.labels.sorted())
            #expect(Dictionary(uniqueKeysWithValues: graph.properties(of: id).map { ($0.key, $0.value) }) == node.properties)
            // One key at a time too: an integer under a unique index is read from its column.
            for key in graph.propertyKeyNames.indices.map(PropertyKeyID.init) {
                #expect(graph.property(key, of: id) == node.properties[key] ?? .null)
            }
        }
        for label in graph.labelNames.indices.map(LabelID.init) {
            #expect(graph.nodeIDs(withLabel: label) == nodes.filter { $0.value.labels.contains(label) }.keys.sorted())
            for key in graph.propertyKeyNames.indices.map(PropertyKeyID.init) {
                for v in 0..<3 {
                    // Cypher equality: a stored 2.0 is found by 2 and 2 by 2.0.
                    let expected = nodes.filter { $0.value.labels.contains(label)
                        && [.integer(Int64(v)), .double(Double(v))].contains($0.value.properties[key]) }
                    #expect(graph.nodeIDs(withLabel: label, key: key, equalTo: .double(Double(v))) == expected.keys.sorted())
                    #expect(graph.firstNodeID(withLabel: label, key: key, equalTo: .integer(Int64(v))) == expected.keys.min())
                }
            }
        }
        for type in graph.relationshipTypeNames.indices.map(RelationshipTypeID.init) {
            for node in nodes.keys {
                let out = relationships.filter { $0.value.type == type && $0.value.start == node }
                    .map { Adjacency(neighbor: $0.value.end, relationship: $0.key) }
                    .sorted { ($0.neighbor, $0.relationship) < ($1.neighbor, $1.relationship) }
                let incoming = relationships.filter { $0.value.type == type && $0.value.end == node }
                    .map { Adjacency(neighbor: $0.value.start, relationship: $0.key) }
                    .sorted { ($0.neighbor, $0.relationship) < ($1.neighbor, $1.relationship) }
                #expect(graph.steps(of: node, type: type, direction: .outgoing) == out)
                #expect(graph.steps(of: node, type: type, direction: .incoming) == incoming)
            }
        }
    }
}

@Suite struct ModelTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomWritesAndRollbacksMatchTheModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var graph = Graph()
        var model = GraphModel()
        var log: [[UInt8]] = []
        let labelNames = ["A", "B", "C"], typeNames = ["R", "S"], keyNames = ["k", "m"]
        for _ in 0..<60 {
            let rollback = Int.random(in: 0..<4, using: &rng) == 0
            let dumpBefore = graph.dump()
            var next = model
            graph.beginTransaction()
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let live = next.nodes.keys.sorted(), rels = next.relationships.keys.sorted()
                switch Int.random(in: 0..<9, using: &rng) {
                case 0, 1:
                    let labels = Set(labelNames.filter { _ in Bool.random(using: &rng) }.map { graph.internLabel($0) })
                    let key = graph.internPropertyKey(keyNames.randomElement(using: &rng)!)
                    let value = Value.integer(Int64.random(in: 0..<3, using: &rng))
                    let id = try graph.createNode(labels: Array(labels), properties: [(key, value)])
                    #expect(next.nodes[id] == nil)
                    next.nodes[id] = (labels, [key: value])
                case 2, 3:
                    guard let a = live.randomElement(using: &rng), let b = live.randomElement(using: &rng) else { continue }
                    let type = graph.internRelationshipType(typeNames.randomElement(using: &rng)!)
                    let id = try graph.createRelationship(type: type, from: a, to: b, properties: []).id
                    next.relationships[id] = (type, a, b)
                case 4:
                    guard let r = rels.randomElement(using: &rng) else { continue }
                    let (type, start, end) = next.relationships[r]!
                    try graph.deleteRelationship(Relationship(id: r, type: type, start: start, end: end))
                    next.relationships[r] = nil
                case 5:
                    guard let n = live.randomElement(using: &rng) else { continue }
                    let attached = next.relationships.filter { $0.value.start == n || $0.value.end == n }
                    let detach = Bool.random(using: &rng)
                    if !detach && !attached.isEmpty {
                        #expect(throws: GraphError.self) { try graph.deleteNode(n, detach: false) }
                        continue
                    }
                    try graph.deleteNode(n, detach: detach)
                    for r in attached.keys { next.relationships[r] = nil }
                    next.nodes[n] = nil
                case 6:
                    guard let n = live.randomElement(using: &rng) else { continue }
                    let key = graph.internPropertyKey(keyNames.randomElement(using: &rng)!)
                    let value: Value = Bool.random(using: &rng) ? .null : .integer(Int64.random(in: 0..<3, using: &rng))
                    try graph.setProperty(key, to: value, of: n)
                    next.nodes[n]!.properties[key] = value == .null ? nil : value
                case 7:
                    guard let n = live.randomElement(using: &rng) else { continue }
                    let label = graph.internLabel(labelNames.randomElement(using: &rng)!)
                    if Bool.random(using: &rng) {
                        try graph.addLabel(label, to: n); next.nodes[n]!.labels.insert(label)
                    } else {
                        try graph.removeLabel(label, from: n); next.nodes[n]!.labels.remove(label)
                    }
                default:
                    let label = graph.internLabel(labelNames.randomElement(using: &rng)!)
                    let key = graph.internPropertyKey(keyNames.randomElement(using: &rng)!)
                    if graph.hasIndex(label: label, key: key) {
                        try graph.dropIndex(label: label, key: key)
                    } else {
                        try graph.createIndex(label: label, key: key, unique: false)
                    }
                }
            }
            if rollback {
                graph.rollbackTransaction()
                #expect(graph.dump() == dumpBefore)
            } else {
                let mutations = graph.commitTransaction()
                if !mutations.isEmpty { log.append(MutationCodec.encode(sequence: UInt64(log.count + 1), mutations)) }
                model = next
            }
            model.check(graph)
        }
        // Replaying the encoded redo records rebuilds the same graph, ids and free lists included.
        var replayed = Graph()
        for record in log {
            replayed.beginTransaction()
            for mutation in try MutationCodec.decode(record[...]).mutations { try replayed.apply(mutation) }
            _ = replayed.commitTransaction()
        }
        #expect(replayed.dump() == graph.dump())
        // A log written before deletes carried their ends (kind 10: the id alone) replays to the
        // same graph: each such delete finds its relationship by a scan.
        var legacy = Graph(), legacyDeletes = 0
        for record in log {
            legacy.beginTransaction()
            for mutation in try MutationCodec.decode(record[...]).mutations {
                if case .deleteRelationship(let r) = mutation {
                    legacyDeletes += 1
                    let old = MutationCodec.encode(sequence: 1, [.deleteRelationshipByID(r.id)])
                    for decoded in try MutationCodec.decode(old[...]).mutations { try legacy.apply(decoded) }
                } else {
                    try legacy.apply(mutation)
                }
            }
            _ = legacy.commitTransaction()
        }
        #expect(legacyDeletes > 0)
        #expect(legacy.dump() == graph.dump())
        // Neither form deletes what is not there: a freed id, or a live one under the wrong ends.
        legacy.beginTransaction()
        let free = RelationshipID(legacy.relationshipIDAllocator.capacity)
        #expect(throws: GraphError.self) { try legacy.apply(.deleteRelationshipByID(free)) }
        if let some = legacy.allRelationships().first {
            var moved = some; moved.end = NodeID(rawValue: some.end.rawValue + 1)
            #expect(throws: GraphError.self) { try legacy.apply(.deleteRelationship(moved)) }
        }
        legacy.rollbackTransaction()
    }
}
