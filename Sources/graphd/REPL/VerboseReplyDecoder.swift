// VerboseReplyDecoder.swift — decodes FalkorDB's verbose GRAPH.QUERY reply (names inline,
// floats and booleans as text) for servers whose CALL db.labels() & co. are missing, so the
// compact reply's schema ids could not be named.

import GraphQuery

/// The verbose result set, back into a QueryResult. Bulk strings stay strings: the verbose
/// form does not say whether "1.5" was a number.
enum VerboseReplyDecoder {
    static func result(from reply: RESPClientReply) throws(REPLError) -> QueryResult {
        guard case .array(let parts) = reply, parts.count == 1 || parts.count == 3 else {
            throw .other("unexpected reply to GRAPH.QUERY: \(reply)")
        }
        var result = QueryResult()
        if parts.count == 3 {
            result.hasResultSet = true
            if case .array(let header) = parts[0] {
                result.columns = header.map { if case .bulk(let name) = $0 { name } else { "?" } }
            }
            if case .array(let rows) = parts[1] {
                result.rows = rows.map { row in
                    guard case .array(let cells) = row else { return [] }
                    return cells.map(value)
                }
            }
        }
        if case .array(let lines) = parts[parts.count - 1] {
            for case .bulk(let line) in lines { RemoteBackend.apply(statisticsLine: line, to: &result.statistics) }
        }
        return result
    }

    static func value(_ reply: RESPClientReply) -> ResultValue {
        switch reply {
        case .null: return .null
        case .integer(let n): return .integer(n)
        case .simple(let s), .bulk(let s), .error(let s): return .string(s)
        case .data(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        case .array(let items):
            let pairs = items.compactMap { item -> (String, RESPClientReply)? in
                guard case .array(let pair) = item, pair.count == 2, case .bulk(let key) = pair[0] else { return nil }
                return (key, pair[1])
            }
            if pairs.count == items.count {
                let keys = pairs.map(\.0)
                if keys == ["id", "labels", "properties"] {
                    var labels: [SchemaName] = []
                    if case .array(let names) = pairs[1].1 {
                        for case .bulk(let label) in names { labels.append(SchemaName(id: labels.count, name: label)) }
                    }
                    return .node(ResultNode(id: integer(pairs[0].1), labels: labels, properties: properties(pairs[2].1)))
                }
                if keys == ["id", "type", "src_node", "dest_node", "properties"] {
                    var type = ""
                    if case .bulk(let name) = pairs[1].1 { type = name }
                    return .relationship(ResultRelationship(id: integer(pairs[0].1), type: SchemaName(id: 0, name: type),
                                                            startNodeID: integer(pairs[2].1), endNodeID: integer(pairs[3].1),
                                                            properties: properties(pairs[4].1)))
                }
            }
            return .list(items.map(value))
        }
    }

    private static func integer(_ reply: RESPClientReply) -> Int64 {
        if case .integer(let n) = reply { return n }
        return -1
    }

    private static func properties(_ reply: RESPClientReply) -> [ResultProperty] {
        guard case .array(let items) = reply else { return [] }
        return items.enumerated().compactMap { i, item in
            guard case .array(let pair) = item, pair.count == 2, case .bulk(let key) = pair[0] else { return nil }
            return ResultProperty(key: SchemaName(id: i, name: key), value: value(pair[1]))
        }
    }
}
