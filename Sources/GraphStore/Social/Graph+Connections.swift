// Graph+Connections.swift — "people you may know": friends of friends who are neither the user
// nor already friends, ranked by mutual friends. The 2-hop walk counts into the scratch's
// counters (cost Σ deg(friend), the floor for this question), then a bounded heap keeps the top k
// (or, for a whole ranking, a counting sort reads them back in id order).

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
    /// With `limit` k: every connection whose count reaches the k-th highest count, so more
    /// than k when there are ties there. The first k rows are the same; a caller ranking ties
    /// by something else than the node id sorts these and cuts them itself.
    public var limitWithTies: Bool
    /// Only friends with this label are counted as mutual friends (the user's friends without
    /// it are still not connections).
    public var friendLabel: LabelID?
    /// Only connections with this label are listed.
    public var label: LabelID?

    public init(limit: Int? = nil, minimumMutual: Int = 1, limitWithTies: Bool = false,
                friendLabel: LabelID? = nil, label: LabelID? = nil) {
        self.limit = limit
        self.minimumMutual = minimumMutual
        self.limitWithTies = limitWithTies
        self.friendLabel = friendLabel
        self.label = label
    }
}

extension Graph {
    /// Friends of friends of `user` who are not `user` and not already friends, with their mutual
    /// friend counts, ordered by count descending then node id ascending, cut at `options.limit`.
    /// - Complexity: O(Σ deg(f) over the user's friends f + touched · log k); no allocation
    ///   proportional to the graph (the counters live in `scratch`).
    public func connections(of user: NodeID, schema: SocialSchema, options: ConnectionOptions = ConnectionOptions(),
                            scratch: inout TraversalScratch) -> [Connection] {
        connections(of: user, schema: schema, options: options, distinctBy: [], scratch: &scratch) ?? []
    }

    /// As `connections(of:schema:options:scratch:)`, or nil when two of the connections it
    /// would list (before the limit) hold equivalent values of the properties `keys` (a
    /// grouping would put them together: nulls together, 1 with 1.0), or a value no key
    /// compares (NaN). The check reads every connection's values before the ranking keeps k.
    public func connections(of user: NodeID, schema: SocialSchema, options: ConnectionOptions, distinctBy keys: [PropertyKeyID],
                            scratch: inout TraversalScratch) -> [Connection]? {
        guard contains(user) else { return [] }
        flagSelfAndFriends(user, schema: schema, scratch: &scratch)
        countFriendsOfFriends(of: user, schema: schema, friendLabel: options.friendLabel, scratch: &scratch)
        // Without a label the closure reads nothing of the graph (capturing it copies it).
        let keep: (UInt32, UInt32) -> Bool
        if let label = options.label {
            let members = label.index < labelMembers.count ? labelMembers[label.index] : NodeBitSet()
            keep = { node, c in c & CounterFlags.excluded == 0 && members.contains(NodeID(rawValue: node)) }
        } else {
            keep = { _, c in c & CounterFlags.excluded == 0 }
        }
        guard touchedAreDistinct(by: keys, minimum: options.minimumMutual, scratch: scratch, keep) else {
            scratch.resetCounts()
            return nil
        }
        var limit = options.limit, minimum = options.minimumMutual
        if options.limitWithTies, let k = limit {
            // Every node whose count reaches the k-th highest: the rows of count ≥ that count.
            minimum = max(minimum, scratch.countAtRank(k, minimum: minimum, keep))
            limit = nil
        }
        // The ranking ends the counting: every counter is zero again.
        let result = scratch.rankTouched(limit: limit, minimum: minimum, keep)
        return result.map { Connection(node: NodeID(rawValue: $0.node), mutualFriends: $0.count) }
    }

