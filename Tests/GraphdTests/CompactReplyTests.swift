// CompactReplyTests.swift — the `--compact` GRAPH.QUERY reply (what falkordb-py always
// asks for), compared byte for byte with the bytes FalkorDB 4.22 sends for the same results
// (captured from a real server, and from falkordb-py's traffic over RESP2, and written out
// below; "§5.5" in the test names is the capture notes' section on result sets), in RESP2 and
// RESP3, plus the RESP3 encodings themselves.

import GraphQuery
import Testing
@testable import graphd

/// `⏎`-separated text (the captures' notation: `⏎` is CRLF), to wire bytes.
private func wire(_ text: String) -> [UInt8] {
    Array(text.replacingOccurrences(of: "⏎", with: "\r\n").utf8)
}

private func compact(_ result: QueryResult, _ version: ProtocolVersion = .resp2) -> String {
    var encoder = RESPEncoder(protocolVersion: version)
    CompactResultSetReply.write(result, into: &encoder)
    return String(decoding: encoder.bytes, as: UTF8.self)
}

private func statistics(_ milliseconds: Double, cached: Bool = false) -> QueryStatistics {
    var s = QueryStatistics()
    s.executionTimeMilliseconds = milliseconds
    s.cachedExecution = cached
    return s
}

private let person = SchemaName(id: 0, name: "Person")
private let dev = SchemaName(id: 1, name: "Dev")
private let nameKey = SchemaName(id: 0, name: "name")
private let ageKey = SchemaName(id: 1, name: "age")
private let sinceKey = SchemaName(id: 2, name: "since")
private let ann = ResultNode(id: 0, labels: [person], properties: [ResultProperty(key: nameKey, value: .string("Ann")),
                                                                   ResultProperty(key: ageKey, value: .integer(33))])
private let ben = ResultNode(id: 1, labels: [person, dev], properties: [ResultProperty(key: nameKey, value: .string("Ben")),
                                                                        ResultProperty(key: ageKey, value: .integer(28))])
private let knows = ResultRelationship(id: 0, type: SchemaName(id: 0, name: "KNOWS"), startNodeID: 0, endNodeID: 1,
                                       properties: [ResultProperty(key: sinceKey, value: .integer(2019))])
private let statisticsTail = "*2⏎$19⏎Cached execution: 0⏎$52⏎Query internal execution time: 0.213922 milliseconds⏎"

