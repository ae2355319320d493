// SearchBreakdown.swift — where a slow people-search query spends its time (`search --slowest N`):
// per query word, its typo budget and, for each number of typos up to it, how long the fuzzy walk
// of the dictionary takes, how many dictionary words it reaches and how many users hold them.

import Foundation
import GraphStore

enum SearchBreakdown {
    /// One line per query word: `word(budget): k0 12 µs 3 words 812 users | k1 …`.
    static func describe(_ query: String, words: TermTrie) -> String {
        let folded = NameFolding.queryWords(query)
        var parts: [String] = []
        for (i, word) in folded.enumerated() {
            let last = i == folded.count - 1
            let budget = peopleSearchTypoBudget(length: word.count, inCircle: false)
            var cells: [String] = []
            for k in 0...budget {
                var terms = 0, users = 0
                let t0 = nowNanoseconds()
                words.forEachMatch(word, maxDistance: k, transpositions: true, prefix: last) { m in
                    terms += 1
                    users += words.postings(slot: m.slot).count
                }
                let micros = Double(nowNanoseconds() - t0) / 1000
                cells.append("k\(k) \(formatMicroseconds(micros)) \(terms) words \(users) users")
            }
            parts.append("\(NameFolding.string(word))\(last ? "*" : "")(\(budget)): " + cells.joined(separator: " | "))
        }
        return parts.joined(separator: "; ")
    }
}
