// GraphCommands.swift — the GRAPH.* commands of this slice: QUERY, RO_QUERY, LIST,
// DELETE. Each looks up the graph, fails early with FalkorDB's wording, hands the text to
// the query engine and writes the verbose result set (ResultSetReply).

import GraphQuery
import GraphStore

/// Handlers for GRAPH.QUERY, GRAPH.RO_QUERY, GRAPH.LIST and GRAPH.DELETE.
enum GraphCommands {
    /// FalkorDB's reply for an operation on a graph that does not exist.
    static let emptyKeyMessage = "ERR Invalid graph operation on empty key"

    /// `GRAPH.QUERY key query`: a missing graph is created first, as FalkorDB does.
    static let query: CommandHandler = { invocation, context, reply in
        runQuery(invocation, context: context, readOnly: false, commandName: "graph.QUERY", reply: &reply)
        return .keepOpen
    }

    /// `GRAPH.RO_QUERY key query`: a missing graph is an error; a write is refused by the
    /// engine before anything happens.
    static let readOnlyQuery: CommandHandler = { invocation, context, reply in
        runQuery(invocation, context: context, readOnly: true, commandName: "graph.RO_QUERY", reply: &reply)
        return .keepOpen
    }

    /// `GRAPH.LIST` → an array of graph names (`*0` when none).
    static let list: CommandHandler = { _, context, reply in
        let names = context.dataDirectory.graphNames()
        reply.arrayHeader(names.count)
        for name in names { reply.bulkString(name) }
        return .keepOpen
    }

    /// `GRAPH.DELETE key` → `+OK`; a missing graph is FalkorDB's empty-key error.
    static let delete: CommandHandler = { invocation, context, reply in
        let name = invocation.text(0)
        do throws(StoreError) {
            if try context.dataDirectory.deleteGraph(named: name) {
                reply.simpleString("OK")
            } else {
                reply.error(emptyKeyMessage)
            }
        } catch {
            reply.error(storeErrorMessage(error))
        }
        return .keepOpen
    }

    private static func runQuery(_ invocation: CommandInvocation, context: ServerContext, readOnly: Bool,
                                 commandName: String, reply: inout RESPEncoder) {
        // FalkorDB's optional flags (--compact, TIMEOUT ms) come in later issues. Until
        // then any extra argument is refused rather than silently ignored as FalkorDB does.
        if invocation.arguments.count > 2 {
            reply.error("ERR unsupported argument '\(invocation.text(2))' for '\(commandName)' command")
            return
        }
        let name = invocation.text(0)
        guard let text = String(validating: invocation.arguments[1], as: UTF8.self) else {
            reply.error("ERR query text is not valid UTF-8")
            return
        }
        let store: GraphStore
        do throws(StoreError) {
            if readOnly {
                guard let existing = try context.dataDirectory.graph(named: name) else {
                    reply.error(emptyKeyMessage)
                    return
                }
                store = existing
            } else {
                store = try context.dataDirectory.createGraph(named: name)
            }
        } catch {
            reply.error(storeErrorMessage(error))
            return
        }
        do throws(QueryError) {
            let result = try context.engine.execute(text, on: store, readOnly: readOnly)
            ResultSetReply.write(result, into: &reply)
        } catch {
            QueryErrorReply.write(error, into: &reply)
        }
    }

    /// A data-directory error (bad graph name, I/O) as an `ERR` reply.
    static func storeErrorMessage(_ error: StoreError) -> String {
        "ERR \(error.description)"
    }
}
