// DemoTests.swift — `graphd demo` end to end: it creates graph `demo` with users, friendships,
// requests, follows and events, the same seed gives the same graph, and every query it
// suggests runs in the REPL and finds rows.

import Foundation
import GraphQuery
import GraphStore
import GraphTestSupport
import Testing

@Suite("graphd demo")
struct DemoTests {
    @Test("demo builds a seeded social graph whose suggested queries all run and answer")
    func demo() throws {
        try withTemporaryDirectory { path in
            let run = try GraphdProcess.runToExit(["demo", "--data", path, "--users", "300", "--seed", "7"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("Created graph 'demo'"))
            #expect(run.stdout.contains("300 users"))
            let again = try GraphdProcess.runToExit(["demo", "--data", path, "--users", "300", "--seed", "7"])
            let summary = { (text: String) in text.split(separator: "\n").first.map { $0.replacingOccurrences(of: #" in [0-9.]+ m?s:"#, with: "", options: .regularExpression) } }
            #expect(summary(again.stdout) == summary(run.stdout), "the same seed gives the same graph")
            // A demo of another size replaces the graph whole.
            let bigger = try GraphdProcess.runToExit(["demo", "--data", path, "--users", "350", "--seed", "7"])
            #expect(bigger.status == 0, "\(bigger.stderr)")
            do {
                let store = try #require(try DataDirectory(path: path).graph(named: "demo"))
                #expect(try QueryEngine().execute("MATCH (u:User) RETURN count(u)", on: store).rows == [[.integer(350)]])
                store.close()
            }
            _ = try GraphdProcess.runToExit(["demo", "--data", path, "--users", "300", "--seed", "7"])

            let queries = run.stdout.split(separator: "\n").filter { $0.hasPrefix("  MATCH") || $0.hasPrefix("  CALL") }.map { $0.dropFirst(2) }
            #expect(queries.count == 9)
            #expect(queries.contains { $0.hasPrefix("CALL social.searchPeople") }, "the demo prints a people search")
            let directory = try DataDirectory(path: path)
            let store = try #require(try directory.graph(named: "demo"))
            let engine = QueryEngine()
            #expect(try engine.execute("MATCH (u:User) RETURN count(u)", on: store).rows == [[.integer(300)]])
            for query in queries {
                let result = try engine.execute(String(query.dropLast()), on: store)
                #expect(!result.rows.isEmpty, "no rows from \(query)")
            }
        }
    }
}
