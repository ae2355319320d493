// ImportIDMap.swift — maps the ids written in import files to the NodeIDs the builder gave
// them. Small non-negative integer ids (SNAP files, generated data) live in a dense array,
// one load per lookup; others in hash maps. One map per neo4j-admin id group.

import GraphStore

/// File ids → node ids for one id group.
public struct ImportIDMap {
    /// Integer ids below this go in the dense array (at most 4 bytes × this much memory).
    static let denseLimit: Int64 = 1 << 27
    private static let absent = UInt32.max

    private var dense: [UInt32] = []
    private var sparse: [Int64: NodeID] = [:]
    private var strings: [String: NodeID] = [:]

    public init() {}

    public var count: Int { denseCount + sparse.count + strings.count }
    private var denseCount = 0

    /// The node for integer id `id`, or nil.
    public func node(forInteger id: Int64) -> NodeID? {
        if id >= 0 && id < Int64(dense.count) {
            let raw = dense[Int(id)]
            return raw == Self.absent ? nil : NodeID(rawValue: raw)
        }
        if id >= 0 && id < Self.denseLimit { return nil }
        return sparse[id]
    }

    /// Records `node` for integer `id`; returns the node already there instead, if any.
    public mutating func insert(integer id: Int64, node: NodeID) -> NodeID? {
        if id >= 0 && id < Self.denseLimit {
            let index = Int(id)
            if index >= dense.count {
                let newCount = max(index + 1, min(Int(Self.denseLimit), dense.count * 2))
                dense.append(contentsOf: repeatElement(Self.absent, count: newCount - dense.count))
            }
            let existing = dense[index]
            if existing != Self.absent { return NodeID(rawValue: existing) }
            dense[index] = node.rawValue
            denseCount += 1
            return nil
        }
        if let existing = sparse[id] { return existing }
        sparse[id] = node
        return nil
    }

    /// The node for a non-integer id, or nil.
    public func node(forString id: String) -> NodeID? { strings[id] }

    /// Records `node` for a non-integer `id`; returns the node already there instead, if any.
    public mutating func insert(string id: String, node: NodeID) -> NodeID? {
        if let existing = strings[id] { return existing }
        strings[id] = node
        return nil
    }
}
