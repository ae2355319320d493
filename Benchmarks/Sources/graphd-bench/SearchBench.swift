// SearchBench.swift — `graphd-bench search`: people search at scale. Builds a graph of N users
// with display names (a CSV of real-looking names, recombined past its rows, seeded) and a
// random friendship graph, times the full-text index build and its memory, then times
// `searchPeople` top-10 on a seeded query mix (whole words, prefixes of 1–6 letters, one and
// two typos of each kind, accents dropped, two-word queries, CJK prefixes, nonsense), globally
// and for a viewer, and checks a sample of the queries against the brute-force reference
// (SearchReference.swift): identical result sets and identical top-10 order.

import Foundation
import GraphStore

enum SearchCommand {
    static let flags: [String: String] = [
        "names": "CSV with a header and id,name[,…] rows (default Tests/Fixtures/names/users-3k.csv)",
        "users": "names indexed (default 1000000); past the file's rows, first and last words of its names recombined",
        "queries": "timed queries per mix (default 20000)",
        "check": "queries of each mix checked against the brute-force reference (default 100)",
        "degree": "friends per user, about (default 20)",
        "seed": "random seed (default 7)",
        "slowest": "slowest queries of each mix printed with a breakdown of their walks (default 8)",
        "export": "directory to write users.csv, friendships.csv and queries.tsv to (Benchmarks/peers/search_peers.py reads them)",
        "reference": "with --export, queries given the brute-force reference's top 10 (default 500)",
        "repeat": "times each query is run, the least time kept (default 1; more discards a shared machine's preemptions)",
        "mixes": "which mixes to time: global, social or both (default global,social)",
    ]

