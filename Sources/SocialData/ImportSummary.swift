// ImportSummary.swift — what an import did: nodes and relationships per label and type, and
// the bad rows it skipped (the first ones in full, all of them counted).

/// The outcome of a successful import.
public struct ImportSummary: Sendable {
    /// Nodes created, per label in first-seen order.
    public var nodesByLabel: [(label: String, count: Int)] = []
    /// Relationships created, per type in first-seen order.
    public var relationshipsByType: [(type: String, count: Int)] = []
    /// Bad rows skipped, the first `ImportPlan.reportedBadRows` of them.
    public var badRows: [ImportError] = []
    public var badRowCount = 0
    /// Data rows read (header and comment lines not counted).
    public var rowsRead = 0
    public var bytesRead = 0

    public init() {}

    public var nodeCount: Int { nodesByLabel.reduce(0) { $0 + $1.count } }
    public var relationshipCount: Int { relationshipsByType.reduce(0) { $0 + $1.count } }

    mutating func addNodes(_ count: Int, label: String) {
        if let i = nodesByLabel.firstIndex(where: { $0.label == label }) { nodesByLabel[i].count += count }
        else { nodesByLabel.append((label, count)) }
    }

    mutating func addRelationships(_ count: Int, type: String) {
        if let i = relationshipsByType.firstIndex(where: { $0.type == type }) { relationshipsByType[i].count += count }
        else { relationshipsByType.append((type, count)) }
    }
}

/// How far an import has got, for a progress bar.
public struct ImportProgress: Sendable {
    public var file: String
    public var rowsRead: Int
    public var bytesRead: Int
    public var bytesTotal: Int
}
