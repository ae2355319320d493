// TemporalValueTests.swift — the temporal value library: calendar arithmetic, ISO 8601 parsing
// and the text Neo4j writes, time zones (gaps and overlaps), duration building and arithmetic,
// and duration.between.

import Testing
@testable import GraphStore

@Suite struct TemporalValueTests {
    func date(_ text: String) throws -> LocalDate { try TemporalParser.parseDate(text) }
    func text(_ t: TemporalValue) -> String { t.description }

    @Test func dayNumbersRoundTripAcrossTheWholeRange() {
        for day in stride(from: -365_243_219_162 as Int64, through: 365_241_780_471, by: 7_919_993) {
            let (y, m, d) = CivilCalendar.civil(day)
            #expect(CivilCalendar.epochDay(year: y, month: m, day: d) == day)
        }
        #expect(CivilCalendar.epochDay(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.civil(-1) == (1969, 12, 31))
        #expect(CivilCalendar.dayOfWeek(0) == 4)  // a Thursday
    }

    @Test func isoWeeksFollowTheFourthOfJanuary() throws {
        #expect(CivilCalendar.isoWeek(try date("1984-01-01").epochDay) == (1983, 52))
        #expect(CivilCalendar.isoWeek(try date("1984-10-11").epochDay) == (1984, 41))
        #expect(CivilCalendar.isoWeek(try date("2020-12-31").epochDay) == (2020, 53))
        #expect(text(.date(try TemporalParser.weekDate(year: 1818, week: 1, dayOfWeek: 1))) == "1817-12-29")
        #expect(throws: TemporalError.self) { try TemporalParser.weekDate(year: 2019, week: 53, dayOfWeek: 1) }
    }

