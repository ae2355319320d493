// GraphSaveCommand.swift — GRAPH.SAVE graph: compacts one graph now (GraphStore.compact):
// writes a snapshot beside its log and starts a new log segment, so a restart loads the
// snapshot and replays only what came after. Readers and writers of the graph keep going.

import GraphStore

/// The GRAPH.SAVE handler.
enum GraphSaveCommand {
    /// `GRAPH.SAVE key` → `+OK` once the snapshot is durable; a missing graph is the
    /// empty-key error; a failed snapshot is an `ERR` naming the file (the log still holds
    /// every write).
    static let handler: CommandHandler = { invocation, context, reply in
        do throws(StoreError) {
            guard let store = try context.dataDirectory.graph(named: invocation.text(0)) else {
                reply.error(GraphCommands.emptyKeyMessage)
                return .keepOpen
            }
            try store.compact()
            reply.simpleString("OK")
        } catch {
            reply.error(GraphCommands.storeErrorMessage(error))
        }
        return .keepOpen
    }
}
