// ClientSession.swift — what the server remembers about one client between commands:
// its protocol version, whether it has authenticated, the names it gave itself. Handed
// to each command (HELLO, AUTH, CLIENT and SELECT change it) and kept by the connection.

/// Per-connection state that commands read and change.
struct ClientSession: Sendable, Equatable {
    /// The server-wide connection number (CLIENT ID, HELLO's `id`).
    var id: Int64
    /// The peer's address as `ip:port`, for CLIENT INFO and log lines.
    var peerAddress: String
    /// RESP2 until HELLO 3.
    var protocolVersion: ProtocolVersion = .resp2
    /// False until AUTH succeeds when the server requires a password; true otherwise.
    var isAuthenticated: Bool
    /// CLIENT SETNAME / HELLO SETNAME.
    var name = ""
    /// CLIENT SETINFO LIB-NAME / LIB-VER.
    var libraryName = ""
    var libraryVersion = ""
    /// SELECT n. graphd has one keyspace: only 0 is accepted (see docs/protocol.md).
    var database = 0
    /// Where this client's last write left its graph (WAIT and WAITAOF wait for replicas to
    /// have it); nil before any.
    var lastWrite: WritePosition?
    /// The client port a replica announced (REPLCONF listening-port); 0 for other clients.
    var replicaListeningPort = 0
    /// Commands queued since MULTI (nil: not in a transaction).
    var transaction: [[[UInt8]]]?
    /// A command queued since MULTI was refused (unknown, wrong arity): EXEC aborts.
    var transactionFailed = false

    init(id: Int64 = 0, peerAddress: String = "", isAuthenticated: Bool = true) {
        self.id = id
        self.peerAddress = peerAddress
        self.isAuthenticated = isAuthenticated
    }
}
