// ReplicationInfo.swift — INFO's `# Replication` section, with Redis's field names in Redis's
// order (server.c genRedisInfoString). Sentinel parses it line by line and sets the role when
// it reads `role:`, so `role:slave` must precede master_host, master_port, master_link_status,
// slave_priority and slave_repl_offset; and it learns replicas only from the `slaveN:` lines.
// Offsets are ReplicationOffsets.total (the sum of the graphs' log sequences).

/// Builds INFO's replication lines.
enum ReplicationInfo {
    static func lines(_ context: ServerContext) -> [String] {
        let snapshot = context.replication.snapshot
        let offset = ReplicationOffsets.total(context.dataDirectory)
        var lines = ["# Replication"]
        switch snapshot.role {
        case .primary:
            lines.append("role:master")
        case .replica(let address):
            lines += ["role:slave",
                      "master_host:\(address.host)",
                      "master_port:\(address.port)",
                      "master_link_status:\(snapshot.linkState == .connected ? "up" : "down")",
                      "master_last_io_seconds_ago:\(snapshot.lastIOSeconds)",
                      "master_sync_in_progress:\(snapshot.linkState == .sync ? 1 : 0)",
                      "slave_read_repl_offset:\(offset)",
                      "slave_repl_offset:\(offset)"]
            if let down = snapshot.linkDownSeconds { lines.append("master_link_down_since_seconds:\(down)") }
            if let error = snapshot.linkError { lines.append("graphd_master_link_error:\(sanitized(error))") }
            lines += ["slave_priority:\(snapshot.settings.replicaPriority)",
                      "slave_read_only:1",
                      "replica_announced:1"]
        }
        lines.append("connected_slaves:\(snapshot.followers.count)")
        if snapshot.settings.minReplicasToWrite > 0 {
            lines.append("min_slaves_good_slaves:\(context.replication.goodFollowerCount())")
        }
        let now = ContinuousClock.now
        for (index, follower) in snapshot.followers.enumerated() {
            let lag = (now - follower.lastAck).components.seconds
            lines.append("slave\(index):ip=\(follower.address.host),port=\(follower.address.port),state=online,"
                         + "offset=\(follower.offset),lag=\(lag)")
        }
        lines += ["master_failover_state:no-failover",
                  "master_replid:\(snapshot.historyID)",
                  "master_replid2:\(snapshot.previousHistoryID)",
                  "master_repl_offset:\(offset)",
                  "second_repl_offset:\(snapshot.previousHistoryOffset)",
                  // graphd's backlog is the retained log segments, not a memory buffer.
                  "repl_backlog_active:1",
                  "repl_backlog_size:0",
                  "repl_backlog_first_byte_offset:1",
                  "repl_backlog_histlen:\(offset)",
                  // Records this server set aside when it rejoined as a replica (docs/replication.md).
                  "graphd_diverged_records:\(snapshot.divergedRecords)"]
        return lines
    }

    /// An error message fit for one INFO line (no CR/LF, which would end the field).
    static func sanitized(_ text: String) -> String {
        String(text.map { $0 == "\r" || $0 == "\n" ? " " : $0 })
    }
}