    /// The connections of several users taken together, as the plain pattern
    /// `(u)-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c)` grouped by `c`
    /// alone counts them when it matches more than one `u`: `c`'s count is the number of
    /// distinct `f` through which some listed `u` reaches it, `c` being neither that `u` nor
    /// its friend (so one listed user may be another's connection). Same order and options as
    /// `connections(of:)`, which it is for a single user (duplicates and missing nodes are
    /// dropped). `check` runs once per friend walked, so that a deadline can stop the walk.
    /// - Complexity: O(Σ over distinct f of deg(f) · users reaching f), plus a dictionary of
    ///   the nodes reached: the general path, for the rare query whose MATCH finds several users.
    public func connections<E: Error>(ofAny users: [NodeID], schema: SocialSchema, options: ConnectionOptions = ConnectionOptions(),
                                      scratch: inout TraversalScratch, check: () throws(E) -> Void) throws(E) -> [Connection] {
        let distinct = Array(Set(users.filter { contains($0) })).sorted()
        guard distinct.count > 1 else {
            return distinct.first.map { connections(of: $0, schema: schema, options: options, scratch: &scratch) } ?? []
        }
        // Each user's friends, and for each friend f (with the friend label) the users it is a friend of.
        let friendSets = distinct.map { Set(friendIDs(of: $0, schema: schema)) }
        var usersOf: [UInt32: [Int]] = [:]
        for (k, friends) in friendSets.enumerated() {
            for f in friends where options.friendLabel.map({ node(NodeID(rawValue: f), hasLabel: $0) }) ?? true {
                usersOf[f, default: []].append(k)
            }
        }
        var counts: [UInt32: Int] = [:]
        for (f, reaching) in usersOf {
            try check()
            for c in friendIDs(of: NodeID(rawValue: f), schema: schema)
            where options.label.map({ node(NodeID(rawValue: c), hasLabel: $0) }) ?? true {
                if reaching.contains(where: { c != distinct[$0].rawValue && !friendSets[$0].contains(c) }) {
                    counts[c, default: 0] += 1
                }
            }
        }
        let floor = max(options.minimumMutual, 1)
        var ranked = counts.filter { $0.value >= floor }.map { Connection(node: NodeID(rawValue: $0.key), mutualFriends: $0.value) }
        ranked.sort { $0.mutualFriends != $1.mutualFriends ? $0.mutualFriends > $1.mutualFriends : $0.node < $1.node }
        if let limit = options.limit, limit < ranked.count {
            var end = max(limit, 0)
            if options.limitWithTies, end > 0 {
                while end < ranked.count && ranked[end].mutualFriends == ranked[end - 1].mutualFriends { end += 1 }
            }
            ranked.removeSubrange(end...)
        }
        return ranked
    }

    /// How many distinct friends of friends `user` has (not `user`, not friends).
    /// - Complexity: O(Σ deg(f)).
    public func connectionCount(of user: NodeID, schema: SocialSchema, scratch: inout TraversalScratch) -> Int {
        guard contains(user) else { return 0 }
        flagSelfAndFriends(user, schema: schema, scratch: &scratch)
        countFriendsOfFriends(of: user, schema: schema, scratch: &scratch)
        var n = 0
        for node in scratch.touched where scratch.counts[Int(node)] & CounterFlags.excluded == 0 { n += 1 }
        scratch.resetCounts()
        return n
    }

    /// Whether no two counted nodes the ranking would list (counter ≥ `minimum`, passing
    /// `keep`) hold equivalent values of `keys` (`nodesAreDistinct`).
    func touchedAreDistinct(by keys: [PropertyKeyID], minimum: Int, scratch: TraversalScratch,
                            _ keep: (_ node: UInt32, _ counter: UInt32) -> Bool) -> Bool {
        guard !keys.isEmpty else { return true }
        let floor = UInt32(clamping: max(minimum, 1))
        var listed: [UInt32] = []
        listed.reserveCapacity(scratch.touchedCount)
        for node in scratch.touched {
            let c = scratch.counts[Int(node)]
            if c >= floor && keep(node, c) { listed.append(node) }
        }
        return nodesAreDistinct(listed, by: keys)
    }

