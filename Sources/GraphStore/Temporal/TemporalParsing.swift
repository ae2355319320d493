// TemporalParsing.swift — the ISO 8601 forms Cypher accepts for temporal strings, extended and
// basic (`2015-07-21`, `20150721`, `2015-W30-2`, `2015-202`, `214032.142`, `+0100`,
// `[Europe/Stockholm]`, signed years beyond 9999) and durations (`P14DT16H12M`, fractions in any
// unit, `P2012-02-02T14:37:21.545`). Each parser checks every field's range.

import Foundation

/// Parsers for temporal strings.
public enum TemporalParser {
    /// The parts of a time string: the time, and the offset and zone name when written.
    public struct ParsedTime: Sendable {
        public var time: LocalTime
        public var offset: Int32?
        public var zoneName: String?
    }

    static func invalid(_ kind: String, _ text: String) -> TemporalError {
        TemporalError("Text cannot be parsed to a \(kind): '\(text)'")
    }

    /// A date: `YYYY[-MM[-DD]]`, `YYYYMMDD`, `YYYY-Www[-D]`, `YYYY-DDD`, and their basic forms.
    public static func parseDate(_ text: String) throws(TemporalError) -> LocalDate {
        var s = Substring(text)
        guard let year = takeYear(&s) else { throw invalid("Date", text) }
        let dashed = s.first == "-"
        if dashed { s = s.dropFirst() }
        if s.isEmpty {
            if dashed { throw invalid("Date", text) }
            return LocalDate(epochDay: CivilCalendar.epochDay(year: year, month: 1, day: 1))
        }
        if s.first == "W" || s.first == "w" {
            s = s.dropFirst()
            guard let week = takeDigits(&s, 2) else { throw invalid("Date", text) }
            let dayOfWeek = try lastDateField(&s, digits: 1, dashed: dashed, text: text) ?? 1
            return try weekDate(year: year, week: week, dayOfWeek: dayOfWeek)
        }
        let digits = s.prefix { $0.isASCII && $0.isNumber }
        if digits.count == 3 && s.count == 3 {
            return try ordinalDate(year: year, day: Int64(digits)!)
        }
        guard let month = takeDigits(&s, 2) else { throw invalid("Date", text) }
        let day = try lastDateField(&s, digits: 2, dashed: dashed, text: text) ?? 1
        return try calendarDate(year: year, month: month, day: day)
    }

    /// A date's optional last field (`-D` of a week date, `-DD` of a calendar date; no dash in
    /// the basic form), which must end the text; nil when the text ended before it.
    static func lastDateField(_ s: inout Substring, digits: Int, dashed: Bool, text: String) throws(TemporalError) -> Int64? {
        guard !s.isEmpty else { return nil }
        if dashed {
            guard s.first == "-" else { throw invalid("Date", text) }
            s = s.dropFirst()
        }
        guard let value = takeDigits(&s, digits), s.isEmpty else { throw invalid("Date", text) }
        return value
    }

    /// A checked calendar date.
    public static func calendarDate(year: Int64, month: Int64, day: Int64) throws(TemporalError) -> LocalDate {
        guard (1...12).contains(month) else { throw TemporalError("Invalid value for MonthOfYear (valid values 1 - 12): \(month)") }
        guard day >= 1, day <= CivilCalendar.daysInMonth(year, month) else {
            throw TemporalError("Invalid value for DayOfMonth (valid values 1 - \(CivilCalendar.daysInMonth(year, month))): \(day)")
        }
        try checkYear(year)
        return LocalDate(epochDay: CivilCalendar.epochDay(year: year, month: month, day: day))
    }

    /// A checked ISO week date.
    public static func weekDate(year: Int64, week: Int64, dayOfWeek: Int64) throws(TemporalError) -> LocalDate {
        try checkYear(year)
        guard week >= 1, week <= CivilCalendar.weeksInWeekYear(year) else {
            throw TemporalError("Invalid value for WeekOfWeekBasedYear (valid values 1 - \(CivilCalendar.weeksInWeekYear(year))): \(week)")
        }
        guard (1...7).contains(dayOfWeek) else { throw TemporalError("Invalid value for DayOfWeek (valid values 1 - 7): \(dayOfWeek)") }
        return LocalDate(epochDay: CivilCalendar.firstDayOfWeekYear(year) + (week - 1) * 7 + dayOfWeek - 1)
    }

    /// A checked ordinal date (day of year).
    public static func ordinalDate(year: Int64, day: Int64) throws(TemporalError) -> LocalDate {
        try checkYear(year)
        guard day >= 1, day <= CivilCalendar.daysInYear(year) else {
            throw TemporalError("Invalid value for DayOfYear (valid values 1 - \(CivilCalendar.daysInYear(year))): \(day)")
        }
        return LocalDate(epochDay: CivilCalendar.epochDay(year: year, month: 1, day: 1) + day - 1)
    }

