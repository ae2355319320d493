// Recovery.swift — `graphd-bench recovery`: writes a data set into a graphd data directory (one
// logged transaction, as an app's writes would leave it), then measures how long reopening the
// graph takes: the restart time of graphd for that graph. The directory is left for `graphd --data`.

import Foundation
import GraphStore
import SocialData

enum RecoveryCommand {
    static let flags: [String: String] = [
        "data": "CSV directory (gen_social.py layout); or use --preset",
        "preset": "small | medium | large, generated in memory (default small)",
        "seed": "generator seed (default 42)",
        "dir": "graphd data directory to create (required; must not exist yet)",
        "graph": "graph name (default social)",
        "restarts": "timed reopenings; the best and the median are reported (default 3)",
        "out": "result JSON path",
    ]

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
            let directory = try DataDirectory(path: dir)
            let store = try directory.createGraph(named: name)
            progress("writing the data set to \(dir) as one logged transaction")
            let t0 = nowNanoseconds()
            _ = try store.write { graph in try data.load(into: &graph, progress: progress) }
            report.load["writeSeconds"] = Double(nowNanoseconds() - t0) / 1e9
            (expectedNodes, expectedRelationships) = store.read { ($0.nodeCount, $0.relationshipCount) }
            store.close()
        }
        report.load["diskMiB"] = Double(directorySize(dir)) / 1_048_576
        var times: [UInt64] = []
        for i in 0..<restarts {
            let t0 = nowNanoseconds()
            let directory = try DataDirectory(path: dir)
            guard let store = try directory.graph(named: name) else {
                throw UsageError("graph '\(name)' vanished from \(dir)")
            }
            let counts = store.read { ($0.nodeCount, $0.relationshipCount) }
            let elapsed = nowNanoseconds() - t0
            guard counts == (expectedNodes, expectedRelationships) else {
                report.passed = false
                print("FAILED: reopened graph has \(counts.0) nodes and \(counts.1) relationships; wrote \(expectedNodes) and \(expectedRelationships)")
                break
            }
            times.append(elapsed)
            progress("restart \(i + 1): \(formatMicroseconds(Double(elapsed) / 1000)) (\(counts.1) relationships)")
            store.close()
        }
        let sorted = times.sorted()
        report.load["restartFromLogBestSeconds"] = Double(sorted.first ?? 0) / 1e9
        report.load["restartFromLogMedianSeconds"] = Double(sorted.isEmpty ? 0 : sorted[sorted.count / 2]) / 1e9
        report.extra["snapshot"] = "not measured: this build's GraphStore has no compact() (issue 4) to write a snapshot"
        let d = report.dataset!
        print("graphd recovery — \(d.source): \(expectedNodes) nodes, \(expectedRelationships) relationships; \(report.build) build")
        print(renderTable(["figure", "value"], [
            ["write as one transaction", String(format2: report.load["writeSeconds"] ?? 0, decimals: 2) + " s"],
            ["data directory size", String(format2: report.load["diskMiB"] ?? 0, decimals: 1) + " MiB"],
            ["restart from log, best of \(times.count)", String(format2: report.load["restartFromLogBestSeconds"] ?? 0, decimals: 3) + " s"],
            ["restart from log, median", String(format2: report.load["restartFromLogMedianSeconds"] ?? 0, decimals: 3) + " s"],
            ["restart from snapshot", "not measured (no snapshots in this build)"],
        ]))
        let out = options.string("out", default: defaultResultPath(command: "recovery", dataset: source))
        try report.write(to: out)
        print("\nresult file: \(out)\ndata directory left for `graphd --data \(dir)`")
        return report.passed
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
