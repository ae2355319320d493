// ConnectionCommands.swift — the connection-level commands: PING, ECHO, QUIT, SELECT,
// HELLO, AUTH and CLIENT. Shaped like redis's handlers: check, act, reply. They touch no
// graph, so the table flags them `fast` and the server answers them on the I/O thread.

import Glibc

/// Handlers for the commands that concern the connection itself.
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

    /// `SELECT n`: graphd has one keyspace, so only database 0 exists. FalkorDB accepts any
    /// index but its GRAPH.LIST ignores it; refusing the others says what is true.
    static let select: CommandHandler = { invocation, _, reply in
        guard let index = Int(invocation.text(0)) else {
            reply.error("ERR value is not an integer or out of range")
            return .keepOpen
        }
        guard index == 0 else {
            reply.error("ERR DB index is out of range (graphd has one database: SELECT 0)")
            return .keepOpen
        }
        invocation.session.database = 0
        reply.simpleString("OK")
        return .keepOpen
    }

    /// Redis's reply to a wrong password, also for an unknown user.
    static let wrongPassMessage = "WRONGPASS invalid username-password pair or user is disabled."

    /// `AUTH password` or `AUTH default password`.
    static let auth: CommandHandler = { invocation, context, reply in
        let arguments = invocation.arguments
        guard arguments.count <= 2 else {
            reply.error("ERR syntax error")
            return .keepOpen
        }
        guard let password = context.password else {
            if arguments.count == 1 {
                reply.error("ERR AUTH <password> called without any password configured for the default user. "
                            + "Are you sure your configuration is correct?")
            } else if arguments[0] == Array("default".utf8) {
                reply.simpleString("OK")
            } else {
                reply.error(wrongPassMessage)
            }
            return .keepOpen
        }
        let user = arguments.count == 2 ? arguments[0] : Array("default".utf8)
        if user == Array("default".utf8) && constantTimeEqual(arguments[arguments.count - 1], Array(password.utf8)) {
            invocation.session.isAuthenticated = true
            reply.simpleString("OK")
        } else {
            reply.error(wrongPassMessage)
        }
        return .keepOpen
    }

    /// `HELLO [protover [AUTH user pass] [SETNAME name]]`: switches RESP2/RESP3 and
    /// replies with the server's description (a map in RESP3, a flat array in RESP2).
    static let hello: CommandHandler = { invocation, context, reply in
        let arguments = invocation.arguments
        var version = invocation.session.protocolVersion
        var index = 0
        if !arguments.isEmpty {
            guard let number = Int(invocation.text(0)) else {
                reply.error("ERR Protocol version is not an integer or out of range")
                return .keepOpen
            }
            guard let requested = ProtocolVersion(rawValue: number) else {
                reply.error("NOPROTO unsupported protocol version")
                return .keepOpen
            }
            version = requested
            index = 1
        }
        var credentials: (user: [UInt8], password: [UInt8])? = nil
        var newName: String? = nil
        while index < arguments.count {
            let option = invocation.keyword(index)
            let remaining = arguments.count - index - 1
            if option == "AUTH" && remaining >= 2 {
                credentials = (arguments[index + 1], arguments[index + 2])
                index += 3
            } else if option == "SETNAME" && remaining >= 1 {
                newName = invocation.text(index + 1)
                index += 2
            } else {
                reply.error("ERR Syntax error in HELLO option '\(invocation.text(index))'")
                return .keepOpen
            }
        }
        var authenticated = invocation.session.isAuthenticated
        if let credentials {
            let passwordMatches = context.password.map { constantTimeEqual(credentials.password, Array($0.utf8)) } ?? true
            guard credentials.user == Array("default".utf8) && passwordMatches else {
                reply.error(wrongPassMessage)
                return .keepOpen
            }
            authenticated = true
        }
        guard authenticated else {
            reply.error("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                        + "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
                        + "select the RESP protocol version at the same time")
            return .keepOpen
        }
        if let newName {
            guard isValidClientName(newName) else {
                reply.error(invalidNameMessage)
                return .keepOpen
            }
            invocation.session.name = newName
        }
        invocation.session.isAuthenticated = true
        invocation.session.protocolVersion = version
        reply.protocolVersion = version
        writeHelloMap(session: invocation.session, isReplica: context.replication.isReplica, into: &reply)
        return .keepOpen
    }

    /// HELLO's server description, with the pairs Redis sends (`server`, `version` and
    /// `proto` are the mandatory ones). `modules` lists `graph`, as FalkorDB's does, for
    /// clients that look for the module before sending GRAPH.* commands.
    static func writeHelloMap(session: ClientSession, isReplica: Bool = false, into reply: inout RESPEncoder) {
        reply.mapHeader(7)
        reply.bulkString("server"); reply.bulkString("graphd")
        reply.bulkString("version"); reply.bulkString(ServerInfo.versionNumber)
        reply.bulkString("proto"); reply.integer(Int64(session.protocolVersion.rawValue))
        reply.bulkString("id"); reply.integer(session.id)
        reply.bulkString("mode"); reply.bulkString("standalone")
        reply.bulkString("role"); reply.bulkString(isReplica ? "replica" : "master")
        reply.bulkString("modules")
        reply.arrayHeader(1)
        reply.mapHeader(4)
        reply.bulkString("name"); reply.bulkString("graph")
        reply.bulkString("ver"); reply.integer(ServerInfo.falkorDBModuleVersion)
        reply.bulkString("path"); reply.bulkString("")
        reply.bulkString("args"); reply.arrayHeader(0)
    }

    static let invalidNameMessage = "ERR Client names cannot contain spaces, newlines or special characters."

    /// `CLIENT SETINFO|SETNAME|GETNAME|ID|INFO …`. redis-py sends SETINFO on every
    /// connection; an unknown subcommand gets Redis's wording, which clients tolerate.
    static let client: CommandHandler = { invocation, _, reply in
        let subcommand = invocation.keyword(0)
        let count = invocation.arguments.count
        switch subcommand {
        case "SETINFO" where count == 3:
            let attribute = invocation.keyword(1)
            let value = invocation.text(2)
            guard isValidClientName(value) else {
                reply.error("ERR \(attribute) cannot contain spaces, newlines or special characters.")
                return .keepOpen
            }
            switch attribute {
            case "LIB-NAME": invocation.session.libraryName = value
            case "LIB-VER": invocation.session.libraryVersion = value
            default:
                reply.error("ERR Unrecognized option '\(invocation.text(1))'")
                return .keepOpen
            }
            reply.simpleString("OK")
        case "SETNAME" where count == 2:
            let name = invocation.text(1)
            guard isValidClientName(name) else {
                reply.error(invalidNameMessage)
                return .keepOpen
            }
            invocation.session.name = name
            reply.simpleString("OK")
        case "GETNAME" where count == 1:
            if invocation.session.name.isEmpty { reply.null() } else { reply.bulkString(invocation.session.name) }
        case "ID" where count == 1:
            reply.integer(invocation.session.id)
        case "INFO" where count == 1:
            let s = invocation.session
            reply.bulkString("id=\(s.id) addr=\(s.peerAddress) name=\(s.name) db=\(s.database) "
                             + "resp=\(s.protocolVersion.rawValue) lib-name=\(s.libraryName) lib-ver=\(s.libraryVersion)\n")
        case "SETINFO", "SETNAME", "GETNAME", "ID", "INFO":
            reply.error("ERR wrong number of arguments for 'client|\(subcommand.lowercased())' command")
        default:
            reply.error("ERR unknown subcommand '\(invocation.text(0))'. Try CLIENT HELP.")
        }
        return .keepOpen
    }

    /// Redis's rule for client names and library attributes: printable ASCII, no spaces.
    static func isValidClientName(_ name: String) -> Bool {
        name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }

    /// Compares secrets in time that depends only on their lengths, so the reply time
    /// does not tell an attacker how much of a guessed password was right.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        let count = max(a.count, b.count)
        for i in 0..<count {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
