// ResultSetReplyTests.swift — the verbose GRAPH.QUERY reply, compared byte for byte with the
// bytes FalkorDB 4.22 sends for the same results (captured from a real server and written out
// below; "§5.5" in the test names is the capture notes' section on result sets), plus nodes,
// relationships, paths and the statistics order.

import Foundation
import GraphQuery
import Testing
@testable import graphd

/// `⏎`-separated text (the captures' notation: `⏎` is CRLF), to wire bytes.
private func wire(_ text: String) -> [UInt8] {
    Array(text.replacingOccurrences(of: "⏎", with: "\r\n").utf8)
}

private func reply(_ result: QueryResult) -> [UInt8] {
    var encoder = RESPEncoder()
    ResultSetReply.write(result, into: &encoder)
    return encoder.bytes
}

@Suite("Verbose result-set reply")
struct ResultSetReplyTests {
    @Test("A CREATE without RETURN replies with statistics only, as FalkorDB does (§5.5)")
    func createStatistics() {
        var statistics = QueryStatistics()
        statistics.labelsAdded = 2
        statistics.nodesCreated = 2
        statistics.propertiesSet = 5
        statistics.relationshipsCreated = 1
        statistics.executionTimeMilliseconds = 0.208440
        let result = QueryResult(hasResultSet: false, statistics: statistics)
        #expect(reply(result) == wire(
            "*1⏎*6⏎$15⏎Labels added: 2⏎$16⏎Nodes created: 2⏎$17⏎Properties set: 5⏎$24⏎Relationships created: 1⏎"
                + "$19⏎Cached execution: 0⏎$52⏎Query internal execution time: 0.208440 milliseconds⏎"))
    }

    @Test("The scalars row matches FalkorDB's verbose bytes (§5.5)")
    func scalarsRow() {
        let row: [ResultValue] = [
            .integer(42), .string("hello"), .double(3.14), .bool(true), .bool(false), .null,
            .list([.integer(1), .string("two"), .double(3.0)]),
            .map([ResultMapEntry(key: "k", value: .integer(1)), ResultMapEntry(key: "s", value: .string("x")),
                  ResultMapEntry(key: "nested", value: .list([.bool(true)]))]),
        ]
        var encoder = RESPEncoder()
        encoder.arrayHeader(row.count)
        for cell in row { ResultSetReply.writeCell(cell, into: &encoder) }
        #expect(encoder.bytes == wire(
            "*8⏎:42⏎$5⏎hello⏎$4⏎3.14⏎$4⏎true⏎$5⏎false⏎$-1⏎$18⏎[1, two, 3.000000]⏎$28⏎{k: 1, s: x, nested: [true]}⏎"))
    }

    @Test("An empty result has a header, no rows and statistics (§5.5)")
    func emptyResult() {
        var statistics = QueryStatistics()
        statistics.executionTimeMilliseconds = 0.089058
        let result = QueryResult(columns: ["n", "name"], rows: [], hasResultSet: true, statistics: statistics)
        #expect(reply(result) == wire(
            "*3⏎*2⏎$1⏎n⏎$4⏎name⏎*0⏎*2⏎$19⏎Cached execution: 0⏎$52⏎Query internal execution time: 0.089058 milliseconds⏎"))
    }

    @Test("A node is [id, labels, properties] pairs (§5.5 verbose node)")
    func node() {
        let node = ResultNode(id: 0, labels: [SchemaName(id: 0, name: "Person")], properties: [
            ResultProperty(key: SchemaName(id: 0, name: "name"), value: .string("Alice")),
            ResultProperty(key: SchemaName(id: 1, name: "age"), value: .integer(30)),
        ])
        var statistics = QueryStatistics()
        statistics.cachedExecution = true
        statistics.executionTimeMilliseconds = 0.033333
        let result = QueryResult(columns: ["n"], rows: [[.node(node)]], hasResultSet: true, statistics: statistics)
        #expect(reply(result) == wire(
            "*3⏎*1⏎$1⏎n⏎*1⏎*1⏎*3⏎*2⏎$2⏎id⏎:0⏎*2⏎$6⏎labels⏎*1⏎$6⏎Person⏎*2⏎$10⏎properties⏎*2⏎*2⏎$4⏎name⏎$5⏎Alice⏎*2⏎$3⏎age⏎:30⏎"
                + "*2⏎$19⏎Cached execution: 1⏎$52⏎Query internal execution time: 0.033333 milliseconds⏎"))
    }

    @Test("A node with no labels or properties has empty arrays")
    func bareNode() {
        var encoder = RESPEncoder()
        ResultSetReply.writeCell(.node(ResultNode(id: 7, labels: [], properties: [])), into: &encoder)
        #expect(encoder.bytes == wire("*3⏎*2⏎$2⏎id⏎:7⏎*2⏎$6⏎labels⏎*0⏎*2⏎$10⏎properties⏎*0⏎"))
    }

    @Test("A relationship is [id, type, src_node, dest_node, properties] pairs")
    func relationship() {
        let relationship = ResultRelationship(id: 0, type: SchemaName(id: 0, name: "KNOWS"), startNodeID: 0, endNodeID: 1,
                                              properties: [ResultProperty(key: SchemaName(id: 2, name: "since"), value: .integer(2020))])
        var encoder = RESPEncoder()
        ResultSetReply.writeCell(.relationship(relationship), into: &encoder)
        #expect(encoder.bytes == wire(
            "*5⏎*2⏎$2⏎id⏎:0⏎*2⏎$4⏎type⏎$5⏎KNOWS⏎*2⏎$8⏎src_node⏎:0⏎*2⏎$9⏎dest_node⏎:1⏎*2⏎$10⏎properties⏎*1⏎*2⏎$5⏎since⏎:2020⏎"))
    }

    @Test("Paths, and nodes and nulls inside lists, are stringified as FalkorDB does")
    func stringified() {
        let a = ResultNode(id: 0, labels: [], properties: [])
        let b = ResultNode(id: 1, labels: [], properties: [])
        let r = ResultRelationship(id: 0, type: SchemaName(id: 0, name: "R"), startNodeID: 0, endNodeID: 1, properties: [])
        #expect(VerboseText.render(.path(ResultPath(nodes: [a, b], relationships: [r]))) == "[(0), [0], (1)]")
        #expect(VerboseText.render(.path(ResultPath(nodes: [a], relationships: []))) == "[(0)]")
        #expect(VerboseText.render(.list([.node(a), .relationship(r), .null, .double(2.5)])) == "[(0), [0], NULL, 2.500000]")
        #expect(VerboseText.render(.list([])) == "[]")
        #expect(VerboseText.render(.map([])) == "{}")
    }

    @Test("Top-level doubles use %.15g")
    func topLevelDoubles() {
        var encoder = RESPEncoder()
        ResultSetReply.writeCell(.double(1.0 / 3.0), into: &encoder)
        ResultSetReply.writeCell(.double(3.0), into: &encoder)
        #expect(encoder.bytes == wire("$17⏎0.333333333333333⏎$1⏎3⏎"))
    }

    @Test("Every statistics counter appears only when non-zero, in FalkorDB's order")
    func statisticsOrder() {
        var s = QueryStatistics()
        s.constraintsDeleted = 12; s.constraintsCreated = 11; s.indicesDeleted = 10; s.indicesCreated = 9
        s.relationshipsDeleted = 8; s.nodesDeleted = 7; s.relationshipsCreated = 6; s.propertiesRemoved = 5
        s.propertiesSet = 4; s.nodesCreated = 3; s.labelsRemoved = 2; s.labelsAdded = 1
        #expect(ResultSetReply.statisticsLines(s).dropLast(2) == [
            "Labels added: 1", "Labels removed: 2", "Nodes created: 3", "Properties set: 4", "Properties removed: 5",
            "Relationships created: 6", "Nodes deleted: 7", "Relationships deleted: 8", "Indices created: 9",
            "Indices deleted: 10", "Constraints created: 11", "Constraints deleted: 12",
        ])
        #expect(ResultSetReply.statisticsLines(QueryStatistics()) == [
            "Cached execution: 0", "Query internal execution time: 0.000000 milliseconds",
        ])
    }

    @Test("Query errors: syntax errors carry their position, others no ERR prefix")
    func queryErrors() {
        let syntax = QueryError(.syntax, "Invalid input 'R': expected a label, '{', a parameter or ')'",
                                location: SourceLocation(line: 1, column: 10, offset: 9), contextLine: "MATCH (n RETURN n")
        #expect(QueryErrorReply.message(for: syntax) ==
            "errMsg: Invalid input 'R': expected a label, '{', a parameter or ')' line: 1, column: 10, offset: 9 errCtx: MATCH (n RETURN n errCtxOffset: 9")
        var encoder = RESPEncoder()
        QueryErrorReply.write(QueryError(.runtime, "Division by zero"), into: &encoder)
        #expect(encoder.bytes == wire("-Division by zero⏎"))
    }
}
