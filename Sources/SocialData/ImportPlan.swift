// ImportPlan.swift — what an import reads: node and relationship CSV files (each with the
// label or type its rows get), SNAP edge lists, and how strict to be about bad rows.

/// The inputs and rules of one import.
public struct ImportPlan: Sendable {
    /// One file and the label (nodes) or relationship type (relationships, edge lists) of its rows.
    public struct Input: Sendable, Equatable {
        public var name: String
        public var path: String
        public init(name: String, path: String) { self.name = name; self.path = path }
    }

    public var nodeFiles: [Input] = []
    public var relationshipFiles: [Input] = []
    public var edgeLists: [Input] = []
    /// The label of nodes an edge list creates.
    public var edgeListLabel = "User"
    /// The property an edge-list node keeps its file id in.
    public var edgeListIDProperty = "id"
    public var delimiter: UInt8 = UInt8(ascii: ",")
    /// Bad rows tolerated (each reported and skipped); 0 stops at the first.
    public var maximumBadRows = 0
    /// At most this many bad rows are kept in the summary (all are counted).
    public var reportedBadRows = 100

    public init() {}

    /// Every input path, in reading order.
    public var paths: [String] { (nodeFiles + relationshipFiles + edgeLists).map(\.path) }
}
