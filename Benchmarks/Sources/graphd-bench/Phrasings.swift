// Phrasings.swift — `graphd-bench phrasings`: many seeded plain-Cypher phrasings of each social
// question (SocialData.PhrasingGenerator), each timed beside the question's `CALL social.*`
// procedure on the same sampled users, with what its plan runs on (a kernel call or the general
// executor) and its rows checked against the plan as bound (`QueryEngine(optimize: false)`).
// The planner rewrites phrasings onto the kernels; this shows which ones it reaches and what
// the others cost. A wrong answer fails the run (exit status 1, `"passed": false`); a
// reference too slow to finish in `--check-timeout` leaves the phrasing "unchecked".

import Foundation
import GraphQuery
import GraphStore
import SocialData

enum PhrasingsCommand {
    static let flags: [String: String] = [
        "data": "CSV directory (gen_social.py layout, e.g. written by `graphd-bench generate`); or use --edges",
        "edges": "a SNAP edge list (`u v` per line, e.g. Tests/Fixtures/ego-facebook/facebook_combined.txt)",
        "questions": "questions (default all): " + PhrasingQuestion.allCases.map(\.rawValue).joined(separator: ","),
        "phrasings": "phrasings per question (default 40; fewer when the generator has fewer)",
        "users": "sampled users, and pairs for mutualFriends (default 20)",
        "seed": "seed of the phrasings (default 1; question i uses seed + i)",
        "sample-seed": "seed of the sample of users and pairs (default 7, as embedded)",
        "k": "the value of $k: connections' limit, the top-degree count (default 50)",
        "check-users": "sample users (pairs) on which every phrasing's rows are compared with the plan as bound (default 3; 0 skips)",
        "check-timeout": "seconds the reference (the plan as bound) may take per query before the run is left unchecked (default 10)",
        "warmup": "untimed calls per phrasing first (default 3)",
        "passes": "timed passes over the sample (default 3)",
        "budget": "seconds per phrasing (warm-up and passes); a phrasing past it is reported with what it measured and marked slow (default 5)",
        "out": "result JSON path (default results/phrasings-<data>-<time>.json)",
        "port": "time over RESP (GRAPH.RO_QUERY with a CYPHER parameter header) against graphd on 127.0.0.1:PORT serving "
            + "the same data (`graphd-bench recovery` with the same --data/--edges writes it); default: in process",
        "graph": "the graph's name on the server (default social)",
    ]

    /// The issue's acceptance rule: a phrasing's p50 within 3× of its procedure's, or within 0.3 ms of it.
    static func withinTarget(_ p50: Double, baseline: Double) -> Bool { p50 <= max(3 * baseline, baseline + 300) }

