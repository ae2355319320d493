// ResultSetReply.swift — writes a QueryResult in FalkorDB's verbose result-set shape
// (resultset_replyverbose.c): `*1 [stats]` for a pure write, else `*3 [header, rows,
// stats]`. Scalars are native RESP values, nodes `*3` and relationships `*5` arrays of
// [name, value] pairs, lists/maps/paths one bulk string (see VerboseText).

import GraphQuery

/// The verbose GRAPH.QUERY reply writer.
enum ResultSetReply {
    /// Appends the whole reply for `result`.
    static func write(_ result: QueryResult, into reply: inout RESPEncoder) {
        guard result.hasResultSet else {
            reply.arrayHeader(1)
            writeStatistics(result.statistics, into: &reply)
            return
        }
        reply.arrayHeader(3)
        reply.arrayHeader(result.columns.count)
        for column in result.columns { reply.bulkString(column) }
        reply.reserveCapacity(adding: estimatedSize(of: result))
        reply.arrayHeader(result.rowCount)
        writeRows(result, into: &reply, scalarBound: scalarBound, writeScalar: writeScalar,
                  writeCell: { writeCell($0, into: &$1) })
        writeStatistics(result.statistics, into: &reply)
    }

    /// The most bytes a batch holds (`writeRows`): a bound on what it reserves past the reply.
    static let batchBytes = 1 << 16

    /// Writes `result`'s rows, each `*n` and its cells. Runs of rows whose cells are all scalars
    /// (`scalarBound` not nil) go through `RESPBatchWriter` batches of up to `batchBytes`; any
    /// other row is written value by value with `writeCell`. The verbose and compact forms
    /// differ only in the three functions.
    @inline(__always)
    static func writeRows(_ result: QueryResult, into reply: inout RESPEncoder,
                          scalarBound: (ResultValue) -> Int?,
                          writeScalar: (ResultValue, inout RESPBatchWriter) -> Void,
                          writeCell: (ResultValue, inout RESPEncoder) -> Void) {
        let cells = result.cells
        let rowCount = result.rowCount
        var row = 0
        while row < rowCount {
            var end = row, bound = 0
            scan: while end < rowCount && bound < batchBytes {
                var rowBound = RESPBatchWriter.headerBound
                for j in result.cellRange(ofRow: end) {
                    guard let cellBound = scalarBound(cells[j]) else { break scan }
                    rowBound &+= cellBound
                }
                bound &+= rowBound
                end &+= 1
            }
            if end > row {
                reply.writeBatch(bound: bound) { writer in
                    for i in row..<end {
                        let range = result.cellRange(ofRow: i)
                        writer.arrayHeader(range.count)
                        for j in range { writeScalar(cells[j], &writer) }
                    }
                }
                row = end
            } else {
                let range = result.cellRange(ofRow: row)
                reply.arrayHeader(range.count)
                for j in range { writeCell(cells[j], &reply) }
                row &+= 1
            }
        }
    }

    /// The most bytes `writeScalar` writes for `value`, or nil when it is not a scalar it writes.
    @inline(__always)
    static func scalarBound(_ value: ResultValue) -> Int? {
        switch value {
        case .null: RESPBatchWriter.nullBound
        case .integer: RESPBatchWriter.headerBound
        case .bool: RESPBatchWriter.bulkStringBound("false")
        case .string(let s): RESPBatchWriter.bulkStringBound(s)
        case .double, .list, .map, .node, .relationship, .path, .temporal: nil
        }
    }

    /// A scalar cell, as `writeCell` writes it.
    @inline(__always)
    static func writeScalar(_ value: ResultValue, into writer: inout RESPBatchWriter) {
        switch value {
        case .null: writer.null()
        case .integer(let n): writer.integer(n)
        case .bool(let b): writer.bulkString(b ? "true" : "false")
        case .string(let s): writer.bulkString(s)
        case .double, .list, .map, .node, .relationship, .path, .temporal:
            preconditionFailure("ResultSetReply.writeScalar: not a scalar (scalarBound said nil)")
        }
    }

    /// A guess at a result set's reply size, for reserving it up front: a row header and
    /// about a dozen bytes a cell (an id or a count), plus the header and the statistics. A
    /// guess too small costs one regrowth, as without it.
    static func estimatedSize(of result: QueryResult) -> Int {
        256 + 6 * result.rowCount + 12 * result.cells.count
    }

    /// One top-level cell (or a property value of a node or relationship).
    static func writeCell(_ value: ResultValue, into reply: inout RESPEncoder) {
        switch value {
        case .null: reply.null()
        case .bool(let b): reply.bulkString(b ? "true" : "false")
        case .integer(let n): reply.integer(n)
        case .double(let d): reply.bulkString(NumberFormatting.shortest(d))
        case .string(let s): reply.bulkString(s)
        case .temporal(let t): reply.bulkString(t.description)
        case .list, .map, .path: reply.bulkString(VerboseText.render(value))
        case .node(let node): writeNode(node, into: &reply)
        case .relationship(let relationship): writeRelationship(relationship, into: &reply)
        }
    }

