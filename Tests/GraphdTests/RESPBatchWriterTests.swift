// RESPBatchWriterTests.swift — values written through a batch are the bytes RESPEncoder writes
// one at a time, and result sets written in batches (verbose and compact, scalar rows mixed
// with other rows, more rows than one batch holds) are byte for byte the value-by-value replies.

import GraphQuery
import GraphTestSupport
import Testing
@testable import graphd

/// The bytes `body` writes through one batch of `bound` bytes.
private func batch(_ version: ProtocolVersion = .resp2, bound: Int, _ body: (inout RESPBatchWriter) -> Void) -> [UInt8] {
    var encoder = RESPEncoder(protocolVersion: version)
    encoder.simpleString("before")
    let before = encoder.bytes.count
    encoder.writeBatch(bound: bound, body)
    encoder.simpleString("after")
    #expect(Array(encoder.bytes.prefix(before)) == Array("+before\r\n".utf8))
    #expect(Array(encoder.bytes.suffix(8)) == Array("+after\r\n".utf8))
    return Array(encoder.bytes.dropFirst(before).dropLast(8))
}

/// Whether two replies are the same bytes; when not, records where they first differ (an
/// `#expect` on two long arrays would print both whole).
private func expectSame(_ written: [UInt8], _ expected: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    guard written != expected else { return }
    var at = 0
    while at < written.count && at < expected.count && written[at] == expected[at] { at += 1 }
    func context(_ bytes: [UInt8]) -> String {
        String(decoding: bytes[max(0, at - 40)..<min(bytes.count, at + 40)], as: UTF8.self).debugDescription
    }
    let message = "replies differ at byte \(at) of \(written.count) (expected \(expected.count)): "
        + "\(context(written)) against \(context(expected))"
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

/// The value-by-value replies the batched writers must equal.
private enum Reference {
    static func verbose(_ result: QueryResult, _ version: ProtocolVersion) -> [UInt8] {
        reply(result, version, column: { $1.bulkString($0) }, cell: { ResultSetReply.writeCell($0, into: &$1) })
    }

    static func compact(_ result: QueryResult, _ version: ProtocolVersion) -> [UInt8] {
        reply(result, version, column: { name, encoder in
            encoder.arrayHeader(2)
            encoder.integer(CompactResultSetReply.scalarColumn)
            encoder.bulkString(name)
        }, cell: { CompactResultSetReply.writeValue($0, into: &$1) })
    }

    /// `[header, rows, statistics]`, every value written on its own.
    private static func reply(_ result: QueryResult, _ version: ProtocolVersion, column: (String, inout RESPEncoder) -> Void,
                              cell: (ResultValue, inout RESPEncoder) -> Void) -> [UInt8] {
        var encoder = RESPEncoder(protocolVersion: version)
        encoder.arrayHeader(3)
        encoder.arrayHeader(result.columns.count)
        for name in result.columns { column(name, &encoder) }
        encoder.arrayHeader(result.rowCount)
        for i in 0..<result.rowCount {
            encoder.arrayHeader(result.row(i).count)
            for value in result.row(i) { cell(value, &encoder) }
        }
        ResultSetReply.writeStatistics(result.statistics, into: &encoder)
        return encoder.bytes
    }
}

@Suite("RESP batch writer")
struct RESPBatchWriterTests {
    static let integers: [Int64] = [0, 1, 9, 10, 99, 100, 60074, -1, -9, -10, -100, 1_000_000_007,
                                    Int64.max, Int64.max - 1, Int64.min, Int64.min + 1]

    @Test("Integers and array headers are RESPEncoder's bytes, from 0 to Int64.min and max")
    func integers() {
        var expected = RESPEncoder()
        for n in Self.integers { expected.integer(n) }
        for n in [0, 1, 3, 12, 372, 4063] { expected.arrayHeader(n) }
        let written = batch(bound: (Self.integers.count + 6) * RESPBatchWriter.headerBound) { writer in
            for n in Self.integers { writer.integer(n) }
            for n in [0, 1, 3, 12, 372, 4063] { writer.arrayHeader(n) }
        }
        expectSame(written, expected.bytes)
    }

    @Test("Every integer of a seeded sample is RESPEncoder's bytes")
    func sampledIntegers() {
        var random = SeededGenerator(seed: 6)
        let values = (0..<2000).map { i -> Int64 in
            let digits = Int64.random(in: 0...18, using: &random)
            var bound: Int64 = 1
            for _ in 0..<digits { bound *= 10 }
            let n = Int64.random(in: 0..<bound, using: &random)
            return i % 2 == 0 ? n : -n
        }
        var expected = RESPEncoder()
        for n in values { expected.integer(n) }
        let written = batch(bound: values.count * RESPBatchWriter.headerBound) { writer in
            for n in values { writer.integer(n) }
        }
        expectSame(written, expected.bytes)
    }

    @Test("Bulk strings and nulls are RESPEncoder's bytes, in both dialects", arguments: [ProtocolVersion.resp2, .resp3])
    func stringsAndNulls(version: ProtocolVersion) {
        let texts = ["", "a", "hello", "naïve café ☕︎", String(repeating: "x", count: 70_000)]
        var expected = RESPEncoder(protocolVersion: version)
        for text in texts {
            expected.bulkString(text)
            expected.null()
        }
        let bound = texts.map(RESPBatchWriter.bulkStringBound).reduce(0, +) + texts.count * RESPBatchWriter.nullBound
        let written = batch(version, bound: bound) { writer in
            for text in texts {
                writer.bulkString(text)
                writer.null()
            }
        }
        expectSame(written, expected.bytes)
    }

    @Test("Result sets written in batches equal the value-by-value replies, verbose and compact",
          arguments: [ProtocolVersion.resp2, .resp3])
    func resultSets(version: ProtocolVersion) {
        let node = ResultValue.node(ResultNode(id: 7, labels: [], properties: []))
        // Rows of scalars only, rows with a double, a list or a node among them, and enough
        // rows (with a long string now and then) that the scalar runs span several batches.
        var rows: [[ResultValue]] = []
        for i in 0..<12_000 {
            switch i % 1000 {
            case 17: rows.append([.integer(Int64(i)), .double(0.5), .null])
            case 400: rows.append([.list([.integer(1)]), .string("x"), .bool(true)])
            case 401, 402: rows.append([node, .integer(-Int64(i)), .string("")])
            case 900: rows.append([.string(String(repeating: "é", count: 40_000)), .bool(false), .null])
            default: rows.append([.integer(Int64(i) * 1_000_003), .string("user \(i)"), i % 3 == 0 ? .null : .bool(i % 2 == 0)])
            }
        }
        rows.append([])  // a row with no cells
        var statistics = QueryStatistics()
        statistics.executionTimeMilliseconds = 0.25
        let result = QueryResult(columns: ["id", "name", "flag"], rows: rows, hasResultSet: true, statistics: statistics)

        var verbose = RESPEncoder(protocolVersion: version)
        ResultSetReply.write(result, into: &verbose)
        expectSame(verbose.bytes, Reference.verbose(result, version))

        var compact = RESPEncoder(protocolVersion: version)
        CompactResultSetReply.write(result, into: &compact)
        expectSame(compact.bytes, Reference.compact(result, version))
    }
}
