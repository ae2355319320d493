// Report.swift — what a run writes: a human table on standard output and one JSON file with the
// machine, the build, the data set, the samples and every figure (the peer scripts read it).

import Foundation

/// Figures of one operation in one form.
struct OperationResult: Codable, Sendable {
    var operation: String
    var form: String
    var query: String?
    var latency: LatencySummary
    /// Calls whose answer differed from the reference's (0 for a passing run).
    var mismatches: Int
    /// The first few differences or errors, for a person to read.
    var failures: [String]
    /// Stopped early because the phase's time budget ran out (the figures cover `latency.count` calls).
    var truncated: Bool
    /// `server` only: the server's own execution time per call, as its replies report it
    /// ("Query internal execution time"), in nanoseconds; what the wire and the client add is
    /// `latency` minus this.
    var serverTime: LatencySummary? = nil
}

/// One run of `embedded`, `server` or `recovery`, as written to the JSON file.
struct RunReport: Codable, Sendable {
    var tool = "graphd-bench"
    var command: String
    var arguments: [String]
    var build: String
    var date: String
    var machine: MachineFacts
    var dataset: DatasetFacts?
    var load: [String: Double] = [:]
    var results: [OperationResult] = []
    var extra: [String: String] = [:]
    var samples: Samples?
    /// Reference answers per operation in sample order (FNV-1a digests of the canonical text) and
    /// the invitable-audience sizes: what the peer scripts check their own answers against.
    var expectedDigests: [String: [String]] = [:]
    var audienceCounts: [Int] = []
    var passed = true

    init(command: String, arguments: [String]) {
        self.command = command
        self.arguments = arguments
        build = buildConfiguration
        date = ISO8601DateFormatter().string(from: Date())
        machine = MachineFacts.current()
    }

    func write(to path: String) throws { try writeJSON(self, to: path) }
}

/// Writes `value` as pretty-printed JSON with sorted keys, making the file's directory if needed.
func writeJSON(_ value: some Encodable, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let dir = (path as NSString).deletingLastPathComponent
    if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    try encoder.encode(value).write(to: URL(fileURLWithPath: path))
}

/// A fixed-width text table.
func renderTable(_ header: [String], _ rows: [[String]]) -> String {
    var widths = header.map(\.count)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { i, c in i == 0 ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                                                  : String(repeating: " ", count: widths[i] - c.count) + c }
            .joined(separator: "  ")
    }
    return ([line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line))
        .joined(separator: "\n")
}

/// The default result path: results/<command>-<data>-<UTC time>.json under the current directory.
func defaultResultPath(command: String, dataset: String) -> String {
    let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
    let tag = dataset.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: ":", with: "-")
        .replacingOccurrences(of: " ", with: "_")
    return "results/\(command)-\(tag.suffix(40))-\(stamp).json"
}
