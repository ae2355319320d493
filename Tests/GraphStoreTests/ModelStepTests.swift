// ModelStepTests.swift — property-based: random creates, deletes, property sets, label changes and
// rollbacks under a unique constraint, applied to the graph and to GraphModel and compared after
// EVERY step (not only at commit). Refused writes must leave the graph exactly as it was, and the
// final graph, rebuilt by GraphBuilder from the model, must read the same.

import GraphTestSupport
import Testing
@testable import GraphStore

@Suite struct ModelStepTests {
    /// The model's answer to "would this value break the unique constraint on (A, k)?".
    private static func clashes(_ model: GraphModel, label: LabelID, unique: (LabelID, PropertyKeyID),
                                key: PropertyKeyID, value: Value, except node: NodeID?) -> Bool {
        guard label == unique.0, key == unique.1, value != .null else { return false }
        return model.nodes.contains { id, n in id != node && n.labels.contains(unique.0) && n.properties[unique.1].map { equal($0, value) } == true }
    }

    /// Cypher equality of the values this test writes: 2 equals 2.0.
    private static func equal(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)): return Double(x) == y
        default: return a == b
        }
    }

    @Test(arguments: [21, 22, 23] as [UInt64])
    func everyStepMatchesTheModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var graph = Graph()
        var model = GraphModel()
        let (a, b, r, s, k, m) = committed(&graph) { g in
            (g.internLabel("A"), g.internLabel("B"), g.internRelationshipType("R"), g.internRelationshipType("S"),
             g.internPropertyKey("k"), g.internPropertyKey("m"))
        }
        try committed(&graph) { g in try g.createIndex(label: a, key: k, unique: true) }
        let unique = (a, k)
        var refused = 0
        for _ in 0..<120 {
            let before = graph.dump()
            var next = model
            graph.beginTransaction()
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let live = next.nodes.keys.sorted(), rels = next.relationships.keys.sorted()
                let stepBefore = graph.dump()
                // Mostly small integers (the unique index's column); sometimes the same number
                // as a double (equal under the constraint), a string, or Int64.min (which the
                // column cannot hold and leaves to the general index).
                let v = Int64.random(in: 0..<6, using: &rng)
                let value: Value = switch Int.random(in: 0..<10, using: &rng) {
                case 0: .double(Double(v))
                case 1: .string("s\(v)")
                case 2: .integer(Int64.min)
                default: .integer(v)
                }
                switch Int.random(in: 0..<8, using: &rng) {
                case 0, 1:
                    let labels = Set([a, b].filter { _ in Bool.random(using: &rng) })
                    let key = Bool.random(using: &rng) ? k : m
                    if labels.contains(where: { Self.clashes(next, label: $0, unique: unique, key: key, value: value, except: nil) }) {
                        #expect(throws: GraphError.self) { try graph.createNode(labels: Array(labels), properties: [(key, value)]) }
                        #expect(graph.dump() == stepBefore)
                        refused += 1
                    } else {
                        let id = try graph.createNode(labels: Array(labels), properties: [(key, value)])
                        next.nodes[id] = (labels, [key: value])
                    }
                case 2, 3:
                    guard let from = live.randomElement(using: &rng), let to = live.randomElement(using: &rng) else { continue }
                    let type = Bool.random(using: &rng) ? r : s
                    let id = try graph.createRelationship(type: type, from: from, to: to, properties: []).id
                    next.relationships[id] = (type, from, to)
                case 4:
                    guard let rel = rels.randomElement(using: &rng) else { continue }
                    let (type, start, end) = next.relationships[rel]!
                    try graph.deleteRelationship(Relationship(id: rel, type: type, start: start, end: end))
                    next.relationships[rel] = nil
                case 5:
                    guard let n = live.randomElement(using: &rng) else { continue }
                    try graph.deleteNode(n, detach: true)
                    next.relationships = next.relationships.filter { $0.value.start != n && $0.value.end != n }
                    next.nodes[n] = nil
                case 6:
                    guard let n = live.randomElement(using: &rng) else { continue }
                    let key = Bool.random(using: &rng) ? k : m
                    let v: Value = Int.random(in: 0..<5, using: &rng) == 0 ? .null : value
                    if next.nodes[n]!.labels.contains(where: { Self.clashes(next, label: $0, unique: unique, key: key, value: v, except: n) }) {
                        #expect(throws: GraphError.self) { try graph.setProperty(key, to: v, of: n) }
                        #expect(graph.dump() == stepBefore)
                        refused += 1
                    } else {
                        try graph.setProperty(key, to: v, of: n)
                        next.nodes[n]!.properties[key] = v == .null ? nil : v
                    }
                default:
                    guard let n = live.randomElement(using: &rng) else { continue }
                    let label = Bool.random(using: &rng) ? a : b
                    if next.nodes[n]!.labels.contains(label) {
                        try graph.removeLabel(label, from: n)
                        next.nodes[n]!.labels.remove(label)
                    } else if next.nodes[n]!.properties.contains(where: {
                        Self.clashes(next, label: label, unique: unique, key: $0.key, value: $0.value, except: n) }) {
                        #expect(throws: GraphError.self) { try graph.addLabel(label, to: n) }
                        #expect(graph.dump() == stepBefore)
                        refused += 1
                    } else {
                        try graph.addLabel(label, to: n)
                        next.nodes[n]!.labels.insert(label)
                    }
                }
                next.check(graph)
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                graph.rollbackTransaction()
                #expect(graph.dump() == before)
            } else {
                _ = graph.commitTransaction()
                model = next
            }
            model.check(graph)
        }
        #expect(refused > 0, "the seed must exercise the unique constraint")

        // The model's graph built in bulk, with the same ids, reads the same (free-list order
        // aside: a builder cannot know the order in which ids were freed).
        var builder = GraphBuilder()
        for name in graph.labelNames { _ = builder.label(name) }
        for name in graph.relationshipTypeNames { _ = builder.relationshipType(name) }
        for name in graph.propertyKeyNames { _ = builder.propertyKey(name) }
        for (id, node) in model.nodes.sorted(by: { $0.key < $1.key }) {
            _ = builder.addNode(id: id, labels: Array(node.labels), properties: graph.properties(of: id))
        }
        for (id, rel) in model.relationships.sorted(by: { $0.key < $1.key }) {
            builder.addRelationship(id: id, type: rel.type, from: rel.start, to: rel.end)
        }
        builder.addIndex(label: a, key: k, unique: true)
        let built = try builder.build()
        func withoutFreeLists(_ text: String) -> String {
            text.split(separator: "\n").filter { !$0.hasPrefix("free ") }.joined(separator: "\n")
        }
        #expect(withoutFreeLists(built.dump()) == withoutFreeLists(graph.dump()))
        model.check(built)
    }
}
