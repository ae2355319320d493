// WordMatchTable.swift — one query word's matches in the dictionary, by slot: what people
// search looks a user's own words up in (the trie keeps each user's words) to know that user's
// typos for the word without an edit-distance row per user. Made from one fuzzy walk; a few
// hundred words at most for a word with typos, so a sorted array searched by halves.

/// A query word's dictionary words within a typo budget, each with its typos (as a prefix and
/// as a whole word), looked up by slot.
struct WordMatchTable {
    /// slot << 16 | prefix typos << 8 | whole typos (0xFF: the whole word is over the budget), ascending.
    private var entries: [UInt64] = []
    /// Users holding the matched words (a user with two of them counted twice): the cost of
    /// driving a search from this word.
    private(set) var userCount = 0
    /// The slots matched as a whole word within the budget, and their users.
    private(set) var wholeSlots: [Int] = []
    private(set) var wholeUserCount = 0

    /// The words within `budget` typos of `word` (`prefix`: some prefix of them is).
    init(_ trie: TermTrie, word: [UInt32], budget: Int, prefix: Bool) {
        var entries: [UInt64] = []
        var users = 0, wholeUsers = 0
        var wholeSlots: [Int] = []
        trie.forEachMatch(word, maxDistance: budget, transpositions: true, prefix: prefix) { m in
            let typos = UInt64(prefix ? m.prefixDistance : m.wholeDistance)
            let whole = UInt64(m.wholeDistance <= budget ? m.wholeDistance : 0xFF)
            entries.append(UInt64(m.slot) << 16 | typos << 8 | whole)
            let holders = trie.postings(slot: m.slot).count
            users += holders
            if m.wholeDistance <= budget { wholeSlots.append(m.slot); wholeUsers += holders }
        }
        entries.sort()
        self.entries = entries
        userCount = users
        self.wholeSlots = wholeSlots
        wholeUserCount = wholeUsers
    }

    var isEmpty: Bool { entries.isEmpty }

    /// The matched slots, ascending.
    var slots: some Sequence<Int> { entries.lazy.map { Int($0 >> 16) } }

    /// The (prefix typos, whole typos) of `slot`, whole 0xFF when over budget; nil if unmatched.
    @inline(__always) func typos(of slot: UInt32) -> (prefix: UInt8, whole: UInt8)? {
        let key = UInt64(slot) << 16
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) >> 1
            if entries[mid] < key { low = mid + 1 } else { high = mid }
        }
        guard low < entries.count, entries[low] >> 16 == UInt64(slot) else { return nil }
        let e = entries[low]
        return (UInt8(truncatingIfNeeded: e >> 8), UInt8(truncatingIfNeeded: e))
    }
}
