// ExecutorBench.swift — `graphd-bench executor`: the general executor's speed without the
// planner's rules, on expand + count grouped by node, beside the kernel the rules reach for the
// same text and the row-at-a-time executor. Each engine runs the same query text:
//   kernel      QueryEngine()                                   (rules on: a kernel call)
//   batched     QueryEngine(optimize: false, batched: true)     (no rules, the batched executor)
//   row         QueryEngine(optimize: false, batched: false)    (no rules, one row at a time)
// A rate is the query's expanded rows (the rows its aggregation counts) per second of p50.
// Every engine's rows are checked against the row engine's (sorted); a difference fails the run.

import Foundation
import GraphQuery
import GraphStore
import SocialData

enum ExecutorCommand {
    static let flags: [String: String] = [
        "data": "CSV directory (gen_social.py layout, e.g. written by `graphd-bench generate`); or use --edges",
        "edges": "a SNAP edge list (`u v` per line, e.g. Tests/Fixtures/ego-facebook/facebook_combined.txt)",
        "users": "sampled users for the two-hop question (default 20)",
        "sample-seed": "seed of the sample of users (default 7, as embedded)",
        "passes": "timed passes (default 3; the row engine runs one)",
        "out": "result JSON path (default results/executor-<data>-<time>.json)",
    ]

    /// One question: its text, and the parameters of each call (one call per sampled user, or one).
    struct Question {
        let name: String
        let text: String
        let inputs: [[String: Value]]
    }

    struct EngineFigures: Codable {
        var engine: String
        /// Summed p50 over the question's calls, in microseconds.
        var p50: Double
        var rows: Int
        var millionRowsPerSecond: Double
        var plan: String
    }

    struct QuestionFigures: Codable {
        var question: String
        var query: String
        var calls: Int
        var engines: [EngineFigures]
        var passed: Bool
    }

    struct ExecutorReport: Codable {
        var arguments: [String]
        var dataset: DatasetFacts
        var build: String
        var machine: MachineFacts
        var questions: [QuestionFigures] = []
        var passed = true
        func write(to path: String) throws { try writeJSON(self, to: path) }
    }

    static func run(_ options: Options, arguments: [String]) throws -> Bool {
        guard options.string("data") != nil || options.string("edges") != nil else {
            throw UsageError("give --data DIR (a CSV data set) or --edges FILE (a SNAP edge list)")
        }
        let passes = try options.int("passes", default: 3)
        guard (1...100).contains(passes) else { throw UsageError("--passes wants 1…100, got \(passes)") }
        if buildConfiguration == "debug" { progress("WARNING: a debug build; build with -c release for figures") }
        let (data, source, reference, store) = try loadStore(options)
        let samples = Samples(data: data, reference: reference, seed: UInt64(try options.int("sample-seed", default: 7)),
                              users: try options.int("users", default: 20), others: 0)
        var report = ExecutorReport(arguments: arguments, dataset: DatasetFacts(source: source, data: data, reference: reference),
                                    build: buildConfiguration, machine: MachineFacts.current())
        let questions = [
            Question(name: "two-hop paths per far node", text: "MATCH (u:User {id: $u})-[:FRIEND]-(f)-[:FRIEND]-(c) RETURN id(c) AS c, count(*) AS n",
                     inputs: samples.users.map { ["u": .integer(Int64($0))] }),
            Question(name: "friends per user, whole graph", text: "MATCH (a:User)-[:FRIEND]-(b) RETURN id(b) AS b, count(*) AS n", inputs: [[:]]),
            Question(name: "two-hop reach per user of a label, whole graph",
                     text: "MATCH (a:User)-[:FRIEND]->(b)-[:FRIEND]->(c) WHERE id(a) < 20000 RETURN id(a) AS a, count(*) AS n", inputs: [[:]]),
        ]
        let engines: [(String, QueryEngine)] = [("kernel", QueryEngine()), ("batched", QueryEngine(optimize: false, batched: true)),
                                                 ("row", QueryEngine(optimize: false, batched: false))]
        print("graphd executor — \(source): \(data.userCount) users, \(data.friendshipCount) friendships " +
              "(max degree \(report.dataset.maxDegree)); \(report.build) build; \(report.machine.cores) cores, \(report.machine.cpu)")
        print("rate: the rows the aggregation counts per second of the summed p50 over the question's calls; " +
              "kernel: rules on; batched, row: rules off (QueryEngine(optimize: false, batched:))")
        for question in questions {
            // The rows each call's aggregation counts: the sum of its groups' counts.
            var rows = 0
            for input in question.inputs {
                let result = try engines[0].1.execute(question.text, on: store, parameters: input)
                rows += result.rows.reduce(0) { total, row in if case .integer(let n) = row[1] { total + Int(n) } else { total } }
            }
            var figures = QuestionFigures(question: question.name, query: question.text, calls: question.inputs.count,
                                          engines: [], passed: true)
            var expected: [[String]] = []
            for input in question.inputs {
                expected.append(try engines[2].1.execute(question.text, on: store, parameters: input).rows.map { $0.map { "\($0)" }.joined(separator: " | ") }.sorted())
            }
            for (name, engine) in engines {
                let plan = try engine.explain(question.text, on: store).joined(separator: " / ")
                for (i, input) in question.inputs.enumerated() {
                    let got = try engine.execute(question.text, on: store, parameters: input).rows.map { $0.map { "\($0)" }.joined(separator: " | ") }.sorted()
                    if got != expected[i] {
                        figures.passed = false
                        progress("WRONG: \(name) on \(question.name) with \(input)")
                    }
                }
                var total = 0.0
                for input in question.inputs {
                    var samples: [UInt64] = []
                    for _ in 0..<(name == "row" ? 1 : passes) {
                        let start = nowNanoseconds()
                        _ = try engine.execute(question.text, on: store, parameters: input)
                        samples.append(nowNanoseconds() - start)
                    }
                    total += LatencySummary(nanoseconds: samples).p50
                }
                figures.engines.append(EngineFigures(engine: name, p50: total, rows: rows,
                                                     millionRowsPerSecond: total == 0 ? 0 : Double(rows) / total, plan: plan))
            }
            if !figures.passed { report.passed = false }
            print("")
            print("\(question.name) (\(question.inputs.count) call\(question.inputs.count == 1 ? "" : "s"), \(rows) rows counted) — \(question.text)")
            let kernel = figures.engines[0].p50
            print(renderTable(["engine", "p50 (summed)", "M rows/s", "×kernel", "plan"], figures.engines.map { e in
                [e.engine, formatMicroseconds(e.p50), String(format2: e.millionRowsPerSecond, decimals: 1),
                 String(format2: kernel == 0 ? 0 : e.p50 / kernel, decimals: 2) + "×",
                 e.plan.count > 70 ? String(e.plan.prefix(69)) + "…" : e.plan]
            }))
            report.questions.append(figures)
        }
        let out = options.string("out", default: defaultResultPath(command: "executor", dataset: source))
        try report.write(to: out)
        print("\nresult file: \(out)")
        print(report.passed ? "every engine's rows agree with the row-at-a-time executor's" : "FAILED: some engine's rows differ")
        return report.passed
    }
}
