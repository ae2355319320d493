// TemporalFormatting.swift — the text of temporal values, as Neo4j's toString writes it (and the
// openCypher TCK expects): java.time's ISO forms for dates and times (seconds shown only when
// non-zero, fractions in groups of 3, 6 or 9 digits) and Neo4j's duration form, which signs
// each component and strips trailing zeros from the fraction of a second.

extension TemporalValue: CustomStringConvertible {
    /// The ISO 8601 text `toString` returns and replies carry.
    public var description: String {
        switch self {
        case .date(let d): return TemporalFormat.date(d)
        case .localTime(let t): return TemporalFormat.time(t)
        case .time(let t): return TemporalFormat.time(t.time) + TimeZoneRules.format(offset: t.offsetSeconds)
        case .localDateTime(let dt): return TemporalFormat.localDateTime(dt)
        case .dateTime(let dt):
            var out = TemporalFormat.localDateTime(dt.local) + TimeZoneRules.format(offset: dt.offsetSeconds)
            if let zone = dt.zoneName { out += "[\(zone)]" }
            return out
        case .duration(let d): return TemporalFormat.duration(d)
        }
    }
}

/// Formatting of each temporal type.
enum TemporalFormat {
    static func date(_ d: LocalDate) -> String {
        let (y, m, day) = CivilCalendar.civil(d.epochDay)
        return year(y) + "-" + twoDigits(m) + "-" + twoDigits(day)
    }

    /// Four digits, a sign before a negative year, and `+` before a year past 9999.
    static func year(_ y: Int64) -> String {
        let magnitude = y.magnitude
        var digits = String(magnitude)
        if magnitude < 1000 { digits = String(repeating: "0", count: 4 - digits.count) + digits }
        if y < 0 { return "-" + digits }
        return y > 9999 ? "+" + digits : digits
    }

    static func time(_ t: LocalTime) -> String {
        var out = twoDigits(t.hour) + ":" + twoDigits(t.minute)
        let (s, n) = (t.second, t.nanosecond)
        if s > 0 || n > 0 {
            out += ":" + twoDigits(s)
            if n > 0 {
                if n % 1_000_000 == 0 { out += "." + padded(n / 1_000_000, 3) }
                else if n % 1000 == 0 { out += "." + padded(n / 1000, 6) }
                else { out += "." + padded(n, 9) }
            }
        }
        return out
    }

    static func localDateTime(_ dt: LocalDateTime) -> String { date(dt.date) + "T" + time(dt.time) }

    static func padded(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// `P…Y…M…DT…H…M…S`, zero components left out, `PT0S` for zero.
    static func duration(_ d: TemporalDuration) -> String {
        if d == .zero { return "PT0S" }
        var out = "P"
        func append(_ value: Int64, _ unit: Character) { if value != 0 { out += "\(value)\(unit)" } }
        append(d.months / 12, "Y")
        append(d.months % 12, "M")
        append(d.days, "D")
        if d.seconds != 0 || d.nanoseconds != 0 {
            var s = d.seconds, n = d.nanoseconds
            // A negative amount is written with a negative fraction: -1.5s is `-1.5S`, not `-2.5S`.
            if s < 0 && n != 0 { s += 1; n -= 1_000_000_000 }
            out += "T"
            append(s / 3600, "H")
            s %= 3600
            append(s / 60, "M")
            s %= 60
            if s != 0 {
                out += String(s)
                if n != 0 { out += fraction(n.magnitude) }
                out += "S"
            } else if n != 0 {
                out += (n < 0 ? "-0" : "0") + fraction(n.magnitude) + "S"
            }
        }
        return out
    }

    /// `.` and the nanoseconds as a fraction of a second without trailing zeros.
    static func fraction(_ nanos: UInt64) -> String {
        var digits = padded(Int64(nanos), 9)
        while digits.last == "0" { digits.removeLast() }
        return "." + digits
    }
}
