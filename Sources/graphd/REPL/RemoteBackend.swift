// RemoteBackend.swift — the REPL's backend for `--connect HOST:PORT`: sends GRAPH.QUERY
// (parameters in FalkorDB's `CYPHER name=value` header) with `--compact`, so values keep
// their types (the verbose reply sends a float as text), and resolves label, type and key
// ids with CALL db.labels() / db.relationshipTypes() / db.propertyKeys(), as FalkorDB's
// clients do. Also GRAPH.EXPLAIN/PROFILE and GRAPH.LIST. Ctrl-C closes the connection (the
// only way to stop waiting); the next statement reconnects.

import GraphQuery
import GraphStore
import Synchronization

/// Statements sent to a running graphd.
final class RemoteBackend: QueryBackend {
    let address: ServerAddress
    let password: String?
    let summary: String
    private let client: Mutex<RESPClient?>
    /// Schema names per graph, by id, refreshed when a reply names an id not yet known.
    private let names = Mutex<[String: SchemaNameCache]>([:])
    /// False once the server turned down CALL db.labels(): replies are then asked for in
    /// the verbose form, whose names are inline (and whose scalars are untyped text).
    private let namesAvailable = Mutex(true)

    /// Connects (and authenticates) now, so a wrong address fails at start.
    init(address: ServerAddress, password: String?) throws(REPLError) {
        self.address = address
        self.password = password
        self.summary = "connected to \(address.host):\(address.port)"
        self.client = Mutex(nil)
        _ = try connection()
    }

    /// `cancellation` is not used: on Ctrl-C `interrupt()` closes the connection instead (the
    /// server stops the query at its timeout).
    func execute(_ query: String, graph: String, parameters: [String: Value],
                 cancellation: QueryCancellation?) throws(REPLError) -> QueryResult {
        // Find out before the first query on a graph whether names can be had, so a query is
        // never sent twice.
        if namesAvailable.withLock({ $0 }) && names.withLock({ $0[graph] == nil }) {
            do throws(REPLError) {
                _ = try schemaNames(graph, refresh: true)
            } catch {
                if case .server(let message) = error, message.contains("empty key") {
                    // The graph does not exist yet: its names are fetched after this query.
                } else if case .query = error {
                    namesAvailable.withLock { $0 = false }
                } else {
                    throw error
                }
            }
        }
        let text = Self.withParameters(query, parameters)
        guard namesAvailable.withLock({ $0 }) else {
            return try VerboseReplyDecoder.result(from: try send(["GRAPH.QUERY", graph, text]))
        }
        let reply = try send(["GRAPH.QUERY", graph, text, "--compact"])
        var decoder = CompactReplyDecoder()
        var result = try decoder.result(from: reply)
        if decoder.needsNames {
            let cache: SchemaNameCache
            do throws(REPLError) {
                cache = try schemaNames(graph, refresh: decoder.maximumIDs.exceeds(names.withLock { $0[graph] }))
            } catch {
                // The query already ran: show ids (#n) rather than lose its result.
                guard case .query = error else { throw error }
                namesAvailable.withLock { $0 = false }
                cache = SchemaNameCache(labels: [], types: [], keys: [])
            }
            result.rows = result.rows.map { row in row.map { cache.resolve($0) } }
        }
        return result
    }

    /// A read-only query's result, in the compact form (procedure results hold no ids).
    private func readOnly(_ graph: String, _ query: String) throws(REPLError) -> QueryResult {
        var decoder = CompactReplyDecoder()
        return try decoder.result(from: try send(["GRAPH.RO_QUERY", graph, query, "--compact"]))
    }

    /// The schema names of `graph`, fetched again when `refresh` (an id beyond the cache).
    private func schemaNames(_ graph: String, refresh: Bool) throws(REPLError) -> SchemaNameCache {
        if !refresh, let cached = names.withLock({ $0[graph] }) { return cached }
        func column(_ procedure: String) throws(REPLError) -> [String] {
            return try readOnly(graph, "CALL \(procedure)()").rows.compactMap { row in row.first.map(ValueText.plain) }
        }
        let fresh = SchemaNameCache(labels: try column("db.labels"), types: try column("db.relationshipTypes"),
                                    keys: try column("db.propertyKeys"))
        names.withLock { $0[graph] = fresh }
        return fresh
    }

