// Graph+SearchPeople.swift — social typeahead (`social.searchPeople`, docs/social.md): people
// whose name matches what was typed, the viewer's own circle first. Every query word must match
// a word of the name (NameFolding), all but the last as a whole word and the last as a prefix,
// within the optimal-string-alignment typos its length allows (under 4 letters: none; 4 to 7:
// one; 8 or more: two; inside the viewer's circle a 3-letter word may have one). Order: the
// viewer, friends, friends of friends (more mutual friends first), everyone else; within a
// tier fewer typos, then the last word matched whole before as a prefix, then id.

/// Where a person found by `searchPeople` stands to the viewer.
public enum PersonRelation: Int, Sendable, Hashable, Comparable {
    case viewer = 0, friend, friendOfFriend, other
    public static func < (a: PersonRelation, b: PersonRelation) -> Bool { a.rawValue < b.rawValue }
}

/// One person found, with what ranked them.
public struct PersonMatch: Sendable, Hashable {
    public var node: NodeID
    public var relation: PersonRelation
    /// Friends the person shares with the viewer (0 without a viewer, and for the viewer).
    public var mutual: Int
    /// Typos over all query words.
    public var typos: Int
    /// Whether the last query word matched a name word whole (else only as a prefix).
    public var lastWordWhole: Bool

    /// A relevance score for clients that sort by one: higher is better, consistent with the
    /// rows' order within a tier (text only: 1 / (1 + typos), less 0.25 for a prefix match).
    public var score: Double { 1.0 / Double(1 + typos) - (lastWordWhole ? 0 : 0.25) }
}

/// Why a people search cannot run.
public struct PeopleSearchError: Error, Sendable, Equatable {
    public var message: String
}

/// The typo budget of a query word of `length` letters (the contract's thresholds).
@inline(__always) public func peopleSearchTypoBudget(length: Int, inCircle: Bool) -> Int {
    if length >= 8 { return 2 }
    if length >= 4 { return 1 }
    return length == 3 && inCircle ? 1 : 0
}

extension Graph {
    /// The people in `words` (the name words of a full-text index on the users' names) matching
    /// `query`, ranked for `viewer` (nil: a global search, every match in one tier), the first `limit`.
    ///
    /// Execution: with a viewer, the circle (viewer, friends, friends of friends) is walked and
    /// each member's own words checked against the query (the trie keeps each user's words);
    /// the rest of the page comes from the text side: a one-word query takes the lowest ids of
    /// each (typos, whole/prefix) group of dictionary words in turn, stopping at `limit`; a
    /// longer one is searched by typo level (PeopleSearchByLevels.swift), stopping at the first
    /// level that fills the page. Asked for every match (or with a circle too large to walk),
    /// the words' postings are merged and intersected whole.
    public func searchPeople(_ words: TermTrie, viewer: NodeID?, query: String, limit: Int,
                             schema: SocialSchema) throws(PeopleSearchError) -> [PersonMatch] {
        let query = NameFolding.queryWords(query)
        guard !query.isEmpty else {
            throw PeopleSearchError(message: "the query is empty: type at least one letter of a name")
        }
        guard limit > 0 else { return [] }
        let viewer = viewer.flatMap { contains($0) ? $0 : nil }
        var circle = PeopleCircle()
        if let viewer { circle = PeopleCircle(viewer: viewer, graph: self, schema: schema) }
        if limit == .max || !words.keepsForward || circle.mutualCounts.count > PeopleCircle.walkLimit {
            return searchPeopleExhaustively(words, query: query, circle: circle, limit: limit)
        }
        var checker = PeopleWordChecker(words: words, query: query)
        var results: [PersonMatch] = []
        if let viewer {
            func consider(_ id: UInt32, _ relation: PersonRelation, _ mutual: Int) {
                if let (typos, whole) = checker.check(id, inCircle: true) {
                    results.append(PersonMatch(node: NodeID(rawValue: id), relation: relation, mutual: mutual, typos: typos, lastWordWhole: whole))
                }
            }
            consider(viewer.rawValue, .viewer, 0)
            for f in circle.friends where f != viewer.rawValue { consider(f, .friend, Int(circle.mutualCounts[f] ?? 0)) }
            for (g, m) in circle.mutualCounts where g != viewer.rawValue && !circle.friends.binarySearchContains(g) {
                consider(g, .friendOfFriend, Int(m))
            }
            results.sort(by: PersonMatch.ranksBefore)
            if results.count >= limit { return Array(results.prefix(limit)) }
        }
        let need = limit - results.count
        if query.count == 1 {
            results += checker.lowestIDsByGroup(need: need, circle: circle)
        } else {
            results += checker.searchByLevels(need: need, circle: circle)
        }
        return results
    }

