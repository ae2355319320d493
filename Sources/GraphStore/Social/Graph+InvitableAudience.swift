// Graph+InvitableAudience.swift — who a host may still invite to an event: the host's friends
// and (by option) connections, minus the host, anyone already invited or attending, and anyone
// blocked either way, each with its label and mutual count. One 2-hop count into the scratch.

/// Options of `invitableAudience(of:)`.
public struct AudienceOptions: Sendable, Hashable {
    /// 1: the host's friends only; 2: friends and connections (friends of friends).
    public var hops: Int
    /// At most this many rows (nil: all).
    public var limit: Int?

    public init(hops: Int = 2, limit: Int? = nil) {
        self.hops = hops
        self.limit = limit
    }
}

/// One person the host may invite.
public struct AudienceMember: Sendable, Hashable {
    public var node: NodeID
    /// The mutual count, with `friendBit` set for a friend: a member in 8 bytes, not 16 (a hub's
    /// audience has tens of thousands, written once and read once).
    private var packed: UInt32
    private static let friendBit: UInt32 = 1 << 31

    /// `.friend` or `.connection` (nothing else is stored).
    public var kind: SocialRelationKind {
        get { packed & Self.friendBit != 0 ? .friend : .connection }
        set {
            precondition(newValue == .friend || newValue == .connection, "an audience member is a friend or a connection, not \(newValue)")
            packed = newValue == .friend ? packed | Self.friendBit : packed & ~Self.friendBit
        }
    }

    /// Friends shared with the host (below 2^31: no node has that many friends).
    public var mutualFriends: Int {
        get { Int(packed & ~Self.friendBit) }
        set {
            precondition(newValue >= 0 && newValue < Int(Self.friendBit), "mutual count \(newValue) out of range")
            packed = packed & Self.friendBit | UInt32(newValue)
        }
    }

    public init(node: NodeID, kind: SocialRelationKind, mutualFriends: Int) {
        self.node = node
        self.packed = 0
        self.kind = kind
        self.mutualFriends = mutualFriends
    }
}

extension Graph {
    /// The host of `event`: the start of its first incoming HOSTS relationship, or nil.
    public func host(of event: NodeID, schema: SocialSchema) -> NodeID? {
        let hosts = socialAdjacency(of: event, schema.hosts, .incoming)
        return hosts.isEmpty ? nil : hosts[hosts.startIndex]
    }

    /// The invitable audience of `event` (hosted by `host`, or by its HOSTS host when nil):
    /// friends first, then connections; within each, mutual friends descending, then node id.
    /// Empty when the event has no host.
    /// - Complexity: O(Σ deg(f) over the host's friends f + nodes / 64).
    public func invitableAudience(of event: NodeID, host: NodeID? = nil, schema: SocialSchema,
                                  options: AudienceOptions = AudienceOptions(),
                                  scratch: inout TraversalScratch) -> [AudienceMember] {
        guard let host = host ?? self.host(of: event, schema: schema), contains(host) else { return [] }
        // What a node is to the host goes into its counter's top bits, beside the count the 2-hop
        // walk adds, so ranking the audience reads one array (CounterFlags). No marks: no epoch.
        scratch.grow(to: socialNodeCapacity)
        var friendCount = 0
        var friends = FriendMerge(self, host, schema.friend)
        while let f = friends.nextID() {
            scratch.setFlags(f, CounterFlags.friend)
            friendCount += 1
        }
        forEachExcluded(event: event, host: host, schema: schema) { scratch.setFlags($0.rawValue, CounterFlags.excluded) }
        // Counts every node adjacent to a friend of the host, friends included: a friend's
        // counter is then its mutual count with the host too.
        countFriendsOfFriends(of: host, schema: schema, scratch: &scratch)
        // Friends rank above every connection: a connection's count is at most `friendCount`.
        let friendBucket = friendCount + 1, connections = options.hops >= 2
        let members = scratch.rankAllTouched(limit: options.limit, bucket: { _, c in
            if c & CounterFlags.excluded != 0 { return nil }
            if c & CounterFlags.friend != 0 { return friendBucket + Int(c & CounterFlags.count) }
            return connections ? Int(c) : nil
        }, row: { node, b in
            // A friend's bucket is above every connection's: its count is what is over `friendBucket`.
            b >= friendBucket ? AudienceMember(node: NodeID(rawValue: node), kind: .friend, mutualFriends: b - friendBucket)
                : AudienceMember(node: NodeID(rawValue: node), kind: .connection, mutualFriends: b)
        })
        return members  // the ranking zeroed the counters
    }

