// SearchPeopleTests.swift — `searchPeople` against a brute-force reference that checks every
// name one by one and shares no code with the index (its own folding, its own edit distance,
// friend sets from the relationship list), on 3,000 realistic names (Tests/Fixtures/names)
// with a seeded friendship graph and a seeded query mix: identical result sets, identical
// top-10 order.

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

/// The reference: the contract of docs/social.md read literally.
struct PeopleSearchReference {
    let names: [String]
    let friends: [Set<Int>]
    let nameWords: [[[Character]]]

    init(names: [String], friends: [Set<Int>]) {
        self.names = names
        self.friends = friends
        nameWords = names.map(Self.words)
    }

    static func fold(_ s: String) -> [Character] {
        var out = ""
        let nfkd = { (t: String) in t.decomposedStringWithCompatibilityMapping }
        for scalar in nfkd(s).unicodeScalars where scalar.properties.canonicalCombiningClass.rawValue == 0 {
            for l in nfkd(String(scalar).lowercased()).unicodeScalars
            where l.properties.canonicalCombiningClass.rawValue == 0 {
                switch l {
                case "ł": out += "l"
                case "ø": out += "o"
                case "æ": out += "ae"
                case "đ": out += "d"
                case "ı": out += "i"
                case "ß": out += "ss"
                case "ς": out += "σ"
                default: out.unicodeScalars.append(l)
                }
            }
        }
        return out.unicodeScalars.map { Character($0) }
    }

    static let joiners: Set<Character> = ["'", "-", "\u{2019}", "\u{2018}", "\u{02BC}", "\u{2010}", "\u{2011}"]

    static func isCJK(_ c: Character) -> Bool {
        c.unicodeScalars.contains { v in
            let x = v.value
            return (0x3040...0x30FF).contains(x) || (0x3400...0x4DBF).contains(x) || (0x4E00...0x9FFF).contains(x)
                || (0xAC00...0xD7A3).contains(x) || (0x1100...0x11FF).contains(x)
        }
    }

    static func words(_ name: String) -> [[Character]] {
        var result: [[Character]] = []
        let raw = name.split(whereSeparator: { $0.isWhitespace })
        for word in raw {
            let chars = Array(word)
            if chars.contains(where: { joiners.contains($0) }) {
                result.append(fold(String(chars.filter { !joiners.contains($0) })))
                for piece in chars.split(whereSeparator: { joiners.contains($0) }) { result.append(fold(String(piece))) }
            } else {
                result.append(fold(String(word)))
            }
        }
        if raw.count > 1 && name.contains(where: isCJK) { result.append(fold(raw.joined())) }
        return result.filter { !$0.isEmpty }
    }

    static func osa(_ a: [Character], _ b: [Character]) -> Int { referenceDistance(a, b, transpositions: true) }

    struct Row: Equatable, CustomStringConvertible {
        var id: Int, tier: Int, mutual: Int, typos: Int, whole: Bool
        var description: String { "#\(id) tier \(tier) mutual \(mutual) typos \(typos) whole \(whole)" }
    }

