// AdjacencyList.swift — a node's neighbours for one relationship type and one direction: a run
// of 32-bit neighbour ids in its node's buffer (NodeAdjacency), sorted ascending, so 1-hop is a
// slice, "are they linked" a binary search and mutual friends a merge of plain integer arrays.
// An outgoing list also carries each entry's relationship id (a parallel run of the same length);
// an incoming list does not: 4 bytes per relationship end instead of 8. The relationship behind
// an incoming entry is recovered from the neighbour's outgoing list (Graph.steps,
// Graph.incomingRelationship), which only writes and queries that name the relationship need.

/// One step from a node: the node at the other end and the relationship that leads there.
@frozen public struct Adjacency: Sendable, Hashable {
    public var neighbor: NodeID
    public var relationship: RelationshipID

    @inlinable public init(neighbor: NodeID, relationship: RelationshipID) {
        self.neighbor = neighbor
        self.relationship = relationship
    }
}

/// The neighbours of one node for one type and one direction, ascending (an outgoing list by
/// neighbour, then relationship id). A view sharing the node's buffer: obtaining one does not
/// allocate. Elements are neighbour ids; `relationship(at:)` reads an outgoing list's ids.
public struct AdjacencyList: RandomAccessCollection, Sendable {
    @usableFromInline let storage: ContiguousArray<UInt32>
    @usableFromInline let start: Int
    public let count: Int
    /// Where the relationship ids start (parallel to the neighbours); -1 for an incoming list.
    @usableFromInline let relationshipStart: Int

    @inlinable init(_ storage: ContiguousArray<UInt32>, start: Int, count: Int, relationshipStart: Int) {
        self.storage = storage
        self.start = start
        self.count = count
        self.relationshipStart = relationshipStart
    }

    /// An empty list, for a node without relationships of the asked type.
    public init() {
        storage = []
        start = 0
        count = 0
        relationshipStart = 0
    }

    public typealias Index = Int
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    @inlinable public subscript(position: Int) -> NodeID { NodeID(rawValue: storage[start + position]) }

    /// The raw neighbour ids, for kernels that merge lists by pointer; a slice of the shared
    /// buffer, not a copy.
    @inlinable public var neighborIDs: ArraySlice<UInt32> { storage[start..<(start + count)] }

    /// Whether the list carries relationship ids (outgoing lists do, incoming lists do not).
    @inlinable public var hasRelationshipIDs: Bool { relationshipStart >= 0 }

    /// The relationship of the entry at `position`.
    /// - Precondition: `hasRelationshipIDs` (an outgoing list).
    @inlinable public func relationship(at position: Int) -> RelationshipID {
        precondition(relationshipStart >= 0, "an incoming list holds no relationship ids: use Graph.steps or Graph.incomingRelationship")
        return RelationshipID(rawValue: storage[relationshipStart + position])
    }

    /// Whether `neighbor` appears in the list.
    /// - Complexity: O(log n).
    public func contains(neighbor: NodeID) -> Bool {
        let end = start + count
        let i = storage.lowerBound(of: neighbor.rawValue, in: start..<end)
        return i < end && storage[i] == neighbor.rawValue
    }

    /// The positions of the entries whose neighbour is `neighbor` (one per relationship to it;
    /// empty when there is none): what an expansion between two bound nodes needs, without
    /// walking the whole list.
    /// - Complexity: O(log n).
    public func positions(ofNeighbor neighbor: NodeID) -> Range<Int> {
        let end = start + count
        let first = storage.lowerBound(of: neighbor.rawValue, in: start..<end)
        let last = neighbor.rawValue == .max ? end : storage.lowerBound(of: neighbor.rawValue + 1, in: first..<end)
        return (first - start)..<(last - start)
    }

    /// How many entries before `position` name the same neighbour: which of several parallel
    /// relationships to that neighbour the entry stands for.
    /// - Complexity: O(parallel relationships), almost always O(1).
    @inlinable public func occurrence(at position: Int) -> Int {
        let n = storage[start + position]
        var k = 0
        while position - k > 0 && storage[start + position - k - 1] == n { k += 1 }
        return k
    }
}

extension ContiguousArray where Element == UInt32 {
    /// The first position in `range` whose entry is not less than `value` (`range` sorted).
    /// - Complexity: O(log n).
    @usableFromInline func lowerBound(of value: UInt32, in range: Range<Int>) -> Int {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "lowerBound: range out of bounds")
        guard !range.isEmpty else { return range.lowerBound }
        return withUnsafeBufferPointer { range.lowerBound &+ ($0.baseAddress! + range.lowerBound).lowerBound(of: value, count: range.count) }
    }
}

extension UnsafePointer where Pointee == UInt32 {
    /// The first of the `count` sorted entries from here that is not less than `value`
    /// (`count` when none is). Branch-free: each step halves the candidates and moves the base
    /// by arithmetic on the comparison's sign bit, so a search costs its memory reads and no
    /// mispredicted branches (whether a neighbour lies left or right of the middle is a coin
    /// toss, for the CPU). Written as a conditional, the compiler makes the step a jump where
    /// the search is inlined into a loop.
    /// - Complexity: O(log count).
    @inline(__always) func lowerBound(of value: UInt32, count: Int) -> Int {
        guard count > 0 else { return 0 }
        // The answer lies in base...base + n.
        var base = 0, n = count
        while n > 1 {
            let half = n &>> 1
            base &+= half & Self.belowMask(self[base &+ half], value)
            n &-= half
        }
        return base &+ (self[base] < value ? 1 : 0)
    }

    /// All ones when `entry < value`, else zero.
    @inline(__always) static func belowMask(_ entry: UInt32, _ value: UInt32) -> Int {
        Int(truncatingIfNeeded: (Int64(entry) &- Int64(value)) &>> 63)
    }
}
