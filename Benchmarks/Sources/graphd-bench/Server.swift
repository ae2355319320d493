// Server.swift — `graphd-bench server`: N client threads drive a running graphd over RESP with
// the social mix (each answer checked against the reference) and, at a chosen ratio, writes
// (a friend request, then its acceptance). Closed loop (next call when the reply arrives) or
// open loop at a target rate, latency then counted from the intended send time.

import Foundation
import GraphQuery
import GraphStore
import SocialData
import Synchronization

enum ServerCommand {
    static let flags: [String: String] = [
        "data": "CSV directory the server's graph was loaded from (for the sample and the reference); or --preset",
        "preset": "small | medium | large, generated in memory (must match the server's graph)",
        "seed": "generator seed (default 42)",
        "sample-seed": "sample seed (default 7)",
        "users": "sampled users (default 1000)",
        "others": "samples for mutual, relationships, audience, feed (default 200)",
        "port": "graphd's port on 127.0.0.1 (default 6479)",
        "graph": "graph name (default social)",
        "clients": "client threads, a list: one run per count (default 1,16)",
        "duration": "seconds per operation and client count (default 5)",
        "ops": "read operations (default all)",
        "form": "procedure | cypher | falkordb: FalkorDB's phrasing, to drive a FalkorDB server (lookup, friends, connections, mutual, audience-count) (default procedure)",
        "write-ratio": "fraction of calls in the mixed phase that are writes, 0 skips the phase (default 0.1)",
        "rate": "open loop: target calls per second over all clients; 0 = closed loop (default 0)",
        "round-trip": "yes | no: before each client count's phases, time PING alone, the protocol's round trip, and show each read's p50 beyond it (default yes)",
        "redis-port": "a Redis server on 127.0.0.1 to time the round trip on as well, as the peers' floor was timed: PING and SMEMBERS of a 50-member set, beside graphd's phases (default none)",
        "out": "result JSON path",
    ]