    /// Whether no two of `nodes` hold equivalent values of `keys`, as a grouping by them sees
    /// values: nulls are equivalent, 1 is 1.0, and a value no key compares (NaN) counts as a
    /// clash. True for no keys. What a rewrite checks before it takes a grouping by properties
    /// of a node to be a grouping by the node.
    public func nodesAreDistinct<S: Sequence>(_ nodes: S, by keys: [PropertyKeyID]) -> Bool where S.Element == UInt32 {
        guard !keys.isEmpty else { return true }
        if keys.count == 1 {
            // One key, most often an integer id held in its index's column: a set of integers
            // (an integral double joins them, as 1 groups with 1.0), anything else beside it.
            let key = keys[0], column = integerColumn(key)
            var integers = Set<Int64>(minimumCapacity: nodes.underestimatedCount)
            var others = Set<IndexKey?>()
            for node in nodes {
                if let i = integerValue(key, of: node, column: column) {
                    guard integers.insert(i).inserted else { return false }
                    continue
                }
                let value = property(key, of: NodeID(rawValue: node))
                let indexKey = IndexKey(value)
                if indexKey == nil, value != .null { return false }
                if case .integer(let i)? = indexKey {
                    guard integers.insert(i).inserted else { return false }
                } else {
                    guard others.insert(indexKey).inserted else { return false }
                }
            }
            return true
        }
        var seen = Set<[IndexKey?]>()
        for node in nodes {
            var values: [IndexKey?] = []
            for key in keys {
                let value = property(key, of: NodeID(rawValue: node))
                let indexKey = IndexKey(value)
                if indexKey == nil, value != .null { return false }
                values.append(indexKey)
            }
            guard seen.insert(values).inserted else { return false }
        }
        return true
    }

    /// Flags `user` and its friends as excluded in their counters (the nodes a connection may not
    /// be), so that ranking needs no other array.
    @inline(__always) func flagSelfAndFriends(_ user: NodeID, schema: SocialSchema, scratch: inout TraversalScratch) {
        scratch.grow(to: socialNodeCapacity)
        scratch.setFlags(user.rawValue, CounterFlags.excluded)
        var friends = FriendMerge(self, user, schema.friend)
        while let f = friends.nextID() { scratch.setFlags(f, CounterFlags.excluded) }
    }

    /// Counts, for every node two FRIEND hops from `user`, the friends of `user` it is adjacent
    /// to (= its mutual friends with `user`). Everything reached is counted, `user` and its
    /// friends included (a friend's counter is its mutual count too): callers drop what they
    /// must not report by the flags in its counter (CounterFlags), so the hot loop makes one
    /// random memory access per step (the counter), as the C floor does.
    /// Raw buffers, no bounds checks, no allocation.
    func countFriendsOfFriends(of user: NodeID, schema: SocialSchema, friendLabel: LabelID? = nil,
                               scratch: inout TraversalScratch) {
        guard let friend = schema.friend else { return }
        var n = scratch.touchedCount
        scratch.counts.withUnsafeMutableBufferPointer { counts in
            scratch.touchedSlots.withUnsafeMutableBufferPointer { touched in
                // Locals, so the hot loop keeps them in registers: through the closures'
                // captures they were reloaded (and `n` stored) at every step.
                guard let counts = counts.baseAddress, let touched = touched.baseAddress else { return }
                var count = n
                defer { n = count }
                forEachFriendsRuns(of: user, friend, label: friendLabel) { f, runs in
                    _ = runs.forEachFriend(of: f, after: f) { w in
                        // Half the steps of a wide walk are first touches: a
                        // branch on it was mispredicted on most of them.
                        let c = counts[Int(w)]
                        touched[count] = w
                        count &+= c == 0 ? 1 : 0
                        counts[Int(w)] = c &+ 1
                    }
                }
            }
        }
        scratch.touchedCount = n
    }

    /// Calls `body` with each friend of `user`, ascending, and that friend's own FRIEND lists.
    ///
    /// Reaching a friend's lists costs two dependent cache misses (its node record, then its
    /// adjacency buffer). The friends are taken in batches: the lists of a whole batch are
    /// located first, in a loop whose loads do not depend on each other, so the processor
    /// overlaps their misses; then `body` runs for each. Located one friend at a time, each
    /// friend's misses waited for the walk of the friend before.
    /// With `label`, friends without it are passed over.
    @inline(__always) func forEachFriendsRuns(of user: NodeID, _ friend: RelationshipTypeID, label: LabelID? = nil,
                                              _ body: (_ friend: UInt32, _ runs: NeighborRuns) -> Void) {
        let batchSize = 16
        nodes.withUnsafeBufferPointer { records in
            withUnsafeTemporaryAllocation(of: (UInt32, NeighborRuns).self, capacity: batchSize) { batch in
                var outer = FriendMerge(self, user, friend)
                var more = true
                while more {
                    var filled = 0
                    while filled < batchSize {
                        guard let f = outer.nextID() else { more = false; break }
                        if let label, !node(NodeID(rawValue: f), hasLabel: label) { continue }
                        batch[filled] = (f, records[Int(f)].adjacency.neighborRuns(friend))
                        filled &+= 1
                    }
                    for k in 0..<filled { body(batch[k].0, batch[k].1) }
                }
            }
        }
    }
}

