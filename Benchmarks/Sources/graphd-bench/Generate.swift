// Generate.swift — `graphd-bench generate`: writes a synthetic social graph as CSV (gen_social.py's
// layout plus RSVPs, requests and follows) and a meta.json with its parameters and realised shape.

import Foundation
import SocialData

enum GenerateCommand {
    static let flags: [String: String] = [
        "preset": "small | medium | large (default small)",
        "seed": "generator seed (default 42)",
        "users": "override the preset's user count",
        "avg-degree": "override the preset's mean degree",
        "events": "override the preset's event count",
        "out": "output directory (required)",
    ]

    static func run(_ options: Options) throws -> Bool {
        guard let out = options.string("out") else { throw UsageError("generate needs --out DIR") }
        let name = options.string("preset", default: "small")
        guard let preset = SocialGraphPreset(rawValue: name) else { throw UsageError("unknown preset '\(name)'") }
        var p = preset.parameters
        p.seed = UInt64(try options.int("seed", default: 42))
        p.users = try options.int("users", default: p.users)
        p.averageDegree = try options.double("avg-degree", default: p.averageDegree)
        p.events = try options.int("events", default: p.events)
        let t0 = nowNanoseconds()
        let data = SocialGraphGenerator(parameters: p).generate(progress: progress)
        let t1 = nowNanoseconds()
        progress("writing CSV to \(out)")
        try data.writeCSV(to: out)
        let t2 = nowNanoseconds()
        let shape = GraphShape(Reference(data: data))
        struct Meta: Codable {
            var preset: String
            var params: SocialGraphParameters
            var stats: GraphShape
            var events: Int, invitations: Int, rsvps: Int, pendingRequests: Int, follows: Int
            var genSeconds: Double, writeSeconds: Double
            var generator = "graphd-bench generate (SocialData.SocialGraphGenerator)"
        }
        let meta = Meta(preset: name, params: p, stats: shape, events: data.eventCount, invitations: data.invitedEvent.count,
                        rsvps: data.attendingEvent.count, pendingRequests: data.requestFrom.count, follows: data.followFrom.count,
                        genSeconds: Double(t1 - t0) / 1e9, writeSeconds: Double(t2 - t1) / 1e9)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(meta).write(to: URL(fileURLWithPath: out + "/meta.json"))
        print(renderTable(["users", "friendships", "avg / median / p99 / max degree", "clustering (500 sampled)", "events", "invitations", "requests", "follows", "seconds"],
                          [["\(shape.users)", "\(shape.friendships)",
                            "\(String(format2: shape.avgDegree, decimals: 1)) / \(shape.medianDegree) / \(shape.p99Degree) / \(shape.maxDegree)",
                            String(format2: shape.avgClusteringSampled, decimals: 2), "\(data.eventCount)", "\(data.invitedEvent.count)",
                            "\(data.requestFrom.count)", "\(data.followFrom.count)",
                            String(format2: Double(t2 - t0) / 1e9, decimals: 1)]]))
        return true
    }
}

/// The realised shape of a friendship graph, as gen_social.py's meta.json reports it.
struct GraphShape: Codable {
    var users: Int, friendships: Int
    var avgDegree: Double, medianDegree: Int, p99Degree: Int, maxDegree: Int, isolatedUsers: Int
    var avgClusteringSampled: Double

    init(_ r: Reference) {
        let n = r.data.userCount
        let degrees = (0..<n).map { r.offsets[$0 + 1] - r.offsets[$0] }.sorted()
        users = n
        friendships = r.data.friendshipCount
        avgDegree = n == 0 ? 0 : Double(2 * friendships) / Double(n)
        medianDegree = degrees.isEmpty ? 0 : degrees[n / 2]
        p99Degree = degrees.isEmpty ? 0 : degrees[min(n - 1, Int(Double(n) * 0.99))]
        maxDegree = degrees.last ?? 0
        isolatedUsers = degrees.prefix { $0 == 0 }.count
        // Local clustering of 500 users of degree ≥ 2, picked with a fixed seed.
        var random = SeededRandom(seed: 0)
        var total = 0.0, count = 0, tries = 0
        while count < min(500, n) && tries < 100 * 500 {
            tries += 1
            let v = random.below(max(1, n))
            let nv = r.friends(v)
            guard nv.count >= 2 else { continue }
            let set = Set(nv)
            var t = 0
            for w in nv { for x in r.friends(Int(w)) where set.contains(x) { t += 1 } }
            total += Double(t) / Double(nv.count * (nv.count - 1))
            count += 1
        }
        avgClusteringSampled = count == 0 ? 0 : total / Double(count)
    }
}
