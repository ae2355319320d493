// Graph+FullTextQuery.swift — answers a parsed full-text query from one index: each term's
// postings (prefix: the term's subtree; fuzzy: the bounded edit-distance walk), combined as
// sorted id sets; phrases and field restrictions are checked against the entity's own text.
// The score is the number of the query's terms an entity matches (what FalkorDB's scorer
// yields in practice); rows come best first, then by id.

/// One full-text hit: the node or relationship raw id and its score.
public struct FullTextHit: Sendable, Equatable {
    public var id: UInt32
    public var score: Double
}

extension Graph {
    /// The entities of `index` matching `query`, best score first, then ascending id.
    public func search(_ index: FullTextIndex, _ query: FullTextQuery) -> [FullTextHit] {
        var evaluator = FullTextEvaluator(graph: self, index: index)
        let matches = evaluator.evaluate(query, top: true)
        var hits: [FullTextHit] = []
        hits.reserveCapacity(matches.count)
        for id in matches {
            var score = 0
            for leaf in evaluator.leaves where leaf.binarySearchContains(id) { score += 1 }
            hits.append(FullTextHit(id: id, score: Double(max(score, 1))))
        }
        hits.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        return hits
    }

    /// The text of the indexed properties of an entity (for phrases and field restrictions).
    func fullTextValues(_ index: FullTextIndex, _ id: UInt32, field: String?) -> [String] {
        var result: [String] = []
        for key in index.descriptor.keys {
            if let field, name(of: key) != field { continue }
            let value: Value = index.descriptor.entity == .node
                ? nodes[Int(id)].properties.value(of: key)
                : (relationshipProperties[RelationshipID(rawValue: id)]?.value(of: key) ?? .null)
            if case .string(let s) = value { result.append(s) }
        }
        return result
    }
}

/// Evaluates a query tree to a sorted id set, keeping each positive leaf's set for scoring.
private struct FullTextEvaluator {
    let graph: Graph
    let index: FullTextIndex
    var leaves: [[UInt32]] = []
    private var universeCache: [UInt32]?

    init(graph: Graph, index: FullTextIndex) { self.graph = graph; self.index = index }

    mutating func evaluate(_ query: FullTextQuery, top: Bool = false, negated: Bool = false) -> [UInt32] {
        switch query {
        case .term(let term, let mode, let field):
            var set = termSet(term, mode)
            if let field { set = set.filter { fieldHas(field, $0) { terms in terms.contains { matches($0, term, mode) } } } }
            if !negated { leaves.append(set) }
            return set
        case .phrase(let terms, let field):
            var set: [UInt32]? = nil
            for term in terms where !index.isStopTerm(term) {
                let s = index.terms.postings(of: term)
                set = set.map { intersect($0, s) } ?? s
            }
            let candidates = set ?? []
            let result = candidates.filter { id in
                graph.fullTextValues(index, id, field: field).contains { text in
                    let tokens = TextTokenizer.terms(text)
                    guard tokens.count >= terms.count else { return false }
                    for start in 0...(tokens.count - terms.count) where Array(tokens[start..<start + terms.count]) == terms { return true }
                    return false
                }
            }
            if !negated { leaves.append(result) }
            return result
        case .and(let parts):
            var positive: [UInt32]? = nil
            var excluded: [[UInt32]] = []
            for part in parts {
                if case .term(let t, .exact, _) = part, index.isStopTerm(t) { continue }
                switch part {
                case .not(let inner): excluded.append(evaluate(inner, negated: true))
                case .optional(let inner): _ = evaluate(inner, negated: negated)
                default:
                    let s = evaluate(part, negated: negated)
                    positive = positive.map { intersect($0, s) } ?? s
                }
            }
            var result = positive ?? universe()
            for e in excluded { result = subtract(result, e) }
            return result
        case .or(let parts):
            var result: [UInt32] = []
            for part in parts { result = union(result, evaluate(part, negated: negated)) }
            return result
        case .not(let inner):
            return subtract(universe(), evaluate(inner, negated: true))
        case .optional(let inner):
            _ = evaluate(inner, negated: negated)
            return universe()
        }
    }

    func termSet(_ term: [UInt32], _ mode: FullTextQuery.TermMode) -> [UInt32] {
        if index.isStopTerm(term) && mode == .exact { return [] }
        switch mode {
        case .exact: return index.terms.postings(of: term)
        case .prefix:
            var lists: [ArraySlice<UInt32>] = []
            index.terms.forEachTerm(withPrefix: term) { slot, _ in lists.append(index.terms.postings(slot: slot)) }
            return mergeAll(lists)
        case .fuzzy(let k, let transpositions):
            var lists: [ArraySlice<UInt32>] = []
            index.terms.forEachMatch(term, maxDistance: k, transpositions: transpositions, prefix: false) { m in
                lists.append(index.terms.postings(slot: m.slot))
            }
            return mergeAll(lists)
        }
    }

