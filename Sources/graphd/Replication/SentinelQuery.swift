// SentinelQuery.swift — asks Redis Sentinels who the primary of a monitored set is
// (`SENTINEL get-master-addr-by-name NAME`), trying each in turn: the first answer wins.
// A primary restarted after a failover asks before it takes a write (--sentinel).

/// The Sentinel client side graphd needs.
enum SentinelQuery {
    /// The primary's address as the first Sentinel that knows `name` says.
    static func primary(named name: String, sentinels: [ReplicationAddress],
                        password: String?) -> Result<ReplicationAddress, ReplicationError> {
        var problems: [String] = []
        for sentinel in sentinels {
            do throws(REPLError) {
                let client = try RESPClient(host: sentinel.host, port: sentinel.port)
                defer { client.close() }
                client.setTimeout(seconds: 2)
                if let password { _ = try client.command(["AUTH", password]) }
                let reply = try client.command(["SENTINEL", "get-master-addr-by-name", name])
                guard case .array(let parts) = reply, parts.count == 2,
                      case .bulk(let host) = parts[0], case .bulk(let portText) = parts[1], let port = Int(portText) else {
                    problems.append("\(sentinel.host):\(sentinel.port) does not know '\(name)'")
                    continue
                }
                return .success(ReplicationAddress(host: host, port: port))
            } catch {
                problems.append("\(sentinel.host):\(sentinel.port): \(error)")
            }
        }
        return .failure(.link(problems.joined(separator: "; ")))
    }
}