    static func run(_ options: Options, arguments: [String]) throws -> Bool {
        let port = try options.int("port", default: 6479)
        let graph = options.string("graph", default: "social")
        let clientCounts = try options.string("clients", default: "1,16").split(separator: ",").map { word -> Int in
            guard let n = Int(word), n > 0, n <= 1024 else { throw UsageError("--clients wants counts 1…1024, got '\(word)'") }
            return n
        }
        let duration = try options.double("duration", default: 5)
        guard let form = Form(rawValue: options.string("form", default: "procedure")), form != .kernel else {
            throw UsageError("--form is procedure, cypher or falkordb")
        }
        // By default every operation the form has a text for (shortest paths have no procedure).
        let ops: [Operation] = try options.list("ops", all: Operation.allCases,
                                                defaults: Operation.allCases.filter { MixQueries.text($0, form) != nil })
        if let op = ops.first(where: { MixQueries.text($0, form) == nil }) {
            throw UsageError("--form \(form.rawValue) has no text for \(op.rawValue); choose --ops from "
                             + Operation.allCases.filter { MixQueries.text($0, form) != nil }.map(\.rawValue).joined(separator: ","))
        }
        let writeRatio = try options.double("write-ratio", default: 0.1)
        if form == .falkordb && writeRatio > 0 {
            throw UsageError("--form falkordb reads only (its writes are graphd's procedures): add --write-ratio 0")
        }
        let rate = try options.double("rate", default: 0)
        let roundTrip = try options.yesNo("round-trip", default: true)
        let redisPort = try options.int("redis-port")
        var report = RunReport(command: "server", arguments: arguments)
        let (data, source) = try loadDataset(options)
        let reference = Reference(data: data)
        report.dataset = DatasetFacts(source: source, data: data, reference: reference)
        let samples = Samples(data: data, reference: reference, seed: UInt64(try options.int("sample-seed", default: 7)),
                              users: try options.int("users", default: 1000), others: try options.int("others", default: 200))
        let plan = MixPlan(samples: samples, reference: reference)
        report.samples = samples

        // Check the server holds this data set before measuring anything.
        let probe = try RESPClient(port: port)
        let count = try probe.call(["GRAPH.RO_QUERY", graph, "MATCH (u:User) WHERE u.id < \(data.userCount) RETURN count(u)"])
        guard case .array(let top?) = count, top.count == 3, case .array(let rows?) = top[1],
              case .array(let row?) = rows.first, case .integer(let users) = row.first, users == data.userCount else {
            throw UsageError("graph '\(graph)' on port \(port) does not hold this data set's \(data.userCount) users (reply: \(count))")
        }
        // Fresh users for the writes (ids above every existing one, so a second run on the same
        // server gets new ones too), so that no read's expected answer changes.
        let writePool = writeRatio > 0 ? 200_000 : 0
        var writeBase = 1_000_000_000
        if writePool > 0 {
            let top = try ServerCommand.rows(try probe.call(["GRAPH.RO_QUERY", graph, "MATCH (u:User) RETURN max(u.id)"]))
            writeBase = max(writeBase, int0(top.first?.first ?? .null) + 1)
            let created = try probe.call(["GRAPH.QUERY", graph,
                                          "UNWIND range(\(writeBase), \(writeBase + writePool - 1)) AS i CREATE (:User {id: i})"])
            if case .error(let message) = created { throw UsageError("cannot create the writers' fresh users: \(message)") }
        }
        if let redisPort { try RedisReference.prepare(port: redisPort) }
        defer { if let redisPort { RedisReference.clean(port: redisPort) } }
        let writeCursor = WriteCursor()
        let setup = LoadSetup(plan: plan, form: form, port: port, graph: graph, duration: duration, rate: rate,
                              writeBase: writeBase, writePool: writePool, redisPort: redisPort)
        for clients in clientCounts {
            if roundTrip {
                report.results.append(contentsOf: try drive(setup, clients: clients, reads: [], writeRatio: 0, cursor: writeCursor))
            }
            if redisPort != nil {
                for probe in [RoundTripProbe.redisPing, .redisMembers] {
                    report.results.append(contentsOf: try drive(setup, clients: clients, reads: [], probe: probe, writeRatio: 0, cursor: writeCursor))
                }
            }
            for op in ops {
                report.results.append(contentsOf: try drive(setup, clients: clients, reads: [op], writeRatio: 0, cursor: writeCursor))
            }
            if writeRatio > 0 {
                report.results.append(contentsOf: try drive(setup, clients: clients, reads: ops, writeRatio: writeRatio, cursor: writeCursor))
            }
        }
        report.passed = report.results.allSatisfy { $0.mismatches == 0 }
        print("graphd server — \(report.dataset!.source) on 127.0.0.1:\(port), \(form.rawValue) form, " +
              (rate > 0 ? "open loop at \(Int(rate))/s" : "closed loop") + "; harness \(report.build) build")
        // A read's p50 beyond PING's at the same client count: what the server and the reply
        // add to the round trip, the part graphd controls of the wire target (the C floor plus
        // the round trip plus 20%). Redis's rows (with --redis-port) are that round trip as
        // Benchmarks/anchors/limit/resp_floor.sh measures it.
        let pingP50 = Dictionary(report.results.filter { $0.operation == RoundTripProbe.ping.rawValue }.map { ($0.form.split(separator: " ").last ?? "", $0.latency.p50) },
                                 uniquingKeysWith: { a, _ in a })
        // "server p50": the server's own execution time (from its replies), so that the rest of
        // p50 − PING is visibly the reply's bytes, the hand-offs and the client's decoding.
        print(renderTable(["operation", "clients", "phase", "calls", "calls/s", "p50", "p50 − PING", "server p50", "p95", "p99", "max", "wrong/errors"],
                          report.results.map { r in
                              let parts = r.form.split(separator: " ")
                              let beyond = RoundTripProbe(rawValue: r.operation) != nil ? "–" : pingP50[parts.last ?? ""].map { formatMicroseconds(r.latency.p50 - $0) } ?? "–"
                              return [Operation(rawValue: r.operation)?.title ?? RoundTripProbe(rawValue: r.operation)?.title ?? r.operation, String(parts.last ?? ""), String(parts.first ?? ""),
                                      "\(r.latency.count)", String(format2: r.latency.throughput, decimals: 0),
                                      formatMicroseconds(r.latency.p50), beyond, r.serverTime.map { formatMicroseconds($0.p50) } ?? "–",
                                      formatMicroseconds(r.latency.p95),
                                      formatMicroseconds(r.latency.p99), formatMicroseconds(r.latency.max), "\(r.mismatches)"]
                          }))
        let out = options.string("out", default: defaultResultPath(command: "server", dataset: source))
        try report.write(to: out)
        print("\nresult file: \(out)")
        print(report.passed ? "all answers agree with the reference" : "FAILED: wrong answers or errors (see 'failures')")
        return report.passed
    }

