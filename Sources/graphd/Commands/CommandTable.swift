// CommandTable.swift — every command graphd serves, described once as data, and the one
// place where a request is matched to its command and its arity is checked (Redis's
// processCommand). Handlers live in *Commands.swift files beside this one.

/// The command table: specs looked up by case-insensitive name.
struct CommandTable: Sendable {
    private var specs: [String: CommandSpec] = [:]

    /// A table holding `specs`.
    init(_ specs: [CommandSpec]) {
        for spec in specs { self.specs[spec.name.lowercased()] = spec }
    }

    /// The commands of this slice. Later issues add HELLO, AUTH, CLIENT, INFO, … here.
    static func standard() -> CommandTable {
        CommandTable([
            CommandSpec(name: "ping", arity: -1, flags: [.fast], handler: ConnectionCommands.ping),
            CommandSpec(name: "echo", arity: 2, flags: [.fast], handler: ConnectionCommands.echo),
            CommandSpec(name: "quit", arity: -1, flags: [.fast], handler: ConnectionCommands.quit),
            CommandSpec(name: "graph.QUERY", arity: -3, flags: [.write], handler: GraphCommands.query),
            CommandSpec(name: "graph.RO_QUERY", arity: -3, flags: [.readonly], handler: GraphCommands.readOnlyQuery),
            CommandSpec(name: "graph.LIST", arity: 1, flags: [.readonly], handler: GraphCommands.list),
            CommandSpec(name: "graph.DELETE", arity: 2, flags: [.write], handler: GraphCommands.delete),
        ])
    }

    /// The spec for a command name in any case, or nil.
    func spec(named name: [UInt8]) -> CommandSpec? {
        specs[String(decoding: name.lazy.map(Self.asciiLowercase), as: UTF8.self)]
    }

    /// All specs, sorted by name (for docs and tests).
    var allSpecs: [CommandSpec] { specs.values.sorted { $0.name < $1.name } }

    /// Runs one request (name first) and returns its reply bytes and what to do next.
    /// Unknown commands and wrong arity are answered here, with Redis's wording.
    func execute(_ request: [[UInt8]], context: ServerContext) -> (reply: [UInt8], outcome: CommandOutcome) {
        var encoder = RESPEncoder()
        let outcome = execute(request, context: context, into: &encoder)
        return (encoder.bytes, outcome)
    }

    /// As `execute(_:context:)`, appending the reply to `reply`.
    func execute(_ request: [[UInt8]], context: ServerContext, into reply: inout RESPEncoder) -> CommandOutcome {
        guard let name = request.first else {
            // The decoder never yields an empty request; answer sanely if one appears.
            reply.error("ERR empty command")
            return .keepOpen
        }
        guard let spec = spec(named: name) else {
            reply.error(Self.unknownCommandMessage(request))
            return .keepOpen
        }
        guard spec.accepts(argumentCount: request.count) else {
            reply.error(Self.wrongArityMessage(spec.name))
            return .keepOpen
        }
        let invocation = CommandInvocation(name: name, arguments: Array(request.dropFirst()))
        return spec.handler(invocation, context, &reply)
    }

    /// Redis's `ERR wrong number of arguments for '<name>' command`.
    static func wrongArityMessage(_ name: String) -> String {
        "ERR wrong number of arguments for '\(name)' command"
    }

    /// Redis's unknown-command text: the name (at most 128 bytes), then each argument
    /// quoted and followed by a space while the list is shorter than 128 bytes, each
    /// cut to what is left of those 128 (server.c processCommand).
    static func unknownCommandMessage(_ request: [[UInt8]]) -> String {
        var text = Array("ERR unknown command '".utf8)
        text.append(contentsOf: request[0].prefix(128))
        text.append(contentsOf: "', with args beginning with: ".utf8)
        var args: [UInt8] = []
        var i = 1
        while i < request.count && args.count < 128 {
            args.append(UInt8(ascii: "'"))
            args.append(contentsOf: request[i].prefix(128 - args.count + 1))
            args.append(contentsOf: "' ".utf8)
            i += 1
        }
        text.append(contentsOf: args)
        return String(decoding: text, as: UTF8.self)
    }

    @inline(__always)
    private static func asciiLowercase(_ b: UInt8) -> UInt8 {
        b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
    }
}
