// TCKTests.swift — runs the openCypher TCK (Tests/Fixtures/tck, vendored with its licence) on
// graphd's query engine: every scenario on a fresh in-memory graph, its setup queries, its
// query with its parameters, and its expectation (rows in order or in any order, an empty
// result, an error, the side effects). Scenarios are sorted into tiers by the features their
// queries use (TCKTier). The test fails when a scenario that is not in
// Tests/Fixtures/tck/expected-failures.txt fails, or when one listed there passes: the list
// only shrinks. `GRAPHD_TCK_REPORT=path` writes the failures found, with their reasons, in the
// list's format.

import Foundation
import GraphStore
import GraphTestSupport
import Testing
@testable import GraphQuery

/// The tier of a scenario, by the features its queries use (setup included), as the TCK's
/// README in Tests/Fixtures/tck defines them: 1, the core clauses and basic expressions; 2,
/// everything else but temporal and spatial values; 3, all. Found by scanning the query text.
struct TCKTier {
    let temporal = try! Regex(#"(?i)\b(date|time|datetime|localtime|localdatetime|duration|point|distance)(\.\w+)?\s*\("#)
    let level2 = [
        #"(?i)\boptional\s+match\b"#, #"(?i)\bremove\b"#, #"(?i)\bunion\b"#, #"(?i)\bcall\b"#, #"(?i)\bcase\b"#,
        #"(?i)\bforeach\b"#, #"(?i)\b(all)?shortestpath\b"#, #"(?i)\breduce\s*\("#, #"(?i)\bexists\b"#,
        #"(?i)\b(any|all|none|single)\s*\(\s*\w+\s+in\b"#, #"(?i)\[\s*\w+\s+in\b"#, #"\[\s*\("#,
        #"(?i)\b\w+\s*=\s*\(\s*\w*\s*(:\w+)*\s*(\{[^}]*\})?\s*\)\s*(-|<)"#,
        #"(?i)\b(nodes|relationships|length)\s*\("#,
        #"(?i)(where|and|or|not|xor)\s*\(\s*\w*\s*(:\w+)*\s*\)\s*(-|<)"#,
    ].map { try! Regex($0) }

    func tier(of scenario: TCKScenario) -> Int {
        let text = scenario.steps.compactMap(\.docString).joined(separator: "\n")
        if text.contains(temporal) { return 3 }
        if level2.contains(where: { text.contains($0) }) { return 2 }
        return 1
    }
}

/// What running one scenario found: nil when it passed, else why it failed.
struct TCKRun {
    static let directory = Fixtures.directory.appendingPathComponent("tck")

    static func run(_ scenario: TCKScenario) -> String? {
        let store = GraphStore.inMemory()
        // The procedures the scenario declares join the standard ones.
        var procedures = ProcedureRegistry.standard
        for step in scenario.steps where step.text.hasPrefix("there exists a procedure ") {
            guard let procedure = TCKProcedure(declaration: String(step.text.dropFirst("there exists a procedure ".count)),
                                               table: step.table ?? []) else { return "procedure declaration not understood" }
            procedures.register(procedure)
        }
        let engine = QueryEngine(procedures: procedures)
        var parameters: [String] = []
        var result: QueryResult?
        var failure: QueryError?
        var ranQuery = false
        var effects: [String: Int] = [:]
        for step in scenario.steps {
            let text = step.text
            do {
                if text.hasPrefix("an empty graph") || text.hasPrefix("any graph") {
                    continue
                } else if text.hasPrefix("the "), text.hasSuffix(" graph") {
                    let name = String(text.dropFirst(4).dropLast(6))
                    let script = directory.appendingPathComponent("graphs/\(name)/\(name).cypher")
                    guard let setup = try? String(contentsOf: script, encoding: .utf8) else { return "named graph \(name) missing" }
                    _ = try engine.execute(setup, on: store)
                } else if text.hasPrefix("having executed") {
                    _ = try engine.execute(step.docString ?? "", on: store)
                } else if text.hasPrefix("parameters are") {
                    for row in step.table ?? [] where row.count == 2 { parameters.append("\(row[0])=\(row[1])") }
                } else if text.hasPrefix("there exists a procedure") {
                    continue  // registered above
                } else if text.hasPrefix("executing query") || text.hasPrefix("executing control query") {
                    ranQuery = true
                    let header = parameters.isEmpty ? "" : "CYPHER " + parameters.joined(separator: " ") + " "
                    let before = GraphSnapshot(store, engine)
                    switch execute(engine, store, header + (step.docString ?? "")) {
                    case .success(let r): (result, failure) = (r, nil)
                    case .failure(let e): (result, failure) = (nil, e)
                    }
                    effects = GraphSnapshot(store, engine).effects(since: before)
                } else if text.hasPrefix("the result should be empty") {
                    if let failure { return "error instead of an empty result: \(failure.message)" }
                    if let rows = result?.rows, !rows.isEmpty { return "\(rows.count) rows instead of none" }
                } else if text.hasPrefix("the result should be") {
                    if let failure { return "error instead of rows: \(failure.message)" }
                    guard let result else { return "no result" }
                    if let problem = compare(result, step.table ?? [], ordered: text.contains("in order"),
                                             ignoringListOrder: text.contains("ignoring element order")) {
                        return problem
                    }
                } else if text.hasPrefix("a "), text.contains("should be raised") {
                    guard ranQuery else { return "no query ran" }
                    if failure == nil { return "ran instead of raising \(text.split(separator: " ")[1])" }
                } else if text.hasPrefix("no side effects") {
                    if failure == nil, let problem = sideEffects(effects, []) { return problem }
                } else if text.hasPrefix("the side effects should be") {
                    if let failure { return "error instead of side effects: \(failure.message)" }
                    if let problem = sideEffects(effects, step.table ?? []) { return problem }
                } else {
                    return "step not understood: \(text)"
                }
            } catch let error as QueryError {
                return "setup failed: \(error.message)"
            } catch {
                return "setup failed: \(error)"
            }
        }
        return nil
    }

