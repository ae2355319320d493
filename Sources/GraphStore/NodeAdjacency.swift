// NodeAdjacency.swift — all of one node's adjacency lists (every type, both directions) in ONE
// buffer, so a node costs one allocation for its relationships however many types it has.
//
// Layout of `storage` (UInt32 words); empty storage means no relationships and no allocation:
//
//     [n] [key 0] [count 0] … [key n-1] [count n-1] [segment 0] … [segment n-1]
//
// A key is `direction << 31 | type` (direction 0 = outgoing, 1 = incoming); descriptors are in
// ascending key order (outgoing types ascending, then incoming types ascending) and segments in
// the same order. An outgoing segment of `count` entries is `count` neighbour ids sorted by
// (neighbour, relationship) followed by the `count` relationship ids in that order; an incoming
// segment is `count` neighbour ids, ascending, alone. The relationship behind the k-th incoming
// entry naming u is the k-th entry of u's outgoing list (same type) naming this node: parallel
// relationships have identical incoming entries, so any one of them may be removed for any.
// A node has few segments, so finding one is a scan of a handful of words beside its data.

/// One node's adjacency for every relationship type and direction, in a single buffer.
struct NodeAdjacency: Sendable, Equatable {
    private(set) var storage: ContiguousArray<UInt32> = []

    /// Lists with fewer words of capacity than this are never shrunk: the copy would not pay.
    static let shrinkThreshold = 128

    /// A descriptor's key: direction and type.
    @inline(__always)
    static func key(_ type: RelationshipTypeID, _ direction: Direction) -> UInt32 {
        precondition(type.rawValue < 1 << 31, "relationship type id \(type.rawValue) out of range")
        return (direction == .incoming ? 1 << 31 : 0) | type.rawValue
    }

    /// The words a segment of `count` entries takes: outgoing entries carry their relationship id.
    @inline(__always)
    static func words(key: UInt32, count: Int) -> Int { key >> 31 == 0 ? 2 * count : count }

    var isEmpty: Bool { storage.isEmpty }
    var segmentCount: Int { storage.isEmpty ? 0 : Int(storage[0]) }

    /// The segment of (type, direction): its descriptor's position and its entries' range.
    @inline(__always)
    func segment(_ type: RelationshipTypeID, _ direction: Direction) -> (descriptor: Int, start: Int, count: Int)? {
        guard !storage.isEmpty else { return nil }
        let wanted = Self.key(type, direction)
        let n = Int(storage[0])
        var start = 1 + 2 * n
        var d = 1
        while d < 1 + 2 * n {
            let key = storage[d], count = Int(storage[d + 1])
            if key == wanted { return (d, start, count) }
            start += Self.words(key: key, count: count)
            d += 2
        }
        return nil
    }

    /// The list of (type, direction): a view sharing this buffer.
    @inline(__always)
    func list(_ type: RelationshipTypeID, _ direction: Direction) -> AdjacencyList {
        guard let s = segment(type, direction) else { return AdjacencyList() }
        return AdjacencyList(storage, start: s.start, count: s.count,
                             relationshipStart: direction == .outgoing ? s.start + s.count : -1)
    }

    /// The neighbour ids of `type`'s outgoing and incoming segments, by pointer, found in one
    /// scan of the descriptors: what a 2-hop walk reads of each node it passes, gathered for
    /// several nodes before any is walked so that their cache misses overlap (Graph+Connections).
    /// The pointers stay valid while this buffer is neither changed nor freed: for a read of an
    /// unchanging graph value, the whole read.
    @inline(__always)
    func neighborRuns(_ type: RelationshipTypeID) -> NeighborRuns {
        storage.withUnsafeBufferPointer { words in
            var runs = NeighborRuns()
            guard words.count > 0, let base = words.baseAddress else { return runs }
            let outKey = type.rawValue, inKey = 1 << 31 | type.rawValue
            let end = 1 + 2 * Int(base[0])
            var start = end, d = 1
            while d < end {
                let key = base[d], count = Int(base[d + 1])
                if key == outKey {
                    runs.outgoing = base + start
                    runs.outgoingCount = count
                } else if key == inKey {
                    runs.incoming = base + start
                    runs.incomingCount = count
                }
                start += Self.words(key: key, count: count)
                d += 2
            }
            return runs
        }
    }

    /// The types with a non-empty list in `direction`, ascending.
    func types(_ direction: Direction) -> [RelationshipTypeID] {
        var result: [RelationshipTypeID] = []
        for d in stride(from: 1, to: 1 + 2 * segmentCount, by: 2) where (storage[d] >> 31 == 1) == (direction == .incoming) {
            result.append(RelationshipTypeID(rawValue: storage[d] & 0x7FFF_FFFF))
        }
        return result
    }

