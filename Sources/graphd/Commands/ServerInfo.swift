// ServerInfo.swift — the text of INFO: graphd's own figures (graphs, nodes,
// relationships, memory, log size, clients, commands, per-command latency) in Redis's
// `# Section` / `key:value` layout, so redis-cli and client libraries read it unchanged.

import Foundation
import Glibc
import GraphStore

/// Builds INFO's text.
enum ServerInfo {
    /// graphd's version number, as HELLO and INFO report it.
    static let versionNumber = "0.3.0"
    /// The Redis version whose commands and replies graphd follows; clients that gate
    /// features on `redis_version` see a modern server.
    static let redisCompatibleVersion = "7.2.0"
    /// HELLO's `modules` entry for `graph`: the FalkorDB release whose GRAPH.* replies
    /// graphd reproduces (4.22.1).
    static let falkorDBModuleVersion: Int64 = 42201

    /// Every section, in the order `INFO all` prints them.
    static let sections = ["server", "clients", "memory", "persistence", "stats", "replication", "graphs", "commandstats"]
    /// What plain `INFO` prints (Redis leaves commandstats out of the default too).
    static let defaultSections = ["server", "clients", "memory", "persistence", "stats", "replication", "graphs"]

    /// The INFO text for the requested section names (any case; `all`, `everything`,
    /// `default`). Unknown names contribute nothing, as in Redis.
    static func report(sections requested: [String], context: ServerContext) -> String {
        var wanted: [String]
        if requested.isEmpty {
            wanted = defaultSections
        } else {
            wanted = []
            for name in requested.map({ $0.lowercased() }) {
                switch name {
                case "all", "everything": wanted += sections
                case "default": wanted += defaultSections
                default: if sections.contains(name) { wanted.append(name) }
                }
            }
        }
        var text = ""
        var seen = Set<String>()
        for section in sections where wanted.contains(section) && seen.insert(section).inserted {
            if !text.isEmpty { text += "\r\n" }
            text += lines(section, context: context).joined(separator: "\r\n") + "\r\n"
        }
        return text
    }

