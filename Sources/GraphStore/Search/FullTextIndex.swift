// FullTextIndex.swift — one full-text index's data: dictionaries over the same entities,
// one with RediSearch's terms of every property (lower-cased, split on punctuation: what
// `db.idx.fulltext.*` searches) and, per property, one with people-search words (NameFolding:
// what `social.searchPeople` searches, in the name alone, not in a username beside it). Entities are added and removed by their property values, so the graph keeps no
// per-entity copy of the words: a write passes the old and new values.

import Dispatch

/// The dictionaries of one full-text index. Entity ids are node or relationship raw ids.
public struct FullTextIndex: Sendable, Equatable {
    public internal(set) var descriptor: FullTextIndexDescriptor
    /// RediSearch terms → entities.
    public internal(set) var terms = TermTrie()
    /// Per key (in `descriptor.keys` order), folded name words → entities.
    public internal(set) var wordTries: [TermTrie] = []
    /// Stop words, tokenized as terms are.
    private var stopTerms: Set<[UInt32]> = []

    init(_ descriptor: FullTextIndexDescriptor) {
        self.descriptor = descriptor
        wordTries = Array(repeating: TermTrie(keepsForward: true), count: descriptor.keys.count)
        stopTerms = Set(descriptor.stopwords.flatMap { TextTokenizer.terms($0) })
    }

    /// Approximate heap bytes of both dictionaries.
    public var byteCount: Int { terms.byteCount + wordTries.reduce(0) { $0 + $1.byteCount } }

    /// The people-search words of property `key`, if this index reads it.
    public func words(of key: PropertyKeyID) -> TermTrie? {
        descriptor.keys.firstIndex(of: key).map { wordTries[$0] }
    }

    /// Adds (or removes) `id` under every term and word of `value` (of the key at `position`)
    /// when it is a string; other values are not indexed.
    mutating func update(_ id: UInt32, value: Value, position: Int, insert: Bool) {
        guard case .string(let text) = value else { return }
        for term in TextTokenizer.terms(text) where !stopTerms.contains(term) {
            if insert { terms.insert(term, id) } else { terms.remove(term, id) }
        }
        for word in NameFolding.nameWords(text) {
            if insert { wordTries[position].insert(word, id) } else { wordTries[position].remove(word, id) }
        }
    }

    /// Builds the dictionaries over entities given in ascending id order (see TermTrie+Bulk.swift).
    /// The RediSearch terms and the people words share nothing but the texts, so each is built
    /// on a thread of its own (folding and finding the words is most of a build).
    mutating func bulkLoad(_ entities: some Sequence<(UInt32, [PropertyEntry])>) {
        var collected: [(id: UInt32, position: Int, text: String)] = []
        for (id, properties) in entities {
            for (position, key) in descriptor.keys.enumerated() {
                if case .string(let text) = properties.value(of: key) { collected.append((id, position, text)) }
            }
        }
        let texts = collected, stop = stopTerms
        let parts = BulkBuildParts(terms: terms, wordTries: wordTries)
        terms = TermTrie()
        wordTries = []
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            var words = FoldedWords()
            if part == 0 {
                var load = TermTrieBulkLoad()
                for (id, _, text) in texts {
                    TextTokenizer.terms(text, into: &words)
                    words.forEach { term in
                        if stop.isEmpty || !stop.contains(Array(term)) { load.add(term, id, to: &parts.terms) }
                    }
                }
                load.finish(into: &parts.terms)
            } else {
                var loads = [TermTrieBulkLoad](repeating: TermTrieBulkLoad(), count: parts.wordTries.count)
                for (id, position, text) in texts {
                    NameFolding.nameWords(text, into: &words)
                    words.forEach { word in loads[position].add(word, id, to: &parts.wordTries[position]) }
                }
                for position in loads.indices { loads[position].finish(into: &parts.wordTries[position]) }
            }
        }
        terms = parts.terms
        wordTries = parts.wordTries
    }

    /// Adds or removes an entity with these properties (the keys this index reads).
    mutating func update(_ id: UInt32, properties: [PropertyEntry], insert: Bool) {
        for (position, key) in descriptor.keys.enumerated() {
            let value = properties.value(of: key)
            if value != .null { update(id, value: value, position: position, insert: insert) }
        }
    }

    /// Whether `term` is a stop word of this index (a query term that is one matches nothing,
    /// and is left out of an AND, as RediSearch does).
    func isStopTerm(_ term: [UInt32]) -> Bool { stopTerms.contains(term) }
}

/// The two dictionaries of a bulk build while it runs: `terms` written by one thread only,
/// `wordTries` by the other, read once both are done.
private final class BulkBuildParts: @unchecked Sendable {
    var terms: TermTrie
    var wordTries: [TermTrie]

    init(terms: TermTrie, wordTries: [TermTrie]) {
        self.terms = terms
        self.wordTries = wordTries
    }
}
