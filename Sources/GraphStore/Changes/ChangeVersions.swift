// ChangeVersions.swift — when each node, and each node's relationships of each type, last changed.
// A version is the sequence number of the last commit that changed the thing, so "has it changed
// since token T?" is one comparison, and a deletion (which leaves no newer timestamp behind)
// moves the versions of both of its ends like any other change. Stamped from a commit's
// mutations after it is logged (live writes and replay alike), kept in snapshots.

/// Per-node change versions: the node's own labels and properties, and per relationship type
/// and direction the set and properties of its relationships of that type.
///
/// Costs 8 bytes a node, plus 8 bytes a node for each relationship type and direction that has
/// changed since the graph was built; nothing per relationship. Directions are apart so that
/// what others do to a user (block them, follow them) is not mistaken for what the user did.
public struct ChangeVersions: Sendable, Equatable {
    /// By node id: the last commit that created, deleted or changed the node itself.
    var nodes: [UInt64] = []
    /// By column (relationship type id × 2, + 1 for incoming), then node id: the last commit
    /// that created, deleted or changed a relationship of that type and direction at the node.
    var byType: [[UInt64]] = []
    /// Every version at or below this is unknown, counted as changed at `floor`: what a graph
    /// loaded without versions (an older snapshot), or replayed from records that do not name
    /// what they touch, can promise.
    public internal(set) var floor: UInt64 = 0

    public init() {}

    /// The version of `node`'s own labels and properties.
    @inline(__always)
    public func version(of node: NodeID) -> UInt64 {
        let i = node.index
        return max(floor, i < nodes.count ? nodes[i] : 0)
    }

    /// The version of `node`'s relationships of `type` in `direction`.
    @inline(__always)
    public func version(of node: NodeID, _ type: RelationshipTypeID, _ direction: Direction = .both) -> UInt64 {
        if direction == .both { return max(version(of: node, type, .outgoing), version(of: node, type, .incoming)) }
        let c = Self.column(type, direction), i = node.index
        guard c < byType.count, i < byType[c].count else { return floor }
        return max(floor, byType[c][i])
    }

    @inline(__always)
    static func column(_ type: RelationshipTypeID, _ direction: Direction) -> Int {
        Int(type.rawValue) * 2 + (direction == .incoming ? 1 : 0)
    }

    /// Records that the commit `sequence` made `mutations`.
    public mutating func stamp(_ mutations: [Mutation], sequence: UInt64) {
        for mutation in mutations {
            switch mutation {
            case .createNode(let node, _, _), .deleteNode(let node), .setNodeProperty(let node, _, _),
                 .addLabel(let node, _), .removeLabel(let node, _):
                stampNode(node, sequence)
            case .createRelationship(_, let type, let start, let end, _):
                stampRelationship(type, start, end, sequence)
            case .deleteRelationship(let r), .setRelationshipProperty(let r, _, _):
                stampRelationship(r.type, r.start, r.end, sequence)
            case .deleteRelationshipByID, .setRelationshipPropertyByID:
                // An older log's record that does not say which nodes it touched.
                floor = max(floor, sequence)
            case .defineLabel, .defineRelationshipType, .definePropertyKey, .createIndex, .dropIndex,
                 .createFullTextIndex, .dropFullTextIndex:
                break
            }
        }
    }

    /// Everything counts as changed at `sequence` (a graph loaded without versions).
    public mutating func raiseFloor(to sequence: UInt64) { floor = max(floor, sequence) }

    private mutating func stampNode(_ node: NodeID, _ sequence: UInt64) {
        let i = node.index
        if i >= nodes.count { nodes.append(contentsOf: repeatElement(0, count: i + 1 - nodes.count)) }
        nodes[i] = sequence
    }

    private mutating func stampRelationship(_ type: RelationshipTypeID, _ start: NodeID, _ end: NodeID, _ sequence: UInt64) {
        stampColumn(Self.column(type, .outgoing), start, sequence)
        stampColumn(Self.column(type, .incoming), end, sequence)
    }

    private mutating func stampColumn(_ c: Int, _ node: NodeID, _ sequence: UInt64) {
        if c >= byType.count { byType.append(contentsOf: repeatElement([], count: c + 1 - byType.count)) }
        let i = node.index
        if i >= byType[c].count { byType[c].append(contentsOf: repeatElement(0, count: i + 1 - byType[c].count)) }
        byType[c][i] = sequence
    }
}

extension ChangeVersions {
    /// The stored columns for a snapshot: 0 the nodes' own versions, c + 1 column c (type × 2,
    /// + 1 for incoming).
    var columns: [(column: Int, values: [UInt64])] {
        [(0, nodes)] + byType.enumerated().filter { !$0.element.isEmpty }.map { ($0.offset + 1, $0.element) }
    }

    /// Reads one snapshot section of a column (SnapshotFormat.swift): column, first id, count,
    /// versions. Ids past `nodeLimit` are damage, not a graph.
    mutating func readColumn(_ reader: inout ByteReader, nodeLimit: Int) throws(CodecError) {
        let column = try reader.varint(), first = try reader.varint(), count = try reader.count()
        guard column <= UInt64(UInt32.max), first <= UInt64(nodeLimit), UInt64(count) <= UInt64(nodeLimit) - first else {
            throw CodecError(message: "change versions column \(column) from node \(first) is out of range")
        }
        let end = Int(first) + count
        func grow(_ values: inout [UInt64]) throws(CodecError) {
            if values.count < end { values.append(contentsOf: repeatElement(0, count: end - values.count)) }
            for i in Int(first)..<end { values[i] = try reader.varint() }
        }
        if column == 0 {
            try grow(&nodes)
        } else {
            let t = Int(column - 1)
            if t >= byType.count { byType.append(contentsOf: repeatElement([], count: t + 1 - byType.count)) }
            try grow(&byType[t])
        }
    }
}

extension Graph {
    /// When each node and each node's relationships of each type last changed.
    public var changeVersions: ChangeVersions { versions }
}
