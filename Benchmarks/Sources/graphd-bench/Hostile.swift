// Hostile.swift — `graphd-bench hostile`: a victim client times a point read (a user's friend
// count) against a running graphd while attackers, one kind per phase, try to hurt it: an
// over-long query, memory bombs, slowloris half-requests, pipelined floods that never read
// (given to a Redis too with --redis-port, whose own victim is timed in the same run),
// reconnect storms, garbage frames and 32 heavy queries. A writer commits small writes through
// every phase and counts them afterwards. Each phase reports the victim's p50/p99 beside its
// baseline, what the attack got (the documented error or close), and the server's peak RSS.
// Loopback only; every phase is bounded in time. Exit 1 when an attack is not answered as
// documented, a write is lost, or the server stops answering.

import Foundation
import SocialData
import Synchronization

enum HostileCommand {
    static let flags: [String: String] = [
        "port": "graphd on 127.0.0.1:PORT, serving the graph (default 6479)",
        "graph": "the graph's name (default social); its users are :User {id} (e.g. `graphd-bench recovery --edges …`)",
        "users": "the victim reads users 0..<N (default 1000)",
        "hub": "the user the heavy queries walk two hops from (default 0)",
        "seconds": "seconds per phase (default 3)",
        "redis-port": "a Redis on 127.0.0.1:PORT that gets the same pipelined flood, its own PING victim timed beside",
        "pid": "graphd's process id, for its peak resident memory (default: found in /proc by --port)",
        "quick": "yes for a smoke run: only the bombs refused at once, 50 slowloris and 300 big-bulk connections (for CI's debug build)",
        "writes-per-second": "the writer's pace through every phase (default 50, an app's friend requests; 0: no writer)",
        "out": "result JSON path (default results/hostile-<time>.json)",
    ]

    struct Phase: Codable {
        var name: String
        var victim: LatencySummary
        var victimErrors: Int
        var attack: String
        var passed: Bool
        var peakRSSMiB: Double?
        /// For the flood: Redis's own victim under the same flood.
        var redisVictim: LatencySummary?
    }

    struct Report: Codable {
        var arguments: [String]
        var machine: MachineFacts
        var phases: [Phase] = []
        var acknowledgedWrites = 0
        var writesFound = 0
        var passed = true
        func write(to path: String) throws { try writeJSON(self, to: path) }
    }