    static func execute(_ engine: QueryEngine, _ store: GraphStore, _ text: String) -> Result<QueryResult, QueryError> {
        do throws(QueryError) { return .success(try engine.execute(text, on: store)) } catch { return .failure(error) }
    }

    static func compare(_ result: QueryResult, _ table: [[String]], ordered: Bool, ignoringListOrder: Bool) -> String? {
        guard let header = table.first else { return "no expected table" }
        if result.columns != header { return "columns \(result.columns) instead of \(header)" }
        var expected: [String] = []
        for row in table.dropFirst() {
            var cells: [String] = []
            for cell in row {
                guard let c = TCKValue.canonical(cell, ignoringListOrder: ignoringListOrder) else { return "expected value not understood: \(cell)" }
                cells.append(c)
            }
            expected.append(cells.joined(separator: " | "))
        }
        var actual = result.rows.map { $0.map { TCKValue.canonical($0, ignoringListOrder: ignoringListOrder) }.joined(separator: " | ") }
        if !ordered {
            expected.sort()
            actual.sort()
        }
        if actual != expected {
            let first = zip(actual, expected).first { $0 != $1 }
            return "rows differ (\(actual.count) instead of \(expected.count))" + (first.map { ": \($0.0) instead of \($0.1)" } ?? "")
        }
        return nil
    }

    static func sideEffects(_ actual: [String: Int], _ table: [[String]]) -> String? {
        var expected: [String: Int] = [:]
        for row in table where row.count == 2 { expected[row[0]] = Int(row[1]) ?? 0 }
        let different = Set(actual.keys).union(expected.keys).sorted().filter { (actual[$0] ?? 0) != (expected[$0] ?? 0) }
        guard !different.isEmpty else { return nil }
        return "side effects " + different.map { "\($0) \(actual[$0] ?? 0) instead of \(expected[$0] ?? 0)" }.joined(separator: ", ")
    }
}

/// The graph as the TCK counts side effects: node and relationship ids, the label names in use,
/// and every property as an (entity, key, value) triple.
struct GraphSnapshot {
    var nodes: Set<String> = []
    var relationships: Set<String> = []
    var labels: Set<String> = []
    var properties: Set<String> = []

    init(_ store: GraphStore, _ engine: QueryEngine) {
        for row in (try? engine.execute("MATCH (n) RETURN n", on: store).rows) ?? [] {
            guard case .node(let n) = row[0] else { continue }
            nodes.insert("\(n.id)")
            for label in n.labels { labels.insert(label.name) }
            for p in n.properties { properties.insert("n\(n.id).\(p.key.name)=\(TCKValue.canonical(p.value))") }
        }
        for row in (try? engine.execute("MATCH ()-[r]->() RETURN r", on: store).rows) ?? [] {
            guard case .relationship(let r) = row[0] else { continue }
            relationships.insert("\(r.id)")
            for p in r.properties { properties.insert("r\(r.id).\(p.key.name)=\(TCKValue.canonical(p.value))") }
        }
    }

