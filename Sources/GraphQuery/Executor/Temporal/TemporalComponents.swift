// TemporalComponents.swift — `value.year`, `value.offset`, `duration.minutesOfHour` and the other
// fields a temporal value exposes, named as in Neo4j. A field the type does not have is an error,
// as it is for reading a property of a number.

import GraphStore

/// Field access on temporal values.
enum TemporalComponents {
    /// The field `key` of `t`.
    static func component(_ key: String, of t: TemporalValue) throws(QueryError) -> RuntimeValue {
        let name = key.lowercased()
        if case .duration(let d) = t {
            guard let v = durationComponent(name, d) else { throw unsupported(key, t) }
            return v
        }
        var date: LocalDate? = nil, time: LocalTime? = nil
        var offset: Int32? = nil, zoneName: String? = nil
        var instant: (seconds: Int64, nanos: Int64)? = nil
        switch t {
        case .date(let d): date = d
        case .localTime(let lt): time = lt
        case .time(let ot): time = ot.time; offset = ot.offsetSeconds
        case .localDateTime(let dt): date = dt.date; time = dt.time
        case .dateTime(let z):
            date = z.local.date; time = z.local.time; offset = z.offsetSeconds; zoneName = z.zoneName
            instant = z.epochSecondAndNano
        case .duration: break
        }
        if let date {
            let day = date.epochDay
            switch name {
            case "year": return .integer(CivilCalendar.civil(day).year)
            case "month": return .integer(CivilCalendar.civil(day).month)
            case "day": return .integer(CivilCalendar.civil(day).day)
            case "quarter": return .integer(CivilCalendar.quarter(day).quarter)
            case "dayofquarter": return .integer(CivilCalendar.quarter(day).dayOfQuarter)
            case "week": return .integer(CivilCalendar.isoWeek(day).week)
            case "weekyear": return .integer(CivilCalendar.isoWeek(day).weekYear)
            case "ordinalday": return .integer(CivilCalendar.ordinalDay(day))
            case "weekday", "dayofweek": return .integer(CivilCalendar.dayOfWeek(day))
            default: break
            }
        }
        if let time {
            switch name {
            case "hour": return .integer(time.hour)
            case "minute": return .integer(time.minute)
            case "second": return .integer(time.second)
            case "millisecond": return .integer(time.nanosecond / 1_000_000)
            case "microsecond": return .integer(time.nanosecond / 1000)
            case "nanosecond": return .integer(time.nanosecond)
            default: break
            }
        }
        if let offset {
            switch name {
            case "timezone": return .string(zoneName ?? TimeZoneRules.format(offset: offset))
            case "offset": return .string(TimeZoneRules.format(offset: offset))
            case "offsetminutes": return .integer(Int64(offset / 60))
            case "offsetseconds": return .integer(Int64(offset))
            default: break
            }
        }
        if let instant {
            switch name {
            case "epochseconds": return .integer(instant.seconds)
            case "epochmillis":
                let (ms, overflow) = instant.seconds.multipliedReportingOverflow(by: 1000)
                guard !overflow else { throw QueryError(.runtime, "epochMillis of \(t) does not fit in 64 bits") }
                return .integer(ms + instant.nanos / 1_000_000)
            default: break
            }
        }
        throw unsupported(key, t)
    }

    static func unsupported(_ key: String, _ t: TemporalValue) -> QueryError {
        QueryError(.runtime, "A \(t.typeName) has no field '\(key)'")
    }

    /// A duration's totals (`months`, `seconds`) and its parts within the next unit (`monthsOfYear`).
    static func durationComponent(_ name: String, _ d: TemporalDuration) -> RuntimeValue? {
        // As Neo4j: the seconds rounded down and a non-negative nanosecond part (-1.5 s is -2 s
        // and 500,000,000 ns).
        let s = d.seconds, n = d.nanoseconds
        switch name {
        case "years": return .integer(d.months / 12)
        case "quarters": return .integer(d.months / 3)
        case "months": return .integer(d.months)
        case "weeks": return .integer(d.days / 7)
        case "days": return .integer(d.days)
        case "hours": return .integer(s / 3600)
        case "minutes": return .integer(s / 60)
        case "seconds": return .integer(s)
        case "milliseconds": return .integer(s &* 1000 &+ n / 1_000_000)
        case "microseconds": return .integer(s &* 1_000_000 &+ n / 1000)
        case "nanoseconds": return .integer(s &* 1_000_000_000 &+ n)
        case "quartersofyear": return .integer(d.months % 12 / 3)
        case "monthsofquarter": return .integer(d.months % 3)
        case "monthsofyear": return .integer(d.months % 12)
        case "daysofweek": return .integer(d.days % 7)
        case "minutesofhour": return .integer(s / 60 % 60)
        case "secondsofminute": return .integer(s % 60)
        case "millisecondsofsecond": return .integer(n / 1_000_000)
        case "microsecondsofsecond": return .integer(n / 1000)
        case "nanosecondsofsecond": return .integer(n)
        default: return nil
        }
    }
}
