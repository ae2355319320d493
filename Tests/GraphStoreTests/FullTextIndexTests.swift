// FullTextIndexTests.swift — the full-text index in GraphStore: folding and tokenizing, the
// trie's prefix and bounded edit-distance walks against a brute-force distance, RediSearch and
// Lucene queries, and the index following CREATE / SET / REMOVE / DELETE, rollback, log replay
// and snapshots.

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

/// Plain dynamic-programming edit distance (OSA with `transpositions`), sharing no code with the
/// trie: the reference of this file's walks and of SearchPeopleTests' typo counts.
func referenceDistance<Element: Equatable>(_ a: [Element], _ b: [Element], transpositions: Bool) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if transpositions && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}

private func scalars(_ s: String) -> [UInt32] { s.unicodeScalars.map(\.value) }

@Suite struct FullTextIndexTests {
    // MARK: folding and tokenizing

    @Test func nameWordsFoldAccentsCaseAndTheLettersNFKDKeeps() {
        func words(_ s: String) -> Set<String> { Set(NameFolding.nameWords(s).map(NameFolding.string)) }
        #expect(words("Łukasz Østergård") == ["lukasz", "ostergard"])
        #expect(words("Æsa Đorđević Iıİ") == ["aesa", "dordevic", "iii"])
        #expect(words("Weiß GÜNTHER") == ["weiss", "gunther"])
        #expect(words("O'Brien-Smith") == ["obriensmith", "o", "brien", "smith"])
        #expect(words("Ann B.") == ["ann", "b."])
        #expect(words("王 秀英") == ["王", "秀英", "王秀英"])
        #expect(words("加藤和也") == ["加藤和也"])
        #expect(NameFolding.queryWords("  O’Bri  ").map(NameFolding.string) == ["obri"])
        #expect(NameFolding.queryWords(" - ' ").isEmpty)
        #expect(NameFolding.folded("Ｆｕｌｌ") == "full")  // NFKD compatibility forms
    }

    @Test func redisTermsSplitOnPunctuationAndKeepAccents() {
        #expect(TextTokenizer.terms("José O'Brien-Smith, Jr.").map(NameFolding.string) == ["josé", "o", "brien", "smith", "jr"])
        #expect(TextTokenizer.terms("snake_case").map(NameFolding.string) == ["snake_case"])
    }