    static func run(_ options: Options, arguments: [String]) throws -> Bool {
        let port = try options.int("port", default: 6479)
        let graph = options.string("graph", default: "social")
        let users = try options.int("users", default: 1000)
        let hub = try options.int("hub", default: 0)
        let seconds = try options.double("seconds", default: 3)
        let redisPort = options.string("redis-port").map { Int($0) ?? 0 }
        let pid = try options.string("pid").map { Int32($0) ?? 0 } ?? findProcess(port: port)
        var report = Report(arguments: arguments, machine: MachineFacts.current())
        let quick = options.string("quick", default: "no") == "yes"
        let bench = HostileBench(port: port, graph: graph, users: users, hub: hub, seconds: seconds, pid: pid, quick: quick)
        print("graphd hostile clients — 127.0.0.1:\(port), graph '\(graph)', \(seconds) s a phase; victim: "
              + "MATCH (u:User {id: $id})-[:FRIEND]-(f) RETURN count(f) on \(users) users; \(report.machine.cores) cores, \(report.machine.cpu)")
        let writer = WriterThread(port: port, graph: graph, perSecond: try options.int("writes-per-second", default: 50))
        writer.start()
        defer { writer.stop() }

        let baseline = try bench.phase("baseline", attack: { _ in "none" })
        report.phases.append(baseline)
        report.phases.append(try bench.phase("over-long query (1.1 MB) + PING", attack: bench.overLongQuery))
        report.phases.append(try bench.phase("memory bombs", attack: bench.memoryBombs))
        report.phases.append(try bench.phase("slowloris (\(quick ? 50 : 500) trickled half-requests)", attack: bench.slowloris))
        report.phases.append(try bench.phase("\(quick ? "300" : "3,000") half-sent 500 MB bulks (100 KB each)", attack: bench.bigBulks))
        var flood = try bench.phase("pipelined PING flood (4 clients, never read)", attack: { stop in try bench.flood(port: port, stop) })
        if let redisPort {
            let redis = HostileBench(port: redisPort, graph: graph, users: users, hub: hub, seconds: seconds, pid: nil, quick: quick)
            flood.redisVictim = try redis.phase("redis", attack: { stop in try redis.flood(port: redisPort, stop) }, victimPing: true).victim
        }
        report.phases.append(flood)
        report.phases.append(try bench.phase("reconnect storm (4 threads)", attack: bench.reconnectStorm))
        report.phases.append(try bench.phase("garbage frames (4 threads)", attack: bench.garbage))
        report.phases.append(try bench.phase("32 heavy queries (two hops from the hub)", attack: bench.heavyQueries))
        writer.stop()
        report.acknowledgedWrites = writer.acknowledged
        report.writesFound = try bench.countWrites()
        _ = try? RESPClient(port: port).call(["GRAPH.QUERY", graph, "MATCH (n:HostileWrite) DELETE n"])

        // The issue's acceptance: p99 ≤ 2× baseline under slowloris, ≤ baseline + Redis's own
        // victim p99 under the same flood, ≤ 5 ms under 32 heavy queries.
        let base = baseline.victim.p99
        print("")
        print(renderTable(["phase", "victim p50", "victim p99", "×baseline p99", "errors", "peak RSS", "attack got"], report.phases.map { p in
            [p.name, formatMicroseconds(p.victim.p50), formatMicroseconds(p.victim.p99),
             String(format2: base == 0 ? 0 : p.victim.p99 / base, decimals: 2) + "×", "\(p.victimErrors)",
             p.peakRSSMiB.map { String(format2: $0, decimals: 0) + " MiB" } ?? "—", p.attack]
        }))
        var targets: [(String, Bool)] = []
        for p in report.phases {
            if !p.passed { report.passed = false }
            if p.name.hasPrefix("slowloris") { targets.append(("slowloris p99 ≤ 2× baseline", p.victim.p99 <= 2 * base)) }
            if p.name.hasPrefix("32 heavy") { targets.append(("heavy queries p99 ≤ 5 ms", p.victim.p99 <= 5000)) }
            if let redis = p.redisVictim {
                print("Redis's PING victim under the same flood: p50 \(formatMicroseconds(redis.p50)), p99 \(formatMicroseconds(redis.p99))")
                targets.append(("flood p99 ≤ baseline + Redis's victim p99 (\(formatMicroseconds(base + redis.p99)))", p.victim.p99 <= base + redis.p99))
            }
            if let rss = p.peakRSSMiB, p.name == "memory bombs" { targets.append(("peak RSS after the bombs < 2 GiB", rss < 2048)) }
        }
        print("writes acknowledged \(report.acknowledgedWrites), found afterwards \(report.writesFound)")
        if report.writesFound < report.acknowledgedWrites { report.passed = false }
        for (name, met) in targets { print("\(met ? "met" : "MISSED"): \(name)") }
        let out = options.string("out", default: "results/hostile-\(Int(Date().timeIntervalSince1970)).json")
        try report.write(to: out)
        print("\nresult file: \(out)")
        print(report.passed ? "every attack got its documented answer; the server answered throughout; no write lost"
                            : "FAILED: an attack was not answered as documented, the victim failed, or a write was lost")
        return report.passed
    }

    /// The pid of the process whose command line serves `--port port` (graphd serve).
    static func findProcess(port: Int) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = Int32(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard words.first?.hasSuffix("graphd") == true, let i = words.firstIndex(of: "--port"), i + 1 < words.count,
                  words[i + 1] == "\(port)" else { continue }
            return pid
        }
        return nil
    }
}

/// One server under attack: the victim's loop and the attacks.
struct HostileBench: Sendable {
    let port: Int
    let graph: String
    let users: Int
    let hub: Int
    let seconds: Double
    let pid: Int32?
    /// A smoke run (`--quick`): fewer connections, only the bombs refused before they grow.
    let quick: Bool

