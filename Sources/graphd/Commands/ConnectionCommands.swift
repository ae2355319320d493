// ConnectionCommands.swift — the connection-level commands of this slice: PING, ECHO,
// QUIT. Shaped like redis's handlers: check, act, reply. They touch no graph, so the
// table flags them `fast` and the server answers them on the I/O thread.

/// Handlers for PING, ECHO and QUIT.
enum ConnectionCommands {
    /// `PING` → `+PONG`; `PING msg` → bulk `msg` (Redis's pingCommand).
    static let ping: CommandHandler = { invocation, _, reply in
        switch invocation.arguments.count {
        case 0: reply.simpleString("PONG")
        case 1: reply.bulkString(invocation.arguments[0])
        default: reply.error(CommandTable.wrongArityMessage("ping"))
        }
        return .keepOpen
    }

    /// `ECHO msg` → bulk `msg`.
    static let echo: CommandHandler = { invocation, _, reply in
        reply.bulkString(invocation.arguments[0])
        return .keepOpen
    }

    /// `QUIT` → `+OK`, then the connection closes once the reply is written.
    static let quit: CommandHandler = { _, _, reply in
        reply.simpleString("OK")
        return .close
    }
}