    static func run(_ options: Options, arguments: [String]) throws -> Bool {
        guard options.string("data") != nil || options.string("edges") != nil else {
            throw UsageError("give --data DIR (a CSV data set) or --edges FILE (a SNAP edge list)")
        }
        let questions: [PhrasingQuestion] = try options.list("questions", all: PhrasingQuestion.allCases)
        let parameters = PhrasingsParameters(
            seed: UInt64(try options.int("seed", default: 1)), sampleSeed: UInt64(try options.int("sample-seed", default: 7)),
            phrasings: try options.int("phrasings", default: 40), users: try options.int("users", default: 20),
            k: try options.int("k", default: 50), checkUsers: try options.int("check-users", default: 3),
            checkTimeout: try options.double("check-timeout", default: 10), warmup: try options.int("warmup", default: 3),
            passes: try options.int("passes", default: 3), budget: try options.double("budget", default: 5),
            questions: questions.map(\.rawValue),
            transport: options.string("port").map { "RESP, 127.0.0.1:\($0)" } ?? "in process")
        guard parameters.users > 0 else { throw UsageError("--users wants at least 1") }
        guard (1...100).contains(parameters.passes) else { throw UsageError("--passes wants 1…100, got \(parameters.passes)") }
        guard parameters.budget > 0, parameters.checkTimeout > 0 else { throw UsageError("--budget and --check-timeout want more than 0") }
        if buildConfiguration == "debug" { progress("WARNING: a debug build; build with -c release for figures") }

        let (data, source, reference, store) = try loadStore(options)
        progress("loaded \(data.userCount) users, \(data.friendshipCount) friendships")
        let samples = Samples(data: data, reference: reference, seed: parameters.sampleSeed,
                              users: parameters.users, others: parameters.users)
        guard !samples.users.isEmpty else { throw UsageError("the data set has no users") }

        var report = PhrasingsReport(arguments: arguments, dataset: DatasetFacts(source: source, data: data, reference: reference),
                                     parameters: parameters, users: samples.users, pairs: samples.pairs)
        // The user with the most friends: the top degrees' yardstick is its connections procedure.
        let degree = { (u: Int) -> Int in reference.offsets[u + 1] - reference.offsets[u] }
        let hub = (0..<data.userCount).max { degree($0) < degree($1) } ?? 0
        var wire: RESPClient?
        let graphName = options.string("graph", default: "social")
        if options.string("port") != nil { wire = try RESPClient(port: try options.int("port", default: 6479)) }
        let bench = PhrasingBench(store: store, parameters: parameters, samples: samples, hub: hub, wire: wire, graph: graphName)
        try bench.checkServerData()
        print("graphd phrasings (\(parameters.transport)) — \(source): \(data.userCount) users, \(data.friendshipCount) friendships " +
              "(max degree \(report.dataset.maxDegree)); \(report.build) build; \(report.machine.cores) cores, \(report.machine.cpu)")
        print("\(samples.users.count) users (\(samples.pairs.count) pairs), \(parameters.passes) passes, $k = \(parameters.k); " +
              "rows checked against the plan as bound on \(parameters.checkUsers) users; ×proc = p50 / the procedure's p50; " +
              "plan: kernel when EXPLAIN shows a ProcedureCall, else general; rules: the planner rules EXPLAIN names")
        for (index, question) in questions.enumerated() {
            let seed = parameters.seed &+ UInt64(PhrasingQuestion.allCases.firstIndex(of: question) ?? index)
            var generator = PhrasingGenerator(seed: seed)
            let phrasings = generator.phrasings(of: question, count: parameters.phrasings)
            let figures = bench.measure(question, phrasings)
            if !figures.passed { report.passed = false }
            print("")
            print(render(figures))
            report.questions.append(figures)
        }
        print("")
        for figures in report.questions { print(summary(figures)) }
        let out = options.string("out", default: defaultResultPath(command: "phrasings", dataset: source))
        try report.write(to: out)
        print("\nresult file: \(out)")
        print(report.passed ? "every checked phrasing agrees with the plan as bound"
                            : "FAILED: some phrasings' rows differ from the plan as bound, or fail (see 'failures')")
        return report.passed
    }

    // MARK: - The table