    func plan(_ query: String, graph: String, parameters: [String: Value], profile: Bool) throws(REPLError) -> [String] {
        let text = profile ? Self.withParameters(query, parameters) : query
        let reply = try send([profile ? "GRAPH.PROFILE" : "GRAPH.EXPLAIN", graph, text])
        guard case .array(let items) = reply else { throw .other("unexpected reply to GRAPH.EXPLAIN: \(reply)") }
        return items.map { item in if case .bulk(let line) = item { return line } else { return "\(item)" } }
    }

    func graphNames() throws(REPLError) -> [String] {
        guard case .array(let items) = try send(["GRAPH.LIST"]) else { return [] }
        return items.compactMap { if case .bulk(let name) = $0 { return name } else { return nil } }
    }

    func schema(graph: String) throws(REPLError) -> GraphSchema {
        var schema = GraphSchema()
        let names = try schemaNames(graph, refresh: true)
        schema.labels = names.labels.map { ($0, nil) }
        schema.relationshipTypes = names.types.map { ($0, nil) }
        schema.propertyKeys = names.keys
        let indexes = try readOnly(graph, "CALL db.indexes()")
        schema.indexes = indexes.rows.map { row in row.map(ValueText.plain).joined(separator: " ") }
        return schema
    }

    func interrupt() {
        client.withLock { client in
            client?.close()
            client = nil
        }
    }

    private func connection() throws(REPLError) -> RESPClient {
        if let existing = client.withLock({ $0 }), !existing.isClosed { return existing }
        let fresh = try RESPClient(host: address.host, port: address.port)
        if let password {
            let reply = try fresh.command(["AUTH", password])
            if case .error(let message) = reply { throw .server(message) }
        }
        client.withLock { $0 = fresh }
        return fresh
    }

    private func send(_ arguments: [String]) throws(REPLError) -> RESPClientReply {
        let reply = try connection().command(arguments)
        if case .error(let message) = reply {
            if let located = Self.syntaxError(message) { throw .query(located) }
            throw .server(message)
        }
        return reply
    }

    /// FalkorDB's syntax error text, `errMsg: M line: L, column: C, offset: O errCtx: TEXT
    /// errCtxOffset: N`, back as a located QueryError so the REPL can draw the caret.
    static func syntaxError(_ message: String) -> QueryError? {
        guard message.hasPrefix("errMsg: "),
              let lineRange = message.firstRange(of: " line: "),
              let columnRange = message.firstRange(of: ", column: "),
              let offsetRange = message.firstRange(of: ", offset: "),
              let contextRange = message.firstRange(of: " errCtx: "),
              let contextEnd = message.firstRange(of: " errCtxOffset: "),
              lineRange.upperBound <= columnRange.lowerBound, columnRange.upperBound <= offsetRange.lowerBound,
              offsetRange.upperBound <= contextRange.lowerBound, contextRange.upperBound <= contextEnd.lowerBound,
              let line = Int(message[lineRange.upperBound..<columnRange.lowerBound]),
              let column = Int(message[columnRange.upperBound..<offsetRange.lowerBound]),
              let offset = Int(message[offsetRange.upperBound..<contextRange.lowerBound]) else { return nil }
        let text = String(message[message.index(message.startIndex, offsetBy: 8)..<lineRange.lowerBound])
        return QueryError(.syntax, text, location: SourceLocation(line: line, column: column, offset: offset),
                          contextLine: String(message[contextRange.upperBound..<contextEnd.lowerBound]))
    }

    /// FalkorDB's parameter header in front of the query.
    static func withParameters(_ query: String, _ parameters: [String: Value]) -> String {
        guard !parameters.isEmpty else { return query }
        let header = parameters.keys.sorted().map { "\($0)=\(CypherLiteral.render(parameters[$0]!))" }
        return "CYPHER " + header.joined(separator: " ") + " " + query
    }

