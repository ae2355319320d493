// GraphConfigCommand.swift — GRAPH.CONFIG GET name|* and GRAPH.CONFIG SET name value,
// over the parameters RuntimeConfiguration describes, with FalkorDB's reply shapes
// (`[name, value]` for one, an array of those for `*`) and error wording.

/// The GRAPH.CONFIG handler.
enum GraphConfigCommand {
    static let handler: CommandHandler = { invocation, context, reply in
        switch invocation.keyword(0) {
        case "GET" where invocation.arguments.count == 2:
            let name = invocation.text(1)
            let limits = context.configuration.limits
            if name == "*" {
                reply.arrayHeader(ConfigParameter.all.count)
                for parameter in ConfigParameter.all { writePair(parameter, limits, into: &reply) }
            } else if let parameter = ConfigParameter.named(name) {
                writePair(parameter, limits, into: &reply)
            } else {
                reply.error("Unknown configuration field")
            }
        case "SET" where invocation.arguments.count == 3:
            switch context.configuration.set(invocation.text(1), to: invocation.text(2)) {
            case .success:
                context.applyConfiguration()
                reply.simpleString("OK")
            case .failure(let error): reply.error(error.message)
            }
        case "GET", "SET":
            reply.error(CommandTable.wrongArityMessage("graph.CONFIG"))
        default:
            reply.error("Unknown subcommand for GRAPH.CONFIG")
        }
        return .keepOpen
    }

    private static func writePair(_ parameter: ConfigParameter, _ limits: QueryLimits, into reply: inout RESPEncoder) {
        reply.arrayHeader(2)
        reply.bulkString(parameter.name)
        reply.integer(limits[keyPath: parameter.keyPath])
    }
}
