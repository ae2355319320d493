// SearchReference.swift — the people-search reference the `search` benchmark checks graphd
// against: every name checked one by one with its own folding and its own optimal-string-
// alignment distance, sharing no code with GraphStore's index (docs/social.md's contract read
// literally, as Tests/GraphStoreTests/SearchPeopleTests.swift's reference does).

import Foundation

/// The brute-force people search over pre-folded names.
struct SearchReference {
    /// Per user, the folded words of the name (joined forms and pieces included).
    let nameWords: [[[Unicode.Scalar]]]
    let friends: [Set<Int>]

    init(names: [String], friends: [Set<Int>]) {
        nameWords = names.map(Self.words)
        self.friends = friends
    }

    static let joiners: Set<Unicode.Scalar> = ["'", "-", "\u{2019}", "\u{2018}", "\u{02BC}", "\u{2010}", "\u{2011}"]

    static func fold(_ s: String) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        for scalar in s.decomposedStringWithCompatibilityMapping.unicodeScalars where scalar.properties.canonicalCombiningClass.rawValue == 0 {
            for l in String(scalar).lowercased().decomposedStringWithCompatibilityMapping.unicodeScalars
            where l.properties.canonicalCombiningClass.rawValue == 0 {
                switch l {
                case "ł": out.append("l")
                case "ø": out.append("o")
                case "æ": out.append("a"); out.append("e")
                case "đ": out.append("d")
                case "ı": out.append("i")
                case "ß": out.append("s"); out.append("s")
                case "ς": out.append("σ")
                default: out.append(l)
                }
            }
        }
        return out
    }

    static func isCJK(_ v: Unicode.Scalar) -> Bool {
        let x = v.value
        return (0x3040...0x30FF).contains(x) || (0x3400...0x4DBF).contains(x) || (0x4E00...0x9FFF).contains(x)
            || (0xAC00...0xD7A3).contains(x) || (0x1100...0x11FF).contains(x)
    }

    static func words(_ name: String) -> [[Unicode.Scalar]] {
        var result: [[Unicode.Scalar]] = []
        let raw = name.unicodeScalars.split(whereSeparator: { $0.properties.isWhitespace })
        for word in raw {
            if word.contains(where: { joiners.contains($0) }) {
                result.append(fold(String(String.UnicodeScalarView(word.filter { !joiners.contains($0) }))))
                for piece in word.split(whereSeparator: { joiners.contains($0) }) { result.append(fold(String(String.UnicodeScalarView(piece)))) }
            } else {
                result.append(fold(String(String.UnicodeScalarView(word))))
            }
        }
        if raw.count > 1 && name.unicodeScalars.contains(where: isCJK) {
            result.append(fold(String(String.UnicodeScalarView(raw.joined()))))
        }
        return result.filter { !$0.isEmpty }
    }

    static func queryWords(_ query: String) -> [[Unicode.Scalar]] {
        query.unicodeScalars.split(whereSeparator: { $0.properties.isWhitespace })
            .map { fold(String(String.UnicodeScalarView($0.filter { !joiners.contains($0) }))) }.filter { !$0.isEmpty }
    }

    /// OSA distance, the textbook table (rows reused).
    static func osa(_ a: [Unicode.Scalar], _ b: ArraySlice<Unicode.Scalar>) -> Int {
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    struct Row: Equatable {
        var id: Int, tier: Int, mutual: Int, typos: Int, whole: Bool
    }

    /// Every match, in the contract's order.
    func search(viewer: Int?, query: String) -> [Row] {
        let q = Self.queryWords(query)
        guard !q.isEmpty else { return [] }
        var rows: [Row] = []
        for id in nameWords.indices {
            var tier = 3, mutual = 0
            if let viewer {
                if id == viewer { tier = 0 } else {
                    let shared = friends[viewer].intersection(friends[id]).count
                    if friends[viewer].contains(id) { tier = 1; mutual = shared } else if shared > 0 { tier = 2; mutual = shared }
                }
            }
            var typos = 0, whole = false, ok = true
            for (i, word) in q.enumerated() {
                let budget = word.count >= 8 ? 2 : word.count >= 4 ? 1 : (word.count == 3 && tier < 3 ? 1 : 0)
                if i < q.count - 1 {
                    var best = Int.max
                    for w in nameWords[id] where abs(w.count - word.count) <= budget { best = min(best, Self.osa(word, w[...])) }
                    if best > budget { ok = false; break }
                    typos += best
                } else {
                    var best = Int.max, bestWhole = Int.max
                    for w in nameWords[id] {
                        for n in 0...min(w.count, word.count + budget) where abs(n - word.count) <= budget {
                            best = min(best, Self.osa(word, w[0..<n]))
                        }
                        if abs(w.count - word.count) <= budget { bestWhole = min(bestWhole, Self.osa(word, w[...])) }
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
