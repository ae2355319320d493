// Relationship.swift — a relationship as a reader holds it: its id with its type and ends.
// The graph stores no per-relationship record (a relationship is its two adjacency entries), so
// whoever found a relationship by walking a list keeps what the walk told it: the query engine's
// relationship values, paths and deletes carry this, not a bare id.

/// A relationship with its type and its two ends: 16 bytes, no heap memory. Valid while the
/// relationship exists; writes that take one check it against the adjacency first.
@frozen public struct Relationship: Hashable, Sendable, CustomStringConvertible {
    public var id: RelationshipID
    public var type: RelationshipTypeID
    public var start: NodeID
    public var end: NodeID

    @inlinable public init(id: RelationshipID, type: RelationshipTypeID, start: NodeID, end: NodeID) {
        self.id = id; self.type = type; self.start = start; self.end = end
    }

    /// The relationship of a step from `node` along a list of `direction` (.outgoing or
    /// .incoming) to `neighbor`.
    @inlinable public init(_ id: RelationshipID, type: RelationshipTypeID, from node: NodeID, to neighbor: NodeID,
                           direction: Direction) {
        self.id = id; self.type = type
        if direction == .incoming { start = neighbor; end = node } else { start = node; end = neighbor }
    }

    /// The node at the other end from `node`.
    @inlinable public func otherEnd(from node: NodeID) -> NodeID { node == start ? end : start }

    // Identity is the id: two values naming the same live relationship are equal.
    @inlinable public static func == (a: Relationship, b: Relationship) -> Bool { a.id == b.id }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    public var description: String { "rel#\(id.rawValue) \(start.rawValue)-[type \(type.rawValue)]->\(end.rawValue)" }
}
