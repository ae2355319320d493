// QueryResult.swift — what a query hands back to its caller: columns, rows of
// materialised values, and the write statistics. The server turns this into
// FalkorDB's reply shape; the REPL into a table. Nothing here refers to the store's
// internals, so a result can outlive the read lock that produced it.

import GraphStore

/// The outcome of one query.
public struct QueryResult: Sendable {
    /// Column names: the alias if one was given, else the expression as written.
    public var columns: [String]
    /// Every row's values, one row after another, in one buffer: a result of many small rows
    /// costs no allocation, free or reference count per row (an array per row did, and those
    /// were most of a plain result's cost). `row(_:)` reads one row in place.
    public private(set) var cells: [ResultValue] = []
    /// Where each row ends in `cells` (rows are `columns.count` wide when the engine made
    /// them; a decoded remote reply may have others).
    private var rowEnds: [Int] = []
    /// True when the query ends in RETURN (or a CALL that yields rows): the reply then
    /// carries a header and rows. False for a pure write, whose reply is statistics only.
    public var hasResultSet: Bool
    /// Counters of what the query changed, and its timing.
    public var statistics: QueryStatistics

    public init(columns: [String] = [], rows: [[ResultValue]] = [], hasResultSet: Bool = false,
                statistics: QueryStatistics = QueryStatistics()) {
        self.columns = columns; self.hasResultSet = hasResultSet; self.statistics = statistics
        for row in rows { appendRow(row) }
    }

    /// The number of rows.
    public var rowCount: Int { rowEnds.count }

    /// Row `i`'s values, in place.
    public func row(_ i: Int) -> ArraySlice<ResultValue> {
        cells[cellRange(ofRow: i)]
    }

    /// Where row `i`'s values are in `cells`. A reply writer walks the cells by these instead
    /// of taking each row's slice (which retains and releases the buffer a row).
    public func cellRange(ofRow i: Int) -> Range<Int> {
        (i == 0 ? 0 : rowEnds[i - 1])..<rowEnds[i]
    }

    /// The rows as an array of arrays: a copy, for callers that want one (tests, the REPL);
    /// setting it replaces every row.
    public var rows: [[ResultValue]] {
        get { (0..<rowCount).map { Array(row($0)) } }
        set {
            cells = []
            rowEnds = []
            for row in newValue { appendRow(row) }
        }
    }

    /// Adds a row after the last.
    public mutating func appendRow(_ values: some Sequence<ResultValue>) {
        cells.append(contentsOf: values)
        rowEnds.append(cells.count)
    }

    /// Adds one value to the row being built (the executor's collector: no row array).
    mutating func appendCell(_ value: ResultValue) { cells.append(value) }

    /// Ends the row being built by `appendCell`.
    mutating func endRow() { rowEnds.append(cells.count) }

    /// Room for `rows` rows of `width` values without regrowing.
    public mutating func reserveCapacity(rows: Int, width: Int) {
        cells.reserveCapacity(rows * width)
        rowEnds.reserveCapacity(rows)
    }
}

/// What a query changed, in FalkorDB's counters, and how it ran.
public struct QueryStatistics: Sendable, Equatable {
    /// Label assignments to nodes (FalkorDB counts each node-label pair, not new schema labels).
    public var labelsAdded = 0
    public var labelsRemoved = 0
    public var nodesCreated = 0
    public var propertiesSet = 0
    public var propertiesRemoved = 0
    public var relationshipsCreated = 0
    public var nodesDeleted = 0
    public var relationshipsDeleted = 0
    public var indicesCreated = 0
    public var indicesDeleted = 0
    public var constraintsCreated = 0
    public var constraintsDeleted = 0
    /// True when the plan came from the plan cache.
    public var cachedExecution = false
    /// Wall time spent inside the engine, in milliseconds.
    public var executionTimeMilliseconds: Double = 0

    public init() {}

    /// True when any counter is non-zero, i.e. the query changed the graph or its schema.
    public var containsUpdates: Bool {
        labelsAdded + labelsRemoved + nodesCreated + propertiesSet + propertiesRemoved
            + relationshipsCreated + nodesDeleted + relationshipsDeleted + indicesCreated
            + indicesDeleted + constraintsCreated + constraintsDeleted > 0
    }
}

/// An interned schema name with its dense id, as clients that cache schema ids need both.
public struct SchemaName: Sendable, Hashable {
    public var id: Int
    public var name: String
    public init(id: Int, name: String) { self.id = id; self.name = name }
}

/// A property of a returned node or relationship.
public struct ResultProperty: Sendable, Hashable {
    public var key: SchemaName
    public var value: ResultValue
    public init(key: SchemaName, value: ResultValue) { self.key = key; self.value = value }
}

/// A node as returned: id, labels and properties, copied out of the graph.
public struct ResultNode: Sendable, Hashable {
    public var id: Int64
    public var labels: [SchemaName]
    public var properties: [ResultProperty]
    public init(id: Int64, labels: [SchemaName], properties: [ResultProperty]) {
        self.id = id; self.labels = labels; self.properties = properties
    }
}

/// A relationship as returned: id, type, endpoints and properties, copied out of the graph.
public struct ResultRelationship: Sendable, Hashable {
    public var id: Int64
    public var type: SchemaName
    public var startNodeID: Int64
    public var endNodeID: Int64
    public var properties: [ResultProperty]
    public init(id: Int64, type: SchemaName, startNodeID: Int64, endNodeID: Int64, properties: [ResultProperty]) {
        self.id = id; self.type = type; self.startNodeID = startNodeID; self.endNodeID = endNodeID
        self.properties = properties
    }
}

/// A path as returned: `nodes.count == relationships.count + 1`.
public struct ResultPath: Sendable, Hashable {
    public var nodes: [ResultNode]
    public var relationships: [ResultRelationship]
    public init(nodes: [ResultNode], relationships: [ResultRelationship]) {
        self.nodes = nodes; self.relationships = relationships
    }
}

/// A value in a result row. Only the entity cases are boxed (indirect): they are large, and
/// boxing them keeps the enum at two words; a scalar, string or list is held inline, so a
/// result of a million integers is not a million heap boxes (a whole-enum `indirect` made
/// one allocation per value, the largest per-row cost of a plain result).
public enum ResultValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case list([ResultValue])
    /// Keys in the order the query wrote them.
    case map([ResultMapEntry])
    indirect case node(ResultNode)
    indirect case relationship(ResultRelationship)
    indirect case path(ResultPath)
    /// A date, time, date-time or duration (boxed, as the entities are); its text is
    /// `String(describing:)`.
    indirect case temporal(TemporalValue)
}

/// One entry of a returned map.
public struct ResultMapEntry: Sendable, Hashable {
    public var key: String
    public var value: ResultValue
    public init(key: String, value: ResultValue) { self.key = key; self.value = value }
}