    /// Every match, from the words' postings merged and intersected (see `searchPeople`).
    func searchPeopleExhaustively(_ index: TermTrie, query words: [[UInt32]], circle: PeopleCircle, limit: Int) -> [PersonMatch] {
        let hasCircle = circle.viewer != nil
        // Per word, the entities matching it with their least typos, ascending by id.
        var sets: [[PackedWordMatch]] = []
        sets.reserveCapacity(words.count)
        for (i, word) in words.enumerated() {
            let isLast = i == words.count - 1
            let budget = peopleSearchTypoBudget(length: word.count, inCircle: hasCircle)
            let set = index.wordMatches(word, budget: budget, prefix: isLast)
            if set.isEmpty { return [] }
            sets.append(set)
        }

        // Entities matching every word, judged against each word's budget for their tier.
        var order = Array(sets.indices)
        order.sort { sets[$0].count < sets[$1].count }
        var results: [PersonMatch] = []
        let lastWord = words.count - 1
        candidates: for candidate in sets[order[0]] {
            let id = candidate.id
            var typos = 0
            var whole = true
            let (relation, mutual) = circle.relation(of: id)
            let inCircle = relation != .other
            for w in sets.indices {
                let match: PackedWordMatch
                if w == order[0] { match = candidate } else {
                    guard let found = sets[w].find(id) else { continue candidates }
                    match = found
                }
                if Int(match.typos) > peopleSearchTypoBudget(length: words[w].count, inCircle: inCircle) { continue candidates }
                typos += Int(match.typos)
                if w == lastWord { whole = match.whole }
            }
            results.append(PersonMatch(node: NodeID(rawValue: id), relation: relation, mutual: mutual,
                                       typos: typos, lastWordWhole: whole))
        }
        results.sort(by: PersonMatch.ranksBefore)
        if results.count > limit { results.removeLast(results.count - limit) }
        return results
    }
}

/// The viewer's circle: friends (ascending ids) and everyone a friend knows, with how many of
/// the viewer's friends know them (friends included: their mutual count).
struct PeopleCircle {
    /// Circles larger than this are not walked member by member (a hub's friends of friends).
    static let walkLimit = 50_000
    var viewer: NodeID?
    var friends: [UInt32] = []
    var mutualCounts: [UInt32: Int32] = [:]

    init() {}

    init(viewer: NodeID, graph: Graph, schema: SocialSchema) {
        self.viewer = viewer
        friends = graph.friendIDs(of: viewer, schema: schema)
        for f in friends {
            var merge = FriendMerge(graph, NodeID(rawValue: f), schema.friend)
            merge.forEachID { g in if g != viewer.rawValue { mutualCounts[g, default: 0] += 1 } }
        }
    }

    @inline(__always) func contains(_ id: UInt32) -> Bool {
        guard let viewer else { return false }
        return id == viewer.rawValue || mutualCounts[id] != nil || friends.binarySearchContains(id)
    }

    func relation(of id: UInt32) -> (PersonRelation, Int) {
        guard let viewer else { return (.other, 0) }
        if id == viewer.rawValue { return (.viewer, 0) }
        if friends.binarySearchContains(id) { return (.friend, Int(mutualCounts[id] ?? 0)) }
        if let m = mutualCounts[id] { return (.friendOfFriend, Int(m)) }
        return (.other, 0)
    }
}

/// Checks one user's own words against the query (the trie's forward lists), and finds the
/// best-ranked strangers from the text side.
struct PeopleWordChecker {
    let words: TermTrie
    let query: [[UInt32]]
    /// Three DP rows, reused.
    private var rows: [Int32]
    private let width: Int

    init(words: TermTrie, query: [[UInt32]]) {
        self.words = words
        self.query = query
        width = (query.map(\.count).max() ?? 0) + 1
        rows = [Int32](repeating: 0, count: 3 * width)
    }

    /// The typos and last-word wholeness of `id`'s name against every query word, nil when a
    /// word does not match within its budget.
    mutating func check(_ id: UInt32, inCircle: Bool) -> (Int, Bool)? {
        var typos = 0, whole = true
        for (i, word) in query.enumerated() {
            let isLast = i == query.count - 1
            let budget = peopleSearchTypoBudget(length: word.count, inCircle: inCircle)
            guard let (t, w) = best(id, word, budget: budget, prefix: isLast) else { return nil }
            typos += t
            if isLast { whole = w }
        }
        return (typos, whole)
    }

