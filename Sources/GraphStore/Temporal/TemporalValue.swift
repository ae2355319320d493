// TemporalValue.swift — Cypher's six temporal types as plain values: what a property stores,
// the log and snapshots encode, and queries compute with. Dates count days since 1970-01-01
// and times count nanoseconds since midnight, so every type is a few integers, compared and
// hashed without calendars or Foundation.

/// A calendar date without a time or zone (`date`).
public struct LocalDate: Sendable, Hashable, Comparable {
    /// Days since 1970-01-01 (negative before).
    public var epochDay: Int64
    public init(epochDay: Int64) { self.epochDay = epochDay }
    public static func < (a: LocalDate, b: LocalDate) -> Bool { a.epochDay < b.epochDay }
}

/// A time of day without a zone (`localtime`).
public struct LocalTime: Sendable, Hashable, Comparable {
    /// Nanoseconds since midnight, in 0 ..< 86,400,000,000,000.
    public var nanosecondOfDay: Int64
    public init(nanosecondOfDay: Int64) { self.nanosecondOfDay = nanosecondOfDay }
    public static let nanosecondsPerDay: Int64 = 86_400_000_000_000
    public static func < (a: LocalTime, b: LocalTime) -> Bool { a.nanosecondOfDay < b.nanosecondOfDay }

    public var hour: Int64 { nanosecondOfDay / 3_600_000_000_000 }
    public var minute: Int64 { nanosecondOfDay / 60_000_000_000 % 60 }
    public var second: Int64 { nanosecondOfDay / 1_000_000_000 % 60 }
    public var nanosecond: Int64 { nanosecondOfDay % 1_000_000_000 }
}

/// A time of day at a fixed offset from UTC (`time`).
public struct OffsetTime: Sendable, Hashable {
    public var time: LocalTime
    /// Seconds east of UTC.
    public var offsetSeconds: Int32
    public init(time: LocalTime, offsetSeconds: Int32) { self.time = time; self.offsetSeconds = offsetSeconds }

    /// The time of day in UTC, in nanoseconds (may fall outside one day): what `<` compares.
    public var utcNanoseconds: Int64 { time.nanosecondOfDay - Int64(offsetSeconds) * 1_000_000_000 }
}

/// A date and time of day without a zone (`localdatetime`).
public struct LocalDateTime: Sendable, Hashable, Comparable {
    public var date: LocalDate
    public var time: LocalTime
    public init(date: LocalDate, time: LocalTime) { self.date = date; self.time = time }
    public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool { (a.date, a.time) < (b.date, b.time) }

    /// Seconds since 1970-01-01T00:00 as if this were UTC, and the nanosecond of that second.
    public var epochSecondAndNano: (seconds: Int64, nanos: Int64) {
        (date.epochDay * 86_400 + time.nanosecondOfDay / 1_000_000_000, time.nanosecondOfDay % 1_000_000_000)
    }

    /// The local date-time `seconds` + `nanos` after 1970-01-01T00:00.
    public init(epochSecond seconds: Int64, nanos: Int64) {
        let day = floorDiv(seconds, 86_400)
        self.init(date: LocalDate(epochDay: day),
                  time: LocalTime(nanosecondOfDay: (seconds - day * 86_400) * 1_000_000_000 + nanos))
    }
}

/// An instant with its offset and, when it was given by name, its time zone (`datetime`).
public struct ZonedDateTime: Sendable, Hashable {
    /// The wall-clock date and time at `offsetSeconds`.
    public var local: LocalDateTime
    /// Seconds east of UTC in force at this instant.
    public var offsetSeconds: Int32
    /// The IANA zone name (`Europe/Stockholm`), or nil for a bare offset.
    public var zoneName: String?
    public init(local: LocalDateTime, offsetSeconds: Int32, zoneName: String?) {
        self.local = local; self.offsetSeconds = offsetSeconds; self.zoneName = zoneName
    }

    /// Seconds since 1970-01-01T00:00Z and the nanosecond of that second.
    public var epochSecondAndNano: (seconds: Int64, nanos: Int64) {
        let (s, n) = local.epochSecondAndNano
        return (s - Int64(offsetSeconds), n)
    }
}

/// An amount of time in Cypher's four independent units (`duration`). Months and days are not
/// converted into each other or into seconds (their lengths vary); seconds and nanoseconds are
/// normalised so `nanoseconds` is in 0 ..< 1,000,000,000, as Neo4j keeps them.
public struct TemporalDuration: Sendable, Hashable {
    public var months: Int64
    public var days: Int64
    public var seconds: Int64
    public var nanoseconds: Int64
    public init(months: Int64, days: Int64, seconds: Int64, nanoseconds: Int64) {
        self.months = months; self.days = days
        self.seconds = seconds + floorDiv(nanoseconds, 1_000_000_000)
        self.nanoseconds = floorMod(nanoseconds, 1_000_000_000)
    }
    public static let zero = TemporalDuration(months: 0, days: 0, seconds: 0, nanoseconds: 0)
}

/// A value of one of Cypher's temporal types.
public enum TemporalValue: Sendable, Hashable {
    case date(LocalDate)
    case localTime(LocalTime)
    case time(OffsetTime)
    case localDateTime(LocalDateTime)
    case dateTime(ZonedDateTime)
    case duration(TemporalDuration)

    /// The value's type.
    public var type: TemporalType {
        switch self {
        case .date: .date
        case .localTime: .localTime
        case .time: .time
        case .localDateTime: .localDateTime
        case .dateTime: .dateTime
        case .duration: .duration
        }
    }

    /// The Cypher function that builds this type from its text (`date`, `localtime`, …).
    public var constructorName: String { type.rawValue }

    /// The openCypher type name (`Date`, `LocalTime`, …), for messages.
    public var typeName: String {
        switch self {
        case .date: return "Date"
        case .localTime: return "LocalTime"
        case .time: return "Time"
        case .localDateTime: return "LocalDateTime"
        case .dateTime: return "DateTime"
        case .duration: return "Duration"
        }
    }
}

extension TemporalValue {
    /// The value taken apart: its date, time of day, offset and zone name, each nil where the
    /// kind has none (all nil for a duration).
    public var parts: (date: LocalDate?, time: LocalTime?, offset: Int32?, zoneName: String?) {
        switch self {
        case .date(let d): (d, nil, nil, nil)
        case .localTime(let t): (nil, t, nil, nil)
        case .time(let t): (nil, t.time, t.offsetSeconds, nil)
        case .localDateTime(let dt): (dt.date, dt.time, nil, nil)
        case .dateTime(let z): (z.local.date, z.local.time, z.offsetSeconds, z.zoneName)
        case .duration: (nil, nil, nil, nil)
        }
    }
}
