// CrashCycleTests.swift — the real graphd killed with SIGKILL in the middle of work, over and
// over: several clients writing at once (in one run GRAPH.SAVE compacting too), then kill -9 at an
// arbitrary moment, restart, and check that every acknowledged write is there, that nothing is
// half there (each write creates two nodes and a relationship), and that the writers can go on;
// once without and once with GRAPH.SAVE running. Three cycles each by default,
// GRAPHD_CRASH_CYCLES=50 runs fifty (docs/durability.md).

import Foundation
import Synchronization
import Testing
import GraphTestSupport

@Suite("End to end: kill -9 during load and compaction", .serialized)
struct CrashCycleTests {
    static let writers = 4
    /// Acknowledged writes (all writers together) after which a cycle's kill comes.
    static let writesPerCycle = 120

    static var cycles: Int {
        ProcessInfo.processInfo.environment["GRAPHD_CRASH_CYCLES"].flatMap(Int.init).map { max(1, $0) } ?? 3
    }

    /// The `seq` values of writer `w` that are present whole: the :A node, the :B node and the
    /// relationship between them. Fails the test on a partial write.
    static func presentSequences(_ client: RESPTestClient, writer w: Int) throws -> [Int64] {
        let whole = try client.command("GRAPH.RO_QUERY", "crash",
            "MATCH (a:A {writer: \(w)})-[:PAIR]->(b:B {writer: \(w)}) WHERE a.seq = b.seq RETURN a.seq ORDER BY a.seq")
        let seqs = whole.rows.compactMap { row -> Int64? in if case .integer(let n)? = row.first { n } else { nil } }
        let counts = try client.command("GRAPH.RO_QUERY", "crash",
            "OPTIONAL MATCH (a:A {writer: \(w)}) WITH count(a) AS a OPTIONAL MATCH (b:B {writer: \(w)}) RETURN a, count(b)")
        #expect(counts.rows.first == [.integer(Int64(seqs.count)), .integer(Int64(seqs.count))],
                "writer \(w): a write is half there (\(counts.rows), \(seqs.count) whole)")
        return seqs
    }

    /// Checks each writer's writes after a restart: every acknowledged one (seq < next[w]) is
    /// there, whole; at most the one in flight at the kill (seq == next[w]) may be there too.
    /// Returns how many each writer has, where it goes on from.
    static func expectAcknowledged(_ client: RESPTestClient, next: [Int64], _ when: String) throws -> [Int64] {
        var found = next
        for w in 0..<writers {
            let present = try presentSequences(client, writer: w)
            let acknowledged = Array(0..<next[w])
            #expect(present == acknowledged || present == acknowledged + [next[w]],
                    "\(when), writer \(w): acknowledged 0..<\(next[w]), found \(present.count): \(present.suffix(3))")
            found[w] = Int64(present.count)
        }
        return found
    }

    /// `compacting` false: kills land among plain concurrent writes (appends and group-commit
    /// fsyncs); true: a client runs GRAPH.SAVE over and over too, so kills land in the middle of
    /// compactions (snapshot written, renamed, segments switched and removed) as well.
    @Test("Acknowledged writes of concurrent clients survive kill -9", arguments: [false, true])
    func killDuringLoad(compacting: Bool) throws {
        let directory = try TemporaryDirectory("graphd-crash")
        defer { directory.remove() }
        let data = directory.path + "/data"
        // The next seq each writer writes; everything below it was acknowledged before a kill.
        var next = [Int64](repeating: 0, count: Self.writers)

        for cycle in 0..<Self.cycles {
            let server = try GraphdProcess(dataDirectory: data)
            if cycle > 0 { next = try Self.expectAcknowledged(try server.client(), next: next, "cycle \(cycle)") }

            let acknowledged = Atomic<Int>(0)
            let stop = Atomic<Bool>(false)
            let done = Atomic<Int>(0)
            let results = Mutex<[Int: Int64]>([:])
            let start = next
            let port = server.port
            var threads: [Thread] = []
            for w in 0..<Self.writers {
                threads.append(Thread {
                    var seq = start[w]
                    if let client = try? RESPTestClient(port: port) {
                        while !stop.load(ordering: .relaxed) {
                            let query = "CREATE (:A {writer: \(w), seq: \(seq)})-[:PAIR]->(:B {writer: \(w), seq: \(seq)})"
                            guard let reply = try? client.command("GRAPH.QUERY", "crash", query),
                                  reply.statistics.contains("Nodes created: 2") else { break }   // the kill
                            seq += 1
                            acknowledged.add(1, ordering: .relaxed)
                        }
                    }
                    results.withLock { $0[w] = seq }
                    done.add(1, ordering: .releasing)
                })
            }
            // GRAPH.SAVE over and over meanwhile: kills land during compactions too.
            if compacting { threads.append(Thread {
                if let client = try? RESPTestClient(port: port) {
                    while !stop.load(ordering: .relaxed) {
                        // An error reply (the graph does not exist yet) is fine; a closed connection ends it.
                        guard (try? client.command("GRAPH.SAVE", "crash")) != nil else { break }
                    }
                }
                done.add(1, ordering: .releasing)
            }) }
            for thread in threads { thread.start() }
            // Kill once enough writes were acknowledged (a condition, polled; not a timed wait).
            let target = Self.writesPerCycle + cycle * 7 % 40
            let deadline = ContinuousClock.now + .seconds(60)
            while acknowledged.load(ordering: .relaxed) < target && ContinuousClock.now < deadline { usleep(500) }
            server.kill9()
            stop.store(true, ordering: .relaxed)
            while done.load(ordering: .acquiring) < threads.count { usleep(1000) }
            #expect(acknowledged.load(ordering: .relaxed) >= target, "cycle \(cycle): the writers stalled")
            let ended = results.withLock { $0 }
            for w in 0..<Self.writers { next[w] = ended[w] ?? next[w] }
        }

        // A last restart checks the final cycle's writes.
        let server = try GraphdProcess(dataDirectory: data)
        _ = try Self.expectAcknowledged(try server.client(), next: next, "final restart")
        server.kill9()
        // With GRAPH.SAVE running between the kills, the graph is kept as a snapshot plus its log.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: data + "/graphs/crash")) ?? []
        #expect(files.contains { $0.hasPrefix("snapshot-") } == compacting, "snapshots: \(files)")
    }
}
