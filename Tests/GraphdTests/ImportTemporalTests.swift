// ImportTemporalTests.swift — typed temporal import columns (`on:date`, `at:datetime`, lists of
// them, durations) become temporal property values; a malformed one stops the import.

import Foundation
import GraphQuery
import GraphStore
import GraphTestSupport
import SocialData
import Testing

@Suite("Import of temporal columns")
struct ImportTemporalTests {
    func write(_ path: String, _ text: String) throws { try writeFileBytes(path, Array(text.utf8)) }

    @Test("Temporal columns (:date, :datetime, …) hold temporal values that queries read")
    func temporalColumns() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/events.csv", "id:ID,on:date,at:datetime,days:date[],length:duration\n"
                      + "1,2024-01-02,2024-01-02T03:04:05[Europe/Stockholm],2024-01-01;2024-01-31,PT1H30M\n"
                      + "2,2024-02-29,2024-02-29T10:00,,\n")
            try write(dir + "/next.csv", ":START_ID,:END_ID,since:localdatetime\n1,2,2023-12-24T18:00\n")
            var plan = ImportPlan()
            plan.nodeFiles = [.init(name: "Event", path: dir + "/events.csv")]
            plan.relationshipFiles = [.init(name: "NEXT", path: dir + "/next.csv")]
            let store = GraphStore.inMemory()
            _ = try store.write { graph in try ImportRunner(plan: plan).run(into: &graph) }
            let result = try QueryEngine().execute(
                "MATCH (a:Event)-[r:NEXT]->(b:Event) RETURN toString(a.on), toString(a.at), a.at.offset, "
                    + "[d IN a.days | d.day], toString(a.length), toString(b.at), toString(r.since), b.on > a.on", on: store)
            #expect(result.rows == [[.string("2024-01-02"), .string("2024-01-02T03:04:05+01:00[Europe/Stockholm]"), .string("+01:00"),
                                     .list([.integer(1), .integer(31)]), .string("PT1H30M"), .string("2024-02-29T10:00Z"),
                                     .string("2023-12-24T18:00"), .bool(true)]])
        }
    }

    @Test("A malformed temporal field stops the import with its column and line")
    func malformed() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/bad.csv", "id:ID,on:date\n1,2024-02-30\n")
            var plan = ImportPlan()
            plan.nodeFiles = [.init(name: "Event", path: dir + "/bad.csv")]
            let error = #expect(throws: ImportError.self) {
                _ = try GraphStore.inMemory().write { graph in try ImportRunner(plan: plan).run(into: &graph) }
            }
            #expect(error?.line == 2)
            #expect(error?.reason.contains("column 'on': '2024-02-30' is not a date") == true)
        }
    }
}