/// One ranked row out of the scratch's counters.
struct RankedNode {
    var node: UInt32
    var count: Int
}

extension TraversalScratch {
    /// Above this limit a ranking orders every qualifying node (`rankAllTouched`) instead of
    /// keeping a heap of the best k.
    static let heapRankingLimit = 1_024

    /// The counter of the `k`-th node when the touched nodes with counter ≥ `minimum` that pass
    /// `keep` are ranked by counter descending (`minimum` when fewer qualify). Reads the
    /// counters and leaves them as they are, for the ranking that follows.
    /// - Complexity: O(touched + the highest counter).
    func countAtRank(_ k: Int, minimum: Int, _ keep: (_ node: UInt32, _ counter: UInt32) -> Bool) -> Int {
        guard k > 0 else { return Int(CounterFlags.count) }
        var histogram: [Int] = []
        touchedSlots.withUnsafeBufferPointer { slots in
            for node in slots[0..<touchedCount] {
                let c = counts[Int(node)]
                guard Int(c) >= minimum, keep(node, c) else { continue }
                let count = Int(c & CounterFlags.count)
                if count >= histogram.count { histogram.append(contentsOf: repeatElement(0, count: count + 1 - histogram.count)) }
                histogram[count] += 1
            }
        }
        var seen = 0
        for count in histogram.indices.reversed() {
            seen += histogram[count]
            if seen >= k { return count }
        }
        return minimum
    }

    /// The touched nodes with counter ≥ `minimum` that pass `keep` (given the node and its
    /// counter), by counter descending then id ascending, at most `limit`. For a small limit a
    /// k-bounded min-heap of packed keys (count, inverted id) keeps it O(touched · log k);
    /// otherwise `rankAllTouched` orders every node in linear time. No allocation beyond the answer. Ends the query's counting, as
    /// `rankAllTouched` does: every counter is zero again and the touched list empty.
    mutating func rankTouched(limit: Int?, minimum: Int, _ keep: (_ node: UInt32, _ counter: UInt32) -> Bool) -> [RankedNode] {
        let k = limit ?? Int.max
        guard k > 0 else { return [] }
        let floor = UInt32(clamping: max(minimum, 1))
        if k > Self.heapRankingLimit {
            // Ends the counting (the caller's resetCounts then has nothing left to zero).
            return rankAllTouched(limit: limit, bucket: { node, c in c >= floor && keep(node, c) ? Int(c) : nil },
                                  row: { node, b in RankedNode(node: node, count: b) })
        }
        keys.removeAll(keepingCapacity: true)
        let n = touchedCount
        touchedCount = 0
        // One pass reads each counter and zeroes it (the nodes were just counted, so their
        // counters are still cached), instead of a second pass over the touched list to reset.
        touchedSlots.withUnsafeBufferPointer { slots in
            counts.withUnsafeMutableBufferPointer { counts in
                for node in slots[0..<n] {
                    let c = counts[Int(node)]
                    counts[Int(node)] = 0
                    guard c >= floor, keep(node, c) else { continue }
                    let key = UInt64(c) << 32 | UInt64(UInt32.max - node)
                    if keys.count < k {
                        keys.append(key)
                        if keys.count == k { keys.heapifyMin() }
                    } else if key > keys[0] {
                        keys[0] = key
                        keys.siftDownMin(from: 0)
                    }
                }
            }
        }
        keys.sort()
        return keys.reversed().map { RankedNode(node: UInt32.max - UInt32(truncatingIfNeeded: $0), count: Int($0 >> 32)) }
    }