    /// Runs `clients` threads for the duration and returns one result per operation seen; with
    /// no reads, they send the probe instead (a round-trip phase).
    static func drive(_ setup: LoadSetup, clients: Int, reads: [Operation], probe: RoundTripProbe = .ping, writeRatio: Double,
                      cursor: WriteCursor) throws -> [OperationResult] {
        let phase = writeRatio > 0 ? "mixed" : "single"
        progress("\(phase) \(reads.isEmpty ? probe.rawValue : reads.count == 1 ? reads[0].rawValue : "mix"), \(clients) client(s), \(setup.duration) s")
        let collected = Mutex<[ThreadTally]>([])
        let started = nowNanoseconds()
        let threads = (0..<clients).map { t in
            Thread {
                let tally = worker(setup, thread: t, clients: clients, reads: reads, probe: probe, writeRatio: writeRatio, cursor: cursor)
                collected.withLock { $0.append(tally) }
            }
        }
        for thread in threads { thread.stackSize = 1 << 20; thread.start() }
        while collected.withLock({ $0.count }) < clients { usleep(20_000) }
        let wall = nowNanoseconds() - started
        let tallies = collected.withLock { $0 }
        var names = reads.isEmpty ? [probe.rawValue] : reads.map(\.rawValue)
        if writeRatio > 0 { names.append("write") }
        return names.compactMap { name in
            let lat = tallies.flatMap { $0.latencies[name] ?? [] }
            guard !lat.isEmpty || tallies.contains(where: { ($0.errors[name] ?? 0) > 0 }) else { return nil }
            let wrong = tallies.reduce(0) { $0 + ($1.errors[name] ?? 0) }
            let serverTimes = tallies.flatMap { $0.latencies[name + Self.serverTimeSuffix] ?? [] }
            return OperationResult(operation: name, form: "\(phase) \(setup.form.rawValue) c=\(clients)", query: nil,
                                   latency: LatencySummary(nanoseconds: lat, wallNanoseconds: wall), mismatches: wrong,
                                   failures: Array(tallies.flatMap(\.failures).filter { $0.hasPrefix(name) }.prefix(3)),
                                   truncated: false,
                                   serverTime: serverTimes.isEmpty ? nil : LatencySummary(nanoseconds: serverTimes))
        }
    }

    /// One client thread: its own connection, its slice of the sample, checked answers.
    static func worker(_ setup: LoadSetup, thread t: Int, clients: Int, reads: [Operation], probe: RoundTripProbe,
                       writeRatio: Double, cursor: WriteCursor) -> ThreadTally {
        var tally = ThreadTally()
        let client: RESPClient
        let port = reads.isEmpty && probe.asksRedis ? setup.redisPort ?? setup.port : setup.port
        do { client = try RESPClient(port: port) } catch {
            tally.record(error: "connect", "connect: \(error)")
            return tally
        }
        var random = SeededRandom(seed: UInt64(t) &* 7919 &+ 1)
        let interval = setup.rate > 0 ? UInt64(Double(clients) / setup.rate * 1e9) : 0
        let start = nowNanoseconds()
        let end = start + UInt64(setup.duration * 1e9)
        var k = 0
        var index = [Operation: Int]()
        while true {
            var t0 = nowNanoseconds()
            if interval > 0 {
                let intended = start + UInt64(k) * interval
                if intended > t0 { usleep(UInt32((intended - t0) / 1000)) }
                t0 = intended  // open loop: a late reply counts from when the call was due
            }
            if t0 >= end { break }
            k += 1
            if writeRatio > 0 && random.unit() < writeRatio {
                let w = cursor.take()
                guard 2 * w + 1 < setup.writePool else { tally.record(error: "write", "write: pool of fresh users used up"); break }
                let a = setup.writeBase + 2 * w, b = a + 1
                do {
                    let sent = try outcome(client, setup.graph, "CALL social.sendRequest(\(a), \(b)) YIELD outcome RETURN outcome")
                    let accepted = try outcome(client, setup.graph, "CALL social.acceptRequest(\(b), \(a)) YIELD outcome RETURN outcome")
                    tally.latencies["write", default: []].append(nowNanoseconds() - t0)
                    if sent != "SENT" || accepted != "FRIENDS" {
                        tally.record(error: "write", "write: outcomes \(sent), \(accepted) for \(a)→\(b)")
                    }
                } catch {
                    tally.record(error: "write", "write: \(error)")
                }
                continue
            }
            if reads.isEmpty {
                do {
                    let reply = try client.call(probe.request)
                    tally.latencies[probe.rawValue, default: []].append(nowNanoseconds() - t0)
                    if let wrong = probe.check(reply) { tally.record(error: probe.rawValue, wrong) }
                } catch {
                    tally.record(error: probe.rawValue, "\(probe.rawValue): \(error)")
                }
                continue
            }
            let op = reads[k % reads.count]
            let n = setup.plan.count(op)
            guard n > 0 else { continue }
            let i = (t + clients * index[op, default: 0]) % n
            index[op, default: 0] += 1
            do {
                // The text is made before the clock starts: the harness's own string work is not
                // the server's latency.
                let request = ["GRAPH.RO_QUERY", setup.graph, setup.text(op, i)]
                if interval == 0 { t0 = nowNanoseconds() }
                let reply = try client.call(request)
                let elapsed = nowNanoseconds() - t0
                let answer = try rows(reply)
                tally.latencies[op.rawValue, default: []].append(elapsed)
                if let serverTime = internalExecutionTime(reply) {
                    tally.latencies[op.rawValue + Self.serverTimeSuffix, default: []].append(serverTime)
                }
                let write: MixAnswer = { MixPlan.canonical(op, rows: answer, into: &$0) }
                if Canonical.digest(write) != setup.plan.expectedDigests[op]![i] {
                    tally.record(error: op.rawValue, "\(op.rawValue) sample \(i): expected \(setup.plan.expected[op]![i].prefix(120)) got \(Canonical.text(write).prefix(120))")
                }
            } catch {
                tally.record(error: op.rawValue, "\(op.rawValue) sample \(i): \(error)")
            }
        }
        return tally
    }

