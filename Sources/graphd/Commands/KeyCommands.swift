// KeyCommands.swift — the generic Redis key commands over graphd's keyspace, in which
// every key is a graph: DEL (drops graphs, as FalkorDB's DEL does), EXISTS and TYPE
// (`graphdata`, FalkorDB's type name), for tools and scripts that manage keys generically.

import GraphStore

/// Handlers for DEL, EXISTS and TYPE.
enum KeyCommands {
    /// `DEL key [key …]` → the number of graphs deleted.
    static let del: CommandHandler = { invocation, context, reply in
        var deleted: Int64 = 0
        for i in invocation.arguments.indices {
            do throws(StoreError) {
                if let position = try GraphCommands.deleteGraph(named: invocation.text(i), context: context) {
                    invocation.session.lastWrite = position
                    deleted += 1
                }
            } catch {
                reply.error(GraphCommands.storeErrorMessage(error))
                return .keepOpen
            }
        }
        reply.integer(deleted)
        return .keepOpen
    }

    /// `EXISTS key [key …]` → how many of the keys name a graph (a repeated key counts
    /// each time, as in Redis). A name that cannot be a graph simply does not exist.
    static let exists: CommandHandler = { invocation, context, reply in
        let names = Set(context.dataDirectory.graphNames())
        reply.integer(Int64(invocation.arguments.indices.filter { names.contains(invocation.text($0)) }.count))
        return .keepOpen
    }

    /// `TYPE key` → `+graphdata` for a graph, `+none` otherwise.
    static let type: CommandHandler = { invocation, context, reply in
        reply.simpleString(context.dataDirectory.graphNames().contains(invocation.text(0)) ? "graphdata" : "none")
        return .keepOpen
    }
}
