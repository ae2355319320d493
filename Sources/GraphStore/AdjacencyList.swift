// AdjacencyList.swift — a node's neighbours for one relationship type and one direction.
// Entries are packed into one UInt64 each (neighbour id in the high 32 bits, relationship id in
// the low 32), so "sorted by neighbour, then relationship" is plain integer order and a list is
// one contiguous buffer: 8 bytes per relationship end, no per-edge objects.

/// One step from a node: the node at the other end and the relationship that leads there.
@frozen public struct Adjacency: Sendable, Hashable {
    public var neighbor: NodeID
    public var relationship: RelationshipID

    @inlinable public init(neighbor: NodeID, relationship: RelationshipID) {
        self.neighbor = neighbor
        self.relationship = relationship
    }

    @inlinable init(packed: UInt64) {
        neighbor = NodeID(rawValue: UInt32(truncatingIfNeeded: packed >> 32))
        relationship = RelationshipID(rawValue: UInt32(truncatingIfNeeded: packed))
    }

    @inlinable var packed: UInt64 {
        UInt64(neighbor.rawValue) << 32 | UInt64(relationship.rawValue)
    }
}

/// The adjacency of one node for one type and direction, sorted by neighbour id then
/// relationship id. A view sharing the graph's buffer: obtaining one does not allocate.
public struct AdjacencyList: RandomAccessCollection, Sendable {
    @usableFromInline let entries: ContiguousArray<UInt64>

    @inlinable init(_ entries: ContiguousArray<UInt64>) { self.entries = entries }

    /// An empty list, for a node without relationships of the asked type.
    public init() { entries = [] }

    public typealias Index = Int
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { entries.count }
    @inlinable public subscript(position: Int) -> Adjacency { Adjacency(packed: entries[position]) }

    /// Whether `neighbor` appears in the list.
    /// - Complexity: O(log n).
    public func contains(neighbor: NodeID) -> Bool {
        let i = entries.lowerBound(of: UInt64(neighbor.rawValue) << 32)
        return i < entries.count && UInt32(truncatingIfNeeded: entries[i] >> 32) == neighbor.rawValue
    }
}

/// The sorted entries of one relationship type in one direction of one node.
struct TypedAdjacency: Sendable, Equatable {
    var type: RelationshipTypeID
    var entries: ContiguousArray<UInt64>
}

extension ContiguousArray where Element == UInt64 {
    /// The first position whose entry is not less than `value`.
    /// - Complexity: O(log n).
    @usableFromInline func lowerBound(of value: UInt64) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) >> 1
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// A node's adjacency for all types in one direction: a tiny array sorted by type id, because
/// a node has relationships of few types and a linear scan of a few entries beats hashing.
extension Array where Element == TypedAdjacency {
    func list(of type: RelationshipTypeID) -> ContiguousArray<UInt64>? {
        for typed in self where typed.type == type { return typed.entries }
        return nil
    }

    var isAllEmpty: Bool { allSatisfy { $0.entries.isEmpty } }

    /// - Complexity: O(degree) for the shift of the sorted array.
    mutating func insert(_ entry: Adjacency, type: RelationshipTypeID) {
        let packed = entry.packed
        if let t = firstIndex(where: { $0.type == type }) {
            let i = self[t].entries.lowerBound(of: packed)
            self[t].entries.insert(packed, at: i)
        } else {
            let at = firstIndex(where: { $0.type > type }) ?? count
            insert(TypedAdjacency(type: type, entries: [packed]), at: at)
        }
    }

    /// Removes `entry`; a type whose list becomes empty is dropped to return its memory, and a
    /// list down to a quarter of its capacity is reallocated at twice its size, so a hub that
    /// loses most of its friends gives the memory back (amortised O(1): the next shrink needs
    /// as many removals again).
    mutating func remove(_ entry: Adjacency, type: RelationshipTypeID) {
        guard let t = firstIndex(where: { $0.type == type }) else { return }
        let packed = entry.packed
        let i = self[t].entries.lowerBound(of: packed)
        guard i < self[t].entries.count, self[t].entries[i] == packed else { return }
        self[t].entries.remove(at: i)
        let count = self[t].entries.count
        if count == 0 {
            remove(at: t)
        } else if self[t].entries.capacity >= TypedAdjacency.shrinkThreshold, count <= self[t].entries.capacity / 4 {
            self[t].entries = self[t].entries.withUnsafeBufferPointer { old in
                ContiguousArray(unsafeUninitializedCapacity: 2 * count) { buffer, initialized in
                    _ = buffer.initialize(from: old)
                    initialized = count
                }
            }
        }
    }
}

extension TypedAdjacency {
    /// Lists smaller than this many entries are never shrunk: the saving would not pay for the copy.
    static let shrinkThreshold = 64
}