    func search(viewer: Int?, query: String) -> [Row] {
        let q = query.split(whereSeparator: { $0.isWhitespace }).map { Self.fold(String($0.filter { !Self.joiners.contains($0) })) }
            .filter { !$0.isEmpty }
        guard !q.isEmpty else { return [] }
        var rows: [Row] = []
        for id in names.indices {
            var tier = 3, mutual = 0
            if let viewer {
                let shared = friends[viewer].intersection(friends[id]).count
                if id == viewer { tier = 0 } else if friends[viewer].contains(id) { tier = 1; mutual = shared }
                else if shared > 0 { tier = 2; mutual = shared }
            }
            var typos = 0, whole = false, ok = true
            for (i, word) in q.enumerated() {
                let budget = word.count >= 8 ? 2 : word.count >= 4 ? 1 : (word.count == 3 && tier < 3 ? 1 : 0)
                if i < q.count - 1 {
                    let best = nameWords[id].map { Self.osa(word, $0) }.min() ?? .max
                    if best > budget { ok = false; break }
                    typos += best
                } else {
                    var best = Int.max, bestWhole = Int.max
                    for w in nameWords[id] {
                        for n in 0...w.count { best = min(best, Self.osa(word, Array(w[0..<n]))) }
                        bestWhole = min(bestWhole, Self.osa(word, w))
                    }
                    if best > budget { ok = false; break }
                    typos += best
                    whole = bestWhole == best
                }
            }
            if ok { rows.append(Row(id: id, tier: tier, mutual: mutual, typos: typos, whole: whole)) }
        }
        rows.sort { a, b in
            if a.tier != b.tier { return a.tier < b.tier }
            if a.tier == 2 && a.mutual != b.mutual { return a.mutual > b.mutual }
            if a.typos != b.typos { return a.typos < b.typos }
            if a.whole != b.whole { return a.whole }
            return a.id < b.id
        }
        return rows
    }
}

/// The vendored names, in id order.
func fixtureNames(limit: Int = .max) throws -> [String] {
    let text = try String(contentsOf: Fixtures.names.appendingPathComponent("users-3k.csv"), encoding: .utf8)
    var names: [String] = []
    for line in text.split(whereSeparator: \.isNewline).dropFirst().prefix(limit) {  // CRLF lines (Python's csv)
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        names.append(String(fields[1]))
    }
    return names
}

