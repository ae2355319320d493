// CommandSpec.swift — one command described as data: its name, arity, flags, one-line
// summary and handler, as Redis describes each command once (src/server.h `struct
// redisCommand`, src/commands/*.json). The table checks arity and authentication in one
// place; handlers only see well-formed argument counts from clients allowed to run them.

/// What kind of command this is.
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
    /// Served before the client authenticates (Redis's NO_AUTH: AUTH, HELLO, QUIT).
    static let noAuth = CommandFlags(rawValue: 1 << 3)
    /// Runs a query: counts toward the pending-query limit (load shedding).
    static let query = CommandFlags(rawValue: 1 << 4)
}

/// What the connection does after a command's reply is sent.
enum CommandOutcome: Sendable, Equatable {
    case keepOpen
    /// QUIT: send the reply, then close.
    case close
}

/// A parsed request handed to a handler: the arguments after the command name, and the
/// session of the client that sent it (handlers such as HELLO and AUTH change it).
struct CommandInvocation: Sendable {
    /// The command name as the client sent it (any case).
    var name: [UInt8]
    /// The arguments after the name.
    var arguments: [[UInt8]]
    /// The client's state; changes made by the handler are kept for its next command.
    var session: ClientSession

    init(name: [UInt8], arguments: [[UInt8]], session: ClientSession = ClientSession()) {
        self.name = name
        self.arguments = arguments
        self.session = session
    }

    /// Argument `i` as text (lossy for invalid UTF-8, for names and flags only).
    func text(_ i: Int) -> String { String(decoding: arguments[i], as: UTF8.self) }

    /// `bytes` as text, or nil when they are not valid UTF-8 (query texts). Query texts are
    /// nearly always ASCII, checked here a word at a time; `String(validating:)` is generic
    /// and took a tenth of a point lookup's time on the server.
    static func validText(_ bytes: [UInt8]) -> String? {
        let ascii = bytes.withUnsafeBytes { raw -> Bool in
            var i = 0, high: UInt64 = 0
            while i + 8 <= raw.count {
                high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < raw.count { high |= UInt64(raw[i]); i += 1 }
            return high & 0x8080_8080_8080_8080 == 0
        }
        return ascii ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// Argument `i` upper-cased (ASCII), for matching subcommands and flags.
    func keyword(_ i: Int) -> String { text(i).uppercased() }
}

/// A command handler: reads its invocation, acts on the context, writes one reply.
typealias CommandHandler = @Sendable (inout CommandInvocation, ServerContext, inout RESPEncoder) -> CommandOutcome

/// A command's quick path, tried on the I/O thread before a worker is woken: writes the reply
/// and returns the outcome when it could answer at once and cheaply; returns nil, with nothing
/// written and nothing changed, to have the command run by `handler` on a worker instead.
typealias QuickCommandHandler = @Sendable (inout CommandInvocation, ServerContext, inout RESPEncoder) -> CommandOutcome?

/// One entry of the command table.
struct CommandSpec: Sendable {
    /// The name shown in error messages, spelled as Redis/FalkorDB spell it
    /// (`ping`, `graph.QUERY`); lookup ignores case.
    let name: String
    /// `name` in lower case: the table's key and the statistics' (INFO commandstats) name,
    /// computed once instead of for every call.
    let key: String
    /// Redis's convention, counting the command name: `n` means exactly n, `-n` at least n.
    let arity: Int
    let flags: CommandFlags
    /// One line for COMMAND DOCS.
    let summary: String
    let handler: CommandHandler
    /// For commands that are sometimes cheap (a point lookup) and sometimes not (a big
    /// traversal, a write): see QuickCommandHandler.
    let quickHandler: QuickCommandHandler?

    init(name: String, arity: Int, flags: CommandFlags, summary: String = "", handler: @escaping CommandHandler,
         quickHandler: QuickCommandHandler? = nil) {
        self.name = name
        self.key = name.lowercased()
        self.arity = arity
        self.flags = flags
        self.summary = summary
        self.handler = handler
        self.quickHandler = quickHandler
    }

    /// True when `argumentCount` (including the name) satisfies the arity.
    func accepts(argumentCount: Int) -> Bool {
        arity >= 0 ? argumentCount == arity : argumentCount >= -arity
    }
}
