// Throughput.swift — in-process read throughput with 1, 2, … reader threads on one store (the
// target: a second thread on two cores adds at least 70%). Each thread has its own scratch and
// walks its own offset of the sample; every answer is still checked. Optionally a writer thread
// commits small transactions meanwhile, at a set rate (or flat out) (new nodes off to the side, so every reader's
// answer stays checkable), to show readers and the writer do not starve each other.

import Foundation
import GraphStore
import Synchronization

enum ReaderThroughput {
    /// Calls per second of `op` in `form` with `threads` readers for `seconds`; wrong answers counted.
    /// With `writer`, one more thread commits transactions meanwhile; its count is in the form's name.
    static func measure(_ mix: EmbeddedMix, _ op: Operation, _ form: Form, threads: Int, seconds: Double,
                        writer: Bool = false, writerRate: Double = 0) -> OperationResult {
        let expected = mix.plan.expectedDigests[op] ?? []
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
                        if Canonical.digest(answer) != expected[i] {
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
        let writes = Atomic<Int>(0)
        let writerDone = Atomic<Bool>(!writer)
        let writerThread = writer ? Thread { writes.store(writeUntil(mix.store, end: end, rate: writerRate), ordering: .relaxed); writerDone.store(true, ordering: .releasing) } : nil
        writerThread?.start()
        for w in workers { w.start() }
        while tallies.withLock({ $0.count }) < threads || !writerDone.load(ordering: .acquiring) { usleep(10_000) }
        let wall = nowNanoseconds() - start
        let all = tallies.withLock { $0 }
        let writerNote = writer ? " writer=\(String(format2: Double(writes.load(ordering: .relaxed)) / (Double(wall) / 1e9), decimals: 0))tx/s" : ""
        return OperationResult(operation: op.rawValue, form: "\(form.rawValue) threads=\(threads)\(writerNote)", query: MixQueries.text(op, form),
                               latency: LatencySummary(nanoseconds: all.flatMap(\.latencies), wallNanoseconds: wall),
                               mismatches: all.reduce(0) { $0 + $1.wrong }, failures: Array(all.flatMap(\.failures).prefix(3)),
                               truncated: false)
    }

    /// Commits transactions until `end`: each creates a :BenchWriter node with a FRIEND relationship
    /// to the previous one; every 1,000 they are detach-deleted again, so memory stays bounded and
    /// the social data the readers check is never touched. `rate` > 0 paces them to that many per
    /// second (an app's write stream); 0 writes flat out. Returns the number of transactions.
    static func writeUntil(_ store: GraphStore, end: UInt64, rate: Double) -> Int {
        var count = 0
        var created: [NodeID] = []
        let start = nowNanoseconds()
        do {
            while nowNanoseconds() < end {
                if rate > 0 {
                    let due = start + UInt64(Double(count) / rate * 1e9)
                    let now = nowNanoseconds()
                    if due > now { usleep(UInt32(min(10_000, (due - now) / 1000))); continue }
                }
                try store.write { graph in
                    if created.count >= 1_000 {
                        for node in created { try graph.deleteNode(node, detach: true) }
                        created.removeAll(keepingCapacity: true)
                    } else {
                        let label = graph.internLabel("BenchWriter"), friend = graph.internRelationshipType("FRIEND")
                        let node = try graph.createNode(labels: [label], properties: [])
                        if let previous = created.last { _ = try graph.createRelationship(type: friend, from: previous, to: node, properties: []) }
                        created.append(node)
                    }
                }
                count += 1
            }
            try store.write { graph in for node in created { try graph.deleteNode(node, detach: true) } }
        } catch {
            progress("writer stopped: \(error)")
        }
        return count
    }
}
