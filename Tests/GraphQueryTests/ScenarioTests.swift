// ScenarioTests.swift — runs the query scenarios in Scenarios/*.test (Kuzu-style data files)
// against a fresh in-memory store per case.

// The format, line by line (blank lines and lines starting with `#` are ignored):
//
//   -CASE <name>          starts a case: a new, empty in-memory store
//   -PARAMS n=v n2=v2     parameters for the next statement, as Cypher literals (passed through
//                         `execute(parameters:)`, not the text header)
//   -READONLY             runs the next statement as GRAPH.RO_QUERY would (readOnly: true)
//   -STATEMENT <query>    the query; more lines up to the next `----` line continue it
//   ---- ok               expects success and checks nothing else
//   ---- N                expects exactly N rows, listed on the next N lines in order
//   ---- N unordered      the same, compared as sorted lists
//   ---- columns a | b    expects these column names (then another `----` line may follow)
//   ---- stats k=v …      expects these statistics counters (nodesCreated, labelsAdded,
//                         propertiesSet, relationshipsCreated, labelsRemoved, propertiesRemoved,
//                         nodesDeleted, relationshipsDeleted, indicesCreated, indicesDeleted,
//                         constraintsCreated, constraintsDeleted, cached=0|1, resultset=0|1)
//   ---- error <message>  expects a QueryError with exactly this message
//   ---- error at L:C <message>  …and this line and column
//
// A row prints its cells separated by ` | `: null, true, 42, 2.5 (Swift's Double text),
// 'string', [list, …], {key: value, …}, (:Label:Other {key: value}) for a node and
// [:TYPE {key: value}] for a relationship (properties in key order as stored).

import Foundation
import Testing
@testable import GraphQuery
import GraphStore

/// One `-STATEMENT` with what it expects.
struct ScenarioStatement: Sendable, CustomStringConvertible {
    var file: String
    var line: Int
    var query: String
    var parameters: [String: Value] = [:]
    var readOnly = false
    var expectations: [String] = []
    var description: String { "\(file):\(line): \(query)" }
}

/// A case: statements that share one store.
struct ScenarioCase: Sendable, CustomStringConvertible {
    var file: String
    var name: String
    var statements: [ScenarioStatement] = []
    var description: String { "\(file): \(name)" }
}

enum ScenarioLoader {
    static func loadAll() -> [ScenarioCase] {
        guard let directory = Bundle.module.url(forResource: "Scenarios", withExtension: nil),
              let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        else { return [] }
        return files.filter { $0.pathExtension == "test" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
            .flatMap { parse(file: $0.lastPathComponent, text: (try? String(contentsOf: $0, encoding: .utf8)) ?? "") }
    }

    static func parse(file: String, text: String) -> [ScenarioCase] {
        var cases: [ScenarioCase] = []
        var pendingParameters: [String: Value] = [:]
        var pendingReadOnly = false
        var inStatement = false
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (number, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("-CASE") {
                cases.append(ScenarioCase(file: file, name: String(line.dropFirst(5)).trimmingCharacters(in: .whitespaces)))
                inStatement = false
                continue
            }
            if line.hasPrefix("-STATEMENT") {
                if cases.isEmpty { cases.append(ScenarioCase(file: file, name: "(default)")) }
                var statement = ScenarioStatement(file: file, line: number + 1,
                                                  query: String(line.dropFirst(10)).trimmingCharacters(in: .whitespaces))
                statement.parameters = pendingParameters
                statement.readOnly = pendingReadOnly
                pendingParameters = [:]; pendingReadOnly = false
                cases[cases.count - 1].statements.append(statement)
                inStatement = true
                continue
            }
            if line.hasPrefix("-PARAMS") {
                let header = (try? ParameterHeader.split("CYPHER " + line.dropFirst(7) + " RETURN 1"))
                pendingParameters = header?.parameters.compactMapValues(\.storable) ?? ["__unparsable_params__": .string(line)]
                continue
            }
            if line == "-READONLY" { pendingReadOnly = true; continue }
            guard inStatement, var statement = cases[cases.count - 1].statements.popLast() else { continue }
            if line.isEmpty || line.hasPrefix("#") {
                // Blank lines and comments belong to nothing.
            } else if line.hasPrefix("----") || !statement.expectations.isEmpty {
                statement.expectations.append(line)
            } else {
                statement.query += "\n" + raw
            }
            cases[cases.count - 1].statements.append(statement)
        }
        return cases
    }
}

/// Prints a result cell canonically (see the format above).
func render(_ value: ResultValue) -> String {
    func properties(_ list: [ResultProperty]) -> String {
        list.isEmpty ? "" : " {" + list.map { "\($0.key.name): \(render($0.value))" }.joined(separator: ", ") + "}"
    }
    switch value {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .integer(let i): return String(i)
    case .double(let d): return "\(d)"
    case .string(let s): return "'\(s)'"
    case .list(let l): return "[" + l.map(render).joined(separator: ", ") + "]"
    case .map(let m): return "{" + m.map { "\($0.key): \(render($0.value))" }.joined(separator: ", ") + "}"
    case .node(let n): return "(" + n.labels.map { ":" + $0.name }.joined() + properties(n.properties) + ")"
    case .relationship(let r): return "[:" + r.type.name + properties(r.properties) + "]"
    case .path(let p): return "<path of \(p.relationships.count)>"
    case .temporal(let t): return "\(t.constructorName)('\(t)')"
    }
}

@Suite("Query scenarios from data files")
struct ScenarioTests {
    @Test("the scenario files are found and parse")
    func scenariosExist() {
        let cases = ScenarioLoader.loadAll()
        #expect(cases.count >= 10)
        #expect(cases.allSatisfy { !$0.statements.isEmpty })
    }

