// Throughput.swift — in-process read throughput with 1, 2, … reader threads on one store (issue 3:
// the second thread on two cores should add at least 70%). Each thread has its own scratch and
// walks its own offset of the sample; every answer is still checked.

import Foundation
import GraphStore
import Synchronization

enum ReaderThroughput {
    /// Calls per second of `op` in `form` with `threads` readers for `seconds`; wrong answers counted.
    static func measure(_ mix: EmbeddedMix, _ op: Operation, _ form: Form, threads: Int, seconds: Double) -> OperationResult {
        let expected = mix.plan.expected[op] ?? []
        let tallies = Mutex<[(latencies: [UInt64], wrong: Int, failures: [String])]>([])
        let start = nowNanoseconds()
        let end = start + UInt64(seconds * 1e9)
        let workers = (0..<threads).map { t in
            Thread {
                var scratch = TraversalScratch()
                var latencies: [UInt64] = []
                var wrong = 0
                var failures: [String] = []
                var i = (t * max(1, expected.count / max(1, threads))) % max(1, expected.count)
                while nowNanoseconds() < end && !expected.isEmpty {
                    do {
                        let (ns, answer) = try mix.call(op, form, i, scratch: &scratch)
                        latencies.append(ns)
                        if answer != expected[i] {
                            wrong += 1
                            if failures.count < 3 { failures.append("sample \(i): wrong answer") }
                        }
                    } catch {
                        wrong += 1
                        if failures.count < 3 { failures.append("sample \(i): \(error)") }
                    }
                    i = (i + 1) % expected.count
                }
                tallies.withLock { $0.append((latencies, wrong, failures)) }
            }
        }
        for w in workers { w.start() }
        while tallies.withLock({ $0.count }) < threads { usleep(10_000) }
        let wall = nowNanoseconds() - start
        let all = tallies.withLock { $0 }
        return OperationResult(operation: op.rawValue, form: "\(form.rawValue) threads=\(threads)", query: MixQueries.text(op, form),
                               latency: LatencySummary(nanoseconds: all.flatMap(\.latencies), wallNanoseconds: wall),
                               mismatches: all.reduce(0) { $0 + $1.wrong }, failures: Array(all.flatMap(\.failures).prefix(3)),
                               truncated: false)
    }
}
