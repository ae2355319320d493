// FriendIntersection.swift — the two ways past a merge of finding the friends two users share
// (Graph.forEachMutualFriend picks one): a binary search of a hub's lists per friend of a short
// list, and a bitmap when both sides have a few hundred friends or more (one side's friends set
// as bits over the id span of both, the other side's probed).
//
// Why not a merge: each step of a merge waits for its comparison before it can load the next
// id (about 2.7 ns a friend on the reference machine, 14 µs for a pair with 800 and 4,300
// friends). Here every probe and every search is independent of the last, so the CPU overlaps
// them, and the bitmap writes matches out without a branch: about 0.7–1 ns a friend, all told.

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

/// Intersects two friend lists through a bitmap. A value holding the plan: the span's bounds,
/// so a caller can ask whether it is worth it before any work.
struct BitmapIntersection {
    /// Pairs with fewer friends between them are merged: clearing a bitmap does not pay there.
    static let minimumFriends = 128
    /// The largest bitmap put on the stack, in 64-bit words (32 KiB: an id span of 262,144).
    static let maximumWords = 4096

    let low: UInt32
    let words: Int
    /// `probed`'s lists as ascending runs (FriendMerge.ascendingRuns).
    let runs: ((UnsafePointer<UInt32>, Int), (UnsafePointer<UInt32>, Int))

    /// The plan for `marked` and `probed`, or nil when a merge is the better way: too few
    /// friends, an id span too wide to clear cheaply, or `probed`'s lists interleave.
    @inline(__always) init?(marked: FriendMerge, probed: FriendMerge) {
        let friends = marked.capacityHint + probed.capacityHint
        guard friends >= Self.minimumFriends, let m = marked.idBounds, let p = probed.idBounds,
              let runs = probed.ascendingRuns else { return nil }
        self.runs = runs
        low = min(m.low, p.low)
        words = Int(max(m.high, p.high) &- low) / 64 + 1
        // Clearing a word costs about what probing a friend does.
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
    /// merge's owner), ascending: one binary search of the run that could hold it per friend.
    /// Each search starts afresh rather than where the last stopped, so the searches do not
    /// wait for each other and the CPU runs several at once. For a short list against a hub's.
    /// Returns false (and calls nothing) when this merge's lists interleave.
    @inline(__always) func searchEach(of walked: FriendMerge, _ body: (UInt32) -> Void) -> Bool {
        guard let ((first, firstCount), (second, secondCount)) = ascendingRuns else { return false }
        let owner = self.owner
        let firstLast = firstCount > 0 ? first[firstCount - 1] : 0
        var walk = walked
        walk.forEachID { f in
            let inFirst = firstCount > 0 && f <= firstLast
            let run = inFirst ? first : second, count = inFirst ? firstCount : secondCount
            let p = run.lowerBound(of: f, count: count)
            if p < count && run[p] == f && f != owner { body(f) }
        }
        return true
    }
}