    /// "Nodes created: 2" → statistics.nodesCreated = 2.
    static func apply(statisticsLine line: String, to statistics: inout QueryStatistics) {
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let number = line[line.index(after: colon)...].split(separator: " ").first.map(String.init) ?? ""
        if name == "Query internal execution time" {
            statistics.executionTimeMilliseconds = Double(number) ?? 0
            return
        }
        guard let count = Int(number) else { return }
        switch name {
        case "Labels added": statistics.labelsAdded = count
        case "Labels removed": statistics.labelsRemoved = count
        case "Nodes created": statistics.nodesCreated = count
        case "Properties set": statistics.propertiesSet = count
        case "Properties removed": statistics.propertiesRemoved = count
        case "Relationships created": statistics.relationshipsCreated = count
        case "Nodes deleted": statistics.nodesDeleted = count
        case "Relationships deleted": statistics.relationshipsDeleted = count
        case "Indices created": statistics.indicesCreated = count
        case "Indices deleted": statistics.indicesDeleted = count
        case "Constraints created": statistics.constraintsCreated = count
        case "Constraints deleted": statistics.constraintsDeleted = count
        case "Cached execution": statistics.cachedExecution = count == 1
        default: break
        }
    }
}

/// Label, relationship type and property key names of one graph, indexed by id.
struct SchemaNameCache: Sendable {
    var labels: [String]
    var types: [String]
    var keys: [String]

    /// `value` with every schema id replaced by its name (`#id` when the server did not say).
    func resolve(_ value: ResultValue) -> ResultValue {
        func name(_ names: [String], _ id: Int) -> SchemaName {
            SchemaName(id: id, name: id >= 0 && id < names.count ? names[id] : "#\(id)")
        }
        func properties(_ list: [ResultProperty]) -> [ResultProperty] {
            list.map { ResultProperty(key: name(keys, $0.key.id), value: resolve($0.value)) }
        }
        func node(_ n: ResultNode) -> ResultNode {
            ResultNode(id: n.id, labels: n.labels.map { name(labels, $0.id) }, properties: properties(n.properties))
        }
        func relationship(_ r: ResultRelationship) -> ResultRelationship {
            ResultRelationship(id: r.id, type: name(types, r.type.id), startNodeID: r.startNodeID, endNodeID: r.endNodeID,
                               properties: properties(r.properties))
        }
        switch value {
        case .node(let n): return .node(node(n))
        case .relationship(let r): return .relationship(relationship(r))
        case .path(let p): return .path(ResultPath(nodes: p.nodes.map(node), relationships: p.relationships.map(relationship)))
        case .list(let items): return .list(items.map(resolve))
        case .map(let entries): return .map(entries.map { ResultMapEntry(key: $0.key, value: resolve($0.value)) })
        default: return value
        }
    }
}

/// Decodes FalkorDB's compact result set: `[[1, name]…]` header, `[type, value]` cells,
/// nodes and relationships with schema ids (names resolved afterwards by SchemaNameCache).
struct CompactReplyDecoder {
    /// The largest label, type and key ids seen, to tell whether the name cache is stale.
    struct MaximumIDs {
        var label = -1, type = -1, key = -1
        func exceeds(_ cache: SchemaNameCache?) -> Bool {
            guard let cache else { return true }
            return label >= cache.labels.count || type >= cache.types.count || key >= cache.keys.count
        }
    }

    private(set) var maximumIDs = MaximumIDs()
    /// True once a node, relationship or path was decoded.
    private(set) var needsNames = false

    mutating func result(from reply: RESPClientReply) throws(REPLError) -> QueryResult {
        guard case .array(let parts) = reply, parts.count == 1 || parts.count == 3 else {
            throw .other("unexpected reply to GRAPH.QUERY: \(reply)")
        }
        var result = QueryResult()
        if parts.count == 3 {
            result.hasResultSet = true
            if case .array(let header) = parts[0] {
                result.columns = header.map { column in
                    if case .array(let pair) = column, case .bulk(let name)? = pair.last { return name }
                    if case .bulk(let name) = column { return name }
                    return "?"
                }
            }
            if case .array(let rows) = parts[1] {
                for row in rows {
                    guard case .array(let cells) = row else { continue }
                    var values: [ResultValue] = []
                    for cell in cells { values.append(try value(cell)) }
                    result.appendRow(values)
                }
            }
        }
        if case .array(let lines) = parts[parts.count - 1] {
            for case .bulk(let line) in lines { RemoteBackend.apply(statisticsLine: line, to: &result.statistics) }
        }
        return result
    }

    /// One `[type, value]` cell.
    mutating func value(_ cell: RESPClientReply) throws(REPLError) -> ResultValue {
        guard case .array(let pair) = cell, pair.count == 2, case .integer(let type) = pair[0] else {
            throw .other("unexpected compact value: \(cell)")
        }
        return try typed(type, pair[1])
    }

