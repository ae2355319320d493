// WordMatchTable.swift — one query word's matches in the dictionary, by slot: what people
// search looks a user's own words up in (the trie keeps each user's words) to know that user's
// typos for the word without an edit-distance row per user. Made from one fuzzy walk; a few
// hundred words at most for a word with typos, so a sorted array searched by halves. A short
// prefix typed last ("Annunziata M") heads thousands of words held by more users than another
// word: it never drives, so its table is not listed; a user's word is tested against its letters.

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
    /// Set for a prefix without typos held by more users than `driverBound`: its words are not
    /// listed (`slots` is empty), `typos(of:)` compares a word's letters with it.
    private(set) var prefixTest: (trie: TermTrie, word: [UInt32])? = nil

    /// The words within `budget` typos of `word` (`prefix`: some prefix of them is).
    /// `driverBound`: the fewest users another word's table has (a prefix without typos held by
    /// more is tested letter by letter instead of listed).
    init(_ trie: TermTrie, word: [UInt32], budget: Int, prefix: Bool, driverBound: Int = .max) {
        if budget == 0 && prefix && driverBound < .max {
            guard let node = trie.node(of: word) else { return }
            if let (users, slots) = Self.holders(trie, under: node, atMost: driverBound) {
                let own = trie.nodes[Int(node)].slot
                entries = slots.map { UInt64($0) << 16 | ($0 == Int(own) ? 0 : 0xFF) }.sorted()
                userCount = users
            } else {
                prefixTest = (trie, word)
                userCount = Int.max / 4   // never the driver
            }
            let own = trie.nodes[Int(node)].slot
            if own >= 0 && !trie.postings(slot: Int(own)).isEmpty {
                wholeSlots = [Int(own)]
                wholeUserCount = trie.postings(slot: Int(own)).count
            }
            return
        }
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

    /// The words at or below `node` with their users, nil once the users pass `limit`.
    private static func holders(_ trie: TermTrie, under node: Int32, atMost limit: Int) -> (Int, [Int])? {
        var users = 0
        var slots: [Int] = []
        func take(_ slot: Int32) -> Bool {
            guard slot >= 0, case let n = trie.postings(slot: Int(slot)).count, n > 0 else { return true }
            users += n
            slots.append(Int(slot))
            return users <= limit
        }
        if !take(trie.nodes[Int(node)].slot) { return nil }
        var stack: [Int32] = []
        var c = trie.nodes[Int(node)].firstChild
        while true {
            while c >= 0 {
                let n = trie.nodes[Int(c)]
                if !take(n.slot) { return nil }
                if n.firstChild >= 0 {
                    if n.nextSibling >= 0 { stack.append(n.nextSibling) }
                    c = n.firstChild
                } else {
                    c = n.nextSibling
                }
            }
            guard let next = stack.popLast() else { return (users, slots) }
            c = next
        }
    }

    var isEmpty: Bool { entries.isEmpty && prefixTest == nil }

    /// The matched slots, ascending.
    var slots: some Sequence<Int> { entries.lazy.map { Int($0 >> 16) } }

    /// The (prefix typos, whole typos) of `slot`, whole 0xFF when over budget; nil if unmatched.
    @inline(__always) func typos(of slot: UInt32) -> (prefix: UInt8, whole: UInt8)? {
        if let (trie, word) = prefixTest {
            let t = trie.termRange(Int(slot))
            guard t.count >= word.count else { return nil }
            for i in word.indices where trie.termLetters[t.lowerBound + i] != word[i] { return nil }
            return (0, t.count == word.count ? 0 : 0xFF)
        }
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
