// AdjacencyList.swift — a node's neighbours for one relationship type and one direction.
// Entries are packed into one UInt64 each (neighbour id in the high 32 bits, relationship id in
// the low 32), so "sorted by neighbour, then relationship" is plain integer order and a list is
// one contiguous run of its node's buffer (NodeAdjacency): 8 bytes per relationship end, no
// per-edge objects.

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

/// The adjacency of one node for one type and one direction, sorted by neighbour id then
/// relationship id. A view sharing the node's buffer (NodeAdjacency): obtaining one does not allocate.
public struct AdjacencyList: RandomAccessCollection, Sendable {
    @usableFromInline let storage: ContiguousArray<UInt64>
    @usableFromInline let start: Int
    public let count: Int

    @inlinable init(_ storage: ContiguousArray<UInt64>, start: Int, count: Int) {
        self.storage = storage
        self.start = start
        self.count = count
    }

    /// An empty list, for a node without relationships of the asked type.
    public init() {
        storage = []
        start = 0
        count = 0
    }

    public typealias Index = Int
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    @inlinable public subscript(position: Int) -> Adjacency { Adjacency(packed: storage[start + position]) }

    /// The packed entries (neighbour << 32 | relationship), for kernels that merge lists by
    /// pointer; a slice of the shared buffer, not a copy.
    @inlinable public var entries: ArraySlice<UInt64> { storage[start..<(start + count)] }

    /// Whether `neighbor` appears in the list.
    /// - Complexity: O(log n).
    public func contains(neighbor: NodeID) -> Bool {
        let end = start + count
        let i = storage.lowerBound(of: UInt64(neighbor.rawValue) << 32, in: start..<end)
        return i < end && UInt32(truncatingIfNeeded: storage[i] >> 32) == neighbor.rawValue
    }

    /// The positions of the entries whose neighbour is `neighbor` (one per relationship to
    /// it, in relationship order; empty when there is none): what an expansion between two
    /// bound nodes needs, without walking the whole list.
    /// - Complexity: O(log n).
    public func positions(ofNeighbor neighbor: NodeID) -> Range<Int> {
        let end = start + count
        let first = storage.lowerBound(of: UInt64(neighbor.rawValue) << 32, in: start..<end)
        let last = neighbor.rawValue == .max ? end : storage.lowerBound(of: UInt64(neighbor.rawValue + 1) << 32, in: first..<end)
        return (first - start)..<(last - start)
    }
}

extension ContiguousArray where Element == UInt64 {
    /// The first position in `range` whose entry is not less than `value` (`range` sorted).
    /// - Complexity: O(log n).
    @usableFromInline func lowerBound(of value: UInt64, in range: Range<Int>) -> Int {
        var low = range.lowerBound, high = range.upperBound
        while low < high {
            let mid = (low + high) >> 1
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