    /// Every segment's (type, direction, list), in layout order.
    func forEachSegment(_ body: (RelationshipTypeID, Direction, AdjacencyList) throws -> Void) rethrows {
        let n = segmentCount
        var start = 1 + 2 * n
        for d in stride(from: 1, to: 1 + 2 * n, by: 2) {
            let key = storage[d], count = Int(storage[d + 1])
            let outgoing = key >> 31 == 0
            try body(RelationshipTypeID(rawValue: key & 0x7FFF_FFFF), outgoing ? .outgoing : .incoming,
                     AdjacencyList(storage, start: start, count: count, relationshipStart: outgoing ? start + count : -1))
            start += Self.words(key: key, count: count)
        }
    }

    /// Where (neighbor, relationship) goes in, or is in, the outgoing segment `s`: its position
    /// among the segment's entries and whether it is there.
    private func outgoingPosition(_ neighbor: UInt32, _ relationship: UInt32, in s: (descriptor: Int, start: Int, count: Int)) -> (Int, Bool) {
        let end = s.start + s.count
        var i = storage.lowerBound(of: neighbor, in: s.start..<end)
        while i < end && storage[i] == neighbor {
            let r = storage[i + s.count]
            if r == relationship { return (i - s.start, true) }
            if r > relationship { break }
            i += 1
        }
        return (i - s.start, false)
    }

    /// - Complexity: O(degree of the node) for the shift of the words after the insertion point.
    mutating func insert(_ entry: Adjacency, type: RelationshipTypeID, direction: Direction) {
        let neighbor = entry.neighbor.rawValue, relationship = entry.relationship.rawValue
        if let s = segment(type, direction) {
            if direction == .outgoing {
                let (i, _) = outgoingPosition(neighbor, relationship, in: s)
                // The id first: its position is not moved by the neighbour's insertion before it.
                storage.insert(relationship, at: s.start + s.count + i)
                storage.insert(neighbor, at: s.start + i)
            } else {
                storage.insert(neighbor, at: storage.lowerBound(of: neighbor, in: s.start..<(s.start + s.count)))
            }
            storage[s.descriptor + 1] += 1
            return
        }
        // A new segment: its descriptor goes in key order, its entries where that order puts them.
        let key = Self.key(type, direction)
        let words: [UInt32] = direction == .outgoing ? [neighbor, relationship] : [neighbor]
        if storage.isEmpty {
            storage = [1, key, 1] + words
            return
        }
        let n = Int(storage[0])
        var d = 1, start = 1 + 2 * n
        while d < 1 + 2 * n, storage[d] < key {
            start += Self.words(key: storage[d], count: Int(storage[d + 1]))
            d += 2
        }
        storage.insert(contentsOf: words, at: start)
        storage.insert(contentsOf: [key, 1], at: d)
        storage[0] += 1
    }

    /// Removes `entry` if present (for an incoming list: one entry naming its neighbour); an
    /// emptied segment is dropped, an emptied node frees its buffer, and a buffer down to a
    /// quarter of its capacity is reallocated at twice its size, so a hub that loses most of its
    /// friends gives the memory back (amortised O(1)).
    mutating func remove(_ entry: Adjacency, type: RelationshipTypeID, direction: Direction) {
        guard let s = segment(type, direction) else { return }
        let neighbor = entry.neighbor.rawValue
        if direction == .outgoing {
            let (i, found) = outgoingPosition(neighbor, entry.relationship.rawValue, in: s)
            guard found else { return }
            storage.remove(at: s.start + s.count + i)
            storage.remove(at: s.start + i)
        } else {
            let i = storage.lowerBound(of: neighbor, in: s.start..<(s.start + s.count))
            guard i < s.start + s.count, storage[i] == neighbor else { return }
            storage.remove(at: i)
        }
        if s.count == 1 {
            if storage[0] == 1 {
                storage = []
                return
            }
            storage.removeSubrange(s.descriptor..<(s.descriptor + 2))
            storage[0] -= 1
        } else {
            storage[s.descriptor + 1] -= 1
        }
        let count = storage.count
        if storage.capacity >= Self.shrinkThreshold, count <= storage.capacity / 4 {
            storage = storage.withUnsafeBufferPointer { old in
                ContiguousArray(unsafeUninitializedCapacity: 2 * count) { buffer, initialized in
                    _ = buffer.initialize(from: old)
                    initialized = count
                }
            }
        }
    }

    /// A node's buffer written in one go (GraphBuilder): `words` must already hold the layout.
    init(words: ContiguousArray<UInt32>) { storage = words }

    init() {}
}

/// One node's outgoing and incoming neighbour ids of one type, as raw pointers into its
/// adjacency buffer (`NodeAdjacency.neighborRuns`); each run ascending.
struct NeighborRuns {
    /// Stands in for the base address of an empty run (never read: its count is 0).
    @inline(__always) static var empty: UnsafePointer<UInt32> {
        UnsafePointer(bitPattern: MemoryLayout<UInt32>.alignment)!  // a non-null constant, never dereferenced
    }

    var outgoing = NeighborRuns.empty
    var outgoingCount = 0
    var incoming = NeighborRuns.empty
    var incomingCount = 0
}
