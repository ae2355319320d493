// ChangeFeedLatency.swift — `graphd-bench changes --port P [--redis-port R]`, the change feed's
// part: how long a commit takes to reach a change-feed subscriber over loopback, beside Redis's
// own PUBLISH → subscriber measured in the same run. One thread drives each pair of connections
// closed-loop, so no sample waits behind another. It blocks on the one reply it times, then reads
// the other: a wake-up of its own for a second message would be counted in the second one's time.
// So the write is timed twice, in two passes:
//   graphd write → event   GRAPH.QUERY creating one node sent → its node-created event read on
//                          graphd:<graph>:changes (the write's execution, commit, the notifier,
//                          the feed's derivation and delivery)
//   graphd write → reply   the same write's reply, the event read after it (the part of the
//                          above a client waits for anyway: the write itself)
//   graphd PUBLISH         PUBLISH → message on graphd's plain Pub/Sub (its transport alone)
//   redis PUBLISH          the same on a real Redis (--redis-port)
// With --idle-subscribers N, N more connections each subscribe to a user channel of the graph
// first (no event is for them): the server's RSS growth per idle subscriber is reported, and the
// latencies are measured with them connected.
// With --paused-events N: writes/s of N pipelined writes without a subscriber, then of N more
// while one subscriber to graphd:<graph>:changes reads nothing, graphd's RSS growth meanwhile,
// whether that subscriber, reading again, gets all N events in order, and then of N more
// without a subscriber again (the graph grows by N nodes a phase, so the paused phase is compared
// with the mean of the two around it). Beside each rate, graphd's CPU time per write (from
// /proc/<pid>/stat: the same machine), which other processes' load disturbs less than a rate.
// Run graphd with --fsync everysec, so that the figure is the feed's and not the disk's.

import Glibc

/// The change feed's part of `graphd-bench changes`.
enum ChangeFeedLatency {
    static let graph = "changes_feed_bench"

