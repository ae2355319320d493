// GraphCopyCommand.swift — GRAPH.COPY source destination: the destination becomes a copy of
// the source with the same ids, schema ids and indexes, written as ONE transaction (one log
// record), so a crash leaves a complete copy or at worst an empty one. The source is read under its
// read lock, so the copy is one consistent state even while writers continue.

import GraphStore

/// The GRAPH.COPY handler.
enum GraphCopyCommand {
    /// `GRAPH.COPY src dst` → bulk `OK` (FalkorDB replies with a bulk string, not `+OK`).
    static let handler: CommandHandler = { invocation, context, reply in
        let sourceName = invocation.text(0), destinationName = invocation.text(1)
        do throws(StoreError) {
            guard let source = try context.dataDirectory.graph(named: sourceName) else {
                reply.error(GraphCommands.emptyKeyMessage)
                return .keepOpen
            }
            guard try context.dataDirectory.graph(named: destinationName) == nil else {
                reply.error("ERR graph '\(destinationName)' already exists; delete it first or copy to a new name")
                return .keepOpen
            }
            let mutations = source.read { graph in recreation(of: graph) }
            let destination = try context.dataDirectory.createGraph(named: destinationName)
            do {
                try destination.write { graph in
                    for mutation in mutations { try graph.apply(mutation) }
                }
            } catch {
                // Nothing was committed: remove the empty destination again.
                _ = try? context.dataDirectory.deleteGraph(named: destinationName)
                reply.error("ERR GRAPH.COPY \(sourceName) \(destinationName) failed: \(error)")
                return .keepOpen
            }
            invocation.session.lastWrite = WritePosition.after(writing: destination)
            reply.bulkString("OK")
        } catch {
            reply.error(GraphCommands.storeErrorMessage(error))
        }
        return .keepOpen
    }

    /// The mutations that rebuild `graph` from empty with identical ids: schema names in id
    /// order, indexes, nodes, then relationships (ids left unused become free ids).
    static func recreation(of graph: Graph) -> [Mutation] {
        var mutations: [Mutation] = []
        for (i, name) in graph.labelNames.enumerated() {
            mutations.append(.defineLabel(LabelID(rawValue: UInt32(i)), name))
        }
        for (i, name) in graph.relationshipTypeNames.enumerated() {
            mutations.append(.defineRelationshipType(RelationshipTypeID(rawValue: UInt32(i)), name))
        }
        for (i, name) in graph.propertyKeyNames.enumerated() {
            mutations.append(.definePropertyKey(PropertyKeyID(rawValue: UInt32(i)), name))
        }
        for index in graph.indexes { mutations.append(.createIndex(index)) }
        for node in graph.nodeIDs() {
            mutations.append(.createNode(node, labels: graph.labels(of: node),
                                         properties: graph.properties(of: node).map { PropertyEntry(key: $0.key, value: $0.value) }))
        }
        for r in graph.allRelationships() {
            mutations.append(.createRelationship(r.id, type: r.type, from: r.start, to: r.end,
                                                 properties: graph.properties(of: r.id).map { PropertyEntry(key: $0.key, value: $0.value) }))
        }
        // Full-text indexes last: each is built in one pass over what now exists.
        for index in graph.fullTextIndexDescriptors { mutations.append(.createFullTextIndex(index)) }
        return mutations
    }
}
