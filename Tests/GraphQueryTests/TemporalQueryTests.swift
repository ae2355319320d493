// TemporalQueryTests.swift — temporal values through the whole engine: constructors, selection,
// field access, comparison and ordering, arithmetic, truncation, storage as properties, the
// CYPHER parameter header, and the errors bad input gets.

import Testing
@testable import GraphQuery
import GraphStore

@Suite("Temporal values in queries")
struct TemporalQueryTests {
    func run(_ query: String, on store: GraphStore = .inMemory()) throws -> [[ResultValue]] {
        try QueryEngine().execute(query, on: store).rows
    }

    /// The single value `RETURN <expression> AS v` gives, as text.
    func value(_ expression: String) throws -> String {
        let rows = try run("RETURN \(expression) AS v")
        switch rows[0][0] {
        case .temporal(let t): return t.description
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .bool(let b): return String(b)
        case .null: return "null"
        default: return "\(rows[0][0])"
        }
    }

    @Test func constructorsTakeMapsStringsEpochsAndOtherValues() throws {
        #expect(try value("date({year: 1984, week: 10, dayOfWeek: 3})") == "1984-03-07")
        #expect(try value("localtime({hour: 12, minute: 31, second: 14, millisecond: 123, microsecond: 456, nanosecond: 789})")
                == "12:31:14.123456789")
        #expect(try value("datetime({year: 1984, month: 10, day: 11, hour: 12, timezone: 'Europe/Stockholm'})")
                == "1984-10-11T12:00+01:00[Europe/Stockholm]")
        #expect(try value("datetime({epochMillis: 1000, timezone: '+01:00'})") == "1970-01-01T01:00:01+01:00")
        #expect(try value("datetime.fromepoch(1, 5)") == "1970-01-01T00:00:01.000000005Z")
        #expect(try value("date(datetime('2015-07-21T21:40:32.142+01:00'))") == "2015-07-21")
        #expect(try value("time({time: time('12:00+01:00'), timezone: '+05:00'})") == "16:00+05:00")
        #expect(try value("datetime({date: date('2015-07-21'), time: localtime('10:00'), timezone: 'Europe/London'})")
                == "2015-07-21T10:00+01:00[Europe/London]")
        #expect(try value("date({date: date('1984-11-11'), quarter: 3})") == "1984-08-11")
        // A time taken from a datetime keeps the offset the datetime had (summer time here).
        #expect(try value("time(datetime('2015-07-21T12:00[Europe/Stockholm]'))") == "12:00+02:00")
        #expect(try value("time.truncate('hour', datetime('2015-07-21T12:30[Europe/Stockholm]'))") == "12:00+02:00")
        #expect(try value("time({time: datetime('2015-07-21T12:00[Europe/Stockholm]'), timezone: '+05:00'})") == "15:00+05:00")
        #expect(try value("duration({weeks: 2.5})") == "P17DT12H")
        #expect(try value("date(null)") == "null")
        #expect(try value("datetime({year: 2015, month: 7, day: 21, hour: 21, minute: 40, second: 32, timezone: '+01:00'}).epochSeconds")
                == "1437511232")
    }

    @Test func theClockIsReadOncePerStatement() throws {
        let rows = try run("UNWIND range(1, 50) AS i RETURN datetime() AS a, datetime.statement() AS b")
        let first = rows[0][0]
        #expect(rows.allSatisfy { $0[0] == first && $0[1] == first })
        guard case .temporal(.dateTime(let now)) = first else { Issue.record("not a datetime"); return }
        #expect(now.offsetSeconds == 0 && now.zoneName == nil)
    }

    @Test func fieldsOfEachType() throws {
        #expect(try value("date('1984-01-01').weekYear") == "1983")
        #expect(try value("datetime('1984-11-11T12:31:14.645876123[Europe/Stockholm]').timezone") == "Europe/Stockholm")
        #expect(try value("time('12:00-02:30').offsetMinutes") == "-150")
        #expect(try value("duration('P1Y4M10DT1H1M1.111111111S').monthsOfYear") == "4")
        #expect(try value("duration('PT-1.5S').seconds") == "-2")
        #expect(throws: QueryError.self) { try run("RETURN date('2015-07-21').hour") }
    }

    @Test func comparisonIsByInstantAndOrderingRanksTypes() throws {
        #expect(try value("datetime('2018-01-01T00:00+01:00') < datetime('2017-12-31T23:30Z')") == "true")
        #expect(try value("datetime('2018-01-01T00:00+01:00') = datetime('2017-12-31T23:00Z')") == "false")
        #expect(try value("time('12:00+01:00') < time('11:30Z')") == "true")
        #expect(try value("date('2018-01-01') < localdatetime('2018-01-02T00:00')") == "null")
        #expect(try value("duration('P1D') < duration('P2D')") == "null")
        let rows = try run("""
            UNWIND [duration('P1D'), 'x', date('2020-01-01'), localtime('10:00'), date('2019-01-01'), 1, datetime('2020-01-01T00:00Z')] AS v
            RETURN v ORDER BY v
            """)
        #expect(rows.map { "\($0[0])" } == [
            "\(ResultValue.temporal(.dateTime(ZonedDateTime(local: LocalDateTime(date: LocalDate(epochDay: 18262), time: LocalTime(nanosecondOfDay: 0)), offsetSeconds: 0, zoneName: nil))))",
            "\(ResultValue.temporal(.date(LocalDate(epochDay: 17897))))",
            "\(ResultValue.temporal(.date(LocalDate(epochDay: 18262))))",
            "\(ResultValue.temporal(.localTime(LocalTime(nanosecondOfDay: 36_000_000_000_000))))",
            "\(ResultValue.temporal(.duration(TemporalDuration(months: 0, days: 1, seconds: 0, nanoseconds: 0))))",
            "\(ResultValue.string("x"))", "\(ResultValue.integer(1))",
        ])
        #expect(try run("UNWIND [date('2020-01-01'), date('2020-01-01')] AS d RETURN DISTINCT d").count == 1)
    }

    @Test func arithmeticWithDurations() throws {
        #expect(try value("date('2020-01-31') + duration('P1M')") == "2020-02-29")
        #expect(try value("duration('P1M') + date('2020-01-31')") == "2020-02-29")
        #expect(try value("datetime('2017-03-25T02:30[Europe/Stockholm]') + duration('P1D')")
                == "2017-03-26T03:30+02:00[Europe/Stockholm]")
        #expect(try value("datetime('2017-03-26T01:30[Europe/Stockholm]') + duration('PT1H')")
                == "2017-03-26T03:30+02:00[Europe/Stockholm]")
        #expect(try value("duration('P1DT1H') * 2") == "P2DT2H")
        #expect(try value("'on ' + date('2020-01-31')") == "on 2020-01-31")
        #expect(try value("duration('P1D') / 2") == "PT12H")
        #expect(try value("duration.between(date('2015-01-31'), date('2016-03-01'))") == "P1Y1M1D")
        #expect(try value("duration.inSeconds(datetime('2017-10-29T00:00[Europe/Stockholm]'), datetime('2017-10-30T00:00[Europe/Stockholm]'))")
                == "PT25H")
        #expect(throws: QueryError.self) { try run("RETURN date('2020-01-01') + 1") }
        #expect(throws: QueryError.self) { try run("RETURN date('2020-01-01') + date('2020-01-01')") }
        #expect(throws: QueryError.self) { try run("RETURN duration('P1D') / 0") }
    }

    @Test func aggregatesTakeTemporalValues() throws {
        let rows = try run("""
            UNWIND [duration('PT1H'), duration('PT30M'), null, duration('P1D')] AS d
            WITH sum(d) AS total, avg(d) AS mean, min(d) AS shortest
            UNWIND [date('2020-05-01'), date('2019-12-31')] AS day
            RETURN total, mean, shortest, min(day) AS first, max(day) AS last
            """)
        #expect(rows.count == 1)
        #expect(rows[0].map { "\($0)" } == [
            ResultValue.temporal(.duration(TemporalDuration(months: 0, days: 1, seconds: 5400, nanoseconds: 0))),
            .temporal(.duration(TemporalDuration(months: 0, days: 0, seconds: 30600, nanoseconds: 0))),
            .temporal(.duration(TemporalDuration(months: 0, days: 0, seconds: 1800, nanoseconds: 0))),
            .temporal(.date(try TemporalParser.parseDate("2019-12-31"))),
            .temporal(.date(try TemporalParser.parseDate("2020-05-01"))),
        ].map { "\($0)" })
        #expect(throws: QueryError.self) { try run("UNWIND [duration('PT1H'), 1] AS d RETURN sum(d)") }
        #expect(throws: QueryError.self) { try run("UNWIND [1, duration('PT1H')] AS d RETURN sum(d)") }
    }

    @Test func truncationKeepsTheWallClockAndAppliesFields() throws {
        #expect(try value("date.truncate('weekYear', date('1984-02-01'), {day: 5})") == "1984-01-05")
        #expect(try value("datetime.truncate('hour', datetime('1984-10-11T12:31:14.645-01:00'), {timezone: 'Europe/Stockholm'})")
                == "1984-10-11T12:00+01:00[Europe/Stockholm]")
        #expect(try value("localtime.truncate('millisecond', localtime('12:31:14.645876123'))") == "12:31:14.645")
        #expect(throws: QueryError.self) { try run("RETURN date.truncate('hour', date('1984-10-11'))") }
    }

    @Test func temporalPropertiesAreStoredAndMatched() throws {
        let store = GraphStore.inMemory()
        _ = try run("CREATE (:E {at: datetime('2015-07-21T21:40:32.142+01:00'), on: [date('2015-07-21')], d: duration('PT1S')})", on: store)
        let rows = try run("MATCH (e:E {on: [date('2015-07-21')]}) WHERE e.at > datetime('2015-01-01T00:00Z') RETURN e.at.hour, e.d", on: store)
        #expect(rows == [[.integer(21), .temporal(.duration(TemporalDuration(months: 0, days: 0, seconds: 1, nanoseconds: 0)))]])
    }

    @Test func theParameterHeaderTakesTemporalConstructors() throws {
        let rows = try QueryEngine().execute("CYPHER d=date('2024-01-02') p=duration({days: 1}) RETURN $d + $p AS v", on: .inMemory()).rows
        #expect(rows == [[.temporal(.date(try TemporalParser.parseDate("2024-01-03")))]])
        #expect(throws: QueryError.self) { try QueryEngine().execute("CYPHER d=date('2024-13-02') RETURN $d", on: .inMemory()) }
    }

    /// Every constructor, field and operator over extreme numbers and odd text answers or
    /// refuses; none traps (a trap would take the server down).
    @Test func hostileInputNeverTraps() throws {
        let numbers = ["9223372036854775807", "-9223372036854775808", "-1", "0", "1e300", "-1e300", "0.0/0.0", "2.5", "1000000000"]
        let fields = ["year", "month", "day", "week", "dayOfWeek", "weekYear", "quarter", "dayOfQuarter", "ordinalDay", "hour",
                      "minute", "second", "millisecond", "microsecond", "nanosecond", "epochSeconds", "epochMillis"]
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        var answered = 0
        for function in ["date", "localtime", "time", "localdatetime", "datetime"] {
            for field in fields {
                for n in numbers {
                    for extra in ["", ", year: 2000", ", year: 2000, month: 2"] {
                        if (try? engine.execute("RETURN \(function)({\(field): \(n)\(extra)}) AS v", on: store)) != nil { answered += 1 }
                    }
                }
            }
        }
        let units = ["years", "quarters", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"]
        for unit in units {
            for n in numbers {
                for other in ["date('2000-01-01')", "localtime('12:00')", "datetime('+999999999-12-31T23:59Z')", "duration('PT-1S')"] {
                    for query in ["RETURN \(other) + duration({\(unit): \(n)})", "RETURN \(other) - duration({\(unit): \(n)})",
                                  "RETURN duration({\(unit): \(n)}) * \(n)", "RETURN duration({\(unit): \(n)}) / \(n)",
                                  "RETURN duration.between(\(other), datetime({epochSeconds: 0}) + duration({\(unit): \(n)}))"] {
                        if (try? engine.execute(query, on: store)) != nil { answered += 1 }
                    }
                }
            }
        }
        for text in ["", "T", "P", "PT", "-", "+", "W", "2015-W00", "2015-W54", "99999999999-01-01", "2015-07-21T", "T12:00",
                     "12:00[", "12:00[]", "12:00[/]", "2015-07-21T12:00+99:99", "P-9223372036854775808Y", "P99999999999999999999D",
                     "PT0.0000000001S", "P1.5.5D", "2015-07-21T12:00:00.0000000001", "\u{0}", "２０１５-07-21"] {
            for function in ["date", "localtime", "time", "localdatetime", "datetime", "duration"] {
                if (try? engine.execute("RETURN \(function)($t)", on: store, parameters: ["t": .string(text)])) != nil { answered += 1 }
            }
        }
        for n in numbers {
            for query in ["RETURN datetime.fromEpoch(\(n), \(n))", "RETURN datetime.fromEpochMillis(\(n))",
                          "RETURN localtime('12:00') + duration({seconds: \(n)})", "RETURN time('12:00+18:00') - duration({seconds: \(n)})",
                          "RETURN datetime({epochSeconds: \(n), timezone: 'Europe/Stockholm'}).epochMillis"] {
                if (try? engine.execute(query, on: store)) != nil { answered += 1 }
            }
        }
        let extremes = ["date('-999999999-01-01')", "date('+999999999-12-31')", "localtime('23:59:59.999999999')",
                        "time('00:00-18:00')", "datetime('+999999999-12-31T23:59:59.999999999[Europe/Stockholm]')",
                        "localdatetime('-999999999-01-01T00:00')", "datetime('-999999999-01-01T00:00[America/New_York]')"]
        for a in extremes {
            for b in extremes {
                for function in ["between", "inMonths", "inDays", "inSeconds"] {
                    if (try? engine.execute("RETURN duration.\(function)(\(a), \(b))", on: store)) != nil { answered += 1 }
                }
                _ = try? engine.execute("RETURN \(a) < \(b), \(a) = \(b)", on: store)
            }
            for unit in ["millennium", "century", "decade", "year", "weekYear", "quarter", "month", "week", "day", "hour", "second"] {
                for function in ["date", "localtime", "time", "localdatetime", "datetime"] {
                    _ = try? engine.execute("RETURN \(function).truncate('\(unit)', \(a), {day: 31, timezone: '-18:00'})", on: store)
                }
            }
            for field in fields + ["timezone", "offset", "offsetSeconds", "weekDay"] {
                _ = try? engine.execute("RETURN \(a).\(field)", on: store)
            }
        }
        #expect(answered > 0)
    }

    @Test func badInputIsARuntimeErrorThatSaysWhy() throws {
        for query in ["RETURN date('2015-02-30')", "RETURN datetime({year: 2015, timezone: 'Mars/Olympus'})",
                      "RETURN duration('P1Q')", "RETURN localtime({hour: 24})", "RETURN date({month: 1})",
                      "RETURN date.truncate('fortnight', date('2015-01-01'))", "RETURN date(42)",
                      "RETURN date({year: 2015, mnth: 1})", "RETURN date('2015-01-01') + duration({months: 9223372036854775807})",
                      "RETURN datetime('+999999999-12-31T23:59Z') + duration('PT1M')", "RETURN duration({days: 9223372036854775807, weeks: 1})",
                      "RETURN datetime({epochSeconds: 9223372036854775807})", "RETURN datetime({epochMillis: 0, millisecond: 9223372036854775807})",
                      "RETURN datetime('+999999999-12-31T23:59Z').epochMillis", "RETURN datetime({year: 2015, timezone: '../../etc/passwd'})",
                      "RETURN duration({seconds: 1e300})", "RETURN duration('PT1S') - duration({seconds: -9223372036854775808})",
                      "RETURN duration({seconds: 9223372036854775807, nanoseconds: 999999999}) + duration({nanoseconds: 1})", "RETURN duration('P1D') * 1e300"] {
            #expect(throws: QueryError.self, "\(query)") { try run(query) }
        }
    }
}