    private static func lines(_ section: String, context: ServerContext) -> [String] {
        let statistics = context.statistics
        switch section {
        case "server":
            let uptime = (ContinuousClock.now - statistics.startedAt).components.seconds
            return ["# Server",
                    "redis_version:\(redisCompatibleVersion)",
                    "graphd_version:\(versionNumber)",
                    "redis_mode:standalone",
                    "os:Linux",
                    "arch_bits:\(MemoryLayout<Int>.size * 8)",
                    "multiplexing_api:epoll",
                    "process_id:\(getpid())",
                    "run_id:\(context.replication.runID)",
                    "tcp_port:\(context.port)",
                    "uptime_in_seconds:\(uptime)",
                    "uptime_in_days:\(uptime / 86400)"]
        case "clients":
            return ["# Clients",
                    "connected_clients:\(statistics.connectedClients.load(ordering: .relaxed))",
                    "feed_subscriptions:\(statistics.feedSubscriptions.load(ordering: .relaxed))",
                    "feed_subscriptions_behind:\(statistics.feedSubscriptionsBehind.load(ordering: .relaxed))",
                    "feed_closed_past_retention:\(statistics.feedClosedPastRetention.load(ordering: .relaxed))"]
        case "memory":
            let rss = residentBytes()
            return ["# Memory",
                    "used_memory_rss:\(rss)",
                    "used_memory_rss_human:\(human(rss))"]
        case "persistence":
            let logBytes = directoryBytes(context.dataDirectory.path + "/graphs")
            return ["# Persistence",
                    "graphd_data_dir:\(context.dataDirectory.path)",
                    "graphd_log_bytes:\(logBytes)",
                    "graphd_log_human:\(human(logBytes))"]
        case "stats":
            return ["# Stats",
                    "total_connections_received:\(statistics.totalConnections.load(ordering: .relaxed))",
                    "total_commands_processed:\(statistics.commandsProcessed.load(ordering: .relaxed))",
                    "rejected_connections:\(statistics.rejectedConnections.load(ordering: .relaxed))",
                    "pending_queries:\(statistics.pendingQueries.load(ordering: .relaxed))",
                    "rejected_queries_queue_full:\(statistics.shedQueries.load(ordering: .relaxed))",
                    "quick_queries:\(statistics.quickQueries.load(ordering: .relaxed))",
                    "loop_reads:\(statistics.loopReads.load(ordering: .relaxed))",
                    "loop_writes:\(statistics.loopWrites.load(ordering: .relaxed))",
                    "busy_poll_hits:\(statistics.busyPollHits.load(ordering: .relaxed))",
                    "polled_reads:\(statistics.polledReads.load(ordering: .relaxed))",
                    "follower_wakeups:\(statistics.followerWakeUps.load(ordering: .relaxed))",
                    "client_output_limit_disconnections:\(statistics.outputLimitDisconnections.load(ordering: .relaxed))",
                    "memory_ceiling_disconnections:\(statistics.memoryCeilingDisconnections.load(ordering: .relaxed))",
                    "memory_ceiling_bytes_in_use:\(context.engine.configuration.memoryCeiling?.bytesInUse ?? 0)"]
        case "replication":
            return ReplicationInfo.lines(context)
        case "graphs":
            var result = ["# Graphs"]
            let names = context.dataDirectory.graphNames()
            var totalNodes = 0, totalRelationships = 0
            var perGraph: [String] = []
            var busy = 0
            for name in names {
                guard let store = try? context.dataDirectory.graph(named: name) else { continue }
                let logBytes = directoryBytes(context.dataDirectory.path + "/graphs/" + name)
                guard let (nodes, relationships) = countsWithoutWaiting(store) else {
                    busy += 1
                    perGraph.append("graph_\(name):busy=1,log_bytes=\(logBytes)")
                    continue
                }
                totalNodes += nodes
                totalRelationships += relationships
                perGraph.append("graph_\(name):nodes=\(nodes),relationships=\(relationships),log_bytes=\(logBytes)")
            }
            if busy > 0 { result.append("graphs_busy:\(busy)") }
            result += ["graphs:\(names.count)", "nodes:\(totalNodes)", "relationships:\(totalRelationships)"]
            return result + perGraph
        case "commandstats":
            var result = ["# Commandstats"]
            for (name, counter) in statistics.commandCounters.sorted(by: { $0.key < $1.key }) {
                let perCall = counter.calls > 0 ? Double(counter.nanoseconds) / 1000 / Double(counter.calls) : 0
                result.append("cmdstat_\(name):calls=\(counter.calls),usec=\(counter.nanoseconds / 1000),"
                              + "usec_per_call=\(NumberFormatting.format("%.2f", perCall)),failed_calls=\(counter.failedCalls)")
            }
            return result
        default:
            return []
        }
    }

    /// A graph's node and relationship counts, or nil when a write has held (or awaited) its
    /// lock for longer than `busyWait`: INFO does not wait for a long write. Sentinel sends
    /// PING and INFO on one connection, so an INFO stuck behind a write would hold up the PING
    /// after it, and a healthy primary would be failed over.
    static func countsWithoutWaiting(_ store: GraphStore) -> (Int, Int)? {
        let deadline = ContinuousClock.now + busyWait
        while true {
            if let counts = store.readInPlaceIfFree({ ($0.pointee.nodeCount, $0.pointee.relationshipCount) }) { return counts }
            if ContinuousClock.now >= deadline { return nil }
            usleep(100)
        }
    }

    /// How long INFO tries for a graph's lock before it reports the graph busy.
    static let busyWait: Duration = .milliseconds(20)

    /// Resident set size from /proc/self/statm (pages × page size).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Total size of the regular files under `path`.
    static func directoryBytes(_ path: String) -> Int {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        while let entry = enumerator.nextObject() as? String {
            var info = stat()
            if stat(path + "/" + entry, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                total += Int(info.st_size)
            }
        }
        return total
    }

    /// `1.50M`, as Redis's `_human` fields print sizes.
    static func human(_ bytes: Int) -> String {
        let units = ["B", "K", "M", "G", "T"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes)B" : NumberFormatting.format("%.2f", value) + units[unit]
    }
}
