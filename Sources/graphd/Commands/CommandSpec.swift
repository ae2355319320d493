// CommandSpec.swift — one command described as data: its name, arity, flags and handler,
// as Redis describes each command once (src/server.h `struct redisCommand`). The table
// checks arity in one place; handlers only see well-formed argument counts.

/// What kind of command this is. Flags, not loose booleans, so later issues can add
/// `noAuth`, `loading`, … without touching every handler.
struct CommandFlags: OptionSet, Sendable, Hashable {
    let rawValue: UInt32
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// May change a graph.
    static let write = CommandFlags(rawValue: 1 << 0)
    /// Never changes a graph.
    static let readonly = CommandFlags(rawValue: 1 << 1)
    /// O(1) and touches no graph: the server runs it on the I/O thread instead of
    /// handing it to a worker.
    static let fast = CommandFlags(rawValue: 1 << 2)
}

/// What the connection does after a command's reply is sent.
enum CommandOutcome: Sendable, Equatable {
    case keepOpen
    /// QUIT: send the reply, then close.
    case close
}

/// A parsed request handed to a handler: the arguments after the command name.
struct CommandInvocation: Sendable {
    /// The command name as the client sent it (any case).
    var name: [UInt8]
    /// The arguments after the name.
    var arguments: [[UInt8]]

    /// Argument `i` as text (lossy for invalid UTF-8, for names and flags only).
    func text(_ i: Int) -> String { String(decoding: arguments[i], as: UTF8.self) }
}

/// A command handler: reads its invocation, acts on the context, writes one reply.
typealias CommandHandler = @Sendable (CommandInvocation, ServerContext, inout RESPEncoder) -> CommandOutcome

/// One entry of the command table.
struct CommandSpec: Sendable {
    /// The name shown in error messages, spelled as Redis/FalkorDB spell it
    /// (`ping`, `graph.QUERY`); lookup ignores case.
    let name: String
    /// Redis's convention, counting the command name: `n` means exactly n, `-n` at least n.
    let arity: Int
    let flags: CommandFlags
    let handler: CommandHandler

    /// True when `argumentCount` (including the name) satisfies the arity.
    func accepts(argumentCount: Int) -> Bool {
        arity >= 0 ? argumentCount == arity : argumentCount >= -arity
    }
}
