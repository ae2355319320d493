// QueryLimitProbes.swift — measures a query against the engine's limits, for tests that require
// two ways of running one query (a fused step and the general path) to count alike.

import GraphStore
import Testing
@testable import GraphQuery

/// The smallest memory cap (`QueryConfiguration.memoryLimit`) under which `text` runs, found by
/// bisection between 0 and `ceiling`; every failure on the way must be the memory cap's. The
/// engine's cap is cleared again after.
func smallestMemoryCap(_ engine: QueryEngine, _ store: GraphStore, _ text: String, _ parameters: [String: Value] = [:],
                       ceiling: Int = 1 << 20) throws -> Int {
    defer { engine.configuration.memoryLimit = nil }
    var (low, high) = (0, ceiling)  // fails at low, runs at high
    while high - low > 1 {
        let middle = (low + high) / 2
        engine.configuration.memoryLimit = middle
        do {
            _ = try engine.execute(text, on: store, parameters: parameters)
            high = middle
        } catch {
            #expect(error.message.hasPrefix("Query's memory consumption exceeded capacity"), "\(text): \(error.message)")
            low = middle
        }
    }
    return high
}