    /// Whether a document term matches a query term (for `@field:` checks).
    func matches(_ candidate: [UInt32], _ term: [UInt32], _ mode: FullTextQuery.TermMode) -> Bool {
        switch mode {
        case .exact: return candidate == term
        case .prefix: return candidate.starts(with: term)
        case .fuzzy(let k, let transpositions):
            var found = false
            var trie = TermTrie()
            trie.insert(candidate, 0)
            trie.forEachMatch(term, maxDistance: k, transpositions: transpositions, prefix: false) { _ in found = true }
            return found
        }
    }

    func fieldHas(_ field: String, _ id: UInt32, _ test: ([[UInt32]]) -> Bool) -> Bool {
        graph.fullTextValues(index, id, field: field).contains { test(TextTokenizer.terms($0)) }
    }

    /// Every entity the index holds a term of.
    mutating func universe() -> [UInt32] {
        if let universeCache { return universeCache }
        var ids: [UInt32] = []
        switch index.descriptor.entity {
        case .node:
            let label = LabelID(rawValue: index.descriptor.schemaID)
            if label.index < graph.labelMembers.count {
                for node in graph.labelMembers[label.index].members where hasTerms(node.rawValue) { ids.append(node.rawValue) }
            }
        case .relationship:
            let slots = graph.relationshipSlots()
            for (id, _) in graph.relationshipProperties where id.index < slots.count
                && slots[id.index].type.rawValue == index.descriptor.schemaID && hasTerms(id.rawValue) {
                ids.append(id.rawValue)
            }
            ids.sort()
        }
        universeCache = ids
        return ids
    }

    func hasTerms(_ id: UInt32) -> Bool {
        graph.fullTextValues(index, id, field: nil).contains { text in
            TextTokenizer.terms(text).contains { !index.isStopTerm($0) }
        }
    }
}

/// Sorted-set operations on ascending id arrays.
func intersect(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
    var result: [UInt32] = []
    var i = 0, j = 0
    while i < a.count && j < b.count {
        if a[i] < b[j] { i += 1 } else if a[i] > b[j] { j += 1 } else { result.append(a[i]); i += 1; j += 1 }
    }
    return result
}

func union(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
    if a.isEmpty { return b }
    if b.isEmpty { return a }
    var result: [UInt32] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0, j = 0
    while i < a.count || j < b.count {
        if j == b.count || (i < a.count && a[i] < b[j]) { result.append(a[i]); i += 1 }
        else if i == a.count || b[j] < a[i] { result.append(b[j]); j += 1 }
        else { result.append(a[i]); i += 1; j += 1 }
    }
    return result
}

func subtract(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
    var result: [UInt32] = []
    var j = 0
    for x in a {
        while j < b.count && b[j] < x { j += 1 }
        if j < b.count && b[j] == x { continue }
        result.append(x)
    }
    return result
}

/// The union of many sorted lists: concatenated, sorted, deduplicated.
func mergeAll(_ lists: [ArraySlice<UInt32>]) -> [UInt32] {
    if lists.count == 1 { return Array(lists[0]) }
    var all: [UInt32] = []
    all.reserveCapacity(lists.reduce(0) { $0 + $1.count })
    for l in lists { all.append(contentsOf: l) }
    all.sort()
    var out = 0
    for i in all.indices where i == 0 || all[i] != all[i - 1] { all[out] = all[i]; out += 1 }
    all.removeLast(all.count - out)
    return all
}

extension Array where Element == UInt32 {
    func binarySearchContains(_ x: UInt32) -> Bool {
        var low = 0, high = count
        while low < high { let mid = (low + high) >> 1; if self[mid] < x { low = mid + 1 } else { high = mid } }
        return low < count && self[low] == x
    }
}

extension Graph {
    /// The relationships with these raw ids (hits of a relationship index), in order, skipping
    /// any not live. The graph keeps no table by id, so many are resolved in one pass over the
    /// lists and a few by a scan each.
    public func relationships(withRawIDs ids: [UInt32]) -> [Relationship] {
        if ids.count <= 4 {
            return ids.compactMap { relationship(RelationshipID(rawValue: $0)) }
        }
        let slots = relationshipSlots()
        return ids.compactMap { id in
            guard Int(id) < slots.count, slots[Int(id)].isLive else { return nil }
            let s = slots[Int(id)]
            return Relationship(id: RelationshipID(rawValue: id), type: s.type, start: s.start, end: s.end)
        }
    }
}