    /// Runs `attack` on its own thread (it returns when `stop` is set, or when done, saying
    /// what it got) while the victim reads for `seconds`.
    func phase(_ name: String, attack: @escaping @Sendable (StopFlag) throws -> String,
               victimPing: Bool = false) throws -> HostileCommand.Phase {
        progress("phase: \(name)")
        let stop = StopFlag()
        let outcome = Mutex<(String, Bool)>(("running", true))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                let got = try attack(stop)
                outcome.withLock { $0 = (got, !got.hasPrefix("WRONG")) }
            } catch {
                outcome.withLock { $0 = ("WRONG: \(error)", false) }
            }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        let victim = try RESPClient(port: port)
        victim.setReceiveTimeout(seconds: 30)
        var samples: [UInt64] = []
        var errors = 0
        let end = nowNanoseconds() + UInt64(seconds * 1e9)
        var i = 0
        while nowNanoseconds() < end {
            let words = victimPing ? ["PING"]
                : ["GRAPH.RO_QUERY", graph, "CYPHER id=\(i % max(users, 1)) MATCH (u:User {id: $id})-[:FRIEND]-(f) RETURN count(f)"]
            let start = nowNanoseconds()
            switch try? victim.call(words) {
            case .error?, nil: errors += 1
            default: break
            }
            samples.append(nowNanoseconds() - start)
            i += 1
        }
        stop.set()
        done.wait()
        // The server still answers a fresh client.
        let alive = (try? RESPClient(port: port).call(["PING"])) == .simple("PONG")
        let (got, passed) = outcome.withLock { $0 }
        return HostileCommand.Phase(name: name, victim: LatencySummary(nanoseconds: samples), victimErrors: errors,
                                    attack: alive ? got : "server not answering; \(got)", passed: passed && alive && errors == 0,
                                    peakRSSMiB: peakRSS())
    }

    /// The server's peak resident memory (VmHWM), in MiB.
    func peakRSS() -> Double? { statusMiB("VmHWM:") }

    /// The server's resident memory now (VmRSS), in MiB.
    func residentMiB() -> Double? { statusMiB("VmRSS:") }

    /// A kB field of the server's /proc status, in MiB.
    func statusMiB(_ field: String) -> Double? {
        guard let pid, let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kb / 1024
    }

    func overLongQuery(_ stop: StopFlag) throws -> String {
        let client = try RESPClient(port: port)
        client.setReceiveTimeout(seconds: 10)
        let text = "RETURN 1 " + String(repeating: " ", count: 1_100_000)
        try client.sendRaw(RESPClient.encode(["GRAPH.QUERY", graph, text]) + RESPClient.encode(["PING"]))
        guard case .error(let message) = try client.readReply(), message.contains("longer than MAX_QUERY_LENGTH") else {
            return "WRONG: no MAX_QUERY_LENGTH error"
        }
        guard try client.readReply() == .simple("PONG") else { return "WRONG: no PONG after the error" }
        return "MAX_QUERY_LENGTH error, then PONG"
    }

    func memoryBombs(_ stop: StopFlag) throws -> String {
        let client = try RESPClient(port: port)
        let doubled = (0..<32).map { _ in "WITH s + s AS s" }.joined(separator: " ")
        let bombs = [
            "UNWIND range(1, 200000000) AS x RETURN size(collect(x))",
            "WITH range(1, 300000000) AS xs RETURN size(xs)",
            "WITH 'xxxxxxxxxxxxxxxx' AS s \(doubled) RETURN size(s)",
            "UNWIND range(1, 30000) AS a UNWIND range(1, 30000) AS b WITH collect([a, b]) AS pairs RETURN size(pairs)",
            "UNWIND range(1, 100000000) AS x WITH x ORDER BY -x RETURN count(x)",
            "UNWIND range(1, 100000000) AS x WITH DISTINCT x RETURN count(x)",
            "MATCH (a), (b), (c) RETURN collect(id(a) + id(b) + id(c))",
        ]
        var refused = 0
        var answers: [String] = []
        for bomb in quick ? Array(bombs[1...2]) : bombs {
            switch try client.call(["GRAPH.QUERY", graph, bomb]) {
            case .error(let message) where message.hasPrefix("Query's memory consumption exceeded capacity") || message.hasPrefix("Query timed out"):
                refused += 1
                answers.append(message.hasPrefix("Query timed out") ? "timeout" : "memory cap")
            case .error(let message): answers.append("other error: \(message.prefix(60))")
            default: answers.append("ANSWERED")
            }
        }
        return (refused == answers.count ? "" : "WRONG: ") + "refused \(refused)/\(answers.count) (" + answers.joined(separator: ", ") + ")"
    }

    func slowloris(_ stop: StopFlag) throws -> String {
        var clients: [RESPClient] = []
        for _ in 0..<(quick ? 50 : 500) {
            let c = try RESPClient(port: port)
            try c.sendRaw(Array("*3\r\n$11\r\nGRAPH.QUERY\r\n$".utf8))
            clients.append(c)
        }
        // Each connection trickles one more byte of its header a second, never finishing it.
        var sent = 0
        while !stop.isSet {
            for c in clients where !stop.isSet {
                try? c.sendRaw([UInt8(ascii: "1")])
                sent += 1
            }
            for _ in 0..<100 where !stop.isSet { usleep(10_000) }
        }
        return "\(clients.count) connections held open, a byte each a second (\(sent) in all)"
    }

    /// 3,000 connections each announce a 500 MB query and send 100 KB of it: longer than
    /// MAX_QUERY_LENGTH, so the server reads the bytes past without keeping them.
    func bigBulks(_ stop: StopFlag) throws -> String {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let before = residentMiB()
        let payload = [UInt8](repeating: UInt8(ascii: " "), count: 100_000)
        var clients: [RESPClient] = []
        for _ in 0..<(quick ? 300 : 3000) where !stop.isSet {
            guard let c = try? RESPClient(port: port) else { break }
            try c.sendRaw(Array("*3\r\n$11\r\nGRAPH.QUERY\r\n$\(graph.utf8.count)\r\n\(graph)\r\n$500000000\r\n".utf8) + payload)
            clients.append(c)
        }
        // One more client's round trip: the server has read what came before it.
        _ = try? RESPClient(port: port).call(["PING"])
        let grown = (residentMiB() ?? 0) - (before ?? 0)
        while !stop.isSet { usleep(10_000) }
        return "\(clients.count) connections, \(clients.count / 10) MB sent; the server grew by \(Int(grown)) MiB"
    }


    func flood(port: Int, _ stop: StopFlag) throws -> String {
        let chunk = [UInt8](repeating: 0, count: 0) + (0..<1000).flatMap { _ in Array("*1\r\n$4\r\nPING\r\n".utf8) }
        let sent = Atomic<Int>(0)
        let group = DispatchGroup()
        var clients: [RESPClient] = []
        for _ in 0..<4 { clients.append(try RESPClient(port: port)) }
        for c in clients {
            let client = UncheckedBox(c)
            group.enter()
            Thread {
                while !stop.isSet {
                    guard (try? client.value.sendRaw(chunk)) != nil else { break }
                    sent.add(1000, ordering: .relaxed)
                }
                group.leave()
            }.start()
        }
        while !stop.isSet { usleep(10_000) }
        // Senders blocked on a full socket are released by closing their connections.
        for c in clients { c.shutdownBoth() }
        group.wait()
        return "\(sent.load(ordering: .relaxed)) PINGs pipelined, none read"
    }

    func reconnectStorm(_ stop: StopFlag) throws -> String {
        let port = self.port
        let (ok, failed) = repeatedly(threads: 4, until: stop) { _, _ in
            (try? RESPClient(port: port).call(["PING"])) == .simple("PONG")
        }
        return (failed == 0 ? "" : "WRONG: \(failed) failed, ") + "\(ok) connect-PING-close cycles"
    }

    func garbage(_ stop: StopFlag) throws -> String {
        let port = self.port
        let (ok, failed) = repeatedly(threads: 4, until: stop) { thread, call in
            guard let c = try? RESPClient(port: port) else { return false }
            c.setReceiveTimeout(seconds: 5)
            // A frame the decoder must refuse: a bad multibulk count, then noise.
            var random = SeededRandom(seed: UInt64(thread) << 32 | UInt64(call))
            let noise = (0..<256).map { _ in UInt8(truncatingIfNeeded: random.next() as UInt64) }
            try? c.sendRaw(Array("*x\r\n".utf8) + noise)
            if case .error(let message)? = try? c.readReply() { return message.hasPrefix("ERR Protocol error") }
            return false
        }
        return (failed == 0 ? "" : "WRONG: \(failed) without the protocol error, ") + "\(ok) protocol errors and closes"
    }

    func heavyQueries(_ stop: StopFlag) throws -> String {
        let query = "CYPHER id=\(hub) MATCH (u:User {id: $id})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN count(DISTINCT c)"
        let graph = self.graph
        let clients = try (0..<32).map { _ in UncheckedBox(try RESPClient(port: port)) }
        let (ok, failed) = repeatedly(threads: clients.count, until: stop) { thread, _ in
            if case .array? = try? clients[thread].value.call(["GRAPH.RO_QUERY", graph, query]) { return true }
            return false
        }
        return (failed == 0 ? "" : "WRONG: \(failed) failed, ") + "\(ok) two-hop counts from user \(hub)"
    }

    /// Calls `body(thread, call)` over and over on `threads` threads until `stop` is set;
    /// counts the calls that returned true and those that returned false.
    func repeatedly(threads: Int, until stop: StopFlag,
                    _ body: @escaping @Sendable (_ thread: Int, _ call: Int) -> Bool) -> (ok: Int, failed: Int) {
        let ok = Atomic<Int>(0), failed = Atomic<Int>(0)
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                var call = 0
                while !stop.isSet {
                    if body(thread, call) { ok.add(1, ordering: .relaxed) } else { failed.add(1, ordering: .relaxed) }
                    call += 1
                }
                group.leave()
            }.start()
        }
        group.wait()
        return (ok.load(ordering: .relaxed), failed.load(ordering: .relaxed))
    }

    func countWrites() throws -> Int {
        let reply = try RESPClient(port: port).call(["GRAPH.RO_QUERY", graph, "MATCH (n:HostileWrite) RETURN count(n)"])
        guard case .array(let parts?) = reply, parts.count > 1, case .array(let rows?) = parts[1],
              case .array(let cells?)? = rows.first, case .integer(let n)? = cells.first else { return -1 }
        return n
    }
}

