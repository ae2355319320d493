// Recovery.swift — `graphd-bench recovery`: writes a data set into a graphd data directory (one
// logged transaction, as an app's writes would leave it), then measures how long reopening the
// graph takes (graphd's restart for that graph) from the log, then again after a compaction from
// the snapshot. The directory is left for `graphd --data`.

import Foundation
import GraphStore
import SocialData

enum RecoveryCommand {
    static let flags: [String: String] = [
        "data": "CSV directory (gen_social.py layout); or use --edges or --preset",
        "edges": "a SNAP edge list (`u v` per line, e.g. ego-Facebook): users and friendships only",
        "preset": "small | medium | large, generated in memory (default small)",
        "seed": "generator seed (default 42)",
        "dir": "graphd data directory to create (required; must not exist yet)",
        "graph": "graph name (default social)",
        "restarts": "timed reopenings; the best and the median are reported (default 3)",
        "log-records": "transactions written after the snapshot (one FRIEND relationship each), then the restart timed again (default 1000000; 0 skips)",
        "out": "result JSON path",
    ]

    /// Automatic compaction off: the log restarts must replay the log, not a snapshot that a
    /// compaction triggered by the big write made meanwhile.
    static let noAutomaticCompaction = DataDirectory.Options(compactionRatio: 0)

    static func run(_ options: Options, arguments: [String]) throws -> Bool {
        guard let dir = options.string("dir") else { throw UsageError("recovery needs --dir DIR (a new directory)") }
        guard !FileManager.default.fileExists(atPath: dir) else {
            throw UsageError("--dir \(dir) exists; give a new path (the harness never overwrites a data directory)")
        }
        let name = options.string("graph", default: "social")
        let restarts = max(1, try options.int("restarts", default: 3))
        var report = RunReport(command: "recovery", arguments: arguments)
        let (data, source) = try loadDataset(options)
        let reference = Reference(data: data)
        report.dataset = DatasetFacts(source: source, data: data, reference: reference)

        var expectedRelationships = 0
        var expectedNodes = 0
        do {
            let directory = try DataDirectory(path: dir, options: noAutomaticCompaction)
            let store = try directory.createGraph(named: name)
            progress("writing the data set to \(dir) as one logged transaction")
            let t0 = nowNanoseconds()
            _ = try store.write { graph in try data.load(into: &graph, progress: progress) }
            report.load["writeSeconds"] = Double(nowNanoseconds() - t0) / 1e9
            (expectedNodes, expectedRelationships) = store.read { ($0.nodeCount, $0.relationshipCount) }
            store.close()
        }
        report.load["diskMiB"] = Double(directorySize(dir)) / 1_048_576
        let expected = (expectedNodes, expectedRelationships)
        let fromLog = try timeRestarts(dir: dir, name: name, restarts: restarts, expected: expected, what: "from log")
        report.load["restartFromLogBestSeconds"] = fromLog.best
        report.load["restartFromLogMedianSeconds"] = fromLog.median

        // GRAPH.SAVE's path: a snapshot of the whole graph and an empty log segment after it.
        progress("compacting: writing a snapshot (GRAPH.SAVE)")
        do {
            let directory = try DataDirectory(path: dir, options: noAutomaticCompaction)
            guard let store = try directory.graph(named: name) else { throw UsageError("graph '\(name)' vanished from \(dir)") }
            let t0 = nowNanoseconds()
            try store.compact()
            report.load["compactSeconds"] = Double(nowNanoseconds() - t0) / 1e9
            store.close()
        }
        report.load["diskAfterCompactionMiB"] = Double(directorySize(dir)) / 1_048_576
        let fromSnapshot = try timeRestarts(dir: dir, name: name, restarts: restarts, expected: expected, what: "from snapshot")
        report.load["restartFromSnapshotBestSeconds"] = fromSnapshot.best
        report.load["restartFromSnapshotMedianSeconds"] = fromSnapshot.median
        report.passed = fromLog.passed && fromSnapshot.passed

        // A snapshot and a log of `logRecords` single-relationship transactions after it: the
        // restart of a graph that has been written to since its last compaction.
        let logRecords = max(0, try options.int("log-records", default: 1_000_000))
        var withLog = (best: 0.0, median: 0.0, passed: true)
        var expectedWithLog = expected
        if logRecords > 0 {
            progress("writing \(logRecords) transactions after the snapshot (--fsync no for the writing only)")
            do {   // the directory (and its lock) is released before the restarts below
                let directory = try DataDirectory(path: dir, options: DataDirectory.Options(fsync: .no, compactionRatio: 0))
                guard let store = try directory.graph(named: name) else { throw UsageError("graph '\(name)' vanished from \(dir)") }
                let (users, friend) = try store.read { g -> ([NodeID], RelationshipTypeID) in
                    guard let user = g.labelID(named: "User"), let friend = g.relationshipTypeID(named: "FRIEND") else {
                        throw UsageError("the data set has no :User or :FRIEND")
                    }
                    return (g.nodeIDs(withLabel: user), friend)
                }
                var state: UInt64 = 0x9E37_79B9_7F4A_7C15
                let t0 = nowNanoseconds()
                for _ in 0..<logRecords {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let a = users[Int(state >> 33) % users.count], b = users[Int(state >> 13 & 0xFFFFF) % users.count]
                    try store.write { g in _ = try g.createRelationship(type: friend, from: a, to: b, properties: []) }
                }
                report.load["logRecordsWriteSeconds"] = Double(nowNanoseconds() - t0) / 1e9
                store.close()
            }
            expectedWithLog = (expected.0, expected.1 + logRecords)
            report.load["diskWithLogMiB"] = Double(directorySize(dir)) / 1_048_576
            withLog = try timeRestarts(dir: dir, name: name, restarts: restarts, expected: expectedWithLog,
                                       what: "from snapshot + \(logRecords) log records")
            report.load["restartFromSnapshotAndLogBestSeconds"] = withLog.best
            report.load["restartFromSnapshotAndLogMedianSeconds"] = withLog.median
            report.extra["logRecordsAfterSnapshot"] = String(logRecords)
            report.passed = report.passed && withLog.passed
        }

        let d = report.dataset!
        func seconds(_ key: String, _ decimals: Int = 3) -> String { String(format2: report.load[key] ?? 0, decimals: decimals) + " s" }
        func mebibytes(_ key: String) -> String { String(format2: report.load[key] ?? 0, decimals: 1) + " MiB" }
        print("graphd recovery — \(d.source): \(expectedNodes) nodes, \(expectedRelationships) relationships; \(report.build) build")
        print(renderTable(["figure", "value"], [
            ["write as one transaction", seconds("writeSeconds", 2)],
            ["data directory size (log)", mebibytes("diskMiB")],
            ["restart from log, best of \(restarts)", seconds("restartFromLogBestSeconds")],
            ["restart from log, median", seconds("restartFromLogMedianSeconds")],
            ["compaction (snapshot write)", seconds("compactSeconds")],
            ["data directory size (snapshot)", mebibytes("diskAfterCompactionMiB")],
            ["restart from snapshot, best of \(restarts)", seconds("restartFromSnapshotBestSeconds")],
            ["restart from snapshot, median", seconds("restartFromSnapshotMedianSeconds")],
        ] + (logRecords > 0 ? [
            ["\(logRecords) one-relationship transactions after it", mebibytes("diskWithLogMiB") + " on disk"],
            ["restart from snapshot + log, best of \(restarts)", seconds("restartFromSnapshotAndLogBestSeconds")],
            ["restart from snapshot + log, median", seconds("restartFromSnapshotAndLogMedianSeconds")],
        ] : [])))
        let out = options.string("out", default: defaultResultPath(command: "recovery", dataset: source))
        try report.write(to: out)
        print("\nresult file: \(out)\ndata directory left for `graphd --data \(dir)`")
        return report.passed
    }