    @Test(arguments: ScenarioLoader.loadAll())
    func scenario(_ scenario: ScenarioCase) throws {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        for statement in scenario.statements {
            try check(statement, engine: engine, store: store)
        }
    }

    func check(_ statement: ScenarioStatement, engine: QueryEngine, store: GraphStore) throws {
        let at = statement.description
        var outcome: Result<QueryResult, QueryError>
        do {
            outcome = .success(try engine.execute(statement.query, on: store, parameters: statement.parameters,
                                                  readOnly: statement.readOnly))
        } catch {
            outcome = .failure(error)
        }
        var lines = statement.expectations[...]
        #expect(!lines.isEmpty, "\(at): no expectation")
        while let header = lines.popFirst() {
            let spec = header.dropFirst(4).trimmingCharacters(in: .whitespaces)
            if spec.hasPrefix("error") {
                var message = spec.dropFirst(5).trimmingCharacters(in: .whitespaces)
                var location: (Int, Int)?
                if message.hasPrefix("at ") {
                    let parts = message.dropFirst(3).split(separator: " ", maxSplits: 1)
                    let lc = parts[0].split(separator: ":").compactMap { Int($0) }
                    location = (lc[0], lc[1])
                    message = parts.count > 1 ? String(parts[1]) : ""
                }
                switch outcome {
                case .success(let result):
                    Issue.record(Comment(rawValue: "\(at): expected error '\(message)', got \(result.rows.count) rows"))
                case .failure(let error):
                    #expect(error.message == message, "\(at)")
                    if let (line, column) = location {
                        #expect(error.location?.line == line, "\(at)")
                        #expect(error.location?.column == column, "\(at)")
                        #expect(error.contextLine != nil, "\(at)")
                    }
                }
                continue
            }
            guard case .success(let result) = outcome else {
                if case .failure(let error) = outcome { Issue.record(Comment(rawValue: "\(at): unexpected error: \(error)")) }
                return
            }
            if spec == "ok" { continue }
            if spec.hasPrefix("columns") {
                let names = spec.dropFirst(7).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(result.columns == names, "\(at)")
                continue
            }
            if spec.hasPrefix("stats") {
                for pair in spec.dropFirst(5).split(separator: " ") {
                    let kv = pair.split(separator: "=")
                    let s = result.statistics
                    let actual: Int? = switch kv[0] {
                    case "nodesCreated": s.nodesCreated
                    case "labelsAdded": s.labelsAdded
                    case "propertiesSet": s.propertiesSet
                    case "relationshipsCreated": s.relationshipsCreated
                    case "labelsRemoved": s.labelsRemoved
                    case "propertiesRemoved": s.propertiesRemoved
                    case "nodesDeleted": s.nodesDeleted
                    case "relationshipsDeleted": s.relationshipsDeleted
                    case "indicesCreated": s.indicesCreated
                    case "indicesDeleted": s.indicesDeleted
                    case "constraintsCreated": s.constraintsCreated
                    case "constraintsDeleted": s.constraintsDeleted
                    case "cached": s.cachedExecution ? 1 : 0
                    case "resultset": result.hasResultSet ? 1 : 0
                    default: nil
                    }
                    #expect(actual == Int(kv[1]), "\(at): \(kv[0])")
                }
                continue
            }
            let words = spec.split(separator: " ")
            guard let count = words.first.flatMap({ Int($0) }) else {
                Issue.record(Comment(rawValue: "\(at): bad expectation line '\(header)'"))
                return
            }
            var expected: [String] = []
            for _ in 0..<count { if let row = lines.popFirst() { expected.append(row) } }
            var actual = result.rows.map { $0.map(render).joined(separator: " | ") }
            if words.dropFirst().first == "unordered" { actual.sort(); expected.sort() }
            #expect(result.hasResultSet, "\(at)")
            #expect(actual == expected, "\(at)")
        }
    }
}
