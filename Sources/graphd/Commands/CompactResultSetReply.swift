// CompactResultSetReply.swift — writes a QueryResult in FalkorDB's `--compact` shape
// (resultset_replycompact.c), the form falkordb-py always asks for: the header is
// `[1, name]` per column and every value is `[type, value]`, with labels, relationship
// types and property keys sent as their dense schema ids (the client resolves them with
// CALL DB.LABELS() / DB.RELATIONSHIPTYPES() / DB.PROPERTYKEYS()).

import GraphQuery

/// The compact GRAPH.QUERY reply writer.
enum CompactResultSetReply {
    /// FalkorDB's ValueType numbers (resultset_formatter.h).
    enum ValueType: Int64 {
        case null = 1, string = 2, integer = 3, boolean = 4, double = 5, list = 6
        case relationship = 7, node = 8, path = 9, map = 10
        /// FalkorDB's temporal types (its point is 11, vecf32 12). Each value is sent as an integer
        /// of seconds (CompactTemporal.swift).
        case datetime = 13, date = 14, time = 15, duration = 16
    }

    /// ColumnType: FalkorDB always reports COLUMN_SCALAR.
    static let scalarColumn: Int64 = 1

    /// Appends the whole reply for `result`.
    static func write(_ result: QueryResult, into reply: inout RESPEncoder) {
        guard result.hasResultSet else {
            reply.arrayHeader(1)
            ResultSetReply.writeStatistics(result.statistics, into: &reply)
            return
        }
        reply.arrayHeader(3)
        reply.arrayHeader(result.columns.count)
        for column in result.columns {
            reply.arrayHeader(2)
            reply.integer(scalarColumn)
            reply.bulkString(column)
        }
        // `[type, value]` a cell: four bytes more than the verbose form's.
        reply.reserveCapacity(adding: ResultSetReply.estimatedSize(of: result) + 4 * result.cells.count)
        reply.arrayHeader(result.rowCount)
        ResultSetReply.writeRows(result, into: &reply, scalarBound: scalarBound, writeScalar: writeScalar,
                                 writeCell: { writeValue($0, into: &$1) })
        ResultSetReply.writeStatistics(result.statistics, into: &reply)
    }

    /// The most bytes `writeScalar` writes for `value` (`[type, value]`), or nil when it is not
    /// a scalar it writes.
    @inline(__always)
    static func scalarBound(_ value: ResultValue) -> Int? {
        ResultSetReply.scalarBound(value).map { 2 * RESPBatchWriter.headerBound + $0 }
    }

    /// `[type, value]` for a scalar, as `writeValue` writes it.
    @inline(__always)
    static func writeScalar(_ value: ResultValue, into writer: inout RESPBatchWriter) {
        writer.arrayHeader(2)
        writer.integer(valueType(of: value).rawValue)
        ResultSetReply.writeScalar(value, into: &writer)
    }

    /// `[type, value]` for any value.
    static func writeValue(_ value: ResultValue, into reply: inout RESPEncoder) {
        reply.arrayHeader(2)
        writeTypeAndValue(value, into: &reply)
    }

    /// The two elements of `[type, value]` without the array header (a property entry
    /// puts its key id in front of them).
    static func writeTypeAndValue(_ value: ResultValue, into reply: inout RESPEncoder) {
        reply.integer(valueType(of: value).rawValue)
        switch value {
        case .null: reply.null()
        case .string(let s): reply.bulkString(s)
        case .integer(let n): reply.integer(n)
        case .bool(let b): reply.bulkString(b ? "true" : "false")
        case .double(let d): reply.bulkString(NumberFormatting.shortest(d))
        case .list(let items):
            reply.arrayHeader(items.count)
            for item in items { writeValue(item, into: &reply) }
        case .map(let entries):
            reply.arrayHeader(entries.count * 2)
            for entry in entries {
                reply.bulkString(entry.key)
                writeValue(entry.value, into: &reply)
            }
        case .node(let node):
            writeNodeBody(node, into: &reply)
        case .relationship(let relationship):
            writeRelationshipBody(relationship, into: &reply)
        case .path(let path):
            reply.arrayHeader(2)
            reply.arrayHeader(2)
            reply.integer(ValueType.list.rawValue)
            reply.arrayHeader(path.nodes.count)
            for node in path.nodes {
                reply.arrayHeader(2)
                reply.integer(ValueType.node.rawValue)
                writeNodeBody(node, into: &reply)
            }
            reply.arrayHeader(2)
            reply.integer(ValueType.list.rawValue)
            reply.arrayHeader(path.relationships.count)
            for relationship in path.relationships {
                reply.arrayHeader(2)
                reply.integer(ValueType.relationship.rawValue)
                writeRelationshipBody(relationship, into: &reply)
            }
        case .temporal(let t):
            reply.integer(CompactTemporal.seconds(of: t))
        }
    }

    /// FalkorDB's type number of `value`, the first element of its `[type, value]`.
    @inline(__always)
    static func valueType(of value: ResultValue) -> ValueType {
        switch value {
        case .null: .null
        case .string: .string
        case .integer: .integer
        case .bool: .boolean
        case .double: .double
        case .list: .list
        case .map: .map
        case .node: .node
        case .relationship: .relationship
        case .path: .path
        case .temporal(let t): CompactTemporal.valueType(of: t)
        }
    }

    /// `[id, [labelId…], [[keyId, type, value]…]]`.
    static func writeNodeBody(_ node: ResultNode, into reply: inout RESPEncoder) {
        reply.arrayHeader(3)
        reply.integer(node.id)
        reply.arrayHeader(node.labels.count)
        for label in node.labels { reply.integer(Int64(label.id)) }
        writeProperties(node.properties, into: &reply)
    }

    /// `[id, typeId, sourceId, destinationId, [[keyId, type, value]…]]`.
    static func writeRelationshipBody(_ relationship: ResultRelationship, into reply: inout RESPEncoder) {
        reply.arrayHeader(5)
        reply.integer(relationship.id)
        reply.integer(Int64(relationship.type.id))
        reply.integer(relationship.startNodeID)
        reply.integer(relationship.endNodeID)
        writeProperties(relationship.properties, into: &reply)
    }

    /// Each property as a 3-array `[keyId, type, value]`: `writeValue`'s pair, without a nested pair.
    private static func writeProperties(_ properties: [ResultProperty], into reply: inout RESPEncoder) {
        reply.arrayHeader(properties.count)
        for property in properties {
            reply.arrayHeader(3)
            reply.integer(Int64(property.key.id))
            writeTypeAndValue(property.value, into: &reply)
        }
    }
}