    /// Reopens the graph `restarts` times (graphd's start for it); every reopening must hold the
    /// written counts, or the run fails.
    static func timeRestarts(dir: String, name: String, restarts: Int, expected: (Int, Int),
                             what: String) throws -> (best: Double, median: Double, passed: Bool) {
        var times: [UInt64] = []
        for i in 0..<restarts {
            let t0 = nowNanoseconds()
            let directory = try DataDirectory(path: dir, options: noAutomaticCompaction)
            guard let store = try directory.graph(named: name) else { throw UsageError("graph '\(name)' vanished from \(dir)") }
            let counts = store.read { ($0.nodeCount, $0.relationshipCount) }
            let elapsed = nowNanoseconds() - t0
            store.close()
            guard counts == expected else {
                print("FAILED: reopened \(what), the graph has \(counts.0) nodes and \(counts.1) relationships; wrote \(expected.0) and \(expected.1)")
                return (0, 0, false)
            }
            times.append(elapsed)
            progress("restart \(what) \(i + 1): \(formatMicroseconds(Double(elapsed) / 1000)) (\(counts.1) relationships)")
        }
        let sorted = times.sorted()
        return (Double(sorted[0]) / 1e9, Double(sorted[sorted.count / 2]) / 1e9, true)
    }

    static func directorySize(_ path: String) -> Int {
        guard let e = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        while let f = e.nextObject() as? String {
            total += ((try? FileManager.default.attributesOfItem(atPath: path + "/" + f))?[.size] as? Int) ?? 0
        }
        return total
    }
}
