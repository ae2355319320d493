// TemporalArithmetic.swift — adding a duration to a temporal value and the duration between two
// temporal values, as Neo4j does it on java.time: months first (the day clamped to the month's
// length), then days, then seconds and nanoseconds; a date ignores any part smaller than a day,
// a time any part larger; a named zone's offset is found again after a calendar step, while a
// step in seconds moves the instant.

import Foundation

extension TemporalValue {
    /// `self + d`; nil when `self` is a duration (that is duration arithmetic).
    public func adding(_ d: TemporalDuration) throws(TemporalError) -> TemporalValue {
        if case .duration = self {} else {
            // Beyond these no result is a representable value; within them no step overflows.
            guard d.months.magnitude <= Self.maximumMonths, d.days.magnitude <= Self.maximumDays,
                  d.seconds.magnitude <= Self.maximumSeconds else {
                throw TemporalError("Duration \(d) takes the value out of the supported range of years")
            }
        }
        switch self {
        case .date(let date):
            var day = CivilCalendar.plusMonths(date.epochDay, d.months) + d.days
            // Whole days of the seconds count; anything smaller does not exist on a date.
            day += d.seconds / 86_400
            return .date(try Self.checked(LocalDate(epochDay: day)))
        case .localTime(let t):
            return .localTime(Self.shift(t, d))
        case .time(let t):
            return .time(OffsetTime(time: Self.shift(t.time, d), offsetSeconds: t.offsetSeconds))
        case .localDateTime(let dt):
            return .localDateTime(try Self.shift(dt, d))
        case .dateTime(let z):
            var local = z.local
            local.date.epochDay = CivilCalendar.plusMonths(local.date.epochDay, d.months) + d.days
            var zoned = try Self.rezone(local, like: z)
            if d.seconds != 0 || d.nanoseconds != 0 {
                let (s, n) = zoned.epochSecondAndNano
                let total = n + d.nanoseconds
                zoned = try Self.zoned(epochSecond: s + d.seconds + floorDiv(total, 1_000_000_000),
                                       nanos: floorMod(total, 1_000_000_000), like: z)
            }
            _ = try Self.checked(zoned.local.date)
            return .dateTime(zoned)
        case .duration(let own):
            guard let sum = own.plus(d) else { throw TemporalError("Duration is too large to represent") }
            return .duration(sum)
        }
    }

    /// Twice the span of the supported years (±999,999,999) in months, days and seconds.
    static let maximumMonths: UInt64 = 2 * 12 * 1_000_000_000
    static let maximumDays: UInt64 = 2 * 366 * 1_000_000_000
    static let maximumSeconds: UInt64 = maximumDays * 86_400

    static func shift(_ t: LocalTime, _ d: TemporalDuration) -> LocalTime {
        let delta = floorMod(d.seconds, 86_400) * 1_000_000_000 + d.nanoseconds
        return LocalTime(nanosecondOfDay: floorMod(t.nanosecondOfDay + delta, LocalTime.nanosecondsPerDay))
    }

    static func shift(_ dt: LocalDateTime, _ d: TemporalDuration) throws(TemporalError) -> LocalDateTime {
        let day = CivilCalendar.plusMonths(dt.date.epochDay, d.months) + d.days
        let (s, n) = LocalDateTime(date: LocalDate(epochDay: day), time: dt.time).epochSecondAndNano
        let total = n + d.nanoseconds
        let result = LocalDateTime(epochSecond: s + d.seconds + floorDiv(total, 1_000_000_000), nanos: floorMod(total, 1_000_000_000))
        _ = try checked(result.date)
        return result
    }

    static func checked(_ date: LocalDate) throws(TemporalError) -> LocalDate {
        let year = CivilCalendar.civil(date.epochDay).year
        try TemporalParser.checkYear(year)
        return date
    }

    /// Wall-clock `local` in the zone (or at the offset) of `z`, keeping `z`'s offset when valid.
    static func rezone(_ local: LocalDateTime, like z: ZonedDateTime) throws(TemporalError) -> ZonedDateTime {
        guard let name = z.zoneName else { return ZonedDateTime(local: local, offsetSeconds: z.offsetSeconds, zoneName: nil) }
        guard let zone = TimeZoneRules.zone(named: name) else { throw TemporalError("Unknown time zone: '\(name)'") }
        return TimeZoneRules.resolve(local, in: zone, zoneName: name, preferredOffset: z.offsetSeconds)
    }

    /// The instant in the zone (or at the offset) of `z`.
    static func zoned(epochSecond: Int64, nanos: Int64, like z: ZonedDateTime) throws(TemporalError) -> ZonedDateTime {
        guard let name = z.zoneName else {
            return ZonedDateTime(local: LocalDateTime(epochSecond: epochSecond + Int64(z.offsetSeconds), nanos: nanos),
                                 offsetSeconds: z.offsetSeconds, zoneName: nil)
        }
        guard let zone = TimeZoneRules.zone(named: name) else { throw TemporalError("Unknown time zone: '\(name)'") }
        return TimeZoneRules.atInstant(epochSecond: epochSecond, nanos: nanos, in: zone, zoneName: name)
    }
}

/// `duration.between` and its `inMonths`, `inDays` and `inSeconds` forms.
public enum DurationBetween {
    /// The unit a difference is counted in; `nil` for the largest units that fit (months, days,
    /// then seconds).
    public enum Unit: Sendable { case months, days, seconds }

    /// A temporal value widened so two of them can be compared: the parts either side lacks are
    /// taken from the other (a date gains midnight, a time gains the other's date, a local value
    /// the other's zone).
    struct Widened {
        var date: Int64?
        var time: Int64?
        /// The zone: an offset and, for a named zone, its name.
        var offset: Int32?
        var zoneName: String?

