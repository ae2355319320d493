// Identifiers.swift — the dense integer ids of graph entities and interned schema names.
// Every id is a newtype over a small unsigned integer so that a node id can never be
// passed where a relationship id or a label id is expected.

/// A node's dense internal id. Ids of deleted nodes are reused by later creates.
@frozen public struct NodeID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public init(_ value: Int) { self.rawValue = UInt32(value) }
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: NodeID, b: NodeID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "node#\(rawValue)" }
}

/// A relationship's dense internal id. Ids of deleted relationships are reused by later creates.
@frozen public struct RelationshipID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public init(_ value: Int) { self.rawValue = UInt32(value) }
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: RelationshipID, b: RelationshipID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "rel#\(rawValue)" }
}

/// An interned node label. Ids are dense, 0-based and stable for the life of a graph.
@frozen public struct LabelID: RawRepresentable, Hashable, Comparable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public init(_ value: Int) { self.rawValue = UInt32(value) }
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: LabelID, b: LabelID) -> Bool { a.rawValue < b.rawValue }
}

/// An interned relationship type. Ids are dense, 0-based and stable for the life of a graph.
@frozen public struct RelationshipTypeID: RawRepresentable, Hashable, Comparable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public init(_ value: Int) { self.rawValue = UInt32(value) }
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: RelationshipTypeID, b: RelationshipTypeID) -> Bool { a.rawValue < b.rawValue }
}

/// An interned property key. Ids are dense, 0-based and stable for the life of a graph.
@frozen public struct PropertyKeyID: RawRepresentable, Hashable, Comparable, Sendable {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public init(_ value: Int) { self.rawValue = UInt32(value) }
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: PropertyKeyID, b: PropertyKeyID) -> Bool { a.rawValue < b.rawValue }
}

/// Which way a relationship is followed from a node.
@frozen public enum Direction: UInt8, Sendable, Hashable {
    /// From the node to the relationship's end node: `(a)-[]->(b)` seen from `a`.
    case outgoing = 1
    /// From the node to the relationship's start node: `(a)<-[]-(b)` seen from `a`.
    case incoming = 2
    /// Either way: `(a)-[]-(b)`.
    case both = 3
}
