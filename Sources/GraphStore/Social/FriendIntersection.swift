// FriendIntersection.swift — the ways past a merge of finding the friends two users share
// (`MutualFriendsWay` picks one for Graph.forEachMutualFriend): a search of the long side's
// lists for each friend of the short side, begun where the ids' spread says it should be
// (`InterpolatedRun`), and a bitmap when both sides have a few hundred friends or more (one
// side's friends set as bits over the id span of both, the other side's probed).
//
// Why not a merge: each step of a merge waits for its comparison before it can load the next
// id (about 2.2 ns a friend on the reference machine, 14 µs for a pair with 800 and 4,300
// friends). Here every probe and every search is independent of the last, so the CPU overlaps
// them, and the bitmap writes matches out without a branch: about 0.7 ns a friend, all told.

extension FriendMerge {
    /// The smallest and largest neighbour id of the two lists (a bound: it may be the owner,
    /// on a self-loop), or nil when the node has no friends.
    var idBounds: (low: UInt32, high: UInt32)? {
        switch (na > 0, nb > 0) {
        case (true, true): return (min(a[0], b[0]), max(a[na - 1], b[nb - 1]))
        case (true, false): return (a[0], a[na - 1])
        case (false, true): return (b[0], b[nb - 1])
        case (false, false): return nil
        }
    }

    /// The two lists as runs in ascending order, the lower first, when one ends where the
    /// other starts or before (always so when each pair is stored from the lower id to the
    /// higher, as imports do; a self-loop ends one and starts the other); nil when they
    /// interleave. The id at the seam may be in both.
    var ascendingRuns: ((UnsafePointer<UInt32>, Int), (UnsafePointer<UInt32>, Int))? {
        if na == 0 || nb == 0 || b[nb - 1] <= a[0] { return ((b, nb), (a, na)) }
        if a[na - 1] <= b[0] { return ((a, na), (b, nb)) }
        return nil
    }
}

/// How `Graph.forEachMutualFriend` intersects a short friend list with a long one: the cheapest
/// of the ways below, by their costs on the reference machine (about 6 ns a friend of the short
/// side for a search, 0.7 ns a friend of either side for a bitmap plus a tenth of a nanosecond
/// a word to clear it, 2.2 ns a friend of either side for a merge).
enum MutualFriendsWay {
    /// Each of the short side's friends searched for in the long side's runs (`searchEach`).
    case search
    /// As `search`, for a hub whose two lists interleave: each search resumes where the last
    /// one stopped (`FriendMerge.containsAscending`), so the searches wait for each other.
    case resumedSearch
    /// The short side's friends as bits, probed with the long side's (`BitmapIntersection`).
    case bitmap(BitmapIntersection)
    /// Both sides merged.
    case merge

    @inline(__always) init(short: FriendMerge, long: FriendMerge) {
        let bitmap = BitmapIntersection(marked: short, probed: long)
        // In tenths of a nanosecond.
        let friends = short.capacityHint + long.capacityHint
        let otherway = bitmap.map { friends * 7 + $0.words } ?? friends * 22
        if short.capacityHint * 60 < otherway {
            if long.ascendingRuns != nil {
                self = .search
                return
            }
            // Interleaved lists: no bitmap either, so a merge unless the long side is a hub.
            if short.capacityHint * 16 < long.capacityHint {
                self = .resumedSearch
                return
            }
        }
        self = bitmap.map { .bitmap($0) } ?? .merge
    }
}

/// Intersects two friend lists through a bitmap. A value holding the plan: the span's bounds,
/// so a caller can ask whether it is worth it before any work.
struct BitmapIntersection {
    /// Pairs with fewer friends between them get no bitmap: clearing it does not pay there.
    static let minimumFriends = 128
    /// The largest bitmap put on the stack, in 64-bit words (32 KiB: an id span of 262,144).
    static let maximumWords = 4096

    let low: UInt32
    let words: Int
    /// `probed`'s lists as ascending runs (FriendMerge.ascendingRuns).
    let runs: ((UnsafePointer<UInt32>, Int), (UnsafePointer<UInt32>, Int))

    /// The plan for `marked` and `probed`, or nil when there is to be no bitmap: too few
    /// friends, an id span too wide to clear cheaply, or `probed`'s lists interleave.
    @inline(__always) init?(marked: FriendMerge, probed: FriendMerge) {
        let friends = marked.capacityHint + probed.capacityHint
        guard friends >= Self.minimumFriends, let m = marked.idBounds, let p = probed.idBounds,
              let runs = probed.ascendingRuns else { return nil }
        self.runs = runs
        low = min(m.low, p.low)
        words = Int(max(m.high, p.high) &- low) / 64 + 1
        // Clearing eight words costs about what probing a friend does.
        guard words <= Self.maximumWords && words <= 8 * friends else { return nil }
    }

