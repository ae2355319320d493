// PeopleSearchByLevels.swift — a query of several words outside the viewer's circle, searched
// class by class in the contract's order: level d (typos over all words) with the last word
// matched whole, then as a prefix, each class's users in ascending id, until the page is full.
// At level d every word is walked with min(d, its budget) typos, which finds every user with
// d typos or fewer: the walks with more typos (the costly ones) are made only when the classes
// before leave room. Within a level, the word held by the fewest users drives (for the whole
// class, the last word's whole matches alone when they are few): its users come in ascending
// id from a merge of its postings, each checked against every word with its own words (the
// trie keeps them) looked up in each word's match table, so a level stops at its first few
// matches once its whole class fills the page.

extension PeopleWordChecker {
    /// The best `need` users outside `circle` matching every query word (two or more), in the
    /// contract's order.
    func searchByLevels(need: Int, circle: PeopleCircle) -> [PersonMatch] {
        let budgets = query.map { peopleSearchTypoBudget(length: $0.count, inCircle: false) }
        let lastWord = query.count - 1
        var tables: [WordMatchTable] = []
        var results: [PersonMatch] = []
        levels: for level in 0...budgets.reduce(0, +) {
            // A word whose budget is below the level keeps its table (already at its budget).
            for i in query.indices where level == 0 || level <= budgets[i] || tables[i].prefixTest != nil {
                // The last word comes last: the others' user counts bound whether it may drive
                // (a prefix left unlisted is weighed again against the level's new tables).
                let bound = i == lastWord ? tables.prefix(lastWord).map(\.userCount).min() ?? .max : .max
                let table = WordMatchTable(words, word: query[i], budget: min(level, budgets[i]), prefix: i == lastWord,
                                           driverBound: bound)
                if level == 0 { tables.append(table) } else { tables[i] = table }
            }
            for i in tables.indices where tables[i].isEmpty {
                if level >= budgets[i] { return results }  // no match within its budget: nobody else matches
                continue levels
            }
            let driver = tables.indices.min { tables[$0].userCount < tables[$1].userCount }!
            // With many users to drive from, the other words' holders are first marked as bits
            // (HolderFilter.swift), when marking them costs less than the look-ups it saves.
            var filters: [HolderFilter] = []
            if tables[driver].userCount >= 256 {
                for i in tables.indices where i != driver && tables[i].prefixTest == nil
                    && tables[i].userCount <= 16 * tables[driver].userCount {
                    filters.append(HolderFilter(words, tables[i], idLimit: words.forward.count))
                }
            }
            let byWhole = tables[lastWord].wholeUserCount * 4 < tables[driver].userCount
            if byWhole {
                // Few users hold the last word whole: its whole class is found from them alone.
                let room = need - results.count
                var merge = PostingsMerge(words, slots: tables[lastWord].wholeSlots)
                results += scan(&merge, tables, filters, circle, level: level, room: room, wholeOnly: true).whole
                if results.count >= need { return results }
            }
            // One pass in ascending id for both classes of the level: it stops once the whole
            // class fills the page, else the prefix class takes the room the whole one left.
            let room = need - results.count
            var merge = PostingsMerge(words, slots: tables[driver].slots)
            let (whole, partial) = scan(&merge, tables, filters, circle, level: level, room: room,
                                        wholeOnly: false, skipWhole: byWhole)
            results += whole.prefix(room)
            results += partial.prefix(room - min(room, whole.count))
            if results.count >= need { return results }
        }
        return results
    }

    /// The users from `merge` with `level` typos, split by whether the last word matched whole,
    /// each list ascending and at most `room` long; it stops when the whole list is full
    /// (`skipWhole`: the whole class was taken already, only the prefix class is kept).
    private func scan(_ merge: inout PostingsMerge, _ tables: [WordMatchTable], _ filters: [HolderFilter],
                      _ circle: PeopleCircle, level: Int, room: Int,
                      wholeOnly: Bool, skipWhole: Bool = false) -> (whole: [PersonMatch], partial: [PersonMatch]) {
        var whole: [PersonMatch] = [], partial: [PersonMatch] = []
        candidates: while whole.count < room, let id = merge.next() {
            for filter in filters where !filter.contains(id) { continue candidates }
            if circle.contains(id) { continue }
            guard let (typos, isWhole) = typos(of: id, tables), typos == level else { continue }
            let row = PersonMatch(node: NodeID(rawValue: id), relation: .other, mutual: 0, typos: typos, lastWordWhole: isWhole)
            if isWhole {
                if !skipWhole { whole.append(row) }
            } else if !wholeOnly && partial.count < room {
                partial.append(row)
                if skipWhole && partial.count == room { break }
            }
        }
        return (whole, partial)
    }

    /// `id`'s typos over every word (each the least over its own words) and whether the last
    /// word matched one of them whole; nil when a word matches none of them.
    @inline(__always) func typos(of id: UInt32, _ tables: [WordMatchTable]) -> (Int, Bool)? {
        let own = words.forwardRange(id)
        var total = 0, whole = false
        for (i, table) in tables.enumerated() {
            var best: UInt8 = 0xFF, bestWhole: UInt8 = 0xFF
            for p in own {
                guard let (prefix, w) = table.typos(of: words.forwardSlots[p]) else { continue }
                best = min(best, prefix)
                bestWhole = min(bestWhole, w)
            }
            if best == 0xFF { return nil }
            total += Int(best)
            if i == tables.count - 1 { whole = bestWhole == best }
        }
        return (total, whole)
    }
}
