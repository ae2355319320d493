// RuleTestSupport.swift — what the planner rules' tests share: a query's rows as text, one line a
// row, so that a rewritten plan's answer can be compared with the plan as bound
// (`QueryEngine(optimize: false)`).

import GraphStore
@testable import GraphQuery

/// Rows as text, for comparing two plans' answers.
enum RuleTestSupport {
    /// The rows of `text`, each rendered as its cells joined by " | ", in the order they came.
    static func rows(_ engine: QueryEngine, _ store: GraphStore, _ text: String, _ parameters: [String: Value] = [:]) throws -> [String] {
        try engine.execute(text, on: store, parameters: parameters).rows.map { $0.map(render).joined(separator: " | ") }
    }
}
