// Embedded.swift — `graphd-bench embedded`: loads a data set into an in-process store, then runs
// the social mix in every form over the fixed sample, checking each answer against the reference;
// reports latency percentiles, throughput, load time and resident memory per friendship.

import GraphQuery
import GraphStore
import SocialData

enum EmbeddedCommand {
    static let flags: [String: String] = [
        "data": "CSV directory (gen_social.py layout); or use --edges or --preset",
        "edges": "a SNAP edge list (`u v` per line, e.g. ego-Facebook): users and friendships only",
        "preset": "small | medium | large, generated in memory (default small)",
        "seed": "generator seed (default 42)",
        "sample-seed": "seed of the sample of users, pairs and events (default 7)",
        "users": "sampled users for lookup/friends/connections (default 1000)",
        "others": "samples for mutual, relationships, audience, feed (default 200)",
        "ops": "operations (default all): " + Operation.allCases.map(\.rawValue).joined(separator: ","),
        "forms": "forms: kernel, procedure, cypher, falkordb (FalkorDB's phrasing, where the peers have one) (default kernel,procedure,cypher)",
        "throughput-forms": "forms of the throughput phase (default kernel,procedure; cypher too if asked)",
        "warmup": "untimed calls per phase first (default 30)",
        "passes": "timed passes over the sample (default 1: every sample once, mostly cold in cache); N > 1 runs one untimed pass over the whole sample first, as the C floor does (its figures: 5)",
        "budget": "seconds per operation and form; later samples are skipped (default 60)",
        "out": "result JSON path (default results/embedded-<data>-<time>.json)",
        "threads": "reader-thread counts for the throughput phase, e.g. 1,2 (default 1,2; 0 skips it)",
        "throughput-writer": "yes | no: also run each throughput phase with a concurrent writer thread (default yes)",
        "writer-rate": "that writer's transactions per second; 0 = flat out (default 5000, about a durable log's pace)",
        "throughput-ops": "operations of the throughput phase (default friends,connections)",
        "throughput-seconds": "seconds per operation and thread count (default 3)",
    ]

