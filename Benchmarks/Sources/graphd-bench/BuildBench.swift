// BuildBench.swift — `graphd-bench build`: how fast GraphStore builds a graph in bulk
// (GraphBuilder: addRelationships + build, the path of import and snapshot load), and what a
// one-at-a-time insert into a hub costs (transactions into one node of growing degree).

import GraphStore
import SocialData

enum BuildCommand {
    static let flags: [String: String] = [
        "nodes": "node count (default 200000, the medium preset's users)",
        "relationships": "property-less relationships, uniform random ends (default 5000000)",
        "runs": "timed builds; best and median reported (default 5)",
        "hub": "degree of the hub built by single-relationship transactions (default 50000; 0 skips)",
        "seed": "random seed (default 42)",
        "data": "also build a CSV data set (gen_social.py layout) with GraphBuilder: time and bytes per friendship",
    ]

    static func run(_ options: Options) throws -> Bool {
        let nodeCount = max(1, try options.int("nodes", default: 200_000))
        let relationshipCount = try options.int("relationships", default: 5_000_000)
        let runs = max(1, try options.int("runs", default: 5))
        let hub = try options.int("hub", default: 50_000)
        var state = UInt64(try options.int("seed", default: 42)) | 1
        func random() -> UInt64 {  // xorshift64*: fast, seeded, good enough for endpoints
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
        if buildConfiguration == "debug" { progress("WARNING: a debug build; build with -c release for figures") }
        var from: [NodeID] = [], to: [NodeID] = []
        from.reserveCapacity(relationshipCount); to.reserveCapacity(relationshipCount)
        for _ in 0..<relationshipCount {
            from.append(NodeID(Int(random() % UInt64(nodeCount))))
            to.append(NodeID(Int(random() % UInt64(nodeCount))))
        }

        var rows: [[String]] = []
        var times: [UInt64] = []
        var bytesPerRelationship = 0.0
        for run in 0..<runs {
            let rssBefore = run == 0 ? residentBytes() : 0
            var builder = GraphBuilder()
            let user = builder.label("User"), friend = builder.relationshipType("FRIEND")
            for _ in 0..<nodeCount { _ = builder.addNode(labels: [user], properties: []) }
            let t1 = nowNanoseconds()
            builder.addRelationships(type: friend, from: from, to: to)
            let graph = try (consume builder).build()
            let t2 = nowNanoseconds()
            precondition(graph.relationshipCount == relationshipCount && graph.nodeCount == nodeCount)
            precondition(graph.degree(of: from[0], type: friend, direction: .outgoing) > 0)
            if run == 0 {
                // The graph must still be alive when measured (Swift may end a lifetime at its last use).
                withExtendedLifetime(graph) { bytesPerRelationship = Double(residentBytes() - rssBefore) / Double(max(1, relationshipCount)) }
            }
            times.append(t2 - t1)
        }
        let sorted = times.sorted()
        let best = Double(sorted[0]) / 1e9, median = Double(sorted[sorted.count / 2]) / 1e9
        rows.append(["addRelationships + build, best of \(runs)", String(format2: best, decimals: 3) + " s",
                     String(format2: Double(relationshipCount) / best / 1e6, decimals: 2) + " M rels/s"])
        rows.append(["addRelationships + build, median", String(format2: median, decimals: 3) + " s",
                     String(format2: Double(relationshipCount) / median / 1e6, decimals: 2) + " M rels/s"])

        rows.append(["resident memory of the built graph per relationship", String(format2: bytesPerRelationship, decimals: 1) + " B",
                     "all nodes included"])

        if let dir = options.string("data") {
            // The whole social data set (users with properties, events, unique indexes, six
            // relationship types) through GraphBuilder, as `graphd import` and a snapshot load do.
            progress("reading CSV data set \(dir)")
            let data = try SocialDataset(csvDirectory: dir)
            let rssBefore = residentBytes()
            let t0 = nowNanoseconds()
            var builder = GraphBuilder()
            try data.load(into: &builder)
            let graph = try (consume builder).build()
            let seconds = Double(nowNanoseconds() - t0) / 1e9
            let perFriendship = withExtendedLifetime(graph) {
                Double(residentBytes() - rssBefore) / Double(max(1, data.friendshipCount))
            }
            precondition(graph.nodeCount == data.userCount + data.eventCount)
            rows.append(["\(dir): load into GraphBuilder + build (\(graph.relationshipCount) rels)",
                         String(format2: seconds, decimals: 3) + " s",
                         String(format2: Double(graph.relationshipCount) / seconds / 1e6, decimals: 2) + " M rels/s"])
            rows.append(["\(dir): resident memory per friendship", String(format2: perFriendship, decimals: 1) + " B",
                         "everything included"])
        }

        if hub > 0 {
            // A hub gaining `hub` friends one transaction at a time, in random neighbour order
            // (old users befriending it), then the same count again appended in id order.
            var graph = try GraphBuilder().build()
            graph.beginTransaction()
            let friend = graph.internRelationshipType("FRIEND")
            for _ in 0...hub { _ = try graph.createNode(labels: [], properties: []) }
            _ = graph.commitTransaction()
            var order = Array(1...hub)
            for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(random() % UInt64(i + 1))) }
            let center = NodeID(0)
            var slices: [UInt64] = []
            let t0 = nowNanoseconds()
            var last = t0
            for (i, n) in order.enumerated() {
                graph.beginTransaction()
                _ = try graph.createRelationship(type: friend, from: NodeID(n), to: center, properties: [])
                _ = try graph.createRelationship(type: friend, from: center, to: NodeID(n), properties: [])
                _ = graph.commitTransaction()
                if (i + 1) % (hub / 10 == 0 ? 1 : hub / 10) == 0 { let now = nowNanoseconds(); slices.append(now - last); last = now }
            }
            let total = Double(nowNanoseconds() - t0) / 1e9
            precondition(graph.degree(of: center, type: friend, direction: .outgoing) == hub)
            rows.append(["hub: \(hub) friends in random order, 2 rels/tx", String(format2: total, decimals: 3) + " s",
                         String(format2: Double(hub) / total, decimals: 0) + " tx/s"])
            if let first = slices.first, let final = slices.last {
                rows.append(["hub: first vs last tenth of the inserts", String(format2: Double(first) / 1e9, decimals: 3) + " s",
                             String(format2: Double(final) / 1e9, decimals: 3) + " s"])
            }
            // Detach-deleting the hub removes 2 × hub relationships in one transaction.
            let d0 = nowNanoseconds()
            graph.beginTransaction()
            try graph.deleteNode(center, detach: true)
            _ = graph.commitTransaction()
            let deleteSeconds = Double(nowNanoseconds() - d0) / 1e9
            precondition(graph.relationshipCount == 0)
            rows.append(["hub: DETACH DELETE of the hub (\(2 * hub) rels)", String(format2: deleteSeconds, decimals: 3) + " s",
                         String(format2: Double(2 * hub) / deleteSeconds, decimals: 0) + " rels/s"])
        }
        print("graphd build — \(nodeCount) nodes, \(relationshipCount) relationships; \(buildConfiguration) build")
        print(renderTable(["figure", "time", "rate"], rows))
        return true
    }
}
