// ChangeFeedLatency.swift — `graphd-bench changes --port P [--redis-port R]`, the change feed's
// part: how long a commit takes to reach a change-feed subscriber over loopback, beside Redis's
// own PUBLISH → subscriber measured in the same run. One thread drives each pair of connections
// closed-loop (send, wait for the subscriber's message, then the reply), so no sample waits
// behind another:
//   graphd write → event   GRAPH.QUERY creating one node sent → its node-created event read on
//                          graphd:<graph>:changes (the write's execution, commit, the notifier,
//                          the feed's derivation and delivery)
//   graphd write → reply   the same write's reply (the part of the above a client sees anyway)
//   graphd PUBLISH         PUBLISH → message on graphd's plain Pub/Sub (its transport alone)
//   redis PUBLISH          the same on a real Redis (--redis-port)
// Run graphd with --fsync everysec, so that the figure is the feed's and not the disk's.

import Glibc

/// The change feed's part of `graphd-bench changes`.
enum ChangeFeedLatency {
    static let graph = "changes_feed_bench"

    static func run(port: Int, redisPort: Int?, events: Int) throws -> Bool {
        var rows: [(String, LatencySummary)] = []

        let (arrival, reply) = try feed(port: port, graph: graph, events: events)
        rows.append(("graphd write → event", arrival))
        rows.append(("graphd write → reply", reply))
        rows.append(("graphd PUBLISH → message", try publish(port: port, events: events)))
        if let redisPort { rows.append(("redis PUBLISH → message", try publish(port: redisPort, events: events))) }

        print("graphd-bench changes: \(events) events each, closed loop, one subscriber, loopback")
        print("| path | p50 | p95 | p99 | max |")
        print("|---|---|---|---|---|")
        for (name, s) in rows {
            print("| \(name) | \(formatMicroseconds(s.p50)) | \(formatMicroseconds(s.p95)) | \(formatMicroseconds(s.p99)) | \(formatMicroseconds(s.max)) |")
        }
        if let redis = rows.first(where: { $0.0.hasPrefix("redis") })?.1 {
            print("write → event p99 / redis PUBLISH p99: \(String(format2: arrival.p99 / redis.p99, decimals: 2))×")
        }
        return true
    }

    /// Write → event and write → reply, `events` times.
    static func feed(port: Int, graph: String, events: Int) throws -> (LatencySummary, LatencySummary) {
        let writer = try RESPClient(port: port), subscriber = try RESPClient(port: port)
        _ = try writer.call(["GRAPH.DELETE", graph])
        _ = try writer.call(["GRAPH.QUERY", graph, "CREATE (:Seed)"])
        try subscriber.sendRaw(RESPClient.encode(["SUBSCRIBE", "graphd:\(graph):changes"]))
        _ = try subscriber.readReply()
        var arrivals: [UInt64] = [], replies: [UInt64] = []
        arrivals.reserveCapacity(events)
        replies.reserveCapacity(events)
        for i in 0..<(events + 1000) {
            let request = RESPClient.encode(["GRAPH.QUERY", graph, "CREATE (:N {id: \(i)})"])
            let start = nowNanoseconds()
            try writer.sendRaw(request)
            let message = try subscriber.readReply()
            let arrived = nowNanoseconds()
            _ = try writer.readReply()
            let replied = nowNanoseconds()
            guard case .array(let items)? = Optional(message), case .bulk(let payload)? = items?.last,
                  payload?.contains("\"id\":\(i),") == true else {
                throw RESPClientError(description: "unexpected message for write \(i): \(message)")
            }
            if i >= 1000 {
                arrivals.append(arrived - start)
                replies.append(replied - start)
            }
        }
        _ = try writer.call(["GRAPH.DELETE", graph])
        return (LatencySummary(nanoseconds: arrivals), LatencySummary(nanoseconds: replies))
    }

    /// PUBLISH → message on a subscriber, `events` times (a payload the size of a feed event's).
    static func publish(port: Int, events: Int) throws -> LatencySummary {
        let publisher = try RESPClient(port: port), subscriber = try RESPClient(port: port)
        try subscriber.sendRaw(RESPClient.encode(["SUBSCRIBE", "bench-changes"]))
        _ = try subscriber.readReply()
        let payload = "{\"token\":\"0123456789abcdef-12345\",\"type\":\"node-created\",\"node\":12345,\"id\":12345,\"labels\":[\"N\"],\"at\":\"2026-11-28T16:00:00.000Z\"}"
        let request = RESPClient.encode(["PUBLISH", "bench-changes", payload])
        var samples: [UInt64] = []
        samples.reserveCapacity(events)
        for i in 0..<(events + 1000) {
            let start = nowNanoseconds()
            try publisher.sendRaw(request)
            _ = try subscriber.readReply()
            let arrived = nowNanoseconds()
            _ = try publisher.readReply()
            if i >= 1000 { samples.append(arrived - start) }
        }
        return LatencySummary(nanoseconds: samples)
    }
}