    static func run(_ options: Options, arguments: [String]) throws -> Bool {
        var ops: [Operation] = try options.list("ops", all: Operation.allCases)
        let forms: [Form] = try options.list("forms", all: Form.allCases, defaults: Form.graphd)
        let warmup = try options.int("warmup", default: 30)
        let budget = try options.double("budget", default: 60)
        let passes = try options.int("passes", default: 1)
        guard (1...100).contains(passes) else { throw UsageError("--passes wants 1…100, got \(passes)") }
        var report = RunReport(command: "embedded", arguments: arguments)
        if buildConfiguration == "debug" { progress("WARNING: a debug build; build with -c release for figures") }

        let (data, source) = try loadDataset(options)
        progress("reference: \(data.userCount) users, \(data.friendshipCount) friendships")
        // Without events (a SNAP edge list) the audience and the feed have nothing to ask.
        if data.eventCount == 0 {
            ops.removeAll { $0 == .audience || $0 == .audienceCount || $0 == .feed }
            progress("no events in this data set: the audience and feed operations are skipped")
        }
        let reference = Reference(data: data)
        report.dataset = DatasetFacts(source: source, data: data, reference: reference)

        // Load: RSS before and after, both after malloc_trim, with the CSV arrays (the reference's
        // input) resident in both, so the difference is what the graph itself holds.
        let rssBefore = residentBytes()
        let t0 = nowNanoseconds()
        var builder = GraphBuilder()
        try data.load(into: &builder)
        let store = GraphStore.inMemory(name: "social", graph: try (consume builder).build())
        let loadSeconds = Double(nowNanoseconds() - t0) / 1e9
        let rssAfter = residentBytes()
        report.load = ["seconds": loadSeconds, "rssBeforeMiB": Double(rssBefore) / 1_048_576,
                       "rssAfterMiB": Double(rssAfter) / 1_048_576,
                       "bytesPerFriendship": Double(rssAfter - rssBefore) / Double(max(1, data.friendshipCount))]
        report.extra["loadMethod"] = "SocialDataset.load(into:) a GraphBuilder, built in bulk (as graphd import and a snapshot load)"
        progress("loaded in \(String(format2: loadSeconds, decimals: 2)) s, \(String(format2: Double(rssAfter - rssBefore) / Double(max(1, data.friendshipCount)), decimals: 1)) bytes/friendship (all nodes, properties, indexes and edges included)")

        let samples = Samples(data: data, reference: reference, seed: UInt64(try options.int("sample-seed", default: 7)),
                              users: try options.int("users", default: 1000), others: try options.int("others", default: 200))
        progress("reference answers for the sample")
        let plan = MixPlan(samples: samples, reference: reference)
        report.samples = samples
        for op in Operation.allCases { report.expectedDigests[op.rawValue] = plan.expectedDigests[op]?.map(Canonical.hex) }
        report.audienceCounts = plan.audienceCounts

        let mix = try EmbeddedMix(store: store, engine: QueryEngine(), plan: plan)
        var scratch = TraversalScratch()
        for op in ops {
            for form in forms where form == .kernel || MixQueries.text(op, form) != nil {
                let result = measure(mix, op, form, warmup: warmup, passes: passes, budget: budget, scratch: &scratch)
                report.results.append(result)
                if result.mismatches > 0 { report.passed = false }
                let l = result.latency
                progress("\(op.rawValue)/\(form.rawValue): p50 \(formatMicroseconds(l.p50)), p99 \(formatMicroseconds(l.p99)), " +
                         "\(result.mismatches == 0 ? "all \(l.count) correct" : "\(result.mismatches) WRONG: \(result.failures.first ?? "")")")
            }
        }
        let threadCounts = try options.string("threads", default: "1,2").split(separator: ",").map { word -> Int in
            guard let n = Int(word), n >= 0, n <= 64 else { throw UsageError("--threads wants counts 0…64, got '\(word)'") }
            return n
        }.filter { $0 > 0 }
        let throughputOps: [Operation] = try options.string("throughput-ops") == nil ? [.friends, .connections]
            : options.list("throughput-ops", all: Operation.allCases)
        let throughputForms: [Form] = try options.string("throughput-forms") == nil ? [.kernel, .procedure]
            : options.list("throughput-forms", all: Form.allCases)
        if let form = throughputForms.first(where: { f in f != .kernel && throughputOps.contains { MixQueries.text($0, f) == nil } }) {
            throw UsageError("--throughput-forms: \(form.rawValue) has no text for every one of --throughput-ops")
        }
        let seconds = try options.double("throughput-seconds", default: 3)
        let withWriter = try options.yesNo("throughput-writer", default: true)
        let writerRate = try options.double("writer-rate", default: 5_000)
        var throughput: [OperationResult] = []
        for op in throughputOps {
            for form in throughputForms {
                for threads in threadCounts {
                    for writer in withWriter ? [false, true] : [false] {
                        let r = ReaderThroughput.measure(mix, op, form, threads: threads, seconds: seconds,
                                                                 writer: writer, writerRate: writerRate)
                        if r.mismatches > 0 { report.passed = false }
                        progress("throughput \(op.rawValue)/\(r.form): \(String(format2: r.latency.throughput, decimals: 0)) calls/s")
                        throughput.append(r)
                    }
                }
            }
        }
        report.results.append(contentsOf: throughput)
        printEmbedded(report)
        let out = options.string("out", default: defaultResultPath(command: "embedded", dataset: source))
        try report.write(to: out)
        print("\nresult file: \(out)")
        print(report.passed ? "all answers agree with the reference" : "FAILED: some answers differ from the reference (see 'failures')")
        return report.passed
    }

