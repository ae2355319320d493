// Graph+Connections.swift — "people you may know": friends of friends who are neither the user
// nor already friends, ranked by mutual friends. The 2-hop walk counts into the scratch's
// counters (cost Σ deg(friend), the floor for this question), then a bounded heap keeps the top k.

/// A friend of a friend and the number of friends they share with the user.
public struct Connection: Sendable, Hashable {
    public var node: NodeID
    public var mutualFriends: Int

    public init(node: NodeID, mutualFriends: Int) {
        self.node = node
        self.mutualFriends = mutualFriends
    }
}

/// Options of `connections(of:)`.
public struct ConnectionOptions: Sendable, Hashable {
    /// At most this many rows (nil: all of them).
    public var limit: Int?
    /// Only connections sharing at least this many friends (1 = every friend of a friend).
    public var minimumMutual: Int

    public init(limit: Int? = nil, minimumMutual: Int = 1) {
        self.limit = limit
        self.minimumMutual = minimumMutual
    }
}

extension Graph {
    /// Friends of friends of `user` who are not `user` and not already friends, with their mutual
    /// friend counts, ordered by count descending then node id ascending, cut at `options.limit`.
    /// - Complexity: O(Σ deg(f) over the user's friends f + touched · log k); no allocation
    ///   proportional to the graph (the counters live in `scratch`).
    public func connections(of user: NodeID, schema: SocialSchema, options: ConnectionOptions = ConnectionOptions(),
                            scratch: inout TraversalScratch) -> [Connection] {
        guard contains(user) else { return [] }
        let mark = scratch.begin(on: self)
        markSelfAndFriends(user, schema: schema, mark: mark, scratch: &scratch)
        countFriendsOfFriends(of: user, schema: schema, scratch: &scratch)
        let marks = scratch.marks
        let result = scratch.rankTouched(limit: options.limit, minimum: options.minimumMutual) { marks[Int($0)] != mark }
        scratch.resetCounts()
        return result.map { Connection(node: NodeID(rawValue: $0.node), mutualFriends: $0.count) }
    }

    /// How many distinct friends of friends `user` has (not `user`, not friends).
    /// - Complexity: O(Σ deg(f)).
    public func connectionCount(of user: NodeID, schema: SocialSchema, scratch: inout TraversalScratch) -> Int {
        guard contains(user) else { return 0 }
        let mark = scratch.begin(on: self)
        markSelfAndFriends(user, schema: schema, mark: mark, scratch: &scratch)
        countFriendsOfFriends(of: user, schema: schema, scratch: &scratch)
        var n = 0
        for node in scratch.touched where scratch.marks[Int(node)] != mark { n += 1 }
        scratch.resetCounts()
        return n
    }

    /// Marks `user` and its friends with `mark` (the nodes a connection may not be).
    @inline(__always) func markSelfAndFriends(_ user: NodeID, schema: SocialSchema, mark: UInt32,
                                              scratch: inout TraversalScratch) {
        scratch.marks[user.index] = mark
        var friends = FriendMerge(self, user, schema.friend)
        while let f = friends.nextID() { scratch.marks[Int(f)] = mark }
    }

    /// Counts, for every node two FRIEND hops from `user`, the friends of `user` it is adjacent
    /// to (= its mutual friends with `user`). Everything reached is counted, `user` and its
    /// friends included (a friend's counter is its mutual count too): callers drop what they
    /// must not report by its mark when they read the touched list, so the hot loop makes one
    /// random memory access per step (the counter), as the C floor does.
    /// Raw buffers, no bounds checks, no allocation.
    func countFriendsOfFriends(of user: NodeID, schema: SocialSchema, scratch: inout TraversalScratch) {
        var n = scratch.touchedCount
        scratch.counts.withUnsafeMutableBufferPointer { counts in
            scratch.touchedSlots.withUnsafeMutableBufferPointer { touched in
                var outer = FriendMerge(self, user, schema.friend)
                while let f = outer.nextID() {
                    var inner = FriendMerge(self, NodeID(rawValue: f), schema.friend)
                    inner.forEachID { w in
                        let k = Int(w)
                        if counts[k] == 0 { touched[n] = w; n &+= 1 }
                        counts[k] &+= 1
                    }
                }
            }
        }
        scratch.touchedCount = n
    }
}

/// One ranked row out of the scratch's counters.
struct RankedNode {
    var node: UInt32
    var count: Int
}

extension TraversalScratch {
    /// The touched nodes with counter ≥ `minimum` that pass `keep`, by counter descending then id
    /// ascending, at most `limit`. A k-bounded min-heap of packed keys (count, inverted id) keeps
    /// it O(touched · log k) with no allocation beyond the answer.
    mutating func rankTouched(limit: Int?, minimum: Int, _ keep: (UInt32) -> Bool) -> [RankedNode] {
        let k = limit ?? Int.max
        guard k > 0 else { return [] }
        keys.removeAll(keepingCapacity: true)
        let floor = UInt32(clamping: max(minimum, 1))
        for node in touched {
            let c = counts[Int(node)]
            guard c >= floor, keep(node) else { continue }
            let key = UInt64(c) << 32 | UInt64(UInt32.max - node)
            if keys.count < k {
                keys.append(key)
                if keys.count == k, limit != nil { keys.heapifyMin() }
            } else if key > keys[0] {
                keys[0] = key
                keys.siftDownMin(from: 0)
            }
        }
        keys.radixSortAscending(spare: &spareKeys)
        return keys.reversed().map { RankedNode(node: UInt32.max - UInt32(truncatingIfNeeded: $0), count: Int($0 >> 32)) }
    }
}

extension Array where Element == UInt64 {
    /// Turns the array into a binary min-heap.
    mutating func heapifyMin() {
        var i = count / 2 - 1
        while i >= 0 { siftDownMin(from: i); i -= 1 }
    }

    @inline(__always) mutating func siftDownMin(from start: Int) {
        var i = start
        let n = count
        while true {
            let l = 2 * i + 1
            if l >= n { return }
            let r = l + 1
            let m = r < n && self[r] < self[l] ? r : l
            if self[m] < self[i] { swapAt(m, i); i = m } else { return }
        }
    }
}