    /// The least typos of `word` against `id`'s words (prefix: against their prefixes) within
    /// `budget`, and whether a whole word reaches it.
    mutating func best(_ id: UInt32, _ word: [UInt32], budget: Int, prefix: Bool) -> (Int, Bool)? {
        let m = word.count, width = self.width
        var bestPrefix = Int32.max, bestWhole = Int32.max
        let b = Int32(budget)
        let range = words.forwardRange(id)
        if range.isEmpty { return nil }
        if budget == 0 { return exact(range, word, prefix: prefix) }
        words.forwardSlots.withUnsafeBufferPointer { slots in
        words.termLetters.withUnsafeBufferPointer { letters in
        word.withUnsafeBufferPointer { q in
        rows.withUnsafeMutableBufferPointer { r in
            for p in range {
                let t = words.termRange(Int(slots[p]))
                let n = t.count
                if !prefix && abs(n - m) > budget { continue }
                // r[0..<width]: row i-2, r[width..]: row i-1, r[2width..]: row i (rotated by index).
                var prev2 = 0, prev = width, cur = 2 * width
                for j in 0...m { r[prev + j] = Int32(j) }
                var prefixMin = Int32(m)
                var complete = true
                if n > 0 {
                    for i in 1...n {
                        let c = letters[t.lowerBound + i - 1]
                        r[cur] = Int32(i)
                        var rowMin = r[cur]
                        if m > 0 {
                            for j in 1...m {
                                let cost: Int32 = q[j - 1] == c ? 0 : 1
                                var v = min(r[prev + j] + 1, r[cur + j - 1] + 1, r[prev + j - 1] + cost)
                                if i > 1 && j > 1 && q[j - 1] == letters[t.lowerBound + i - 2] && q[j - 2] == c {
                                    v = min(v, r[prev2 + j - 2] + 1)
                                }
                                r[cur + j] = v
                                if v < rowMin { rowMin = v }
                            }
                        }
                        if r[cur + m] < prefixMin { prefixMin = r[cur + m] }
                        (prev2, prev, cur) = (prev, cur, prev2)
                        if rowMin > b { complete = i == n; break }
                    }
                }
                let whole = complete ? r[prev + m] : Int32.max
                if whole < bestWhole { bestWhole = whole }
                if prefixMin < bestPrefix { bestPrefix = prefixMin }
            }
        }}}}
        let typos = prefix ? bestPrefix : bestWhole
        guard typos <= b else { return nil }
        return (Int(typos), bestWhole == typos)
    }

    /// `best` without typos (most words typed are short): a plain comparison of letters.
    private func exact(_ range: Range<Int>, _ word: [UInt32], prefix: Bool) -> (Int, Bool)? {
        var found = false
        for p in range {
            let t = words.termRange(Int(words.forwardSlots[p]))
            if t.count < word.count || (!prefix && t.count != word.count) { continue }
            if !word.indices.allSatisfy({ words.termLetters[t.lowerBound + $0] == word[$0] }) { continue }
            if t.count == word.count { return (0, true) }
            found = true
        }
        return found ? (0, false) : nil
    }

    /// A one-word query outside the circle: the (typos, whole/prefix) groups of dictionary
    /// words in order, each giving its lowest ids not yet taken (a user's best group is the
    /// first one holding them), until `need`.
    ///
    /// The dictionary is walked with a budget of 0 typos first, then 1, then 2, each walk only
    /// when the groups before left room: a walk with more typos visits many more words, and a
    /// page is usually full without them.
    func lowestIDsByGroup(need: Int, circle: PeopleCircle) -> [PersonMatch] {
        let word = query[0]
        let budget = peopleSearchTypoBudget(length: word.count, inCircle: false)
        var results: [PersonMatch] = []
        var taken: [UInt32] = []   // ascending
        for typos in 0...budget {
            if need - results.count <= 0 { break }
            if typos == 0 {
                // The word itself, then the words it heads: their lowest ids from the node's
                // list when it keeps one (PrefixLowestIDs.swift), without reading their postings.
                guard let node = words.node(of: word) else { continue }
                let own = Int(words.nodes[Int(node)].slot)
                takeLowest([own >= 0 ? [own] : []], typos: 0, need: need, circle: circle, results: &results, taken: &taken)
                if need - results.count <= 0 { break }
                if let (list, complete) = words.prefixLowest.lowest(node) {
                    let room = need - results.count
                    var top: [UInt32] = []
                    for id in list where !taken.binarySearchContains(id) && !circle.contains(id) {
                        top.append(id)
                        if top.count == room { break }
                    }
                    if top.count == room || complete {
                        for id in top {
                            results.append(PersonMatch(node: NodeID(rawValue: id), relation: .other, mutual: 0, typos: 0, lastWordWhole: false))
                        }
                        taken.append(contentsOf: top)
                        taken.sort()
                        continue
                    }
                }
                var below: [Int] = []
                words.forEachTermBelow(node) { below.append($0) }
                takeLowest([[], below], typos: 0, need: need, circle: circle, results: &results, taken: &taken)
                continue
            }
            // Both groups of `typos`: the walk with this budget reports fewer-typo words too; skip them.
            var groups = [[Int]](repeating: [], count: 2)
            words.forEachMatch(word, maxDistance: typos, transpositions: true, prefix: true) { m in
                guard m.prefixDistance == typos else { return }
                groups[m.wholeDistance == m.prefixDistance ? 0 : 1].append(m.slot)
            }
            takeLowest(groups, typos: typos, need: need, circle: circle, results: &results, taken: &taken)
        }
        return results
    }