    private mutating func typed(_ type: Int64, _ payload: RESPClientReply) throws(REPLError) -> ResultValue {
        switch (type, payload) {
        case (1, _): return .null
        case (2, .bulk(let s)): return .string(s)
        case (3, .integer(let n)): return .integer(n)
        case (4, .bulk(let s)): return .bool(s == "true")
        case (5, .bulk(let s)): return .double(Double(s) ?? .nan)
        case (6, .array(let items)):
            var values: [ResultValue] = []
            for item in items { values.append(try value(item)) }
            return .list(values)
        case (7, .array(let body)): return .relationship(try relationship(body))
        case (8, .array(let body)): return .node(try node(body))
        case (9, .array(let parts)) where parts.count == 2:
            guard case .list(let nodes) = try value(parts[0]), case .list(let relationships) = try value(parts[1]) else {
                throw .other("unexpected compact path")
            }
            return .path(ResultPath(nodes: nodes.compactMap { if case .node(let n) = $0 { n } else { nil } },
                                    relationships: relationships.compactMap { if case .relationship(let r) = $0 { r } else { nil } }))
        case (10, .array(let flat)):
            var entries: [ResultMapEntry] = []
            var index = 0
            while index + 1 < flat.count {
                guard case .bulk(let key) = flat[index] else { throw .other("unexpected compact map key") }
                entries.append(ResultMapEntry(key: key, value: try value(flat[index + 1])))
                index += 2
            }
            return .map(entries)
        case (13...16, .integer(let seconds)):
            // Temporal values come as seconds (CompactTemporal.swift): shown as what they say.
            return .temporal(CompactTemporal.decode(type: type, seconds: seconds)!)
        default:
            throw .other("unexpected compact value of type \(type): \(payload)")
        }
    }

    private mutating func node(_ body: [RESPClientReply]) throws(REPLError) -> ResultNode {
        guard body.count == 3, case .integer(let id) = body[0], case .array(let labelIDs) = body[1] else {
            throw .other("unexpected compact node")
        }
        needsNames = true
        var labels: [SchemaName] = []
        for case .integer(let label) in labelIDs {
            maximumIDs.label = max(maximumIDs.label, Int(label))
            labels.append(SchemaName(id: Int(label), name: ""))
        }
        return ResultNode(id: id, labels: labels, properties: try properties(body[2]))
    }

    private mutating func relationship(_ body: [RESPClientReply]) throws(REPLError) -> ResultRelationship {
        guard body.count == 5, case .integer(let id) = body[0], case .integer(let type) = body[1],
              case .integer(let start) = body[2], case .integer(let end) = body[3] else {
            throw .other("unexpected compact relationship")
        }
        needsNames = true
        maximumIDs.type = max(maximumIDs.type, Int(type))
        return ResultRelationship(id: id, type: SchemaName(id: Int(type), name: ""), startNodeID: start, endNodeID: end,
                                  properties: try properties(body[4]))
    }

    /// `[[keyId, type, value]…]`.
    private mutating func properties(_ reply: RESPClientReply) throws(REPLError) -> [ResultProperty] {
        guard case .array(let items) = reply else { return [] }
        var result: [ResultProperty] = []
        for item in items {
            guard case .array(let triple) = item, triple.count == 3, case .integer(let key) = triple[0],
                  case .integer(let type) = triple[1] else { throw .other("unexpected compact property") }
            maximumIDs.key = max(maximumIDs.key, Int(key))
            result.append(ResultProperty(key: SchemaName(id: Int(key), name: ""), value: try typed(type, triple[2])))
        }
        return result
    }
}

/// Values as Cypher literals, for the parameter header sent to a server and for `:params`.
enum CypherLiteral {
    static func render(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let n): return String(n)
        case .double(let d): return d.isFinite ? "\(d)" : (d.isNaN ? "0.0/0.0" : (d < 0 ? "-1.0/0.0" : "1.0/0.0"))
        case .string(let s): return "'" + s.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
        case .list(let items): return "[" + items.map(render).joined(separator: ", ") + "]"
        case .map(let map): return "{" + map.map { "`\($0.0)`: \(render($0.1))" }.joined(separator: ", ") + "}"
        case .temporal(let t): return "\(t.constructorName)('\(t)')"
        }
    }
}