@Suite("Compact result-set reply and RESP3")
struct CompactReplyTests {
    @Test("Nodes: [8, [id, [label ids], [[key id, type, value]…]]] (falkordb-py capture)")
    func nodes() {
        let result = QueryResult(columns: ["n"], rows: [[.node(ann)], [.node(ben)]], hasResultSet: true,
                                 statistics: statistics(0.213922))
        #expect(compact(result) == String(decoding: wire(
            "*3⏎*1⏎*2⏎:1⏎$1⏎n⏎*2⏎*1⏎*2⏎:8⏎*3⏎:0⏎*1⏎:0⏎*2⏎*3⏎:0⏎:2⏎$3⏎Ann⏎*3⏎:1⏎:3⏎:33⏎"
                + "*1⏎*2⏎:8⏎*3⏎:1⏎*2⏎:0⏎:1⏎*2⏎*3⏎:0⏎:2⏎$3⏎Ben⏎*3⏎:1⏎:3⏎:28⏎" + statisticsTail), as: UTF8.self))
    }

    @Test("Relationships: [7, [id, type id, source, destination, properties]]")
    func relationships() {
        let result = QueryResult(columns: ["e"], rows: [[.relationship(knows)]], hasResultSet: true,
                                 statistics: statistics(0.213922))
        #expect(compact(result) == String(decoding: wire(
            "*3⏎*1⏎*2⏎:1⏎$1⏎e⏎*1⏎*1⏎*2⏎:7⏎*5⏎:0⏎:0⏎:0⏎:1⏎*1⏎*3⏎:2⏎:3⏎:2019⏎" + statisticsTail), as: UTF8.self))
    }

    @Test("Paths: [9, [[6, [nodes]], [6, [relationships]]]]")
    func paths() {
        let result = QueryResult(columns: ["p"], rows: [[.path(ResultPath(nodes: [ann, ben], relationships: [knows]))]],
                                 hasResultSet: true, statistics: statistics(0.213922))
        #expect(compact(result) == String(decoding: wire(
            "*3⏎*1⏎*2⏎:1⏎$1⏎p⏎*1⏎*1⏎*2⏎:9⏎*2⏎*2⏎:6⏎*2⏎*2⏎:8⏎*3⏎:0⏎*1⏎:0⏎*2⏎*3⏎:0⏎:2⏎$3⏎Ann⏎*3⏎:1⏎:3⏎:33⏎"
                + "*2⏎:8⏎*3⏎:1⏎*2⏎:0⏎:1⏎*2⏎*3⏎:0⏎:2⏎$3⏎Ben⏎*3⏎:1⏎:3⏎:28⏎"
                + "*2⏎:6⏎*1⏎*2⏎:7⏎*5⏎:0⏎:0⏎:0⏎:1⏎*1⏎*3⏎:2⏎:3⏎:2019⏎" + statisticsTail), as: UTF8.self))
    }

    static let scalarsRow: [ResultValue] = [
        .integer(42), .string("hello"), .double(3.14), .bool(true), .bool(false), .null,
        .list([.integer(1), .string("two"), .double(3.0)]),
        .map([ResultMapEntry(key: "k", value: .integer(1)), ResultMapEntry(key: "s", value: .string("x")),
              ResultMapEntry(key: "nested", value: .list([.bool(true)]))]),
    ]

    @Test("The scalars row matches FalkorDB's compact bytes (§5.5); under RESP3 only the null changes")
    func scalars() {
        let resp2 = "*8⏎*2⏎:3⏎:42⏎*2⏎:2⏎$5⏎hello⏎*2⏎:5⏎$4⏎3.14⏎*2⏎:4⏎$4⏎true⏎*2⏎:4⏎$5⏎false⏎*2⏎:1⏎$-1⏎"
            + "*2⏎:6⏎*3⏎*2⏎:3⏎:1⏎*2⏎:2⏎$3⏎two⏎*2⏎:5⏎$1⏎3⏎"
            + "*2⏎:10⏎*6⏎$1⏎k⏎*2⏎:3⏎:1⏎$1⏎s⏎*2⏎:2⏎$1⏎x⏎$6⏎nested⏎*2⏎:6⏎*1⏎*2⏎:4⏎$4⏎true⏎"
        for version in [ProtocolVersion.resp2, .resp3] {
            var encoder = RESPEncoder(protocolVersion: version)
            encoder.arrayHeader(Self.scalarsRow.count)
            for cell in Self.scalarsRow { CompactResultSetReply.writeValue(cell, into: &encoder) }
            let expected = version == .resp2 ? resp2 : resp2.replacingOccurrences(of: "*2⏎:1⏎$-1⏎", with: "*2⏎:1⏎_⏎")
            #expect(encoder.bytes == wire(expected), "\(version)")
        }
    }

    @Test("A write without RETURN is statistics only, as in verbose mode")
    func statisticsOnly() {
        var s = statistics(0.336481)
        s.nodesCreated = 1
        #expect(compact(QueryResult(hasResultSet: false, statistics: s)) == String(decoding: wire(
            "*1⏎*3⏎$16⏎Nodes created: 1⏎$19⏎Cached execution: 0⏎$52⏎Query internal execution time: 0.336481 milliseconds⏎"),
            as: UTF8.self))
    }

    @Test("RESP3 encodings: null, map, boolean, verbatim text; RESP2 falls back")
    func resp3Encodings() {
        let value = RESPValue.array([.null, .map([(.bulk("k"), .integer(1))]), .boolean(true)])
        #expect(String(decoding: value.encoded(.resp3), as: UTF8.self) == "*3\r\n_\r\n%1\r\n$1\r\nk\r\n:1\r\n#t\r\n")
        #expect(String(decoding: value.encoded(.resp2), as: UTF8.self) == "*3\r\n$-1\r\n*2\r\n$1\r\nk\r\n:1\r\n:1\r\n")
        var encoder = RESPEncoder(protocolVersion: .resp3)
        encoder.verbatimText("# Server\r\n")
        #expect(String(decoding: encoder.bytes, as: UTF8.self) == "=14\r\ntxt:# Server\r\n\r\n")
    }
}