    /// A checked quarter date.
    public static func quarterDate(year: Int64, quarter: Int64, dayOfQuarter: Int64) throws(TemporalError) -> LocalDate {
        try checkYear(year)
        guard (1...4).contains(quarter) else { throw TemporalError("Invalid value for QuarterOfYear (valid values 1 - 4): \(quarter)") }
        let start = CivilCalendar.epochDay(year: year, month: (quarter - 1) * 3 + 1, day: 1)
        let end = CivilCalendar.plusMonths(start, 3)
        guard dayOfQuarter >= 1, dayOfQuarter <= end - start else {
            throw TemporalError("Invalid value for DayOfQuarter (valid values 1 - \(end - start)): \(dayOfQuarter)")
        }
        return LocalDate(epochDay: start + dayOfQuarter - 1)
    }

    /// Years java.time (and so Cypher) allows.
    public static func checkYear(_ year: Int64) throws(TemporalError) {
        guard year >= -999_999_999, year <= 999_999_999 else {
            throw TemporalError("Invalid value for Year (valid values -999999999 - 999999999): \(year)")
        }
    }

    /// A checked time of day.
    public static func localTime(hour: Int64, minute: Int64, second: Int64, nanosecond: Int64) throws(TemporalError) -> LocalTime {
        guard (0...23).contains(hour) else { throw TemporalError("Invalid value for HourOfDay (valid values 0 - 23): \(hour)") }
        guard (0...59).contains(minute) else { throw TemporalError("Invalid value for MinuteOfHour (valid values 0 - 59): \(minute)") }
        guard (0...59).contains(second) else { throw TemporalError("Invalid value for SecondOfMinute (valid values 0 - 59): \(second)") }
        guard (0...999_999_999).contains(nanosecond) else {
            throw TemporalError("Invalid value for NanoOfSecond (valid values 0 - 999999999): \(nanosecond)")
        }
        return LocalTime(nanosecondOfDay: ((hour * 60 + minute) * 60 + second) * 1_000_000_000 + nanosecond)
    }

    /// A time: `HH[:MM[:SS[.fff]]]` or `HH[MM[SS[.fff]]]`, then an optional offset and an optional
    /// `[Zone/Name]`.
    public static func parseTime(_ text: String) throws(TemporalError) -> ParsedTime {
        var s = Substring(text)
        var zoneName: String? = nil
        if s.last == "]", let open = s.lastIndex(of: "[") {
            zoneName = String(s[s.index(after: open)..<s.index(before: s.endIndex)])
            s = s[..<open]
        }
        var offset: Int32? = nil
        if let i = s.firstIndex(where: { $0 == "Z" || $0 == "z" || $0 == "+" || $0 == "-" }) {
            guard let o = TimeZoneRules.parseOffset(s[i...]) else { throw invalid("Time", text) }
            offset = o
            s = s[..<i]
        }
        guard let hour = takeDigits(&s, 2) else { throw invalid("Time", text) }
        var minute: Int64 = 0, second: Int64 = 0, nanos: Int64 = 0
        if !s.isEmpty {
            let extended = s.first == ":"
            if extended { s = s.dropFirst() }
            guard let m = takeDigits(&s, 2) else { throw invalid("Time", text) }
            minute = m
            if !s.isEmpty {
                if extended { guard s.first == ":" else { throw invalid("Time", text) }; s = s.dropFirst() }
                guard let sec = takeDigits(&s, 2) else { throw invalid("Time", text) }
                second = sec
                if let f = s.first, f == "." || f == "," {
                    s = s.dropFirst()
                    let digits = s.prefix { $0.isASCII && $0.isNumber }
                    guard (1...9).contains(digits.count) else { throw invalid("Time", text) }
                    nanos = Int64(digits + String(repeating: "0", count: 9 - digits.count))!
                    s = s.dropFirst(digits.count)
                }
            }
        }
        guard s.isEmpty else { throw invalid("Time", text) }
        return ParsedTime(time: try localTime(hour: hour, minute: minute, second: second, nanosecond: nanos),
                          offset: offset, zoneName: zoneName)
    }

    /// A date and time split at `T`, the time with its optional offset and zone.
    public static func parseDateAndTime(_ text: String) throws(TemporalError) -> (date: LocalDate, time: ParsedTime) {
        // The year may be signed and the date basic, so split at the first `T` (a date has none).
        guard let t = text.firstIndex(where: { $0 == "T" || $0 == "t" }) else {
            // A date alone is midnight of that date.
            return (try parseDate(text), ParsedTime(time: LocalTime(nanosecondOfDay: 0), offset: nil, zoneName: nil))
        }
        let date = try parseDate(String(text[..<t]))
        let time = try parseTime(String(text[text.index(after: t)...]))
        return (date, time)
    }

    /// A `datetime` from text; `defaultZone` applies when the text names neither offset nor zone.
    public static func parseDateTime(_ text: String, defaultZone: () throws(TemporalError) -> (offset: Int32, zone: String?)) throws(TemporalError) -> ZonedDateTime {
        let (date, parsed) = try parseDateAndTime(text)
        let local = LocalDateTime(date: date, time: parsed.time)
        if let name = parsed.zoneName {
            guard let zone = TimeZoneRules.zone(named: name) else { throw TemporalError("Unknown time zone: '\(name)'") }
            return TimeZoneRules.resolve(local, in: zone, zoneName: name, preferredOffset: parsed.offset)
        }
        if let offset = parsed.offset { return ZonedDateTime(local: local, offsetSeconds: offset, zoneName: nil) }
        let (offset, zoneName) = try defaultZone()
        if let zoneName, let zone = TimeZoneRules.zone(named: zoneName) {
            return TimeZoneRules.resolve(local, in: zone, zoneName: zoneName)
        }
        return ZonedDateTime(local: local, offsetSeconds: offset, zoneName: nil)
    }