    /// A whole ranking of the touched nodes (an event's audience: thousands of nodes, up to the
    /// whole graph): each node's `bucket` (from its id and counter; nil drops the node), highest
    /// bucket first, ids ascending within a bucket, at most `limit` rows made by `row` from a
    /// node and its bucket. Ends the query's counting: every counter is zero again and the
    /// touched list empty.
    ///
    /// A counting sort by bucket over the nodes in id order, so nothing is compared and the
    /// counters are read as one stream, not at random (the touched list is in first-touch order,
    /// a cache miss a node). The touched nodes go into `touchedBits` (a sixty-fourth of the node
    /// count in words, cache resident); one walk of the bitmap reads and zeroes each counter and
    /// keeps the qualifying (bucket, node) pairs in id order in `keys`; the buckets are counted
    /// over `keys`, and a last pass drops each pair into its bucket's slice of the answer.
    /// `bucket` runs once a node and `row` once a row: both are inlined (the function is), where
    /// calls through closure pointers, three a node, were a third of the ranking's time.
    /// O(touched + nodes / 64 + buckets); the bitmap and histogram are zero again when it returns.
    @inline(__always)
    mutating func rankAllTouched<Row>(limit: Int?, bucket: (_ node: UInt32, _ counter: UInt32) -> Int?,
                                      row: (_ node: UInt32, _ bucket: Int) -> Row) -> [Row] {
        let n = touchedCount
        guard n > 0 else { return [] }
        touchedCount = 0
        var lowWord = Int.max, highWord = -1
        touchedSlots.withUnsafeBufferPointer { slots in
            touchedBits.withUnsafeMutableBufferPointer { bits in
                for node in slots[0..<n] {
                    let word = Int(node >> 6)
                    bits[word] |= 1 &<< UInt64(node & 63)
                    lowWord = Swift.min(lowWord, word)
                    highWord = Swift.max(highWord, word)
                }
            }
        }
        if keys.count < n { keys.append(contentsOf: repeatElement(0, count: n - keys.count)) }  // keeps the capacity
        var kept = 0, maxBucket = -1
        touchedBits.withUnsafeMutableBufferPointer { bits in
            counts.withUnsafeMutableBufferPointer { counts in
                keys.withUnsafeMutableBufferPointer { keys in
                    for word in lowWord...highWord {
                        var w = bits[word]
                        guard w != 0 else { continue }
                        bits[word] = 0
                        repeat {
                            let node = UInt32(word << 6 | w.trailingZeroBitCount)
                            w &= w &- 1
                            let c = counts[Int(node)]
                            counts[Int(node)] = 0
                            if let b = bucket(node, c) {
                                keys[kept] = UInt64(UInt32(b)) << 32 | UInt64(node)
                                kept += 1
                                maxBucket = Swift.max(maxBucket, b)
                            }
                        } while w != 0
                    }
                }
            }
        }
        guard kept > 0 else { return [] }
        precondition(maxBucket <= Int(UInt32.max), "ranking bucket \(maxBucket) out of range")
        if countHistogram.count <= maxBucket {
            countHistogram.append(contentsOf: repeatElement(0, count: maxBucket + 1 - countHistogram.count))
        }
        let total = Swift.max(0, Swift.min(kept, limit ?? Int.max))
        return [Row](unsafeUninitializedCapacity: total) { out, initialized in
            keys.withUnsafeBufferPointer { keys in
                countHistogram.withUnsafeMutableBufferPointer { slot in
                    let pairs = keys[0..<kept]
                    for pair in pairs { slot[Int(pair >> 32)] &+= 1 }
                    // Each bucket's first slot in the answer, highest bucket first.
                    var offset = 0
                    for b in stride(from: maxBucket, through: 0, by: -1) {
                        let count = slot[b]
                        slot[b] = offset
                        offset &+= count
                    }
                    for pair in pairs {
                        let b = Int(pair >> 32)
                        let at = slot[b]
                        slot[b] = at &+ 1
                        if at < total { (out.baseAddress! + at).initialize(to: row(UInt32(truncatingIfNeeded: pair), b)) }
                    }
                    for b in 0...maxBucket { slot[b] = 0 }
                }
            }
            initialized = total
        }
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
