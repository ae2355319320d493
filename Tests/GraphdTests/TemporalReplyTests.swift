// TemporalReplyTests.swift — temporal values in both reply formats, byte for byte as FalkorDB 4.22
// sent them in the protocol captures (cases 43 and 43b): ISO text in the verbose reply, a type
// number and an integer of seconds in the compact one.

import GraphQuery
import GraphStore
import Testing
@testable import graphd

@Suite("Temporal values in replies")
struct TemporalReplyTests {
    static func result(_ milliseconds: Double) throws -> QueryResult {
        var statistics = QueryStatistics()
        statistics.executionTimeMilliseconds = milliseconds
        let values: [TemporalValue] = [
            .localDateTime(LocalDateTime(date: try TemporalParser.parseDate("2024-01-02"),
                                         time: try TemporalParser.parseTime("03:04:05").time)),
            .localTime(try TemporalParser.parseTime("03:04:05").time),
            .duration(try TemporalParser.parseDuration("P1DT2H")),
            .date(try TemporalParser.parseDate("2024-01-02")),
        ]
        return QueryResult(columns: ["dt", "t", "du", "d"], rows: [values.map(ResultValue.temporal)], hasResultSet: true,
                           statistics: statistics)
    }

    static func text(_ body: (inout RESPEncoder) -> Void) -> String {
        var encoder = RESPEncoder(protocolVersion: .resp2)
        body(&encoder)
        return String(decoding: encoder.bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "⏎")
    }

    @Test("verbose: each temporal value is its ISO 8601 text (capture 43)")
    func verbose() throws {
        let reply = Self.text { ResultSetReply.write(try! Self.result(0.268714), into: &$0) }
        #expect(reply == "*3⏎*4⏎$2⏎dt⏎$1⏎t⏎$2⏎du⏎$1⏎d⏎*1⏎*4⏎$19⏎2024-01-02T03:04:05⏎$8⏎03:04:05⏎$6⏎P1DT2H⏎$10⏎2024-01-02⏎"
                + "*2⏎$19⏎Cached execution: 0⏎$52⏎Query internal execution time: 0.268714 milliseconds⏎")
    }

    @Test("compact: [13|14|15|16, seconds] (capture 43b, and 33 for the date)")
    func compact() throws {
        let reply = Self.text { CompactResultSetReply.write(try! Self.result(0.131877), into: &$0) }
        #expect(reply == "*3⏎*4⏎*2⏎:1⏎$2⏎dt⏎*2⏎:1⏎$1⏎t⏎*2⏎:1⏎$2⏎du⏎*2⏎:1⏎$1⏎d⏎"
                + "*1⏎*4⏎*2⏎:13⏎:1704164645⏎*2⏎:15⏎:-2208977755⏎*2⏎:16⏎:93600⏎*2⏎:14⏎:1704153600⏎"
                + "*2⏎$19⏎Cached execution: 0⏎$52⏎Query internal execution time: 0.131877 milliseconds⏎")
    }

    @Test("the REPL reads compact temporal values back as the seconds they carry")
    func decodeCompact() throws {
        for value in try Self.result(0).rows[0] {
            guard case .temporal(let t) = value else { continue }
            let decoded = try #require(CompactTemporal.decode(type: CompactTemporal.valueType(of: t).rawValue,
                                                              seconds: CompactTemporal.seconds(of: t)))
            #expect(CompactTemporal.seconds(of: decoded) == CompactTemporal.seconds(of: t))
        }
        #expect(CompactTemporal.decode(type: 14, seconds: 1_704_153_600)?.description == "2024-01-02")
        #expect(CompactTemporal.decode(type: 15, seconds: -2_208_977_755)?.description == "03:04:05")
        #expect(CompactTemporal.decode(type: 13, seconds: 1_704_164_645)?.description == "2024-01-02T03:04:05Z")
    }

    @Test("the REPL shows a temporal value as its text, in a table and in JSON")
    func repl() throws {
        let value = ResultValue.list([.temporal(.duration(try TemporalParser.parseDuration("PT-1.5S"))), .string("x")])
        #expect(ValueText.readable(value) == "[PT-1.5S, \"x\"]")
        #expect(ValueText.json(value) == "[\"PT-1.5S\",\"x\"]")
    }

    @Test("inside a list the verbose text is the ISO text too")
    func nested() {
        #expect(VerboseText.render(.list([.temporal(.date(LocalDate(epochDay: 0))), .integer(1)])) == "[1970-01-01, 1]")
    }
}