/// Commits `CREATE (:HostileWrite {k})` at a steady pace on its own connection until stopped,
/// counting the acknowledged ones.
final class WriterThread: @unchecked Sendable {
    private let port: Int
    private let graph: String
    private let stopping = Atomic<Bool>(false)
    private let count = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)
    private var started = false

    private let perSecond: Int

    init(port: Int, graph: String, perSecond: Int) { self.port = port; self.graph = graph; self.perSecond = perSecond }

    var acknowledged: Int { count.load(ordering: .relaxed) }

    func start() {
        guard perSecond > 0 else { return }
        started = true
        Thread { [self] in
            let interval = UInt64(1e9) / UInt64(perSecond)
            var due = nowNanoseconds()
            if let client = try? RESPClient(port: port) {
                var k = 0
                while !stopping.load(ordering: .relaxed) {
                    if case .array? = try? client.call(["GRAPH.QUERY", graph, "CREATE (:HostileWrite {k: \(k)})"]) {
                        count.add(1, ordering: .relaxed)
                    }
                    k += 1
                    due += interval
                    let now = nowNanoseconds()
                    if due > now { usleep(UInt32((due - now) / 1000)) }
                }
            }
            finished.signal()
        }.start()
    }

    func stop() {
        guard started, !stopping.exchange(true, ordering: .relaxed) else { return }
        finished.wait()
    }
}

/// Set once to end a phase's attack.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

/// Hands a non-Sendable value to one other thread, which alone uses it from then on.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
