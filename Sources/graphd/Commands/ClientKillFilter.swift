// ClientKillFilter.swift — CLIENT KILL's arguments as a filter over connections (Redis's
// clientKillCommand): the old `CLIENT KILL ip:port` form and the new `ID | TYPE | ADDR |
// LADDR | SKIPME | MAXAGE` pairs. Sentinel sends `CLIENT KILL TYPE normal` and `… TYPE pubsub`
// after SLAVEOF, so that clients reconnect and find the new primary. The event loop applies
// the filter (Server.clientKill): only it sees every connection.

/// What kind of client a connection is, in CLIENT KILL TYPE's words.
enum ClientKind: Sendable, Equatable {
    case normal, pubsub, replica, master
}

/// A parsed CLIENT KILL.
struct ClientKillFilter: Sendable, Equatable {
    var id: Int64?
    var kind: ClientKind?
    var address: String?
    /// Spare the connection that sent it (Redis's default, `SKIPME yes`).
    var skipMe = true
    /// The old form: reply +OK or an error instead of a count.
    var oldForm = false

    /// Parses the arguments after `CLIENT KILL`; the error text on failure.
    static func parse(_ arguments: [[UInt8]]) -> Result<ClientKillFilter, ConfigError> {
        let words = arguments.map { String(decoding: $0, as: UTF8.self) }
        var filter = ClientKillFilter()
        if words.count == 1 {
            filter.address = words[0]
            filter.oldForm = true
            filter.skipMe = false
            return .success(filter)
        }
        guard !words.isEmpty, words.count % 2 == 0 else { return .failure(ConfigError(message: "ERR syntax error")) }
        for i in stride(from: 0, to: words.count, by: 2) {
            let value = words[i + 1]
            switch words[i].uppercased() {
            case "ID":
                guard let id = Int64(value), id > 0 else {
                    return .failure(ConfigError(message: "ERR client-id should be greater than 0"))
                }
                filter.id = id
            case "TYPE":
                switch value.lowercased() {
                case "normal": filter.kind = .normal
                case "pubsub": filter.kind = .pubsub
                case "slave", "replica": filter.kind = .replica
                case "master": filter.kind = .master
                default: return .failure(ConfigError(message: "ERR Unknown client type '\(value)'"))
                }
            case "ADDR", "LADDR":
                filter.address = value
            case "SKIPME":
                switch value.lowercased() {
                case "yes": filter.skipMe = true
                case "no": filter.skipMe = false
                default: return .failure(ConfigError(message: "ERR syntax error"))
                }
            case "MAXAGE", "USER":
                // Accepted for compatibility; graphd has one user and keeps no connection ages.
                continue
            default:
                return .failure(ConfigError(message: "ERR syntax error"))
            }
        }
        return .success(filter)
    }

    /// Whether the connection `id` at `address`, of `kind`, is to be killed; `isCaller` for
    /// the connection that sent the command.
    func matches(id: Int64, address: String, kind: ClientKind, isCaller: Bool) -> Bool {
        if isCaller && skipMe { return false }
        if let wanted = self.id, wanted != id { return false }
        if let wanted = self.kind, wanted != kind { return false }
        if let wanted = self.address, wanted != address { return false }
        return true
    }
}
