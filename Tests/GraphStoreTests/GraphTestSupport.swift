// GraphTestSupport.swift — helpers shared by the GraphStore tests: a full textual dump of a
// graph (to compare states exactly) and a tiny seeded random generator.

@testable import GraphStore

extension Graph {
    /// Everything observable through the public API, in a canonical text form. Two graphs
    /// with equal dumps are indistinguishable to a reader.
    func dump() -> String {
        var lines: [String] = []
        lines.append("labels \(labelNames)")
        lines.append("types \(relationshipTypeNames)")
        lines.append("keys \(propertyKeyNames)")
        lines.append("counts \(nodeCount) \(relationshipCount)")
        for node in nodeIDs() {
            let props = properties(of: node).map { "\($0.key.rawValue)=\($0.value)" }
            lines.append("n\(node.rawValue) \(labels(of: node).map(\.rawValue)) \(props)")
            for type in relationshipTypeNames.indices.map(RelationshipTypeID.init) {
                for direction in [Direction.outgoing, .incoming] {
                    let adj = steps(of: node, type: type, direction: direction)
                    if !adj.isEmpty {
                        lines.append("  \(type.rawValue)\(direction) \(adj.map { "\($0.neighbor.rawValue)/\($0.relationship.rawValue)" })")
                    }
                }
            }
        }
        for label in labelNames.indices.map(LabelID.init) {
            lines.append("label \(label.rawValue) \(nodeIDs(withLabel: label).map(\.rawValue))")
        }
        for rel in allRelationships() {
            let props = properties(of: rel.id).map { "\($0.key.rawValue)=\($0.value)" }
            lines.append("r\(rel.id.rawValue) \(rel.type.rawValue) \(rel.start.rawValue)->\(rel.end.rawValue) \(props)")
        }
        lines.append("live rels \(relationshipIDs().map(\.rawValue))")
        for index in propertyIndexes {
            lines.append("index \(index.descriptor) \(index.entries.map { "\($0.key)=\($0.value.nodes.map(\.rawValue))" }.sorted())")
        }
        for index in fullTextIndexes {
            let terms = index.terms.allTerms().map { "\(NameFolding.string($0.term))=\($0.ids)" }
            let words = index.wordTries.map { $0.allTerms().map { "\(NameFolding.string($0.term))=\($0.ids)" } }
            lines.append("fulltext \(index.descriptor) terms \(terms) words \(words)")
        }
        lines.append("free nodes \(nodeIDAllocator.free) cap \(nodeIDAllocator.capacity) slots \(nodes.count)")
        lines.append("free rels \(relationshipIDAllocator.free) cap \(relationshipIDAllocator.capacity) ")
        return lines.joined(separator: "\n")
    }
}


/// Runs `body` in a transaction and commits it; for tests that build fixtures.
func committed<R>(_ graph: inout Graph, _ body: (inout Graph) throws -> R) rethrows -> R {
    graph.beginTransaction()
    do {
        let r = try body(&graph)
        _ = graph.commitTransaction()
        return r
    } catch {
        graph.rollbackTransaction()
        throw error
    }
}
