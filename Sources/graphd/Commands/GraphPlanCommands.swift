// GraphPlanCommands.swift — GRAPH.EXPLAIN and GRAPH.PROFILE: the query's operator tree as
// FalkorDB prints it, one bulk string per operator indented 4 spaces per depth (PROFILE adds
// `| Records produced: N, Execution time: T ms` and, like FalkorDB, runs the query).

import GraphQuery
import GraphStore

/// Handlers for GRAPH.EXPLAIN and GRAPH.PROFILE.
enum GraphPlanCommands {
    /// `GRAPH.EXPLAIN key query` → the plan, without running it. A missing graph is
    /// explained against an empty graph and is not created.
    static let explain: CommandHandler = { invocation, context, reply in
        let limits = context.configuration.limits
        let raw = invocation.arguments[1]
        guard raw.count <= limits.maxQueryLength, let text = CommandInvocation.validText(raw) else {
            reply.error("ERR query text is not valid UTF-8 or longer than MAX_QUERY_LENGTH (\(limits.maxQueryLength) bytes)")
            return .keepOpen
        }
        do throws(StoreError) {
            let store = try context.dataDirectory.graph(named: invocation.text(0)) ?? GraphStore.inMemory(name: invocation.text(0))
            do throws(QueryError) {
                writeLines(try context.engine.explain(text, on: store), into: &reply)
            } catch {
                QueryErrorReply.write(error, into: &reply)
            }
        } catch {
            reply.error(GraphCommands.storeErrorMessage(error))
        }
        return .keepOpen
    }

    /// `GRAPH.PROFILE key query [TIMEOUT ms]` → the plan with each operator's record count
    /// and time. It runs the query, writes included, as FalkorDB does.
    static let profile: CommandHandler = { invocation, context, reply in
        let prepared: GraphCommands.PreparedQuery
        switch GraphCommands.prepare(invocation, context: context, commandName: "graph.PROFILE") {
        case .success(let value): prepared = value
        case .failure(let error):
            reply.error(error.message)
            return .keepOpen
        }
        do throws(StoreError) {
            var store = try context.dataDirectory.graph(named: prepared.graph)
            if store == nil {
                // As GRAPH.QUERY: a read of a missing graph profiles against an empty graph and
                // creates nothing; only a write (refused by a read-only trial run) creates it.
                let empty = GraphStore.inMemory(name: prepared.graph)
                do throws(QueryError) {
                    _ = try GraphCommands.execute(prepared, on: empty, readOnly: true,
                                                  engine: GraphCommands.probeEngine(context), context: context)
                    store = empty
                } catch where error.message == GraphCommands.readOnlyRefusal {
                    store = try context.dataDirectory.createGraph(named: prepared.graph)
                } catch {
                    QueryErrorReply.write(error, into: &reply)
                    return .keepOpen
                }
            }
            // `store` was set on every path above that reaches here.
            let before = store!.publishedSequence
            do throws(QueryError) {
                writeLines(try context.engine.profile(prepared.text, on: store!, timeout: prepared.timeout), into: &reply)
            } catch {
                QueryErrorReply.write(error, into: &reply)
            }
            // A profiled write commits like GRAPH.QUERY's: WAIT waits for it.
            let written = WritePosition.after(writing: store!)
            if written.sequence > before { invocation.session.lastWrite = written }
        } catch {
            reply.error(GraphCommands.storeErrorMessage(error))
        }
        return .keepOpen
    }

    private static func writeLines(_ lines: [String], into reply: inout RESPEncoder) {
        reply.arrayHeader(lines.count)
        for line in lines { reply.bulkString(line) }
    }
}
