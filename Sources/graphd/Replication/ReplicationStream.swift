// ReplicationStream.swift — the primary's side of replication (stub while the surface lands).

enum ReplicationStream {
    static let replconf: CommandHandler = { invocation, _, reply in
        if invocation.arguments.count == 2, invocation.keyword(0) == "LISTENING-PORT" {
            guard let port = Int(invocation.text(1)), (1...65535).contains(port) else {
                reply.error("ERR value is not an integer or out of range")
                return .keepOpen
            }
            invocation.session.replicaListeningPort = port
        }
        reply.simpleString("OK")
        return .keepOpen
    }

    static let pull: CommandHandler = { _, _, reply in
        reply.error("ERR not yet")
        return .keepOpen
    }
}