    /// Warm-up, then every sample once per pass (or until the budget runs out), each answer
    /// checked by its digest (no text built between timed calls). With several passes the warm-up is one untimed pass over the whole sample: the
    /// C floor's protocol (social_limit.c), so the two are timed alike.
    static func measure(_ mix: EmbeddedMix, _ op: Operation, _ form: Form, warmup: Int, passes: Int = 1, budget: Double,
                        scratch: inout TraversalScratch) -> OperationResult {
        let expected = mix.plan.expected[op] ?? []
        let digests = mix.plan.expectedDigests[op] ?? []
        var failures: [String] = []
        var mismatches = 0
        var truncated = false
        var latencies: [UInt64] = []
        latencies.reserveCapacity(expected.count * passes)
        // Warm-up gets a tenth of the budget of its own (plan cache, caches), then the timed passes the budget.
        let warmupDeadline = nowNanoseconds() + UInt64(budget * 1e8)
        for i in 0..<(passes > 1 ? expected.count : min(warmup, expected.count)) {
            _ = try? mix.call(op, form, i, scratch: &scratch)
            if nowNanoseconds() > warmupDeadline { break }
        }
        let deadline = nowNanoseconds() + UInt64(budget * 1e9)
        passes: for pass in 0..<passes {
            for i in 0..<expected.count {
                do {
                    let (ns, answer) = try mix.call(op, form, i, scratch: &scratch)
                    latencies.append(ns)
                    if Canonical.digest(answer) != digests[i] {
                        mismatches += 1
                        if failures.count < 3 {
                            failures.append("sample \(i): expected \(expected[i].prefix(160)) got \(Canonical.text(answer).prefix(160))")
                        }
                    }
                } catch {
                    mismatches += 1
                    if failures.count < 3 { failures.append("sample \(i): \(error)") }
                    if mismatches >= 3 && latencies.isEmpty { truncated = true; break passes }  // a form that cannot run at all
                }
                if nowNanoseconds() > deadline && (i + 1 < expected.count || pass + 1 < passes) { truncated = true; break passes }
            }
        }
        return OperationResult(operation: op.rawValue, form: form.rawValue, query: MixQueries.text(op, form),
                               latency: LatencySummary(nanoseconds: latencies), mismatches: mismatches,
                               failures: failures, truncated: truncated)
    }

    static func printEmbedded(_ report: RunReport) {
        if let d = report.dataset {
            print("graphd embedded — \(d.source): \(d.users) users, \(d.friendships) friendships (max degree \(d.maxDegree)), " +
                  "\(d.events) events, \(d.invitations) invitations; \(report.build) build; \(report.machine.cores) cores, \(report.machine.cpu)")
        }
        let l = report.load
        print("load \(String(format2: l["seconds"] ?? 0, decimals: 2)) s; resident memory \(String(format2: (l["rssAfterMiB"] ?? 0) - (l["rssBeforeMiB"] ?? 0), decimals: 1)) MiB = " +
              "\(String(format2: l["bytesPerFriendship"] ?? 0, decimals: 1)) bytes per friendship (RSS after load − before)\n")
        let rows = report.results.filter { !$0.form.contains("threads=") }.map { r -> [String] in
            [Operation(rawValue: r.operation)?.title ?? r.operation, r.form, "\(r.latency.count)\(r.truncated ? "*" : "")",
             formatMicroseconds(r.latency.p50), formatMicroseconds(r.latency.p95), formatMicroseconds(r.latency.p99),
             formatMicroseconds(r.latency.max), String(format2: r.latency.throughput, decimals: 0),
             r.mismatches == 0 ? "✓" : "✗ \(r.mismatches)"]
        }
        print(renderTable(["operation", "form", "calls", "p50", "p95", "p99", "max", "calls/s (1 thread)", "correct"], rows))
        if report.results.contains(where: \.truncated) { print("* stopped at the phase's time budget") }
        let threaded = report.results.filter { $0.form.contains("threads=") }
        if !threaded.isEmpty {
            print("\nread throughput, in process (readers in parallel on one store):")
            print(renderTable(["operation", "form", "calls/s", "p50", "p99", "correct"], threaded.map { r in
                [Operation(rawValue: r.operation)?.title ?? r.operation, r.form, String(format2: r.latency.throughput, decimals: 0),
                 formatMicroseconds(r.latency.p50), formatMicroseconds(r.latency.p99), r.mismatches == 0 ? "✓" : "✗ \(r.mismatches)"]
            }))
        }
    }
}