    /// For each group in order, its lowest ids not taken (nor in the circle), up to `need` in all.
    private func takeLowest(_ groups: [[Int]], typos: Int, need: Int, circle: PeopleCircle,
                            results: inout [PersonMatch], taken: inout [UInt32]) {
        for (g, slots) in groups.enumerated() {
            let room = need - results.count
            if room <= 0 { break }
            var top: [UInt32] = []  // ascending, at most `room`
            for slot in slots {
                for id in words.postings(slot: slot) {
                    if top.count == room, id >= top[room - 1] { break }
                    if taken.binarySearchContains(id) || circle.contains(id) || top.binarySearchContains(id) { continue }
                    var at = top.count
                    while at > 0 && top[at - 1] > id { at -= 1 }
                    top.insert(id, at: at)
                    if top.count > room { top.removeLast() }
                }
            }
            for id in top {
                results.append(PersonMatch(node: NodeID(rawValue: id), relation: .other, mutual: 0, typos: typos, lastWordWhole: g == 0))
            }
            taken.append(contentsOf: top)
            taken.sort()
        }
    }
}

extension TermTrie {
    /// The entities matching `word` within `budget` (the last word: as a prefix), each with its
    /// least typos and whether a whole word reaches them, ascending by id.
    func wordMatches(_ word: [UInt32], budget: Int, prefix: Bool) -> [PackedWordMatch] {
        var matches: [Match] = []
        forEachMatch(word, maxDistance: budget, transpositions: true, prefix: prefix) { matches.append($0) }
        return packedMatches(matches, prefix: prefix)
    }

    /// The entities of these dictionary matches, each with its least typos, ascending by id.
    func packedMatches(_ matches: [Match], prefix: Bool) -> [PackedWordMatch] {
        var packed: [UInt64] = []
        for m in matches {
            let typos = UInt64(prefix ? m.prefixDistance : m.wholeDistance)
            let notWhole: UInt64 = prefix ? (m.wholeDistance == m.prefixDistance ? 0 : 1) : 0
            for id in postings(slot: m.slot) { packed.append(UInt64(id) << 8 | typos << 1 | notWhole) }
        }
        packed.sort()
        var set: [PackedWordMatch] = []
        set.reserveCapacity(packed.count)
        var previous = UInt64.max
        for p in packed where p >> 8 != previous {
            previous = p >> 8
            set.append(PackedWordMatch(id: UInt32(p >> 8), typos: UInt8((p >> 1) & 0x7F), whole: p & 1 == 0))
        }
        return set
    }
}

extension PersonMatch {
    /// The contract's order: tier (friends of friends by mutual count, more first), typos,
    /// whole before prefix, id.
    public static func ranksBefore(_ a: PersonMatch, _ b: PersonMatch) -> Bool {
        if a.relation != b.relation { return a.relation < b.relation }
        if a.relation == .friendOfFriend && a.mutual != b.mutual { return a.mutual > b.mutual }
        if a.typos != b.typos { return a.typos < b.typos }
        if a.lastWordWhole != b.lastWordWhole { return a.lastWordWhole }
        return a.node < b.node
    }
}

/// One entity's best match for one query word.
struct PackedWordMatch: Sendable {
    var id: UInt32
    var typos: UInt8
    var whole: Bool
}

extension Array where Element == PackedWordMatch {
    func find(_ id: UInt32) -> PackedWordMatch? {
        var low = 0, high = count
        while low < high { let mid = (low + high) >> 1; if self[mid].id < id { low = mid + 1 } else { high = mid } }
        return low < count && self[low].id == id ? self[low] : nil
    }
}