    /// Calls `body` with each friend of both, ascending and once: `marked`'s friends become
    /// bits (never either owner), then each entry of `probed`'s two runs is tested, matches
    /// written out branch-free and reported after.
    @inline(__always) func forEachCommon(_ marked: FriendMerge, _ probed: FriendMerge, _ body: (UInt32) -> Void) {
        let ((first, firstCount), (second, secondCount)) = runs
        let low = self.low, words = self.words
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: words + (firstCount + secondCount + 2) / 2) { buffer in
            guard let bits = buffer.baseAddress else { return }
            bits.initialize(repeating: 0, count: words)
            // Marking is order-blind and a repeat sets a set bit again, so the marked side's
            // two lists are walked raw, not merged.
            @inline(__always) func mark(_ run: UnsafePointer<UInt32>, _ count: Int) {
                var i = 0
                while i < count {
                    let k = Int(run[i] &- low)
                    bits[k &>> 6] |= 1 &<< UInt64(k & 63)
                    i &+= 1
                }
            }
            mark(marked.a, marked.na)
            mark(marked.b, marked.nb)
            // Neither owner is a common friend; either is in its own lists only through a
            // self-loop (and the other's owner is marked when the two are friends).
            @inline(__always) func clear(_ id: UInt32) {
                let k = Int(id) &- Int(low)
                if k >= 0 && k < words * 64 { bits[k &>> 6] &= ~(1 &<< UInt64(k & 63)) }
            }
            clear(marked.owner)
            clear(probed.owner)
            // Matches go to the words after the bitmap, as UInt32s: every probed entry is
            // written, and the count moves only on a match.
            let out = UnsafeMutableRawPointer(bits + words).assumingMemoryBound(to: UInt32.self)
            var n = 0
            @inline(__always) func probe(_ run: UnsafePointer<UInt32>, _ count: Int) {
                var i = 0
                while i < count {
                    let f = run[i]
                    let k = Int(f &- low)
                    out[n] = f
                    n &+= Int((bits[k &>> 6] &>> UInt64(k & 63)) & 1)
                    i &+= 1
                }
            }
            probe(first, firstCount)
            probe(second, secondCount)
            // Parallel relationships repeat an entry; each common friend is reported once.
            var previous = UInt32.max
            for i in 0..<n where out[i] != previous {
                previous = out[i]
                body(previous)
            }
        }
    }
}

extension FriendMerge {
    /// Calls `body` with each of `walked`'s friends that is also a friend here (never this
    /// merge's owner), ascending: one search of the run that could hold it per friend, begun
    /// where the run's spread of ids says the friend should be (`InterpolatedRun`). Each search
    /// starts afresh rather than where the last stopped, so the searches do not wait for each
    /// other and the CPU runs several at once. For a short list against a long one whose two
    /// lists do not interleave (`ascendingRuns`; otherwise nothing is called).
    @inline(__always) func searchEach(of walked: FriendMerge, _ body: (UInt32) -> Void) {
        guard let ((first, firstCount), (second, secondCount)) = ascendingRuns else { return }
        let owner = self.owner
        let lower = InterpolatedRun(first, firstCount), upper = InterpolatedRun(second, secondCount)
        let firstLast = firstCount > 0 ? first[firstCount - 1] : 0
        var walk = walked
        walk.forEachID { f in
            let found = firstCount > 0 && f <= firstLast ? lower.contains(f) : upper.contains(f)
            if found && f != owner { body(f) }
        }
    }
}

/// One ascending run of neighbour ids, searched from where an id should be if the run's ids
/// were spread evenly between its first and last: a hub's friends are (ids are handed out in
/// order of arrival, not of acquaintance), so the guess lands within a few dozen entries and
/// a search of a 64-entry window around it, one or two cache lines, settles it. A full binary
/// search of a 4,000-friend list waits for twelve reads, most of them cache misses when the
/// list is cold; this waits for about three, in lines next to each other. Ids the window
/// cannot hold fall back to the full search, so any spread gives the right answer.
struct InterpolatedRun {
    /// The window searched around the guess, in entries.
    static let window = 64

    let base: UnsafePointer<UInt32>
    let count: Int
    let first: UInt32
    let last: UInt32
    /// (count − 1) · 2³² / (last − first): an offset from `first` times this, over 2⁶⁴, is the guess.
    let scale: UInt64

    @inline(__always) init(_ base: UnsafePointer<UInt32>, _ count: Int) {
        self.base = base
        self.count = count
        first = count > 0 ? base[0] : 1
        last = count > 0 ? base[count - 1] : 0
        let span = UInt64(last &- first)
        scale = count > 1 && span > 0 ? (UInt64(min(count - 1, Int(UInt32.max))) &<< 32) / span : 0
    }

    /// Whether `id` is in the run.
    @inline(__always) func contains(_ id: UInt32) -> Bool {
        guard id >= first && id <= last else { return false }
        let window = Self.window
        if count >= window {
            let offset = UInt64(id &- first).multipliedFullWidth(by: scale)
            let guess = Int(truncatingIfNeeded: (offset.high &<< 32) | (offset.low &>> 32))
            let start = max(0, min(guess &- window / 2, count &- window))
            // The window holds the id's place when the entry before it is smaller and its last
            // is not (or it reaches the run's end): almost always.
            let w = base + start
            if (start == 0 || w[-1] < id) && (start &+ window == count || w[window &- 1] >= id) {
                let p = w.lowerBound(of: id, count: window)
                return p < window && w[p] == id
            }
        }
        // A run shorter than the window, or a guess that missed: the whole run.
        let p = base.lowerBound(of: id, count: count)
        return p < count && base[p] == id
    }
}