    static func run(port: Int, redisPort: Int?, events: Int, idleSubscribers: Int = 0, pausedEvents: Int = 0) throws -> Bool {
        if pausedEvents > 0 { return try paused(port: port, events: pausedEvents) }
        var rows: [(String, LatencySummary)] = []
        let idle = try IdleSubscribers(port: port, graph: graph, count: idleSubscribers)
        defer { idle.close() }

        let arrival = try feed(port: port, graph: graph, events: events, timingEvent: true)
        let reply = try feed(port: port, graph: graph, events: events, timingEvent: false)
        _ = try RESPClient(port: port).call(["GRAPH.DELETE", graph])
        rows.append(("graphd write → event", arrival))
        rows.append(("graphd write → reply", reply))
        rows.append(("graphd PUBLISH → message", try publish(port: port, events: events)))
        if let redisPort { rows.append(("redis PUBLISH → message", try publish(port: redisPort, events: events))) }

        print("graphd-bench changes: \(events) events each, closed loop, one subscriber, loopback"
              + (idleSubscribers > 0 ? ", \(idleSubscribers) idle subscribers connected" : ""))
        if idleSubscribers > 0 {
            print("idle subscribers: \(idleSubscribers), graphd RSS +\(idle.rssGrowth) bytes, \(idle.rssGrowth / idleSubscribers) B each")
        }
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

    /// Write → event (`timingEvent`) or write → reply, `events` times.
    static func feed(port: Int, graph: String, events: Int, timingEvent: Bool) throws -> LatencySummary {
        let writer = try RESPClient(port: port), subscriber = try RESPClient(port: port)  // the graph: IdleSubscribers made it
        try subscriber.sendRaw(RESPClient.encode(["SUBSCRIBE", "graphd:\(graph):changes"]))
        _ = try subscriber.readReply()
        var samples: [UInt64] = []
        samples.reserveCapacity(events)
        for i in 0..<(events + 1000) {
            let request = RESPClient.encode(["GRAPH.QUERY", graph, "CREATE (:N {id: \(i)})"])
            let start = nowNanoseconds()
            try writer.sendRaw(request)
            let message: RESPReply, done: UInt64
            if timingEvent {
                message = try subscriber.readReply()
                done = nowNanoseconds()
                _ = try writer.readReply()
            } else {
                _ = try writer.readReply()
                done = nowNanoseconds()
                message = try subscriber.readReply()
            }
            guard case .array(let items)? = Optional(message), case .bulk(let payload)? = items?.last,
                  payload?.contains("\"id\":\(i),") == true else {
                throw RESPClientError(description: "unexpected message for write \(i): \(message)")
            }
            if i >= 1000 { samples.append(done - start) }
        }
        return LatencySummary(nanoseconds: samples)
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

extension ChangeFeedLatency {
    /// The paused-subscriber run (see the file's header); true when the subscriber got everything in order.
    static func paused(port: Int, events: Int) throws -> Bool {
        let control = try RESPClient(port: port), writer = try RESPClient(port: port)
        _ = try control.call(["GRAPH.DELETE", graph])
        _ = try control.call(["GRAPH.QUERY", graph, "CREATE (:Seed)"])
        let pid = try IdleSubscribers.info(control, "server", "process_id")
        var cpu: [Double] = []
        func write(_ first: Int) throws -> Double {
            let cpuBefore = cpuSeconds(pid)
            defer { cpu.append((cpuSeconds(pid) - cpuBefore) / Double(events) * 1e6) }
            let start = nowNanoseconds()
            var i = first
            while i < first + events {
                let n = min(200, first + events - i)
                var batch: [UInt8] = []
                for k in i..<(i + n) { batch += RESPClient.encode(["GRAPH.QUERY", graph, "CREATE (:N {id: \(k)})"]) }
                try writer.sendRaw(batch)
                for _ in 0..<n { _ = try writer.readReply() }
                i += n
            }
            return Double(events) / (Double(nowNanoseconds() - start) / 1e9)
        }
        let start = try IdleSubscribers.rss(control)
        let baseline = try write(0)
        let baselineGrowth = try IdleSubscribers.rss(control) - start
        let subscriber = try RESPClient(port: port)
        try subscriber.sendRaw(RESPClient.encode(["SUBSCRIBE", "graphd:\(graph):changes"]))
        _ = try subscriber.readReply()
        let before = try IdleSubscribers.rss(control)
        let withPaused = try write(events)
        let pausedRSS = try IdleSubscribers.rss(control)
        var expected = events, inOrder = true
        let resumed = nowNanoseconds()
        for _ in 0..<events {
            guard case .array(let items?) = try subscriber.readReply(), case .bulk(let payload?)? = items.last,
                  payload.contains("\"id\":\(expected),") else { inOrder = false; break }
            expected += 1
        }
        let drained = Double(nowNanoseconds() - resumed) / 1e9
        // Gone before the last phase (bounded wait: the server sees the close at once).
        subscriber.shutdownBoth()
        let deadline = nowNanoseconds() + 10_000_000_000
        while try IdleSubscribers.feedSubscriptions(control) > 0 && nowNanoseconds() < deadline { usleep(1000) }
        let after = try write(2 * events)
        _ = try control.call(["GRAPH.DELETE", graph])
        let around = (baseline + after) / 2, cpuAround = (cpu[0] + cpu[2]) / 2
        func µs(_ value: Double) -> String { String(format2: value, decimals: 1) + " µs" }
        print("graphd-bench changes, paused subscriber: \(events) writes each, pipelined 200 at a time")
        print("| figure | value |")
        print("|---|---|")
        print("| writes/s, no subscriber, before / after | \(Int(baseline)) / \(Int(after)) |")
        print("| writes/s, one subscriber on changes reading nothing | \(Int(withPaused)) (\(String(format2: (1 - withPaused / around) * 100, decimals: 1))% fewer than the mean around it) |")
        print("| graphd CPU per write, no subscriber, before / after | \(µs(cpu[0])) / \(µs(cpu[2])) |")
        print("| graphd CPU per write, one subscriber reading nothing | \(µs(cpu[1])) (\(String(format2: (cpu[1] / cpuAround - 1) * 100, decimals: 1))% more) |")
        print("| graphd RSS growth, no subscriber (the graph's own) | \(baselineGrowth) bytes |")
        print("| graphd RSS growth, one subscriber reading nothing | \(pausedRSS - before) bytes |")
        print("| events received on resuming, in order | \(expected - events) of \(events)\(inOrder ? "" : " (out of order or missing)") in \(String(format2: drained, decimals: 2)) s |")
        return inOrder && expected == 2 * events
    }
}

/// User and system CPU seconds process `pid` has used.
func cpuSeconds(_ pid: Int) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return 0 }
    // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Connections that each subscribe to one user channel and then only wait (raw sockets: a
/// RESPClient's 64 KB buffer each would make the harness the memory hog).
final class IdleSubscribers {
    private var descriptors: [Int32] = []
    /// How much graphd's RSS grew while they subscribed (INFO memory).
    private(set) var rssGrowth = 0

    init(port: Int, graph: String, count: Int) throws {
        let control = try RESPClient(port: port)
        _ = try control.call(["GRAPH.DELETE", graph])
        _ = try control.call(["GRAPH.QUERY", graph, "CREATE (:Seed)"])
        guard count > 0 else { return }
        let before = try Self.rss(control)
        let subscribed = try Self.feedSubscriptions(control)
        for i in 0..<count {
            let fd: Int32
            do { fd = try RESPClient.connectLoopback(port: port) } catch {
                throw RESPClientError(description: "\(error) after \(i) subscribers")
            }
            descriptors.append(fd)
            let request = RESPClient.encode(["SUBSCRIBE", "graphd:\(graph):user:\(1_000_000 + i)"])
            guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                throw RESPClientError(description: "send failed after \(i) subscribers")
            }
        }
        // Wait (bounded) until the server holds them all, then measure.
        let deadline = nowNanoseconds() + 60_000_000_000
        while try Self.feedSubscriptions(control) < subscribed + count {
            guard nowNanoseconds() < deadline else { throw RESPClientError(description: "the subscriptions were not all made in 60 s") }
            usleep(10_000)  // polling a condition, with a deadline
        }
        rssGrowth = try Self.rss(control) - before
    }

    func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors = []
    }

    static func info(_ client: RESPClient, _ section: String, _ field: String) throws -> Int {
        guard case .bulk(let text?) = try client.call(["INFO", section]),
              let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix(field + ":") }),
              let value = Int(line.dropFirst(field.count + 1)) else {
            throw RESPClientError(description: "INFO \(section) has no \(field)")
        }
        return value
    }

    static func rss(_ client: RESPClient) throws -> Int { try info(client, "memory", "used_memory_rss") }
    static func feedSubscriptions(_ client: RESPClient) throws -> Int { try info(client, "clients", "feed_subscriptions") }
}