    /// A duration: `P[nY][nM][nW][nD][T[nH][nM][nS]]` with signed, possibly fractional numbers,
    /// or the alternative form `PYYYY-MM-DDTHH:MM:SS[.fff]`.
    public static func parseDuration(_ text: String) throws(TemporalError) -> TemporalDuration {
        var s = Substring(text)
        var negate = false
        if s.first == "-" || s.first == "+" { negate = s.first == "-"; s = s.dropFirst() }
        guard s.first == "P" || s.first == "p" else { throw invalid("Duration", text) }
        s = s.dropFirst()
        if let alternative = try? alternativeDuration(s, text) {
            return negate ? try alternative.negated() : alternative
        }
        var builder = DurationBuilder()
        var inTime = false
        var sawAny = false
        var lastRank = -1
        while !s.isEmpty {
            if s.first == "T" || s.first == "t" {
                guard !inTime else { throw invalid("Duration", text) }
                inTime = true; s = s.dropFirst(); lastRank = 3
                continue
            }
            var number = ""
            if let c = s.first, c == "-" || c == "+" { number.append(c); s = s.dropFirst() }
            let digits = s.prefix { ($0.isASCII && $0.isNumber) || $0 == "." || $0 == "," }
            guard !digits.isEmpty, let unit = s.dropFirst(digits.count).first else { throw invalid("Duration", text) }
            number += digits.replacingOccurrences(of: ",", with: ".")
            s = s.dropFirst(digits.count + 1)
            let rank: Int
            switch (inTime, unit.uppercased()) {
            case (false, "Y"): rank = 0
            case (false, "M"): rank = 1
            case (false, "W"): rank = 2
            case (false, "D"): rank = 3
            case (true, "H"): rank = 4
            case (true, "M"): rank = 5
            case (true, "S"): rank = 6
            default: throw invalid("Duration", text)
            }
            guard rank > lastRank else { throw invalid("Duration", text) }
            lastRank = rank
            guard let amount = DurationAmount(number) else { throw invalid("Duration", text) }
            sawAny = true
            switch rank {
            case 0: builder.add(amount, unit: .years)
            case 1: builder.add(amount, unit: .months)
            case 2: builder.add(amount, unit: .weeks)
            case 3: builder.add(amount, unit: .days)
            case 4: builder.add(amount, unit: .hours)
            case 5: builder.add(amount, unit: .minutes)
            default: builder.add(amount, unit: .seconds)
            }
        }
        guard sawAny else { throw invalid("Duration", text) }
        let d = try builder.build()
        return negate ? try d.negated() : d
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]` after the `P`.
    static func alternativeDuration(_ s: Substring, _ text: String) throws(TemporalError) -> TemporalDuration {
        guard let t = s.firstIndex(where: { $0 == "T" || $0 == "t" }) else { throw invalid("Duration", text) }
        let datePart = s[..<t].split(separator: "-", omittingEmptySubsequences: false)
        let timePart = s[s.index(after: t)...].split(separator: ":", omittingEmptySubsequences: false)
        guard datePart.count == 3, timePart.count == 3, datePart[0].count == 4,
              let y = Int64(datePart[0]), let m = Int64(datePart[1]), let d = Int64(datePart[2]),
              let h = Int64(timePart[0]), let mi = Int64(timePart[1]),
              let sec = DurationAmount(timePart[2].replacingOccurrences(of: ",", with: ".")) else {
            throw invalid("Duration", text)
        }
        var builder = DurationBuilder()
        builder.add(DurationAmount(whole: y), unit: .years)
        builder.add(DurationAmount(whole: m), unit: .months)
        builder.add(DurationAmount(whole: d), unit: .days)
        builder.add(DurationAmount(whole: h), unit: .hours)
        builder.add(DurationAmount(whole: mi), unit: .minutes)
        builder.add(sec, unit: .seconds)
        return try builder.build()
    }

    /// A year: four digits, or a sign and any number of digits.
    static func takeYear(_ s: inout Substring) -> Int64? {
        if let c = s.first, c == "+" || c == "-" {
            let negative = c == "-"
            s = s.dropFirst()
            let digits = s.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 10, let v = Int64(digits) else { return nil }
            s = s.dropFirst(digits.count)
            return negative ? -v : v
        }
        return takeDigits(&s, 4)
    }

    /// Exactly `count` ASCII digits.
    static func takeDigits(_ s: inout Substring, _ count: Int) -> Int64? {
        let digits = s.prefix(count)
        guard digits.count == count, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        s = s.dropFirst(count)
        return Int64(digits)
    }
}
