// GraphBuilder+FullText.swift — full-text indexes in a bulk build (snapshot load, import,
// GRAPH.COPY): definitions are collected and the dictionaries built once at the end, after
// every node and relationship is in place.

extension GraphBuilder {
    /// Adds a full-text index definition, built by `build()`.
    public mutating func addFullTextIndex(_ descriptor: FullTextIndexDescriptor) {
        fullTextDescriptors.append(descriptor)
    }

    /// Full-text indexes added so far, in order.
    public var fullTextIndexes: [FullTextIndexDescriptor] { fullTextDescriptors }

    /// A definition read from a snapshot must name labels, types and keys this builder has,
    /// and not repeat one.
    func checkFullText(_ d: FullTextIndexDescriptor) throws(SnapshotLoadError) {
        let known = d.entity == .node ? Int(d.schemaID) < labelTable.count : Int(d.schemaID) < typeTable.count
        guard known, !d.keys.isEmpty, d.keys.allSatisfy({ $0.index < keyTable.count }) else {
            throw SnapshotLoadError(message: "a full-text index on an unknown label, type or key id")
        }
        guard !fullTextDescriptors.contains(where: { $0.entity == d.entity && $0.schemaID == d.schemaID }) else {
            throw SnapshotLoadError(message: "a second full-text index on one label or type")
        }
    }

    static func addFullTextIndexes(_ descriptors: [FullTextIndexDescriptor], to graph: inout Graph) throws(GraphError) {
        for descriptor in descriptors {
            if graph.fullTextPosition(descriptor.entity, descriptor.schemaID) != nil {
                throw GraphError(.indexExists, "a second full-text index on \(graph.fullTextSubject(descriptor))")
            }
            graph.fullTextIndexes.append(graph.buildFullTextIndex(descriptor))
        }
    }
}