    static func render(_ q: QuestionFigures) -> String {
        var lines = ["\(q.question): \(q.baselineNote)",
                     "procedure: p50 \(formatMicroseconds(q.baseline.p50)), p99 \(formatMicroseconds(q.baseline.p99)) " +
                     "(\(q.baseline.count) calls\(q.baseline.slow ? ", slow" : "")) — \(q.baselineQuery)"]
        let rows = q.phrasings.map { p -> [String] in
            let t = p.timing
            let p50 = t.count == 0 ? t.timedOutAfter.map { "> " + formatMicroseconds($0) } ?? "—" : formatMicroseconds(t.p50)
            return ["\(p.index)", "\(t.count)\(t.slow ? " slow" : "")", p50, t.count == 0 ? "—" : formatMicroseconds(t.p99),
                    p.ratio.map { String(format2: $0, decimals: $0 < 10 ? 2 : 0) + "×" } ?? "—", p.plan,
                    p.rules.isEmpty ? "—" : p.rules.joined(separator: ","), p.check]
        }
        var table = renderTable(["#", "calls", "p50", "p99", "×proc", "plan", "rules", "check"], rows).split(separator: "\n").map(String.init)
        table[0] += "  phrasing"
        table[1] += "  " + String(repeating: "-", count: 8)
        for (i, p) in q.phrasings.enumerated() {
            table[i + 2] += "  " + (p.text.count > 100 ? p.text.prefix(99) + "…" : p.text)
        }
        lines += table
        for p in q.phrasings where !p.failures.isEmpty {
            lines.append("  #\(p.index) \(p.check): " + p.failures.joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }

    static func summary(_ q: QuestionFigures) -> String {
        let n = q.phrasings.count
        var line = "\(q.question): \(q.withinTarget) of \(n) within max(3×, +0.3 ms) of the \(q.baselineName)"
        if let factor = q.issueFactor {
            let within = q.phrasings.filter { $0.timing.count > 0 && $0.timing.p50 <= factor * q.baseline.p50 }.count
            line += " (\(within) within the issue's \(Int(factor))×)"
        }
        line += "; \(q.onKernel) on a kernel"
        let ruled = q.phrasings.filter { $0.plan != "kernel" && !$0.rules.isEmpty }.count
        if ruled > 0 { line += " (\(ruled) more with another rule)" }
        let slow = q.phrasings.filter(\.timing.slow).count
        if slow > 0 { line += "; \(slow) slow" }
        let wrong = q.phrasings.filter { $0.check == "WRONG" || $0.check == "ERROR" }.count
        let unchecked = q.phrasings.filter { $0.check == "unchecked" }.count
        line += "; \(n - wrong - unchecked) checked, \(unchecked) unchecked, \(wrong) wrong"
        return line
    }
}

/// Times and checks the phrasings of one question on one store.
struct PhrasingBench {
    let store: GraphStore
    let parameters: PhrasingsParameters
    let samples: Samples
    /// The user with the most friends.
    let hub: Int
    /// Set with `--port`: every timed call goes over this connection.
    let wire: RESPClient?
    let graph: String
    /// The engine graphd serves with (the planner's rewrites on).
    let engine = QueryEngine()
    /// The plan exactly as bound: the reference answer of every phrasing.
    let reference = QueryEngine(optimize: false)

    /// The procedure each question is measured against; triangles and the top degrees have none,
    /// so theirs is the connections procedure (the issue's yardstick for them): for the same
    /// user, and for the top degrees, which name no user, for the user with the most friends.
    static func baseline(_ question: PhrasingQuestion) -> (text: String, note: String, name: String, issueFactor: Double?) {
        let connections = "CALL social.connections($u, {limit: $k}) YIELD user, mutual RETURN user.id, mutual"
        switch question {
        case .connections: return (connections, "people you may know, top $k by mutual friends", "procedure", nil)
        case .connectionCount:
            return ("CALL social.connections($u) YIELD user RETURN count(user)", "how many friends of friends", "procedure", nil)
        case .mutualFriends:
            return ("CALL social.mutualFriends($u, $v) YIELD friend RETURN friend.id", "mutual friends of a pair ($u, $v)", "procedure", nil)
        case .friendCount:
            return ("CALL social.friends($u) YIELD friend RETURN count(friend)", "how many friends", "procedure", nil)
        case .triangles:
            return (connections, "triangles through a user — no procedure: the baseline is social.connections for the same user "
                    + "(the issue's target: within 5× of it)", "connections procedure", 5)
        case .reach:
            return ("CALL social.connections($u) YIELD user RETURN count(user)", "how many people two hops away — no procedure: "
                    + "the baseline is the count of social.connections (the same walk) for the same user", "connection count procedure", nil)
        case .topDegree:
            return (connections, "the top $k users by degree — no procedure: the baseline is social.connections for the user "
                    + "with the most friends (the issue's target for the top 10: within 10× of it)", "hub's connections procedure", 10)
        }
    }

    /// The parameters of sample `i`: `$u` a user's app id (for mutualFriends the pair's first),
    /// `$v` the pair's other user, `$k`.
    func inputs(_ question: PhrasingQuestion) -> [[String: Value]] {
        let k = Value.integer(Int64(parameters.k))
        if question == .mutualFriends {
            return samples.pairs.map { ["u": .integer(Int64($0[0])), "v": .integer(Int64($0[1])), "k": k] }
        }
        return samples.users.enumerated().map { i, u in
            ["u": .integer(Int64(u)), "v": .integer(Int64(samples.pairs.isEmpty ? u : samples.pairs[i % samples.pairs.count][1])), "k": k]
        }
    }

    func measure(_ question: PhrasingQuestion, _ phrasings: [Phrasing]) -> QuestionFigures {
        let inputs = self.inputs(question)
        let base = Self.baseline(question)
        progress("\(question.rawValue): the procedure, then \(phrasings.count) phrasings")
        var failures: [String] = []
        let baselineInputs = question == .topDegree ? inputs.map { $0.merging(["u": .integer(Int64(hub))]) { $1 } } : inputs
        let baseline = time(base.text, baselineInputs, failures: &failures)
        var figures = QuestionFigures(question: question.rawValue, baselineQuery: base.text, baselineNote: base.note,
                                      baselineName: base.name, issueFactor: base.issueFactor, baseline: baseline,
                                      baselineFailures: failures)
        for (index, phrasing) in phrasings.enumerated() {
            var p = PhrasingFigures(index: index, text: phrasing.text, isOrdered: phrasing.isOrdered)
            do {
                p.planLines = try engine.explain(phrasing.text, on: store)
                p.plan = p.planLines.contains { $0.contains("ProcedureCall ") } ? "kernel" : "general"
                p.rules = Self.rules(p.planLines)
            } catch {
                p.plan = "error"
                p.failures.append("EXPLAIN: \(error)")
            }
            check(phrasing, Array(inputs.prefix(parameters.checkUsers)), into: &p)
            p.timing = time(phrasing.text, inputs, failures: &p.failures)
            if !p.failures.isEmpty && p.check != "WRONG" { p.check = "ERROR" }
            if p.timing.count > 0 && baseline.p50 > 0 {
                p.ratio = p.timing.p50 / baseline.p50
                p.withinTarget = PhrasingsCommand.withinTarget(p.timing.p50, baseline: baseline.p50)
            }
            progress("\(question.rawValue) #\(index): p50 \(formatMicroseconds(p.timing.p50)) \(p.plan) \(p.check)" +
                     (p.timing.slow ? " slow" : ""))
            figures.phrasings.append(p)
        }
        figures.withinTarget = figures.phrasings.filter(\.withinTarget).count
        figures.onKernel = figures.phrasings.filter { $0.plan == "kernel" }.count
        figures.passed = figures.baselineFailures.isEmpty && !figures.phrasings.contains { $0.check == "WRONG" || $0.check == "ERROR" }
        return figures
    }

    /// `text` with FalkorDB's `CYPHER name=value …` header for `input` (integers only here).
    static func withHeader(_ text: String, _ input: [String: Value]) -> String {
        let header = input.sorted { $0.key < $1.key }.map { key, value -> String in
            if case .integer(let i) = value { return "\(key)=\(i)" }
            return "\(key)=null"
        }
        return "CYPHER " + header.joined(separator: " ") + " " + text
    }

    /// Over the wire, the server must hold the data the answers are checked on: the number of
    /// connections of the first sampled users, asked both ways, must agree.
    func checkServerData() throws {
        guard let wire else { return }
        let text = "CALL social.connections($u) YIELD user RETURN count(user)"
        for input in inputs(.connections).prefix(3) {
            var local = ""
            if case .integer(let n)? = try engine.execute(text, on: store, parameters: input).rows.first?.first { local = "\(n)" }
            let reply = try wire.call(["GRAPH.RO_QUERY", graph, Self.withHeader(text, input)])
            guard case .array(let parts?) = reply, parts.count >= 2, case .array(let rows?) = parts[1],
                  case .array(let cells?)? = rows.first, case .integer(let remote)? = cells.first, "\(remote)" == local else {
                throw UsageError("the server's graph '\(graph)' does not hold the data given (\(describe(input)): \(local) in process, "
                                 + "\(reply) over the wire); write it with `graphd-bench recovery` from the same data")
            }
        }
    }

    /// The planner rules EXPLAIN names (`… (rule: degree)`): a general plan may still have one.
    static func rules(_ lines: [String]) -> [String] {
        var names: [String] = []
        for line in lines {
            var rest = Substring(line)
            while let start = rest.range(of: "(rule: ") {
                rest = rest[start.upperBound...]
                guard let end = rest.firstIndex(of: ")") else { break }
                if !names.contains(String(rest[..<end])) { names.append(String(rest[..<end])) }
                rest = rest[end...]
            }
        }
        return names
    }

    /// Compares the phrasing's rows with the plan as bound on the first check users: as lists
    /// when its rows come in a defined order, as multisets when not. A reference that runs past
    /// `--check-timeout` leaves that run unchecked; a difference, or an error in one engine
    /// only, is a failure. A phrasing without `$u` and `$v` asks the same on every user, once.
    func check(_ phrasing: Phrasing, _ inputs: [[String: Value]], into p: inout PhrasingFigures) {
        let runs = phrasing.text.contains("$u") || phrasing.text.contains("$v") ? inputs : Array(inputs.prefix(1))
        let timeout = Duration.nanoseconds(Int64(parameters.checkTimeout * 1e9))
        var wrong = false
        for input in runs {
            let expected: [[ResultValue]]
            do {
                expected = try reference.execute(phrasing.text, on: store, parameters: input, readOnly: true, timeout: timeout).rows
            } catch let error as QueryError where error.kind == .timeout {
                p.uncheckedRuns += 1
                continue
            } catch {
                p.failures.append("the plan as bound fails on \(describe(input)): \(error)")
                continue
            }
            let actual: [[ResultValue]]
            do {
                // The rewritten plan gets as long as the reference, and at least the phrasing's budget.
                actual = try engine.execute(phrasing.text, on: store, parameters: input, readOnly: true,
                                            timeout: .nanoseconds(Int64(max(parameters.checkTimeout, parameters.budget) * 1e9))).rows
            } catch let error as QueryError where error.kind == .timeout {
                p.uncheckedRuns += 1
                continue
            } catch {
                p.failures.append("fails on \(describe(input)) where the plan as bound does not: \(error)")
                continue
            }
            p.checkedRuns += 1
            if !Self.same(actual, expected, ordered: phrasing.isOrdered) {
                wrong = true
                let first = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
                func row(_ rows: [[ResultValue]]) -> String {
                    first < rows.count ? rows[first].map { "\($0)" }.joined(separator: " | ").prefix(120) + "" : "none"
                }
                p.failures.append("\(describe(input)): \(actual.count) rows, expected \(expected.count); " +
                                  "\(phrasing.isOrdered ? "" : "as a multiset; ")first difference at row \(first): " +
                                  "\(row(actual)) instead of \(row(expected))")
            }
        }
        if wrong { p.check = "WRONG" } else if p.checkedRuns > 0 { p.check = "checked" } else { p.check = "unchecked" }
    }

    static func same(_ a: [[ResultValue]], _ b: [[ResultValue]], ordered: Bool) -> Bool {
        if ordered || a.count != b.count { return a == b }
        var counts: [[ResultValue]: Int] = [:]
        for row in a { counts[row, default: 0] += 1 }
        for row in b {
            guard let n = counts[row], n > 0 else { return false }
            counts[row] = n - 1
        }
        return true
    }

    func describe(_ input: [String: Value]) -> String {
        input.sorted { $0.key < $1.key }.map { "$\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// A few untimed calls (a tenth of the budget at most), then every input once per pass, each
    /// call timed alone; the whole stops at `--budget` (each call's timeout is what is left of
    /// it), keeping what it measured and marked slow. An error other than the timeout is a failure.
    func time(_ text: String, _ inputs: [[String: Value]], failures: inout [String]) -> PhrasingTiming {
        let start = nowNanoseconds()
        let deadline = start + UInt64(parameters.budget * 1e9)
        var latencies: [UInt64] = []
        latencies.reserveCapacity(inputs.count * parameters.passes)
        var slow = false, failed = false
        /// The longest any call ran: a lower bound of the latency when no timed call finished.
        var longest: UInt64 = 0
        /// One call; nil when it stopped at the deadline or failed.
        func call(_ input: [String: Value]) -> UInt64? {
            let t0 = nowNanoseconds()
            let left = deadline > t0 ? deadline - t0 : 0
            do {
                if let wire {
                    let reply = try wire.call(["GRAPH.RO_QUERY", graph, Self.withHeader(text, input), "TIMEOUT",
                                               String(max(left / 1_000_000, 1))])
                    if case .error(let message) = reply {
                        guard message.lowercased().contains("timed out") || message.lowercased().contains("timeout") else {
                            throw RESPClientError(description: message)
                        }
                        throw QueryError(.timeout, message)
                    }
                } else {
                    _ = try engine.execute(text, on: store, parameters: input, readOnly: true,
                                           timeout: .nanoseconds(Int64(max(left, 1_000_000))))
                }
                let ns = nowNanoseconds() - t0
                longest = max(longest, ns)
                return ns
            } catch let error as QueryError where error.kind == .timeout {
                slow = true
                longest = max(longest, nowNanoseconds() - t0)
            } catch {
                failed = true
                failures.append("\(describe(input)): \(error)")
            }
            return nil
        }
        let warmupEnd = start + UInt64(parameters.budget * 1e8)
        for i in 0..<parameters.warmup where nowNanoseconds() < warmupEnd {
            if call(inputs[i % inputs.count]) == nil { break }
        }
        passes: for pass in 0..<parameters.passes where !slow && !failed {
            for (i, input) in inputs.enumerated() {
                guard let ns = call(input) else { break passes }
                latencies.append(ns)
                if nowNanoseconds() > deadline && (i + 1 < inputs.count || pass + 1 < parameters.passes) { slow = true; break passes }
            }
        }
        return PhrasingTiming(latencies, slow: slow, timedOutAfter: latencies.isEmpty && slow ? Double(longest) / 1000 : nil)
    }
}

// MARK: - The result file

/// The run's settings, as the result file records them.
struct PhrasingsParameters: Codable, Sendable {
    var seed: UInt64
    var sampleSeed: UInt64
    var phrasings: Int
    var users: Int
    var k: Int
    var checkUsers: Int
    var checkTimeout: Double
    var warmup: Int
    var passes: Int
    var budget: Double
    var questions: [String]
    /// Where the calls were timed: "in process", or "RESP, 127.0.0.1:PORT".
    var transport: String
}

/// One phrasing's (or a procedure's) timing, in microseconds.
struct PhrasingTiming: Codable, Sendable {
    var count = 0
    var p50 = 0.0
    var p99 = 0.0
    var mean = 0.0
    var max = 0.0
    /// Stopped at the budget: the figures are of the `count` calls made before it ran out.
    var slow = false
    /// When no timed call finished within the budget: the longest any call (a warm-up one, or
    /// the one stopped) ran, a lower bound of the latency.
    var timedOutAfter: Double?

    init() {}

    init(_ nanoseconds: [UInt64], slow: Bool, timedOutAfter: Double?) {
        let l = LatencySummary(nanoseconds: nanoseconds)
        (count, p50, p99, mean, max) = (l.count, l.p50, l.p99, l.mean, l.max)
        self.slow = slow
        self.timedOutAfter = timedOutAfter
    }
}

struct PhrasingFigures: Codable, Sendable {
    var index: Int
    var text: String
    var isOrdered: Bool
    /// "kernel" when EXPLAIN shows a `ProcedureCall` (the phrasings call none themselves), else "general".
    var plan = "general"
    var planLines: [String] = []
    /// The planner rules its EXPLAIN names (`connections`, `degree`, …).
    var rules: [String] = []
    var timing = PhrasingTiming()
    /// p50 / the baseline procedure's p50.
    var ratio: Double?
    /// Within max(3×, +0.3 ms) of the baseline at p50.
    var withinTarget = false
    /// "checked", "unchecked" (every reference run timed out), "WRONG" (rows differ) or "ERROR".
    var check = "unchecked"
    var checkedRuns = 0
    var uncheckedRuns = 0
    var failures: [String] = []

    init(index: Int, text: String, isOrdered: Bool) {
        self.index = index
        self.text = text
        self.isOrdered = isOrdered
    }
}

struct QuestionFigures: Codable, Sendable {
    var question: String
    var baselineQuery: String
    var baselineNote: String
    var baselineName: String
    /// The issue's own factor for a question without a procedure (triangles 5, top degree 10).
    var issueFactor: Double?
    var baseline: PhrasingTiming
    var baselineFailures: [String]
    var phrasings: [PhrasingFigures] = []
    var withinTarget = 0
    var onKernel = 0
    var passed = true
}

struct PhrasingsReport: Codable, Sendable {
    var tool = "graphd-bench"
    var command = "phrasings"
    var arguments: [String]
    var build: String
    var date: String
    var machine: MachineFacts
    var dataset: DatasetFacts
    var parameters: PhrasingsParameters
    /// The sampled users' app ids ($u), and the pairs ($u, $v) of mutualFriends.
    var users: [Int]
    var pairs: [[Int]]
    var questions: [QuestionFigures] = []
    var passed = true

    init(arguments: [String], dataset: DatasetFacts, parameters: PhrasingsParameters, users: [Int], pairs: [[Int]]) {
        self.arguments = arguments
        build = buildConfiguration
        date = ISO8601DateFormatter().string(from: Date())
        machine = MachineFacts.current()
        self.dataset = dataset
        self.parameters = parameters
        self.users = users
        self.pairs = pairs
    }

    func write(to path: String) throws {
        try writeJSON(self, to: path)
    }
}