    static func outcome(_ client: RESPClient, _ graph: String, _ query: String) throws -> String {
        let r = try rows(try client.call(["GRAPH.QUERY", graph, query]))
        return r.first.map { text0($0[0]) } ?? "no row"
    }

    /// Names the server-reported execution times of an operation's calls in a `ThreadTally`.
    static let serverTimeSuffix = "#server"

    /// The "Query internal execution time: X milliseconds" of a verbose reply, in nanoseconds.
    static func internalExecutionTime(_ reply: RESPReply) -> UInt64? {
        guard case .array(let top?) = reply, top.count == 3, case .array(let statistics?) = top[2] else { return nil }
        let prefix = "Query internal execution time: "
        for case .bulk(let line?) in statistics where line.hasPrefix(prefix) {
            guard let milliseconds = Double(line.dropFirst(prefix.count).prefix { $0 != " " }) else { return nil }
            return UInt64(milliseconds * 1e6)
        }
        return nil
    }

    /// The rows of a verbose GRAPH.QUERY reply as result values (bulk true/false as booleans).
    static func rows(_ reply: RESPReply) throws -> [[ResultValue]] {
        if case .error(let message) = reply { throw RESPClientError(description: "server error: \(message)") }
        guard case .array(let top?) = reply, top.count == 3, case .array(let rows?) = top[1] else {
            throw RESPClientError(description: "not a result set: \(reply)")
        }
        return rows.map { row in
            guard case .array(let cells?) = row else { return [] }
            return cells.map { cell in
                switch cell {
                case .integer(let v): return .integer(Int64(v))
                case .bulk(nil): return .null
                case .bulk("true"): return .bool(true)
                case .bulk("false"): return .bool(false)
                case .bulk(let s?): return .string(s)
                default: return .string("\(cell)")
                }
            }
        }
    }
}

/// What every client thread shares (read-only).
struct LoadSetup: Sendable {
    let plan: MixPlan
    let form: Form
    let port: Int
    let graph: String
    let duration: Double
    let rate: Double
    let writeBase: Int
    let writePool: Int
    /// The reference Redis server's port (`--redis-port`), if one is timed.
    let redisPort: Int?

    /// The query text with FalkorDB's `CYPHER name=value` parameter header.
    func text(_ op: Operation, _ i: Int) -> String {
        let header = plan.parameters(op, i).sorted { $0.key < $1.key }.map { "\($0.key)=\(literal($0.value))" }.joined(separator: " ")
        return "CYPHER \(header) " + (MixQueries.text(op, form) ?? "")
    }

    private func literal(_ v: Value) -> String {
        switch v {
        case .integer(let x): "\(x)"
        case .list(let xs): "[" + xs.map(literal).joined(separator: ",") + "]"
        default: "null"
        }
    }
}

/// One thread's latencies and errors per operation name.
struct ThreadTally: Sendable {
    var latencies: [String: [UInt64]] = [:]
    var errors: [String: Int] = [:]
    var failures: [String] = []

    mutating func record(error name: String, _ message: String) {
        errors[name, default: 0] += 1
        if failures.count < 3 { failures.append(message) }
    }
}

/// Hands out write numbers across threads: write w uses fresh users base + 2w and base + 2w + 1.
final class WriteCursor: Sendable {
    private let next = Atomic<Int>(0)
    func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
}