@Suite struct SearchPeopleTests {
    /// Users 0..<n named from the fixture, each with about `degree` random friends.
    static func socialGraph(names: [String], degree: Int, seed: UInt64) throws -> (Graph, [Set<Int>]) {
        var rng = SeededGenerator(seed: seed)
        var friends = [Set<Int>](repeating: [], count: names.count)
        var g = Graph()
        try committed(&g) { g in
            let user = g.internLabel("User"), name = g.internPropertyKey("name"), friend = g.internRelationshipType("FRIEND")
            for n in names { _ = try g.createNode(labels: [user], properties: [(name, .string(n))]) }
            for a in names.indices {
                for _ in 0..<(degree / 2) {
                    // Mostly near neighbours (so friends of friends overlap), sometimes anyone.
                    let b = rng.next(4) == 0 ? rng.next(names.count) : (a + 1 + rng.next(40)) % names.count
                    if a == b || friends[a].contains(b) { continue }
                    friends[a].insert(b); friends[b].insert(a)
                    _ = try g.createRelationship(type: friend, from: NodeID(a), to: NodeID(b), properties: [])
                }
            }
            try g.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user.rawValue, keys: [name]))
        }
        return (g, friends)
    }

    /// A seeded mix: whole words, prefixes of 1–6 letters, one and two typos of each kind,
    /// accents dropped, two-word queries, CJK prefixes, nonsense.
    static func queryMix(names: [String], count: Int, seed: UInt64) -> [String] {
        var rng = SeededGenerator(seed: seed)
        var queries: [String] = []
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        func typo(_ w: [Character]) -> [Character] {
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
            guard let word = words.randomElement(using: &rng) else { continue }
            switch rng.next(10) {
            case 0: queries.append(String(word))
            case 1: queries.append(String(word.prefix(1 + rng.next(6))))
            case 2: queries.append(String(typo(word)))
            case 3: queries.append(String(typo(typo(word))))
            case 4: queries.append(String(String(word).decomposedStringWithCompatibilityMapping.unicodeScalars.filter { $0.isASCII }.map(Character.init)))
            case 5 where words.count >= 2:
                queries.append(String(words[0]) + " " + String(words[1].prefix(1 + rng.next(max(1, words[1].count)))))
            case 6 where words.count >= 2: queries.append(String(typo(words[0])) + " " + String(words[1].prefix(3)))
            case 7: queries.append(String(name.prefix(1 + rng.next(3))))  // CJK names: a prefix of the whole
            case 8: queries.append(String((0..<(3 + rng.next(5))).map { _ in letters[rng.next(26)] }))
            default: queries.append(String(typo(Array(word.prefix(3 + rng.next(4))))))
            }
        }
        return queries
    }

    @Test func searchEqualsTheBruteForceReferenceOnASeededMix() throws {
        let names = try fixtureNames()
        let (g, friends) = try Self.socialGraph(names: names, degree: 10, seed: 7)
        let reference = PeopleSearchReference(names: names, friends: friends)
        let schema = g.socialSchema()
        let words = try #require(g.fullTextIndex(.node, g.labelID(named: "User")!.rawValue)?.words(of: g.propertyKeyID(named: "name")!))
        var rng = SeededGenerator(seed: 11)
        var checked = 0, nonEmpty = 0
        for query in Self.queryMix(names: names, count: 100, seed: 47) {
            let viewer: Int? = rng.next(3) == 0 ? nil : rng.next(names.count)
            let expected = reference.search(viewer: viewer, query: query)
            let all: [PersonMatch]
            do { all = try g.searchPeople(words, viewer: viewer.map(NodeID.init), query: query, limit: .max, schema: schema) }
            catch {  // a query that folds to nothing (the accents of a CJK name dropped): the reference finds nobody
                #expect(expected.isEmpty, "\(query): \(error.message)")
                checked += 1
                continue
            }
            let actual = all.map { m in
                PeopleSearchReference.Row(id: Int(m.node.rawValue), tier: m.relation.rawValue, mutual: m.relation == .other ? 0 : m.mutual,
                                          typos: m.typos, whole: m.lastWordWhole)
            }
            #expect(actual == expected, "query '\(query)' viewer \(viewer.map(String.init) ?? "none")")
            let top = try g.searchPeople(words, viewer: viewer.map(NodeID.init), query: query, limit: 10, schema: schema)
            #expect(top.map(\.node.rawValue) == expected.prefix(10).map { UInt32($0.id) })
            // A shorter page stops at an earlier typo level (PeopleSearchByLevels.swift).
            let three = try g.searchPeople(words, viewer: viewer.map(NodeID.init), query: query, limit: 3, schema: schema)
            #expect(three.map(\.node.rawValue) == expected.prefix(3).map { UInt32($0.id) }, "top 3: '\(query)'")
            checked += 1
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(checked == 100)
        #expect(nonEmpty > 60)  // the mix mostly finds someone
    }

    @Test func threeLettersWithATypoFindTheCircleOnly() throws {
        // Hayden Hong (0) is a friend of a friend of the viewer (2); a stranger (3) has the same name.
        var g = Graph()
        try committed(&g) { g in
            let user = g.internLabel("User"), name = g.internPropertyKey("name"), friend = g.internRelationshipType("FRIEND")
            for n in ["Hayden Hong", "Bo Middle", "Viewer Person", "Hayden Hong"] {
                _ = try g.createNode(labels: [user], properties: [(name, .string(n))])
            }
            _ = try g.createRelationship(type: friend, from: NodeID(0), to: NodeID(1), properties: [])
            _ = try g.createRelationship(type: friend, from: NodeID(2), to: NodeID(1), properties: [])
            try g.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user.rawValue, keys: [name]))
        }
        let words = try #require(g.fullTextIndex(.node, 0)?.words(of: PropertyKeyID(0)))
        let found = try g.searchPeople(words, viewer: NodeID(2), query: "hng", limit: 10, schema: g.socialSchema())
        #expect(found.map(\.node) == [NodeID(0)])
        #expect(found.first?.relation == .friendOfFriend && found.first?.mutual == 1 && found.first?.typos == 1)
        #expect(try g.searchPeople(words, viewer: nil, query: "hng", limit: 10, schema: g.socialSchema()).isEmpty)
        #expect(try g.searchPeople(words, viewer: nil, query: "hogn", limit: 10, schema: g.socialSchema()).map(\.node) == [NodeID(0), NodeID(3)])
        let viewerFirst = try g.searchPeople(words, viewer: NodeID(2), query: "h", limit: 10, schema: g.socialSchema())
        #expect(viewerFirst.map(\.node) == [NodeID(0), NodeID(3)])
        #expect(throws: PeopleSearchError.self) { try g.searchPeople(words, viewer: nil, query: "  '- ", limit: 10, schema: g.socialSchema()) }
    }

    @Test func theNameIndexFollowsWritesAndRestarts() throws {
        try withTemporaryDirectory { data in
            func find(_ store: GraphStore, _ q: String) throws -> [UInt32] {
                try store.read { g in
                    let words = g.fullTextIndex(.node, g.labelID(named: "User")!.rawValue)!.words(of: g.propertyKeyID(named: "name")!)!
                    return try g.searchPeople(words, viewer: nil, query: q, limit: 10, schema: g.socialSchema()).map(\.node.rawValue)
                }
            }
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try store.write { g in
                    let user = g.internLabel("User"), name = g.internPropertyKey("name")
                    try g.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user.rawValue, keys: [name]))
                    for n in ["Łukasz Nowak", "Zoë O'Brien-Smith", "加藤和也"] { _ = try g.createNode(labels: [user], properties: [(name, .string(n))]) }
                }
                #expect(try find(store, "lukasz") == [0])
                #expect(try find(store, "obrien") == [1])
                #expect(try find(store, "加藤") == [2])
                try store.write { g in try g.setProperty(g.propertyKeyID(named: "name")!, to: .string("Lucas Nowak"), of: NodeID(0)) }
                #expect(try find(store, "lukasz").isEmpty)
                #expect(try find(store, "lucas") == [0])
            }
            do {
                let directory = try openData(data)
                let store = try #require(try directory.graph(named: "g"))
                #expect(try find(store, "lucas") == [0])
                #expect(try find(store, "brien") == [1])
                try store.compact()
            }
            let directory = try openData(data)
            let store = try #require(try directory.graph(named: "g"))
            #expect(try find(store, "zoe o'br") == [1])
            #expect(try find(store, "加藤和") == [2])
        }
    }

    @Test func singleWritesKeepTheWalkEntriesAndPrefixListsExact() throws {
        // The index is made first, so every name arrives by a single insert: the fuzzy walks'
        // entry points fill their waiting list and are refiled (FuzzyEntryPoints.swift), and the
        // lowest ids under busy prefixes are kept through inserts and renames (PrefixLowestIDs.swift).
        var names = try fixtureNames()
        var g = Graph()
        try committed(&g) { g in
            let user = g.internLabel("User"), name = g.internPropertyKey("name")
            try g.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user.rawValue, keys: [name]))
            for n in names { _ = try g.createNode(labels: [user], properties: [(name, .string(n))]) }
        }
        // Renames of low ids: each leaves the lists of the prefixes its old words were under.
        try committed(&g) { g in
            let name = g.propertyKeyID(named: "name")!
            for id in [0, 1, 2, 3, 5, 8, 13, 21, 34, 55] {
                names[id] = "Zyx Qwv\(id)"
                try g.setProperty(name, to: .string(names[id]), of: NodeID(id))
            }
        }
        let reference = PeopleSearchReference(names: names, friends: [Set<Int>](repeating: [], count: names.count))
        let words = try #require(g.fullTextIndex(.node, g.labelID(named: "User")!.rawValue)?.words(of: g.propertyKeyID(named: "name")!))
        let letters = "abcdefghijklmnoprstvw".map { String($0) }
        for query in letters + Self.queryMix(names: names, count: 150, seed: 48) {
            let expected = reference.search(viewer: nil, query: query)
            guard let top = try? g.searchPeople(words, viewer: nil, query: query, limit: 10, schema: g.socialSchema()) else {
                #expect(expected.isEmpty, "\(query)")
                continue
            }
            #expect(top.map(\.node.rawValue) == expected.prefix(10).map { UInt32($0.id) }, "query '\(query)'")
        }
    }
}