    /// `*3 [id :n] [labels [..]] [properties [[k, v]..]]`.
    static func writeNode(_ node: ResultNode, into reply: inout RESPEncoder) {
        reply.arrayHeader(3)
        reply.arrayHeader(2)
        reply.bulkString("id")
        reply.integer(node.id)
        reply.arrayHeader(2)
        reply.bulkString("labels")
        reply.arrayHeader(node.labels.count)
        for label in node.labels { reply.bulkString(label.name) }
        writeProperties(node.properties, into: &reply)
    }

    /// `*5 [id :n] [type T] [src_node :n] [dest_node :n] [properties [[k, v]..]]`.
    static func writeRelationship(_ relationship: ResultRelationship, into reply: inout RESPEncoder) {
        reply.arrayHeader(5)
        reply.arrayHeader(2)
        reply.bulkString("id")
        reply.integer(relationship.id)
        reply.arrayHeader(2)
        reply.bulkString("type")
        reply.bulkString(relationship.type.name)
        reply.arrayHeader(2)
        reply.bulkString("src_node")
        reply.integer(relationship.startNodeID)
        reply.arrayHeader(2)
        reply.bulkString("dest_node")
        reply.integer(relationship.endNodeID)
        writeProperties(relationship.properties, into: &reply)
    }

    private static func writeProperties(_ properties: [ResultProperty], into reply: inout RESPEncoder) {
        reply.arrayHeader(2)
        reply.bulkString("properties")
        reply.arrayHeader(properties.count)
        for property in properties {
            reply.arrayHeader(2)
            reply.bulkString(property.key.name)
            writeCell(property.value, into: &reply)
        }
    }

    /// The counters' names, in FalkorDB's fixed order (ResultSet_EmitCompactStats).
    static let counterNames = ["Labels added", "Labels removed", "Nodes created", "Properties set", "Properties removed",
                               "Relationships created", "Nodes deleted", "Relationships deleted", "Indices created",
                               "Indices deleted", "Constraints created", "Constraints deleted"]

    /// The counters of `s`, in `counterNames` order; inline, no allocation (every reply asks).
    static func counters(_ s: QueryStatistics) -> InlineArray<12, Int> {
        [s.labelsAdded, s.labelsRemoved, s.nodesCreated, s.propertiesSet, s.propertiesRemoved, s.relationshipsCreated,
         s.nodesDeleted, s.relationshipsDeleted, s.indicesCreated, s.indicesDeleted, s.constraintsCreated,
         s.constraintsDeleted]
    }

    /// The statistics lines: each counter only when > 0, in FalkorDB's fixed order
    /// (ResultSet_EmitCompactStats), then always the cache flag and the execution time.
    static func statisticsLines(_ s: QueryStatistics) -> [String] {
        var lines: [String] = []
        let counts = counters(s)
        for i in counts.indices where counts[i] > 0 { lines.append("\(counterNames[i]): \(counts[i])") }
        lines.append(s.cachedExecution ? cachedLine : uncachedLine)
        lines.append(timeLine(s.executionTimeMilliseconds))
        return lines
    }

    static let cachedLine = "Cached execution: 1"
    static let uncachedLine = "Cached execution: 0"
    static func timeLine(_ milliseconds: Double) -> String {
        String(decoding: timeLinePrefix, as: UTF8.self) + NumberFormatting.milliseconds(milliseconds)
            + String(decoding: timeLineSuffix, as: UTF8.self)
    }

    /// The lines of `statisticsLines`, written straight into the reply (no array of lines).
    static func writeStatistics(_ statistics: QueryStatistics, into reply: inout RESPEncoder) {
        let counts = counters(statistics)
        var nonzero = 0
        for i in counts.indices where counts[i] > 0 { nonzero += 1 }
        reply.arrayHeader(nonzero + 2)
        if nonzero > 0 {
            for i in counts.indices where counts[i] > 0 { reply.bulkString("\(counterNames[i]): \(counts[i])") }
        }
        reply.bulkString(statistics.cachedExecution ? cachedLine : uncachedLine)
        writeTimeLine(statistics.executionTimeMilliseconds, into: &reply)
    }

    /// `timeLine(milliseconds)` as a bulk string, assembled on the stack: every reply carries
    /// one, and building it as a String (interpolation, two appends, a copy into the reply)
    /// cost a tenth of a point lookup's time in the server.
    static func writeTimeLine(_ milliseconds: Double, into reply: inout RESPEncoder) {
        NumberFormatting.withMilliseconds(milliseconds) { number in
            let count = timeLinePrefix.count + number.count + timeLineSuffix.count
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { line in
                var i = line.initialize(fromContentsOf: timeLinePrefix)
                i = line[i...].initialize(fromContentsOf: number)
                _ = line[i...].initialize(fromContentsOf: timeLineSuffix)
                reply.bulkString(UnsafeBufferPointer(line))
            }
        }
    }

    static let timeLinePrefix = Array("Query internal execution time: ".utf8)
    static let timeLineSuffix = Array(" milliseconds".utf8)
}