    @Test func datesParseInEveryFormAndPrintAsJavaTimeDoes() throws {
        let forms = ["2015-07-21": "2015-07-21", "20150721": "2015-07-21", "2015-07": "2015-07-01", "201507": "2015-07-01",
                     "2015-W30-2": "2015-07-21", "2015W302": "2015-07-21", "2015-W30": "2015-07-20", "2015-202": "2015-07-21",
                     "2015202": "2015-07-21", "2015": "2015-01-01", "+999999999-12-31": "+999999999-12-31",
                     "-0028-01-01": "-0028-01-01", "0028-11-11": "0028-11-11", "+12345-01-01": "+12345-01-01"]
        for (input, output) in forms { #expect(text(.date(try date(input))) == output, "\(input)") }
        for bad in ["2015-13-01", "2015-02-29", "2015-7-1", "15-07-21", "2015-07-21x", ""] {
            #expect(throws: TemporalError.self, "\(bad)") { try date(bad) }
        }
    }

    @Test func timesPrintSecondsOnlyWhenSetAndFractionsInGroupsOfThree() throws {
        let cases = ["21:40:32.142": "21:40:32.142", "214032.142": "21:40:32.142", "21": "21:00", "2140": "21:40",
                     "12:31:14.645876": "12:31:14.645876", "12:31:14.000000002": "12:31:14.000000002",
                     "12:34:54.3": "12:34:54.300", "00:00:00": "00:00"]
        for (input, output) in cases {
            #expect(text(.localTime(try TemporalParser.parseTime(input).time)) == output, "\(input)")
        }
        let zoned = try TemporalParser.parseTime("2140-02")
        #expect(zoned.offset == -7200)
        #expect(TimeZoneRules.format(offset: try #require(TimeZoneRules.parseOffset("+02:05:59"))) == "+02:05:59")
        #expect(TimeZoneRules.format(offset: try #require(TimeZoneRules.parseOffset("-00:00"))) == "Z")
        #expect(TimeZoneRules.parseOffset("+19:00") == nil)
        #expect(throws: TemporalError.self) { try TemporalParser.parseTime("24:00") }
    }

    @Test func namedZonesFollowTheirHistoryAndResolveGapsAndOverlapsAsJavaTime() throws {
        func dt(_ s: String) throws -> String {
            text(.dateTime(try TemporalParser.parseDateTime(s) { () throws(TemporalError) in (0, nil) }))
        }
        #expect(try dt("2015-07-21T21:40:32.142[Europe/London]") == "2015-07-21T21:40:32.142+01:00[Europe/London]")
        #expect(try dt("2015-01-21T21:40[Europe/London]") == "2015-01-21T21:40Z[Europe/London]")
        // 02:30 does not exist on 2017-03-26 in Stockholm: it moves an hour later.
        #expect(try dt("2017-03-26T02:30[Europe/Stockholm]") == "2017-03-26T03:30+02:00[Europe/Stockholm]")
        // 02:30 happens twice on 2017-10-29: the earlier (summer) offset is taken.
        #expect(try dt("2017-10-29T02:30[Europe/Stockholm]") == "2017-10-29T02:30+02:00[Europe/Stockholm]")
        #expect(try dt("2015-07-21T21:40:32.142-04") == "2015-07-21T21:40:32.142-04:00")
        #expect(try dt("2015-07-21T21:40") == "2015-07-21T21:40Z")
        #expect(throws: TemporalError.self) { try dt("2015-07-21T21:40[Mars/Olympus]") }
    }

    @Test func durationsCascadeFractionsAndPrintAsNeo4j() throws {
        let cases = ["P14DT16H12M": "P14DT16H12M", "P5M1.5D": "P5M1DT12H", "P0.75M": "P22DT19H51M49.5S",
                     "PT0.75M": "PT45S", "P2.5W": "P17DT12H", "P12Y5M14DT16H12M70S": "P12Y5M14DT16H13M10S",
                     "P2012-02-02T14:37:21.545": "P2012Y2M2DT14H37M21.545S", "PT-1.5S": "PT-1.5S", "PT0S": "PT0S",
                     "-P1D": "P-1D"]
        for (input, output) in cases { #expect(text(.duration(try TemporalParser.parseDuration(input))) == output, "\(input)") }
        for bad in ["P", "PT", "P1H", "PT1D", "1D", "P1D1Y"] {
            #expect(throws: TemporalError.self, "\(bad)") { try TemporalParser.parseDuration(bad) }
        }
        var b = DurationBuilder()
        b.add(DurationAmount(whole: -60), unit: .seconds)
        b.add(DurationAmount(whole: -1), unit: .milliseconds)
        #expect(text(.duration(try b.build())) == "PT-1M-0.001S")
    }

    @Test func addingDurationsClampsMonthEndsAndIgnoresUnitsTheTypeLacks() throws {
        let month = TemporalDuration(months: 1, days: 0, seconds: 0, nanoseconds: 0)
        #expect(text(try TemporalValue.date(try date("2020-01-31")).adding(month)) == "2020-02-29")
        let dayAndAHalf = TemporalDuration(months: 0, days: 0, seconds: 36 * 3600, nanoseconds: 0)
        #expect(text(try TemporalValue.date(try date("2020-01-31")).adding(dayAndAHalf)) == "2020-02-01")
        let noon = TemporalValue.localTime(LocalTime(nanosecondOfDay: 12 * 3_600_000_000_000))
        #expect(text(try noon.adding(dayAndAHalf)) == "00:00")
        #expect(text(try noon.adding(month)) == "12:00")
        #expect(try TemporalDuration(months: 1, days: 2, seconds: 3, nanoseconds: 4).times(2.0)
                == TemporalDuration(months: 2, days: 4, seconds: 6, nanoseconds: 8))
    }

    @Test func durationBetweenCountsMonthsThenDaysThenSeconds() throws {
        func between(_ a: String, _ b: String, _ unit: DurationBetween.Unit? = nil) throws -> String {
            let x = TemporalValue.localDateTime(LocalDateTime(date: try date(String(a.prefix(10))),
                                                              time: try TemporalParser.parseTime(String(a.dropFirst(11))).time))
            let y = TemporalValue.localDateTime(LocalDateTime(date: try date(String(b.prefix(10))),
                                                              time: try TemporalParser.parseTime(String(b.dropFirst(11))).time))
            return text(.duration(try DurationBetween.between(x, y, unit: unit)))
        }
        #expect(try between("2018-01-01T10:00:00.2", "2018-01-02T10:00:00.1") == "PT23H59M59.9S")
        #expect(try between("2018-01-02T10:00:00.1", "2018-01-01T10:00:00.2") == "PT-23H-59M-59.9S")
        #expect(try between("2015-01-31T00:00", "2016-03-01T12:00") == "P1Y1M1DT12H")
        #expect(try between("2015-01-31T00:00", "2016-03-01T12:00", .days) == "P395D")
        #expect(try between("2015-01-31T00:00", "2015-01-30T12:00", .seconds) == "PT-12H")
        let large = try DurationBetween.between(.date(try date("-999999999-01-01")), .date(try date("+999999999-12-31")), unit: nil)
        #expect(text(.duration(large)) == "P1999999998Y11M30D")
    }
}
