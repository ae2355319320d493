// ServerCommands.swift — the server-level commands tools send before anything else:
// INFO (falkordb-py's connect probe), CONFIG GET (redis-benchmark's probe) and COMMAND
// (redis-cli's COMMAND DOCS). Replies describe graphd truthfully in Redis's shapes.

import Glibc

/// Handlers for INFO, CONFIG and COMMAND.
enum ServerCommands {
    /// `INFO [section …]` → graphd's figures as text (RESP3: a verbatim string).
    static let info: CommandHandler = { invocation, context, reply in
        let sections = invocation.arguments.map { String(decoding: $0, as: UTF8.self) }
        reply.verbatimText(ServerInfo.report(sections: sections, context: context))
        return .keepOpen
    }

    /// The Redis configuration names CONFIG GET answers, with graphd's values. Only
    /// facts: the password is never echoed back, and settings graphd does not have are
    /// left out (a pattern that matches nothing gives an empty reply, as in Redis).
    static func redisConfiguration(_ context: ServerContext) -> [(String, String)] {
        [("save", ""),
         // graphd logs every write to its append-only log; there is no RDB.
         ("appendonly", "yes"),
         ("port", String(context.port)),
         ("databases", "1"),
         ("timeout", "0"),
         ("protected-mode", context.password == nil ? "yes" : "no")]
            + ReplicationCommands.configuration(context)
    }

    /// `CONFIG GET pattern …` (Redis glob patterns), `CONFIG SET` of the replication knobs
    /// (other settings are flags, query limits GRAPH.CONFIG) and `CONFIG REWRITE`, which
    /// persists the replication role and knobs (replication.conf).
    static let config: CommandHandler = { invocation, context, reply in
        switch invocation.keyword(0) {
        case "GET" where invocation.arguments.count >= 2:
            let patterns = invocation.arguments.dropFirst().map { String(decoding: $0, as: UTF8.self) }
            let matches = redisConfiguration(context).filter { entry in
                patterns.contains { fnmatch($0, entry.0, 1 << 4 /* FNM_CASEFOLD */) == 0 }
            }
            reply.mapHeader(matches.count)
            for (name, value) in matches {
                reply.bulkString(name)
                reply.bulkString(value)
            }
        case "GET":
            reply.error("ERR wrong number of arguments for 'config|get' command")
        case "SET" where invocation.arguments.count >= 3 && invocation.arguments.count % 2 == 1:
            // Only the replication knobs change at run time (Sentinel and operators set them).
            var pairs: [(String, String)] = []
            for i in stride(from: 1, to: invocation.arguments.count, by: 2) { pairs.append((invocation.text(i), invocation.text(i + 1))) }
            guard pairs.allSatisfy({ ReplicationCommands.isSettable($0.0) }) else {
                reply.error("ERR CONFIG SET is not supported by graphd for this parameter: server settings are command-line "
                            + "flags; query limits are set with GRAPH.CONFIG SET; replica-priority, min-replicas-to-write "
                            + "and min-replicas-max-lag can be set")
                return .keepOpen
            }
            for (name, value) in pairs {
                if case .failure(let error)? = ReplicationCommands.set(name, to: value, context: context) {
                    reply.error(error.message)
                    return .keepOpen
                }
            }
            reply.simpleString("OK")
        case "SET":
            reply.error("ERR wrong number of arguments for 'config|set' command")
        case "REWRITE":
            switch ReplicationCommands.rewrite(context) {
            case .success: reply.simpleString("OK")
            case .failure(let error): reply.error(error.message)
            }
        case "RESETSTAT":
            reply.error("ERR CONFIG RESETSTAT is not supported by graphd")
        default:
            reply.error("ERR unknown subcommand '\(invocation.text(0))'. Try CONFIG HELP.")
        }
        return .keepOpen
    }

    /// What COMMAND reports about one command: the table's data.
    struct Description: Sendable {
        var name: String
        var arity: Int
        var flags: CommandFlags
        var summary: String
    }

    /// `COMMAND`, `COMMAND COUNT|LIST|INFO [name …]|DOCS [name …]`, answered from the
    /// command table's own descriptions.
    static func command(describing descriptions: [Description]) -> CommandHandler {
        let byName = Dictionary(descriptions.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        return { invocation, _, reply in
            let subcommand = invocation.arguments.isEmpty ? "" : invocation.keyword(0)
            let names = invocation.arguments.dropFirst().map { String(decoding: $0, as: UTF8.self).lowercased() }
            switch subcommand {
            case "":
                reply.arrayHeader(descriptions.count)
                for description in descriptions { writeInfo(description, into: &reply) }
            case "COUNT":
                reply.integer(Int64(descriptions.count))
            case "LIST":
                reply.arrayHeader(descriptions.count)
                for description in descriptions { reply.bulkString(description.name.lowercased()) }
            case "INFO":
                let selected = names.isEmpty ? descriptions.map { Optional($0) } : names.map { byName[$0] }
                reply.arrayHeader(selected.count)
                for description in selected {
                    if let description { writeInfo(description, into: &reply) } else { reply.null() }
                }
            case "DOCS":
                let selected = names.isEmpty ? descriptions : names.compactMap { byName[$0] }
                reply.mapHeader(selected.count)
                for description in selected {
                    reply.bulkString(description.name.lowercased())
                    reply.mapHeader(3)
                    reply.bulkString("summary"); reply.bulkString(description.summary)
                    reply.bulkString("since"); reply.bulkString("1.0.0")
                    reply.bulkString("group"); reply.bulkString(description.name.contains(".") ? "module" : "server")
                }
            default:
                reply.error("ERR unknown subcommand '\(invocation.text(0))'. Try COMMAND HELP.")
            }
            return .keepOpen
        }
    }

    /// One COMMAND INFO entry: name, arity, flags, first key, last key, key step, ACL
    /// categories, tips, key specs, subcommands (Redis 7's ten fields).
    private static func writeInfo(_ description: Description, into reply: inout RESPEncoder) {
        reply.arrayHeader(10)
        reply.bulkString(description.name.lowercased())
        reply.integer(Int64(description.arity))
        var flags: [String] = []
        if description.flags.contains(.write) { flags.append("write") }
        if description.flags.contains(.readonly) { flags.append("readonly") }
        if description.flags.contains(.fast) { flags.append("fast") }
        if description.flags.contains(.noAuth) { flags.append("no_auth") }
        reply.arrayHeader(flags.count)
        for flag in flags { reply.simpleString(flag) }
        // GRAPH.* commands (except LIST and CONFIG) take the graph name as first argument.
        let hasKey = description.name.hasPrefix("graph.") && description.arity != 1
            && !["graph.LIST", "graph.CONFIG"].contains(description.name)
        reply.integer(hasKey ? 1 : 0)
        reply.integer(hasKey ? 1 : 0)
        reply.integer(hasKey ? 1 : 0)
        reply.arrayHeader(0)
        reply.arrayHeader(0)
        reply.arrayHeader(0)
        reply.arrayHeader(0)
    }
}
