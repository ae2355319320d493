// DataSource.swift — where a run's data set comes from: a CSV directory in gen_social.py's layout
// (`--data`, written by `graphd-bench generate` or by Benchmarks/anchors/gen_social.py), a real SNAP
// edge list (`--edges`, e.g. Tests/Fixtures/ego-facebook/facebook_combined.txt: users and
// friendships only) or a preset generated in memory (`--preset`, same seed → same graph as
// `generate` writes).

import GraphStore
import SocialData

/// What a result file says about the data it measured.
struct DatasetFacts: Codable, Sendable {
    var source: String
    var users: Int
    var friendships: Int
    var events: Int
    var invitations: Int
    var rsvps: Int
    var pendingRequests: Int
    var follows: Int
    var maxDegree: Int

    init(source: String, data: SocialDataset, reference: Reference) {
        self.source = source
        users = data.userCount
        friendships = data.friendshipCount
        events = data.eventCount
        invitations = data.invitedEvent.count
        rsvps = data.attendingEvent.count
        pendingRequests = data.requestFrom.count
        follows = data.followFrom.count
        var best = 0
        for u in 0..<data.userCount { best = max(best, reference.offsets[u + 1] - reference.offsets[u]) }
        maxDegree = best
    }
}

/// The data set of `--data`/`--edges`/`--preset` with its reference answers, built into an
/// in-memory store named `social` (the phrasings and executor commands' graph).
func loadStore(_ options: Options) throws -> (data: SocialDataset, source: String, reference: Reference, store: GraphStore) {
    let (data, source) = try loadDataset(options)
    let reference = Reference(data: data)
    var builder = GraphBuilder()
    try data.load(into: &builder)
    return (data, source, reference, GraphStore.inMemory(name: "social", graph: try (consume builder).build()))
}

/// Reads `--data DIR`, reads `--edges FILE` (a SNAP edge list: friendships only) or generates
/// `--preset NAME` (with `--seed`); exactly one of them.
func loadDataset(_ options: Options) throws -> (SocialDataset, String) {
    let given = ["data", "edges", "preset"].filter { options.string($0) != nil }
    guard given.count <= 1 else { throw UsageError("give one of --data, --edges and --preset, not " + given.map { "--" + $0 }.joined(separator: " and ")) }
    if let file = options.string("edges") {
        progress("reading SNAP edge list \(file)")
        return (try SocialDataset(edgeList: file), "edges:\(file)")
    }
    if let dir = options.string("data") {
        progress("reading CSV data set \(dir)")
        return (try SocialDataset(csvDirectory: dir), "csv:\(dir)")
    }
    let name = options.string("preset", default: "small")
    guard let preset = SocialGraphPreset(rawValue: name) else {
        throw UsageError("unknown preset '\(name)'; choose from " + SocialGraphPreset.allCases.map(\.rawValue).joined(separator: ", "))
    }
    let seed = UInt64(try options.int("seed", default: 42))
    progress("generating preset \(name), seed \(seed)")
    let data = SocialGraphGenerator(preset: preset, seed: seed).generate(progress: progress)
    return (data, "preset:\(name) seed:\(seed)")
}