    /// How many people `invitableAudience(of:)` would return (hops 2, no limit), without
    /// labels, counts or sorting: one pass of "seen" marks, or of bits for a host with many
    /// friends.
    /// - Complexity: O(Σ deg(f) over the host's friends).
    public func invitableAudienceCount(of event: NodeID, host: NodeID? = nil, schema: SocialSchema,
                                       hops: Int = 2, scratch: inout TraversalScratch) -> Int {
        guard let host = host ?? self.host(of: event, schema: schema), contains(host) else { return 0 }
        let friends = FriendMerge(self, host, schema.friend)
        // Each friend brings its own friends, dozens at least: with this many friends the walk
        // costs more than clearing a bit per node after it.
        if hops >= 2 && (socialNodeCapacity + 63) / 64 <= Self.audienceBitsPerFriend * friends.capacityHint {
            return audienceCountThroughBits(event: event, host: host, schema: schema, scratch: &scratch)
        }
        let seen = scratch.begin(on: self)
        forEachExcluded(event: event, host: host, schema: schema) { scratch.marks[$0.index] = seen }
        var n = 0
        scratch.marks.withUnsafeMutableBufferPointer { marks in
            var friends = friends
            while let f = friends.nextID() {
                if marks[Int(f)] != seen { marks[Int(f)] = seen; n += 1 }
                guard hops >= 2 else { continue }
                var inner = FriendMerge(self, NodeID(rawValue: f), schema.friend)
                inner.forEachID { w in
                    if marks[Int(w)] != seen { marks[Int(w)] = seen; n += 1 }
                }
            }
        }
        return n
    }

    /// The bit path's threshold: it runs when the graph's words (a node a bit) number at most
    /// this many per friend of the host.
    static let audienceBitsPerFriend = 64

    /// `invitableAudienceCount` for hops 2 through the scratch's bits (zero between queries):
    /// every friend and friend of a friend sets its bit, and the count grows when a bit was
    /// clear, both without a branch; the walk needs no "seen" test, so a friend's lists are
    /// read raw, not merged, and located a batch of friends at a time (forEachFriendsRuns).
    /// The excluded are cleared (and uncounted) after, and the bits zeroed whole: 25 KiB for
    /// 200,000 nodes.
    private func audienceCountThroughBits(event: NodeID, host: NodeID, schema: SocialSchema,
                                          scratch: inout TraversalScratch) -> Int {
        guard let friend = schema.friend else { return 0 }
        scratch.grow(to: socialNodeCapacity)
        var total = 0
        scratch.touchedBits.withUnsafeMutableBufferPointer { bits in
            guard let bits = bits.baseAddress else { return }
            // A local, so the hot loop keeps it in a register.
            var n = 0
            @inline(__always) func set(_ x: UInt32) {
                let w = Int(x &>> 6), shift = UInt64(x & 63)
                let old = bits[w]
                bits[w] = old | 1 &<< shift
                n &+= Int(~old &>> shift & 1)
            }
            @inline(__always) func setAll(_ run: UnsafePointer<UInt32>, _ count: Int) {
                var i = 0
                while i < count { set(run[i]); i &+= 1 }
            }
            forEachFriendsRuns(of: host, friend) { f, runs in
                set(f)
                setAll(runs.outgoing, runs.outgoingCount)
                setAll(runs.incoming, runs.incomingCount)
            }
            forEachExcluded(event: event, host: host, schema: schema) { x in
                let w = x.index &>> 6, bit: UInt64 = 1 &<< UInt64(x.index & 63)
                if bits[w] & bit != 0 { bits[w] &= ~bit; n &-= 1 }
            }
            total = n
        }
        scratch.touchedBits.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        return total
    }

    /// The host, the event's invited and attending guests and everyone blocked either way: who
    /// may not be invited (a node may come more than once).
    func forEachExcluded(event: NodeID, host: NodeID, schema: SocialSchema, _ body: (NodeID) -> Void) {
        body(host)
        for a in socialAdjacency(of: event, schema.invited, .incoming) { body(a) }
        for a in socialAdjacency(of: event, schema.attending, .incoming) { body(a) }
        for a in socialAdjacency(of: host, schema.blocked, .outgoing) { body(a) }
        for a in socialAdjacency(of: host, schema.blocked, .incoming) { body(a) }
    }
}