    @Test func whitespaceAndLowerCaseTablesEqualUnicodesProperties() {
        var whitespaceMismatches: [UInt32] = []
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            if NameFolding.isWhitespace(v) != s.properties.isWhitespace { whitespaceMismatches.append(v) }
        }
        #expect(whitespaceMismatches.isEmpty)
        // Each scalar between two letters: a separator splits them, any other joins them lower-cased.
        var termMismatches: [UInt32] = []
        for v in UInt32(0x80)..<0x3400 {
            guard let s = Unicode.Scalar(v) else { continue }
            let expected = s.properties.isWhitespace ? [[0x61], [0x62]]
                : [[0x61] + s.properties.lowercaseMapping.unicodeScalars.map(\.value) + [0x62]]
            var text = String.UnicodeScalarView()
            text.append("a"); text.append(s); text.append("B")
            if TextTokenizer.terms(String(text)) != expected { termMismatches.append(v) }
        }
        #expect(termMismatches.isEmpty)
    }

    // MARK: the trie

    @Test func fuzzyAndPrefixWalksEqualABruteForceOverTheDictionary() {
        var rng = SeededGenerator(seed: 47)
        let alphabet = scalars("abcde")
        var dictionary: [[UInt32]] = []
        var trie = TermTrie()
        for i in 0..<300 {
            let length = 1 + rng.next(7)
            let word = (0..<length).map { _ in alphabet[rng.next(alphabet.count)] }
            dictionary.append(word)
            trie.insert(word, UInt32(i))
        }
        let distinct = Array(Set(dictionary))
        var termOfSlot: [Int: [UInt32]] = [:]
        for term in distinct { termOfSlot[trie.slot(of: term)!] = term }
        for _ in 0..<80 {
            let query = (0..<(1 + rng.next(6))).map { _ in alphabet[rng.next(alphabet.count)] }
            for k in 0...2 {
                for transpositions in [false, true] {
                    var found: [[UInt32]: (Int, Int)] = [:]
                    for prefix in [false, true] {
                        found = [:]
                        trie.forEachMatch(query, maxDistance: k, transpositions: transpositions, prefix: prefix) { m in
                            let term = termOfSlot[m.slot]!
                            #expect(found[term] == nil, "a term reported twice")
                            found[term] = (m.wholeDistance, m.prefixDistance)
                        }
                        var expected: [[UInt32]: (Int, Int)] = [:]
                        for term in distinct {
                            let whole = referenceDistance(query, term, transpositions: transpositions)
                            let best = (0...term.count).map { referenceDistance(query, Array(term[0..<$0]), transpositions: transpositions) }.min()!
                            if prefix ? best <= k : whole <= k {
                                expected[term] = (whole <= k ? whole : .max, prefix ? best : whole)
                            }
                        }
                        #expect(Set(found.keys) == Set(expected.keys), "query \(query) k \(k) prefix \(prefix) t \(transpositions)")
                        for (term, value) in expected { #expect(found[term]?.0 == value.0 && found[term]?.1 == value.1) }
                    }
                }
            }
        }
    }

    @Test func postingsStaySortedThroughInsertAndRemove() {
        var trie = TermTrie()
        for id in [5, 1, 9, 1, 3] as [UInt32] { trie.insert(scalars("ann"), id) }
        #expect(trie.postings(of: scalars("ann")) == [1, 3, 5, 9])
        trie.remove(scalars("ann"), 5)
        trie.remove(scalars("ann"), 7)
        #expect(trie.postings(of: scalars("ann")) == [1, 3, 9])
        #expect(trie.postings(of: scalars("an")).isEmpty)
        var prefixed: [[UInt32]] = []
        trie.insert(scalars("anna"), 2)
        trie.forEachTerm(withPrefix: scalars("an")) { slot, _ in prefixed.append(Array(trie.postings(slot: slot))) }
        #expect(Set(prefixed) == [[1, 3, 9], [2]])
    }

    @Test func thePostingsPoolEqualsSortedSetsThroughRandomWrites() {
        var rng = SeededGenerator(seed: 4747)
        var pool = PostingsPool()
        var reference: [Set<UInt32>] = []
        for _ in 0..<40 { pool.appendSlot(); reference.append([]) }
        for step in 0..<60_000 {
            let slot = rng.next(reference.count), id = UInt32(rng.next(400))
            // Mostly inserts at first, then mostly removals, so lists grow, move and empty.
            if rng.next(100) < (step < 30_000 ? 70 : 30) {
                #expect(pool.insert(id, slot: slot) == reference[slot].insert(id).inserted)
            } else {
                #expect(pool.remove(id, slot: slot) == (reference[slot].remove(id) != nil))
            }
            if step % 997 == 0 {
                for s in reference.indices where Array(pool[s]) != reference[s].sorted() { Issue.record("slot \(s) differs at step \(step)") }
                #expect(pool.isConsistent)
            }
        }
        for s in reference.indices { #expect(Array(pool[s]) == reference[s].sorted()) }
        // The same lists laid out by a bulk build compare equal, wherever the writes left them.
        var grouped: [UInt32] = [], ends: [Int] = []
        for s in reference.indices { grouped += reference[s].sorted(); ends.append(grouped.count) }
        #expect(PostingsPool(grouped: grouped, ends: ends) == pool)
        pool.trimCapacity()
        #expect(pool.isConsistent)
        for s in reference.indices { #expect(Array(pool[s]) == reference[s].sorted()) }
    }

    @Test func aBulkBuildEqualsOneInsertAtATime() throws {
        var names = try fixtureNames(limit: 1500)
        names += ["O'Brien-Smith", "Ann Ann", "王 秀英", "加藤和也", "José O'Brien-Smith, Jr.", "", "  ", "o-o"]
        for keepsForward in [false, true] {
            var oneByOne = TermTrie(keepsForward: keepsForward), bulk = TermTrie(keepsForward: keepsForward)
            var load = TermTrieBulkLoad()
            var words = FoldedWords()
            for (i, name) in names.enumerated() {
                let id = UInt32(3 * i + 1)  // ascending, with gaps
                let list = keepsForward ? NameFolding.nameWords(name) : TextTokenizer.terms(name)
                for w in list { oneByOne.insert(w, id) }
                if keepsForward { NameFolding.nameWords(name, into: &words) } else { TextTokenizer.terms(name, into: &words) }
                #expect(words.arrays == list)
                words.forEach { load.add($0, id, to: &bulk) }
            }
            load.finish(into: &bulk)
            let terms = bulk.allTerms()
            #expect(terms.map(\.term) == oneByOne.allTerms().map(\.term))
            #expect(terms.map(\.ids) == oneByOne.allTerms().map(\.ids))
            if keepsForward {
                func wordsOf(_ trie: TermTrie, _ id: UInt32) -> Set<[UInt32]> {
                    Set(trie.forwardRange(id).map { Array(trie.termLetters[trie.termRange(Int(trie.forwardSlots[$0]))]) })
                }
                for i in names.indices { #expect(wordsOf(bulk, UInt32(3 * i + 1)) == wordsOf(oneByOne, UInt32(3 * i + 1))) }
            }
            for query in ["ann", "smith", "jo", "obrien", "王秀", "garcia", "mari"].map(scalars) {
                for k in 0...2 {
                    for prefix in [false, true] {
                        func found(_ trie: TermTrie) -> [[UInt32]: Int] {
                            let bySlot = Dictionary(uniqueKeysWithValues: trie.allTerms().map { (trie.slot(of: $0.term)!, $0.term) })
                            var result: [[UInt32]: Int] = [:]
                            trie.forEachMatch(query, maxDistance: k, transpositions: true, prefix: prefix) { m in
                                result[bySlot[m.slot]!] = prefix ? m.prefixDistance : m.wholeDistance
                            }
                            return result
                        }
                        #expect(found(bulk) == found(oneByOne))
                    }
                }
            }
        }
    }

    // MARK: following the graph

    /// A graph of :User nodes with names, and a full-text index on name and username.
    func usersGraph(_ names: [String]) throws -> Graph {
        var g = Graph()
        try committed(&g) { g in
            let user = g.internLabel("User"), name = g.internPropertyKey("name"), username = g.internPropertyKey("username")
            for n in names { _ = try g.createNode(labels: [user], properties: [(name, .string(n))]) }
            try g.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user.rawValue, keys: [name, username]))
        }
        return g
    }

    func query(_ g: Graph, _ text: String) throws -> [UInt32] {
        let index = try #require(g.fullTextIndex(.node, g.labelID(named: "User")!.rawValue))
        return g.search(index, try FullTextQuery.parseRediSearch(text)).map(\.id).sorted()
    }

    @Test func theIndexFollowsCreateSetRemoveDeleteAndRollback() throws {
        var g = try usersGraph(["Hayden Hong", "Will Smith", "Ann Hong"])
        #expect(try query(g, "hong") == [0, 2])
        try committed(&g) { g in
            let name = g.propertyKeyID(named: "name")!, username = g.propertyKeyID(named: "username")!
            try g.setProperty(name, to: .string("Hayden Wong"), of: NodeID(0))
            try g.setProperty(username, to: .string("will"), of: NodeID(1))   // same word as the name
            _ = try g.createNode(labels: [g.labelID(named: "User")!], properties: [(name, .string("Hongbo Li"))])
        }
        #expect(try query(g, "hong") == [2])
        #expect(try query(g, "hong*") == [2, 3])
        #expect(try query(g, "will") == [1])
        try committed(&g) { g in
            try g.setProperty(g.propertyKeyID(named: "username")!, to: .null, of: NodeID(1))
        }
        #expect(try query(g, "will") == [1])  // the name still has it
        try committed(&g) { g in
            try g.removeLabel(g.labelID(named: "User")!, from: NodeID(1))
            try g.deleteNode(NodeID(2), detach: true)
        }
        #expect(try query(g, "will").isEmpty)
        #expect(try query(g, "hong").isEmpty)
        let before = g.dump()
        g.beginTransaction()
        try g.addLabel(g.labelID(named: "User")!, to: NodeID(1))
        try g.setProperty(g.propertyKeyID(named: "name")!, to: .string("Zed"), of: NodeID(0))
        try g.dropFullTextIndex(.node, g.labelID(named: "User")!.rawValue, keys: nil)
        g.rollbackTransaction()
        #expect(g.dump() == before)
        #expect(try query(g, "wong") == [0])
    }

    @Test func addingAndDroppingPropertiesRedefinesTheIndex() throws {
        var g = try usersGraph(["Ann"])
        let user = g.labelID(named: "User")!.rawValue, name = g.propertyKeyID(named: "name")!
        #expect(throws: GraphError.self) {
            try committed(&g) { try $0.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user, keys: [name])) }
        }
        try committed(&g) { g in try g.dropFullTextIndex(.node, user, keys: [name]) }
        #expect(g.fullTextIndex(.node, user)?.descriptor.keys == [g.propertyKeyID(named: "username")!])
        #expect(try query(g, "ann").isEmpty)
        try committed(&g) { g in try g.dropFullTextIndex(.node, user, keys: nil) }
        #expect(g.fullTextIndex(.node, user) == nil)
        #expect(throws: GraphError.self) { try committed(&g) { try $0.dropFullTextIndex(.node, user, keys: nil) } }
    }

    @Test func relationshipsAreIndexedByType() throws {
        var g = Graph()
        try committed(&g) { g in
            let a = try g.createNode(labels: [], properties: []), b = try g.createNode(labels: [], properties: [])
            let wrote = g.internRelationshipType("WROTE"), text = g.internPropertyKey("text")
            _ = try g.createRelationship(type: wrote, from: a, to: b, properties: [(text, .string("hello world"))])
            _ = try g.createRelationship(type: g.internRelationshipType("OTHER"), from: a, to: b, properties: [(text, .string("hello"))])
            try g.createFullTextIndex(FullTextIndexDescriptor(entity: .relationship, schemaID: wrote.rawValue, keys: [text]))
            _ = try g.createRelationship(type: wrote, from: b, to: a, properties: [(text, .string("hello there"))])
        }
        let index = try #require(g.fullTextIndex(.relationship, g.relationshipTypeID(named: "WROTE")!.rawValue))
        #expect(g.search(index, try FullTextQuery.parseRediSearch("hello")).map(\.id) == [0, 2])
        try committed(&g) { g in
            let first = try #require(g.relationships(of: g.relationshipTypeID(named: "WROTE")!, from: NodeID(0), to: NodeID(1)).first)
            try g.setProperty(g.propertyKeyID(named: "text")!, to: .string("bye"), of: first)
        }
        let after = try #require(g.fullTextIndex(.relationship, g.relationshipTypeID(named: "WROTE")!.rawValue))
        #expect(g.search(after, try FullTextQuery.parseRediSearch("hello")).map(\.id) == [2])
        #expect(g.search(after, try FullTextQuery.parseRediSearch("bye")).map(\.id) == [0])
    }

    // MARK: query syntax

    @Test func rediSearchSyntax() throws {
        let g = try usersGraph(["Hayden Hong", "Hong Hayden", "Ann Hang", "José Álvarez", "Will Smith-Jones", "Anna Bell"])
        #expect(try query(g, "hayden hong") == [0, 1])
        #expect(try query(g, "\"hayden hong\"") == [0])
        #expect(try query(g, "hong|hang") == [0, 1, 2])
        #expect(try query(g, "hong -hayden").isEmpty)
        #expect(try query(g, "-hong") == [2, 3, 4, 5])
        #expect(try query(g, "an*") == [2, 5])
        #expect(try query(g, "%hing%") == [0, 1, 2])
        #expect(try query(g, "%hnog%").isEmpty)           // Levenshtein 2: no transpositions
        #expect(try query(g, "%%hnog%%") == [0, 1, 2])
        #expect(try query(g, "josé") == [3])
        #expect(try query(g, "jose").isEmpty)            // RediSearch keeps accents
        #expect(try query(g, "smith-jones") == [4])
        #expect(try query(g, "(hang|bell) an*") == [2, 5])
        #expect(try query(g, "@name:hong") == [0, 1])
        for bad in ["", "(hong", "\"hong", "%hong", "hong |", "-", "*"] {
            #expect(throws: FullTextQueryError.self, "\(bad)") { try FullTextQuery.parseRediSearch(bad) }
        }
        let index = try #require(g.fullTextIndex(.node, g.labelID(named: "User")!.rawValue))
        let hits = g.search(index, try FullTextQuery.parseRediSearch("hong|hayden"))
        #expect(hits.map(\.id) == [0, 1] && hits.allSatisfy { $0.score == 2 })
    }

    @Test func luceneSyntax() throws {
        let g = try usersGraph(["Hayden Hong", "Hong Hayden", "Ann Hang", "Anna Bell"])
        let index = try #require(g.fullTextIndex(.node, g.labelID(named: "User")!.rawValue))
        func lucene(_ q: String) throws -> [UInt32] { g.search(index, try FullTextQuery.parseLucene(q)).map(\.id).sorted() }
        #expect(try lucene("hong ann") == [0, 1, 2])          // OR by default
        #expect(try lucene("hong AND hayden") == [0, 1])
        #expect(try lucene("+hong -hayden").isEmpty)
        #expect(try lucene("hnog~1") == [0, 1])               // a swap is one edit
        #expect(try lucene("anna~") == [2, 3])
        #expect(try lucene("an*") == [2, 3])
        #expect(try lucene("\"hong hayden\"") == [1])
        #expect(throws: FullTextQueryError.self) { try FullTextQuery.parseLucene("(hong") }
    }

    // MARK: durability

    @Test func theIndexSurvivesLogReplayAndSnapshots() throws {
        try withTemporaryDirectory { data in
            let names = ["Hayden Hong", "Łukasz Nowak", "王秀英"]
            let expected: String = try {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try store.write { g in
                    let user = g.internLabel("User"), name = g.internPropertyKey("name")
                    for n in names { _ = try g.createNode(labels: [user], properties: [(name, .string(n))]) }
                    try g.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: user.rawValue, keys: [name],
                                                                     name: "people", language: "english", stopwords: ["the"]))
                }
                try store.write { g in
                    _ = try g.createNode(labels: [g.labelID(named: "User")!], properties: [(g.propertyKeyID(named: "name")!, .string("The Late One"))])
                }
                return store.read { $0.logicalDump() }
            }()
            #expect(expected.contains("fulltext"))
            // Replay of the log.
            try {
                let directory = try openData(data)
                let store = try #require(try directory.graph(named: "g"))
                #expect(store.read { $0.logicalDump() } == expected)
                #expect(store.read { $0.fullTextIndex(named: "people")?.descriptor.stopwords } == ["the"])
                try store.compact()
            }()
            // The snapshot.
            let directory = try openData(data)
            let store = try #require(try directory.graph(named: "g"))
            #expect(store.read { $0.logicalDump() } == expected)
            #expect(try graphFiles(data, "g").contains { $0.hasSuffix(".gsnap") })
        }
    }

    @Test func theLogCodecRoundTripsDefinitions() throws {
        let d = FullTextIndexDescriptor(entity: .relationship, schemaID: 3, keys: [PropertyKeyID(1), PropertyKeyID(4)],
                                        name: "n", language: "German", stopwords: ["a", "ab"])
        let bytes = MutationCodec.encode(sequence: 9, [.createFullTextIndex(d), .dropFullTextIndex(.node, 2)])
        let record = try MutationCodec.decode(bytes[...])
        #expect(record.sequence == 9)
        #expect(record.mutations == [.createFullTextIndex(d), .dropFullTextIndex(.node, 2)])
    }
}