        init(_ v: TemporalValue) {
            let parts = v.parts
            (date, time) = (parts.date?.epochDay, parts.time?.nanosecondOfDay)
            (offset, zoneName) = (parts.offset, parts.zoneName)
        }

        var zoned: ZonedDateTime? {
            guard let date, let time, let offset else { return nil }
            return ZonedDateTime(local: LocalDateTime(date: LocalDate(epochDay: date), time: LocalTime(nanosecondOfDay: time)),
                                 offsetSeconds: offset, zoneName: zoneName)
        }
        var local: LocalDateTime {
            LocalDateTime(date: LocalDate(epochDay: date ?? 0), time: LocalTime(nanosecondOfDay: time ?? 0))
        }
    }

    /// The duration from `from` to `to` in `unit` (nil: months, days and seconds together).
    public static func between(_ from: TemporalValue, _ to: TemporalValue, unit: Unit?) throws(TemporalError) -> TemporalDuration {
        var a = Widened(from), b = Widened(to)
        if a.time != nil || b.time != nil || unit == .seconds || unit == nil {
            if a.time == nil { a.time = 0 }
            if b.time == nil { b.time = 0 }
        }
        if a.date == nil, b.date != nil { a.date = b.date }
        if b.date == nil, a.date != nil { b.date = a.date }
        if a.offset == nil, b.offset != nil {
            a.offset = b.offset; a.zoneName = b.zoneName
            try attachZone(&a)
        }
        if b.offset == nil, a.offset != nil {
            b.offset = a.offset; b.zoneName = a.zoneName
            try attachZone(&b)
        }
        let hasDate = a.date != nil
        // Time-only values: a difference in nanoseconds at most, no calendar units.
        if !hasDate {
            if unit == .months || unit == .days { return .zero }
            let x = (a.time ?? 0) - Int64(a.offset ?? 0) * 1_000_000_000
            let y = (b.time ?? 0) - Int64(b.offset ?? 0) * 1_000_000_000
            return TemporalDuration(months: 0, days: 0, seconds: 0, nanoseconds: y - x)
        }
        var start = a.local
        var end = b.local
        var startZone = a.zoned
        if let za = a.zoned, let zb = b.zoned {
            // Calendar units are counted in the start's zone.
            let (s, n) = zb.epochSecondAndNano
            end = try TemporalValue.zoned(epochSecond: s, nanos: n, like: za).local
            startZone = za
        }
        func instant(_ local: LocalDateTime) throws(TemporalError) -> (Int64, Int64) {
            guard let z = startZone else { return local.epochSecondAndNano }
            return try TemporalValue.rezone(local, like: z).epochSecondAndNano
        }
        func secondsBetween(_ x: (Int64, Int64), _ y: (Int64, Int64)) -> TemporalDuration {
            TemporalDuration(months: 0, days: 0, seconds: y.0 - x.0, nanoseconds: y.1 - x.1)
        }
        let endInstant: (Int64, Int64) = b.zoned?.epochSecondAndNano ?? end.epochSecondAndNano
        switch unit {
        case .seconds:
            return secondsBetween(try instant(start), endInstant)
        case .months:
            return TemporalDuration(months: monthsUntil(start, end), days: 0, seconds: 0, nanoseconds: 0)
        case .days:
            return TemporalDuration(months: 0, days: daysUntil(start, end), seconds: 0, nanoseconds: 0)
        case nil:
            let months = monthsUntil(start, end)
            start.date.epochDay = CivilCalendar.plusMonths(start.date.epochDay, months)
            let days = daysUntil(start, end)
            start.date.epochDay += days
            let rest = secondsBetween(try instant(start), endInstant)
            return TemporalDuration(months: months, days: days, seconds: rest.seconds, nanoseconds: rest.nanoseconds)
        }
    }

    /// A local value given a zone: its wall-clock time read in that zone.
    static func attachZone(_ w: inout Widened) throws(TemporalError) {
        guard let name = w.zoneName, let date = w.date, let time = w.time else { return }
        guard let zone = TimeZoneRules.zone(named: name) else { throw TemporalError("Unknown time zone: '\(name)'") }
        let local = LocalDateTime(date: LocalDate(epochDay: date), time: LocalTime(nanosecondOfDay: time))
        w.offset = TimeZoneRules.resolve(local, in: zone, zoneName: name).offsetSeconds
    }

    /// Whole months from `a` to `b` (java.time's `LocalDateTime.until(…, MONTHS)`).
    static func monthsUntil(_ a: LocalDateTime, _ b: LocalDateTime) -> Int64 {
        var endDay = b.date.epochDay
        if endDay > a.date.epochDay && b.time < a.time { endDay -= 1 }
        else if endDay < a.date.epochDay && b.time > a.time { endDay += 1 }
        let (y1, m1, d1) = CivilCalendar.civil(a.date.epochDay)
        let (y2, m2, d2) = CivilCalendar.civil(endDay)
        let packed1 = (y1 * 12 + m1 - 1) * 32 + d1, packed2 = (y2 * 12 + m2 - 1) * 32 + d2
        return (packed2 - packed1) / 32
    }

    /// Whole days from `a` to `b`.
    static func daysUntil(_ a: LocalDateTime, _ b: LocalDateTime) -> Int64 {
        var endDay = b.date.epochDay
        if endDay > a.date.epochDay && b.time < a.time { endDay -= 1 }
        else if endDay < a.date.epochDay && b.time > a.time { endDay += 1 }
        return endDay - a.date.epochDay
    }
}