    static func run(_ options: Options) throws -> Bool {
        let path = options.string("names", default: "Tests/Fixtures/names/users-3k.csv")
        let userCount = try options.int("users", default: 1_000_000)
        let queryCount = try options.int("queries", default: 20_000)
        let checkCount = try options.int("check", default: 100)
        let degree = try options.int("degree", default: 20)
        var rng = SearchRandom(seed: UInt64(try options.int("seed", default: 7)))
        let slowestCount = try options.int("slowest", default: 8)
        let repeats = max(1, try options.int("repeat", default: 1))
        let mixes = options.string("mixes", default: "global,social").split(separator: ",").map(String.init)

        let base = try readNames(path)
        guard !base.isEmpty else { throw UsageError("no names in \(path)") }
        var names = Array(base.prefix(userCount))
        let split = base.map { $0.split(separator: " ").map(String.init) }
        while names.count < userCount {
            let a = split[rng.next(split.count)], b = split[rng.next(split.count)]
            if rng.next(10) == 0 || b.count < 2 { names.append(a[0]) } else { names.append(a[0] + " " + b[b.count - 1]) }
        }
        print("search: \(names.count) names (\(base.count) from \(path)), about \(degree) friends each")

        var friends = [Set<Int>](repeating: [], count: names.count)
        var builder = GraphBuilder()
        let user = builder.label("User"), nameKey = builder.propertyKey("name"), friend = builder.relationshipType("FRIEND")
        for n in names { _ = builder.addNode(labels: [user], properties: [(nameKey, .string(n))]) }
        var relationships = 0
        for a in names.indices {
            for _ in 0..<(degree / 2) {
                let b = rng.next(4) == 0 ? rng.next(names.count) : (a + 1 + rng.next(200)) % names.count
                if a == b || friends[a].contains(b) { continue }
                friends[a].insert(b); friends[b].insert(a)
                _ = builder.addRelationship(type: friend, from: NodeID(a), to: NodeID(b), properties: [])
                relationships += 1
            }
        }
        var graph = try builder.build()
        print("graph: \(graph.nodeCount) users, \(relationships) friendships")

        // The index build, as CREATE FULLTEXT INDEX runs it (a transaction over existing nodes).
        let start = nowNanoseconds()
        graph.beginTransaction()
        try graph.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user.rawValue, keys: [nameKey]))
        _ = graph.commitTransaction()
        let buildSeconds = Double(nowNanoseconds() - start) / 1e9
        guard let index = graph.fullTextIndex(.node, user.rawValue), let words = index.words(of: nameKey) else { return false }
        let wordBytes = words.byteCount, allBytes = index.byteCount
        print(String(format: "index build: %.2f s (both dictionaries); memory: %.1f bytes/name (people words), %.1f bytes/name (with RediSearch terms); %d distinct words",
                     buildSeconds, Double(wordBytes) / Double(names.count), Double(allBytes) / Double(names.count), words.termCount))
        for (name, trie) in [("people words", words), ("RediSearch terms", index.terms)] {
            let parts = trie.byteParts.filter { $0.bytes > 0 }
                .map { $0.part + " " + String(format: "%.1f", Double($0.bytes) / Double(names.count)) }
            print("  \(name), bytes/name: " + parts.joined(separator: ", "))
        }

        let queries = queryMix(names: base.count >= 1000 ? base : names, count: queryCount, rng: &rng)
        let schema = graph.socialSchema()
        if let dir = options.string("export") {
            let referenceCount = try options.int("reference", default: 500)
            // Their own seed, so the timed mixes below draw the same viewers with or without an export.
            var viewerRandom = SearchRandom(seed: rng.state ^ 0x5EED)
            let viewers = queries.map { _ in viewerRandom.next(names.count) }
            try SearchExport.write(to: dir, names: names, friends: friends, queries: queries, top10: { q, viewer in
                ((try? graph.searchPeople(words, viewer: viewer.map { NodeID($0) }, query: q, limit: 10, schema: schema)) ?? [])
                    .map { Int($0.node.rawValue) }
            }, viewers: viewers, reference: referenceCount > 0 ? SearchReference(names: names, friends: friends) : nil, referenceCount: referenceCount)
        }
        var passed = true
        for social in [false, true] where mixes.contains(social ? "social" : "global") {
            var samples: [UInt64] = []
            samples.reserveCapacity(queries.count)
            var viewers: [Int?] = []
            for _ in queries { viewers.append(social ? rng.next(names.count) : nil) }
            var found = 0
            for (q, viewer) in zip(queries, viewers) {
                var least = UInt64.max
                var rows: [PersonMatch] = []
                for _ in 0..<repeats {
                    let t0 = nowNanoseconds()
                    rows = (try? graph.searchPeople(words, viewer: viewer.map { NodeID($0) }, query: q, limit: 10, schema: schema)) ?? []
                    least = min(least, nowNanoseconds() - t0)
                }
                samples.append(least)
                found += rows.isEmpty ? 0 : 1
            }
            let summary = LatencySummary(nanoseconds: samples)
            print("\(social ? "social" : "global") typeahead top 10, \(queries.count) queries (\(found) found someone): "
                  + "p50 \(formatMicroseconds(summary.p50)), p95 \(formatMicroseconds(summary.p95)), p99 \(formatMicroseconds(summary.p99)), "
                  + "max \(formatMicroseconds(summary.max))")
            for i in samples.indices.sorted(by: { samples[$0] > samples[$1] }).prefix(slowestCount) {
                print("  slow: '\(queries[i])' \(formatMicroseconds(Double(samples[i]) / 1000)): \(SearchBreakdown.describe(queries[i], words: words))")
            }
            if checkCount > 0 {
                let reference = SearchReference(names: names, friends: friends)
                var mismatches = 0
                for (q, viewer) in zip(queries, viewers).prefix(checkCount) {
                    let expected = reference.search(viewer: viewer, query: q)
                    let all = (try? graph.searchPeople(words, viewer: viewer.map { NodeID($0) }, query: q, limit: .max, schema: schema)) ?? []
                    let actual = all.map { SearchReference.Row(id: Int($0.node.rawValue), tier: $0.relation.rawValue,
                                                               mutual: $0.relation == .other ? 0 : $0.mutual, typos: $0.typos, whole: $0.lastWordWhole) }
                    let top = (try? graph.searchPeople(words, viewer: viewer.map { NodeID($0) }, query: q, limit: 10, schema: schema)) ?? []
                    if actual != expected || top.map({ Int($0.node.rawValue) }) != expected.prefix(10).map(\.id) {
                        mismatches += 1
                        if mismatches <= 3 { print("  MISMATCH '\(q)' viewer \(viewer.map(String.init) ?? "none"): \(actual.count) rows vs reference \(expected.count)") }
                    }
                }
                print("  reference check: \(checkCount - mismatches)/\(checkCount) identical (sets and top-10 order)")
                if mismatches > 0 { passed = false }
            }
        }
        return passed
    }

    /// `name` column of a CSV with a header (quotes allowed around a field).
    static func readNames(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var names: [String] = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            guard let comma = line.firstIndex(of: ",") else { continue }
            var rest = line[line.index(after: comma)...]
            if rest.first == "\"" {
                rest = rest.dropFirst()
                if let close = rest.firstIndex(of: "\"") { names.append(String(rest[..<close])) }
            } else {
                names.append(String(rest.prefix { $0 != "," }))
            }
        }
        return names
    }

    /// The seeded query mix (as SearchPeopleTests makes it).
    static func queryMix(names: [String], count: Int, rng: inout SearchRandom) -> [String] {
        var queries: [String] = []
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        func typo(_ w: [Character], _ rng: inout SearchRandom) -> [Character] {
            var w = w
            guard w.count >= 2 else { return w }
            let i = rng.next(w.count - 1)
            switch rng.next(4) {
            case 0: w[i] = letters[rng.next(26)]
            case 1: w.insert(letters[rng.next(26)], at: i)
            case 2: w.remove(at: i)
            default: w.swapAt(i, i + 1)
            }
            return w
        }
        while queries.count < count {
            let name = names[rng.next(names.count)]
            let words = name.split(separator: " ").map { Array($0) }
            guard !words.isEmpty else { continue }
            let word = words[rng.next(words.count)]
            switch rng.next(10) {
            case 0: queries.append(String(word))
            case 1: queries.append(String(word.prefix(1 + rng.next(6))))
            case 2: queries.append(String(typo(word, &rng)))
            case 3: queries.append(String(typo(typo(word, &rng), &rng)))
            case 4: queries.append(String(String(word).decomposedStringWithCanonicalMapping.unicodeScalars.filter { $0.isASCII }.map(Character.init)))
            case 5 where words.count >= 2: queries.append(String(words[0]) + " " + String(words[1].prefix(1 + rng.next(words[1].count))))
            case 6 where words.count >= 2: queries.append(String(typo(words[0], &rng)) + " " + String(words[1].prefix(3)))
            case 7: queries.append(String(name.prefix(1 + rng.next(3))))
            case 8: queries.append(String((0..<(3 + rng.next(5))).map { _ in letters[rng.next(26)] }))
            default: queries.append(String(typo(Array(word.prefix(3 + rng.next(4))), &rng)))
            }
        }
        return queries.filter { !SearchReference.queryWords($0).isEmpty }
    }
}

/// SplitMix64, seeded.
struct SearchRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}
