// CivilCalendar.swift — proleptic Gregorian calendar arithmetic on day numbers (days since
// 1970-01-01), the ISO-8601 week calendar and quarters. Everything temporal counts days this
// way, so dates far outside Foundation's range (the TCK uses ±999,999,999) still work.

/// Conversions between a day number (days since 1970-01-01) and year, month and day.
public enum CivilCalendar {
    /// True when `year` has a 29th of February.
    public static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days in `month` (1–12) of `year`.
    public static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days in `year`.
    public static func daysInYear(_ year: Int64) -> Int64 { isLeap(year) ? 366 : 365 }

    /// The day number of a valid year, month (1–12) and day. Howard Hinnant's `days_from_civil`,
    /// which is exact for the whole Int64-representable range the TCK needs.
    public static func epochDay(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Year, month and day of a day number (`civil_from_days`).
    public static func civil(_ epochDay: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = epochDay + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// ISO day of week: Monday 1 … Sunday 7.
    public static func dayOfWeek(_ epochDay: Int64) -> Int64 {
        // 1970-01-01 was a Thursday (4).
        floorMod(epochDay + 3, 7) + 1
    }

    /// Day of the year, 1-based.
    public static func ordinalDay(_ epochDay: Int64) -> Int64 {
        epochDay - self.epochDay(year: civil(epochDay).year, month: 1, day: 1) + 1
    }

    /// Quarter (1–4) and day of that quarter (1-based).
    public static func quarter(_ epochDay: Int64) -> (quarter: Int64, dayOfQuarter: Int64) {
        let (y, m, _) = civil(epochDay)
        let q = (m - 1) / 3 + 1
        return (q, epochDay - self.epochDay(year: y, month: (q - 1) * 3 + 1, day: 1) + 1)
    }

    /// The day number of the Monday of ISO week 1 of `weekYear` (the week holding 4 January).
    public static func firstDayOfWeekYear(_ weekYear: Int64) -> Int64 {
        let jan4 = epochDay(year: weekYear, month: 1, day: 4)
        return jan4 - (dayOfWeek(jan4) - 1)
    }

    /// ISO week-based year and week number (1–53).
    public static func isoWeek(_ epochDay: Int64) -> (weekYear: Int64, week: Int64) {
        let year = civil(epochDay).year
        var weekYear = year + 1
        var start = firstDayOfWeekYear(weekYear)
        if epochDay < start {
            weekYear = year
            start = firstDayOfWeekYear(weekYear)
            if epochDay < start {
                weekYear = year - 1
                start = firstDayOfWeekYear(weekYear)
            }
        }
        return (weekYear, (epochDay - start) / 7 + 1)
    }

    /// Weeks (52 or 53) in ISO week-based year `weekYear`.
    public static func weeksInWeekYear(_ weekYear: Int64) -> Int64 {
        (firstDayOfWeekYear(weekYear + 1) - firstDayOfWeekYear(weekYear)) / 7
    }

    /// `year`, `month` moved by `months` months, with the day clamped to the new month's length
    /// (2020-01-31 plus one month is 2020-02-29), as java.time and Neo4j do.
    public static func plusMonths(_ epochDay: Int64, _ months: Int64) -> Int64 {
        if months == 0 { return epochDay }
        let (y, m, d) = civil(epochDay)
        let total = y * 12 + (m - 1) + months
        let year = floorDiv(total, 12), month = floorMod(total, 12) + 1
        return self.epochDay(year: year, month: month, day: min(d, daysInMonth(year, month)))
    }
}

/// Division rounding toward negative infinity.
@inline(__always) package func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
}

/// The remainder matching `floorDiv`: the sign of the divisor.
@inline(__always) package func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
    // From the remainder, not `a - floorDiv(a, b) * b`, which overflows near Int64.min.
    let r = a % b
    return (r != 0 && (r < 0) != (b < 0)) ? r + b : r
}
