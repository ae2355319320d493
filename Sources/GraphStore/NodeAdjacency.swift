// NodeAdjacency.swift — all of one node's adjacency lists (every type, both directions) in ONE
// buffer, so a node costs one allocation for its relationships however many types it has.
//
// Layout of `storage` (UInt64 words); empty storage means no relationships and no allocation:
//
//     [n] [descriptor 0] … [descriptor n-1] [entries of segment 0] … [entries of segment n-1]
//
// A descriptor is `direction << 63 | type << 32 | count` (direction 0 = outgoing, 1 = incoming);
// segments are in ascending descriptor order without the count, i.e. outgoing types ascending,
// then incoming types ascending. A segment holds packed `Adjacency` entries sorted by
// (neighbour, relationship), as AdjacencyList reads them. A node has few segments, so finding
// one is a scan of a handful of words beside the data it leads to.

/// One node's adjacency for every relationship type and direction, in a single buffer.
struct NodeAdjacency: Sendable, Equatable {
    private(set) var storage: ContiguousArray<UInt64> = []

    /// Lists with fewer words of capacity than this are never shrunk: the copy would not pay.
    static let shrinkThreshold = 64

    /// A descriptor's sort key: direction and type, count masked off.
    @inline(__always)
    static func key(_ type: RelationshipTypeID, _ direction: Direction) -> UInt64 {
        (direction == .incoming ? 1 << 63 : 0) | UInt64(type.rawValue) << 32
    }

    var isEmpty: Bool { storage.isEmpty }
    var segmentCount: Int { storage.isEmpty ? 0 : Int(storage[0]) }

    /// The segment of (type, direction): its descriptor's position and its entries' range.
    @inline(__always)
    func segment(_ type: RelationshipTypeID, _ direction: Direction) -> (descriptor: Int, start: Int, count: Int)? {
        guard !storage.isEmpty else { return nil }
        let wanted = Self.key(type, direction)
        let n = Int(storage[0])
        var start = 1 + n
        for d in 1...n {
            let word = storage[d]
            let count = Int(word & 0xFFFF_FFFF)
            if word & ~0xFFFF_FFFF == wanted { return (d, start, count) }
            start += count
        }
        return nil
    }

    /// The list of (type, direction): a view sharing this buffer.
    @inline(__always)
    func list(_ type: RelationshipTypeID, _ direction: Direction) -> AdjacencyList {
        guard let s = segment(type, direction) else { return AdjacencyList() }
        return AdjacencyList(storage, start: s.start, count: s.count)
    }

    /// The type of the outgoing list holding the packed entry `packed`, if one does.
    /// - Complexity: O(segments + log degree).
    func outgoingType(holding packed: UInt64) -> RelationshipTypeID? {
        var start = 1 + segmentCount
        for d in stride(from: 1, through: segmentCount, by: 1) {
            let word = storage[d]
            if word >> 63 == 1 { return nil }   // the incoming segments follow the outgoing ones
            let end = start + Int(word & 0xFFFF_FFFF)
            let i = storage.lowerBound(of: packed, in: start..<end)
            if i < end && storage[i] == packed { return RelationshipTypeID(rawValue: UInt32(truncatingIfNeeded: word >> 32)) }
            start = end
        }
        return nil
    }

    /// The types with a non-empty list in `direction`, ascending.
    func types(_ direction: Direction) -> [RelationshipTypeID] {
        var result: [RelationshipTypeID] = []
        for d in stride(from: 1, through: segmentCount, by: 1) {
            let word = storage[d]
            if (word >> 63 == 1) == (direction == .incoming) {
                result.append(RelationshipTypeID(rawValue: UInt32(truncatingIfNeeded: word >> 32) & 0x7FFF_FFFF))
            }
        }
        return result
    }

    /// Every segment's (type, direction, entries), in layout order.
    func forEachSegment(_ body: (RelationshipTypeID, Direction, AdjacencyList) throws -> Void) rethrows {
        var start = 1 + segmentCount
        for d in stride(from: 1, through: segmentCount, by: 1) {
            let word = storage[d]
            let count = Int(word & 0xFFFF_FFFF)
            let type = RelationshipTypeID(rawValue: UInt32(truncatingIfNeeded: word >> 32) & 0x7FFF_FFFF)
            try body(type, word >> 63 == 1 ? .incoming : .outgoing, AdjacencyList(storage, start: start, count: count))
            start += count
        }
    }

    /// - Complexity: O(degree of the node) for the shift of the words after the insertion point.
    mutating func insert(_ entry: Adjacency, type: RelationshipTypeID, direction: Direction) {
        let packed = entry.packed
        if let s = segment(type, direction) {
            let i = storage.lowerBound(of: packed, in: s.start..<(s.start + s.count))
            storage.insert(packed, at: i)
            storage[s.descriptor] += 1
            return
        }
        // A new segment: its descriptor goes in key order, its entries where that order puts them.
        let key = Self.key(type, direction)
        if storage.isEmpty {
            storage = [1, key | 1, packed]
            return
        }
        let n = Int(storage[0])
        var d = 1, start = 1 + n
        while d <= n, storage[d] & ~0xFFFF_FFFF < key {
            start += Int(storage[d] & 0xFFFF_FFFF)
            d += 1
        }
        storage.insert(packed, at: start)
        storage.insert(key | 1, at: d)
        storage[0] += 1
    }

    /// Removes `entry` if present; an emptied segment is dropped, an emptied node frees its
    /// buffer, and a buffer down to a quarter of its capacity is reallocated at twice its size,
    /// so a hub that loses most of its friends gives the memory back (amortised O(1)).
    mutating func remove(_ entry: Adjacency, type: RelationshipTypeID, direction: Direction) {
        guard let s = segment(type, direction) else { return }
        let packed = entry.packed
        let i = storage.lowerBound(of: packed, in: s.start..<(s.start + s.count))
        guard i < s.start + s.count, storage[i] == packed else { return }
        storage.remove(at: i)
        if s.count == 1 {
            if storage[0] == 1 {
                storage = []
                return
            }
            storage.remove(at: s.descriptor)
            storage[0] -= 1
        } else {
            storage[s.descriptor] -= 1
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
    init(words: ContiguousArray<UInt64>) { storage = words }

    init() {}
}
