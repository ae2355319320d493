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
    public func searchPeople(_ words: TermTrie, viewer: NodeID?, query: String, limit: Int,
                             schema: SocialSchema) throws(PeopleSearchError) -> [PersonMatch] {
        let index = words
        let words = NameFolding.queryWords(query)
        guard !words.isEmpty else {
            throw PeopleSearchError(message: "the query is empty: type at least one letter of a name")
        }
        guard limit > 0 else { return [] }
        let viewer = viewer.flatMap { contains($0) ? $0 : nil }

        // The viewer's circle: friends, and everyone a friend knows with their mutual counts.
        var friends: [UInt32] = []
        var mutualCounts: [UInt32: Int32] = [:]
        if let viewer {
            friends = friendIDs(of: viewer, schema: schema)
            for f in friends {
                var merge = FriendMerge(self, NodeID(rawValue: f), schema.friend)
                merge.forEachID { g in if g != viewer.rawValue { mutualCounts[g, default: 0] += 1 } }
            }
        }
        let hasCircle = viewer != nil

        // Per word, the entities matching it with their least typos, ascending by id.
        var sets: [[PackedWordMatch]] = []
        sets.reserveCapacity(words.count)
        for (i, word) in words.enumerated() {
            let isLast = i == words.count - 1
            let budget = peopleSearchTypoBudget(length: word.count, inCircle: hasCircle)
            var packed: [UInt64] = []
            index.forEachMatch(word, maxDistance: budget, transpositions: true, prefix: isLast) { m in
                let typos = UInt64(isLast ? m.prefixDistance : m.wholeDistance)
                let notWhole: UInt64 = isLast ? (m.wholeDistance == m.prefixDistance ? 0 : 1) : 0
                for id in index.postings(slot: m.slot) { packed.append(UInt64(id) << 8 | typos << 1 | notWhole) }
            }
            packed.sort()
            var set: [PackedWordMatch] = []
            set.reserveCapacity(packed.count)
            var previous = UInt64.max
            for p in packed where p >> 8 != previous {
                previous = p >> 8
                set.append(PackedWordMatch(id: UInt32(p >> 8), typos: UInt8((p >> 1) & 0x7F), whole: p & 1 == 0))
            }
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
            let relation: PersonRelation
            var mutual = 0
            if let viewer, id == viewer.rawValue {
                relation = .viewer
            } else if friends.binarySearchContains(id) {
                relation = .friend
                mutual = Int(mutualCounts[id] ?? 0)
            } else if let m = mutualCounts[id] {
                relation = .friendOfFriend
                mutual = Int(m)
            } else {
                relation = .other
            }
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
