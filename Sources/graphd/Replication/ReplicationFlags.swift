// ReplicationFlags.swift — `graphd serve`'s replication flags, in the CLI's flag-table form:
// --replica-of, --replica-priority, --masterauth, --sentinel and --sentinel-name. Kept beside
// the replication they configure; the serve table appends `ReplicationFlags.options`.

/// The serve options that place the server in a replicated set.
struct ReplicationFlags: Equatable, Sendable {
    /// `--replica-of HOST:PORT`: start as a replica of this primary (overrides replication.conf).
    var replicaOf: ReplicationAddress?
    /// `--replica-priority N`: Sentinel's promotion order (0: never promote).
    var replicaPriority: Int?
    /// `--masterauth PASSWORD`: what this replica sends AUTH with (default: its own --requirepass).
    var primaryPassword: String?
    /// `--sentinel HOST:PORT,…`: Sentinels to ask at start who the primary is.
    var sentinels: [ReplicationAddress] = []
    /// `--sentinel-name NAME`: the name those Sentinels monitor this set under.
    var sentinelName: String?

    init() {}

    /// `host:port` (the last colon splits, so `[::1]:6479` and `::1:6479` work).
    static func address(_ text: String, flag: String) throws(UsageError) -> ReplicationAddress {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port), colon != text.startIndex else {
            throw UsageError(description: "graphd: invalid value '\(text)' for \(flag) (expected HOST:PORT)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return ReplicationAddress(host: host, port: port)
    }

    static var options: [OptionSpec<ServeOptions>] {
        [
            OptionSpec("--replica-of", value: "HOST:PORT", environment: "GRAPHD_REPLICA_OF",
                       help: "follow this primary's log as a read-only replica (REPLICAOF at run time; default: primary, or what "
                           + "CONFIG REWRITE saved in the data directory)") { o, t throws(UsageError) in
                o.replication.replicaOf = try address(t, flag: "--replica-of")
            },
            OptionSpec("--replica-priority", value: "N", environment: "GRAPHD_REPLICA_PRIORITY",
                       help: "Sentinel promotes replicas with a lower priority first; 0 never (default 100)") { o, t throws(UsageError) in
                o.replication.replicaPriority = try OptionValue.integer(t, flag: "--replica-priority", in: 0...Int(Int32.max))
            },
            OptionSpec("--masterauth", value: "PASSWORD", environment: "GRAPHD_MASTERAUTH",
                       help: "password a replica gives its primary (default: --requirepass)") { o, t throws(UsageError) in
                o.replication.primaryPassword = try OptionValue.nonEmpty(t, flag: "--masterauth", what: "a password")
            },
            OptionSpec("--sentinel", value: "HOST:PORT,…", environment: "GRAPHD_SENTINEL",
                       help: "Redis Sentinels to ask at start who the primary is, before taking a write (needs --sentinel-name)") { o, t throws(UsageError) in
                var list: [ReplicationAddress] = []
                for part in t.split(separator: ",") { list.append(try address(String(part), flag: "--sentinel")) }
                guard !list.isEmpty else { throw UsageError(description: "graphd: --sentinel needs HOST:PORT[,HOST:PORT…]") }
                o.replication.sentinels = list
            },
            OptionSpec("--sentinel-name", value: "NAME", environment: "GRAPHD_SENTINEL_NAME",
                       help: "the name the Sentinels monitor this primary under") { o, t throws(UsageError) in
                o.replication.sentinelName = try OptionValue.nonEmpty(t, flag: "--sentinel-name", what: "a name")
            },
        ]
    }
}