    /// The TCK's side-effect counts from `before` to this graph.
    func effects(since before: GraphSnapshot) -> [String: Int] {
        ["+nodes": nodes.subtracting(before.nodes).count, "-nodes": before.nodes.subtracting(nodes).count,
         "+relationships": relationships.subtracting(before.relationships).count,
         "-relationships": before.relationships.subtracting(relationships).count,
         "+labels": labels.subtracting(before.labels).count, "-labels": before.labels.subtracting(labels).count,
         "+properties": properties.subtracting(before.properties).count,
         "-properties": before.properties.subtracting(properties).count]
    }
}

@Suite("openCypher TCK")
struct TCKTests {
    static func scenarios() -> [TCKScenario] {
        let features = TCKRun.directory.appendingPathComponent("features")
        let files = (FileManager.default.enumerator(atPath: features.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".feature") }.sorted()
        return files.flatMap { file -> [TCKScenario] in
            guard let text = try? String(contentsOf: features.appendingPathComponent(file), encoding: .utf8) else { return [] }
            return TCKFeatureParser.scenarios(in: text, file: file)
        }
    }

    /// The listed scenarios, by key, with the reason each fails.
    static func expectedFailures() -> [String: String] {
        let url = TCKRun.directory.appendingPathComponent("expected-failures.txt")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var list: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.components(separatedBy: " -- ")
            list[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return list
    }

    @Test("Every scenario passes or is listed as expected to fail, tier by tier, and no listed one passes")
    func conformance() throws {
        let scenarios = Self.scenarios()
        #expect(scenarios.count > 3800, "the vendored TCK has 3,897 scenarios once outlines are expanded")
        let listed = Self.expectedFailures()
        var passed = [0, 0, 0, 0], total = [0, 0, 0, 0]
        var report: [String] = []
        let tiers = TCKTier()
        for scenario in scenarios where !scenario.tags.contains("@ignore") {
            let tier = tiers.tier(of: scenario)
            total[tier] += 1
            let failure = TCKRun.run(scenario)
            if let failure {
                report.append(scenario.key + " -- " + failure.replacingOccurrences(of: "\n", with: " ").prefix(160))
                if listed[scenario.key] == nil { Issue.record("\(scenario.key) fails and is not listed: \(failure)") }
            } else {
                passed[tier] += 1
                if listed[scenario.key] != nil { Issue.record("\(scenario.key) passes: take it off expected-failures.txt") }
            }
        }
        let cumulative = (1...3).map { tier in ((1...tier).map { passed[$0] }.reduce(0, +), (1...tier).map { total[$0] }.reduce(0, +)) }
        print("openCypher TCK: tier 1 \(cumulative[0].0) of \(cumulative[0].1), tier 2 \(cumulative[1].0) of \(cumulative[1].1), "
              + "tier 3 \(cumulative[2].0) of \(cumulative[2].1)")
        // docs/cypher.md states these figures and the failures by folder: checked here, so the
        // page cannot drift from what the runner finds.
        let docs = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/cypher.md"), encoding: .utf8)
        let line = "TCK passed: tier 1 \(cumulative[0].0) of \(cumulative[0].1), tier 2 \(cumulative[1].0) of \(cumulative[1].1), "
            + "tier 3 \(cumulative[2].0) of \(cumulative[2].1)."
        #expect(docs.contains(line), "docs/cypher.md should say: \(line)")
        var byFolder: [String: Int] = [:]
        for key in listed.keys { byFolder[key.split(separator: "/").prefix(2).joined(separator: "/"), default: 0] += 1 }
        for (folder, count) in byFolder {
            #expect(docs.contains("- `\(folder)`: \(count) — "), "docs/cypher.md should list `\(folder)`: \(count) — why")
        }
        let documented = try Regex(#"\n- `([a-z-]+/[a-zA-Z-]+)`: \d+ — "#)
        for match in docs.matches(of: documented) {
            let folder = String(docs[match.range].dropFirst(4).prefix { $0 != "`" })
            #expect(byFolder[folder] != nil, "docs/cypher.md lists `\(folder)`, which has no expected failure left")
        }
        if let path = ProcessInfo.processInfo.environment["GRAPHD_TCK_REPORT"] {
            try (report.sorted().joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
    }
}
