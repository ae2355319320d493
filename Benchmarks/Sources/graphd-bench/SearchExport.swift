// SearchExport.swift — `search --export DIR`: the bench's names, friendships and query mix as
// files, for the measurements that run outside this process (Benchmarks/peers/search_peers.py:
// graphd over the wire, FalkorDB's full-text index). users.csv and friendships.csv are in
// `graphd import`'s layout; queries.tsv has per query its text, graphd's global top 10 (user
// ids, as searchPeople answers in process), for the first `--reference N` queries the
// brute-force reference's top 10 (empty for the others), a viewer (seeded) and graphd's top 10
// for that viewer (the social typeahead over the wire).

import Foundation
import GraphStore

enum SearchExport {
    static func write(to dir: String, names: [String], friends: [Set<Int>], queries: [String],
                      top10: (String, Int?) -> [Int], viewers: [Int], reference: SearchReference?,
                      referenceCount: Int) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var users = "id:ID,name\n"
        for (i, name) in names.enumerated() {
            users += "\(i),\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"\n"
        }
        try users.write(toFile: dir + "/users.csv", atomically: true, encoding: .utf8)
        var pairs = ":START_ID,:END_ID\n"
        for (a, set) in friends.enumerated() {
            for b in set.sorted() where a < b { pairs += "\(a),\(b)\n" }
        }
        try pairs.write(toFile: dir + "/friendships.csv", atomically: true, encoding: .utf8)
        var lines = "query\tgraphd\treference\tviewer\tgraphd_social\n"
        for (i, q) in queries.enumerated() {
            let expected = i < referenceCount ? reference?.search(viewer: nil, query: q).prefix(10).map(\.id) : nil
            lines += q + "\t" + top10(q, nil).map(String.init).joined(separator: ",") + "\t"
                + (expected.map { $0.map(String.init).joined(separator: ",") } ?? "") + "\t"
                + "\(viewers[i])\t" + top10(q, viewers[i]).map(String.init).joined(separator: ",") + "\n"
        }
        try lines.write(toFile: dir + "/queries.tsv", atomically: true, encoding: .utf8)
        print("export: \(names.count) users, \(queries.count) queries (\(min(referenceCount, queries.count)) with the reference's top 10) in \(dir)")
    }
}
