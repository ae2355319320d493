// ReplicationOffsets.swift — the one number INFO, ROLE and Sentinel compare between servers:
// the sum over graphs of each log's durable sequence number.

import GraphStore

/// The single number Redis-style tools compare between servers: the sum over graphs of each
/// log's durable sequence. Replicas of one primary apply the same records, so their sums
/// order them by how far they have come (Sentinel promotes the largest).
enum ReplicationOffsets {
    static func total(_ dataDirectory: DataDirectory) -> UInt64 {
        perGraph(dataDirectory).values.reduce(0, &+)
    }

    /// Each graph's durable sequence.
    static func perGraph(_ dataDirectory: DataDirectory) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for name in dataDirectory.graphNames() {
            if let store = (try? dataDirectory.graph(named: name)) ?? nil { result[name] = store.durableSequence }
        }
        return result
    }
}
