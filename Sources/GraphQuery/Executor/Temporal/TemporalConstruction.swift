// TemporalConstruction.swift — `date(…)`, `localtime(…)`, `time(…)`, `localdatetime(…)` and
// `datetime(…)`: from a map of fields (calendar, week, ordinal or quarter dates; a time to the
// nanosecond; a time zone), from a map that selects parts of other temporal values and
// overrides some fields (`{date: d, day: 1}`), from `{epochMillis}` / `{epochSeconds}`, from
// ISO 8601 text, from another temporal value, or from the clock. Without a zone, zoned types
// are in UTC, graphd's default time zone.

import Foundation
import GraphStore

/// The temporal type a constructor builds.
enum TemporalKind: Sendable {
    case date, localTime, time, localDateTime, dateTime

    var hasDate: Bool { self == .date || self == .localDateTime || self == .dateTime }
    var hasTime: Bool { self != .date }
    var hasZone: Bool { self == .time || self == .dateTime }
    /// The store's type of the same name.
    var type: TemporalType {
        switch self {
        case .date: .date
        case .localTime: .localTime
        case .time: .time
        case .localDateTime: .localDateTime
        case .dateTime: .dateTime
        }
    }
    /// The constructor's name (`localdatetime`).
    var name: String { type.rawValue }
}

/// A time zone given by a map's `timezone` field: a fixed offset or a named zone.
enum ZoneSpec {
    case offset(Int32)
    case named(String, TimeZone)

    static func parse(_ text: String) throws(TemporalError) -> ZoneSpec {
        if let o = TimeZoneRules.parseOffset(text) { return .offset(o) }
        if let zone = TimeZoneRules.zone(named: text) { return .named(text, zone) }
        throw TemporalError("Invalid value for TimeZone: '\(text)'")
    }

    /// Wall-clock `local` in this zone.
    func resolve(_ local: LocalDateTime, preferredOffset: Int32? = nil) -> ZonedDateTime {
        switch self {
        case .offset(let o): return ZonedDateTime(local: local, offsetSeconds: o, zoneName: nil)
        case .named(let name, let zone):
            return TimeZoneRules.resolve(local, in: zone, zoneName: name, preferredOffset: preferredOffset)
        }
    }

    /// The instant in this zone.
    func atInstant(seconds: Int64, nanos: Int64) -> ZonedDateTime {
        switch self {
        case .offset(let o):
            return ZonedDateTime(local: LocalDateTime(epochSecond: seconds + Int64(o), nanos: nanos), offsetSeconds: o, zoneName: nil)
        case .named(let name, let zone):
            return TimeZoneRules.atInstant(epochSecond: seconds, nanos: nanos, in: zone, zoneName: name)
        }
    }

    /// The zone of a zoned value.
    init?(offset: Int32?, name: String?) {
        if let name, let zone = TimeZoneRules.zone(named: name) { self = .named(name, zone); return }
        guard let offset else { return nil }
        self = .offset(offset)
    }
}

/// A temporal value taken apart: what a selecting map can take from it.
struct TemporalParts {
    var date: LocalDate?
    var time: LocalTime?
    var offset: Int32?
    var zoneName: String?

    init(_ t: TemporalValue) {
        (date, time, offset, zoneName) = t.parts
    }

    var zone: ZoneSpec? { ZoneSpec(offset: offset, name: zoneName) }
}

/// The temporal constructors.
enum TemporalConstruction {
    /// The default time zone of zoned values built without one.
    static let defaultZone = ZoneSpec.offset(0)

    /// `kind(arguments…)`; `now` reads the clock for the forms without fields.
    static func make(_ kind: TemporalKind, _ arguments: [RuntimeValue],
                     now: () -> (seconds: Int64, nanos: Int64)) throws(QueryError) -> RuntimeValue {
        guard let argument = arguments.first else {
            let (s, n) = now()
            return .temporal(project(defaultZone.atInstant(seconds: s, nanos: n), kind))
        }
        switch argument {
        case .null: return .null
        case .string(let text): return .temporal(try runTemporal { () throws(TemporalError) in try parse(kind, text) })
        case .temporal(let t):
            return .temporal(try runTemporal { () throws(TemporalError) in
                if case .duration = t { throw TemporalError("Cannot construct a \(kind.name) from a Duration") }
                return try fromFields(kind, [:], base: TemporalParts(t), now: now)
            })
        case .map(let keys, let values):
            var fields: [String: RuntimeValue] = [:]
            for (k, v) in zip(keys, values) { fields[k.lowercased()] = v }
            // A null field, like a null argument, makes the value unknown.
            if fields.values.contains(where: \.isNull) { return .null }
            return .temporal(try runTemporal { () throws(TemporalError) in try fromFields(kind, fields, base: nil, now: now) })
        default:
            throw RuntimeValue.typeMismatch(expected: "String, Map, or a temporal value", argument)
        }
    }

    /// A zoned date-time as the value of `kind`.
    static func project(_ z: ZonedDateTime, _ kind: TemporalKind) -> TemporalValue {
        switch kind {
        case .date: return .date(z.local.date)
        case .localTime: return .localTime(z.local.time)
        case .time: return .time(OffsetTime(time: z.local.time, offsetSeconds: z.offsetSeconds))
        case .localDateTime: return .localDateTime(z.local)
        case .dateTime: return .dateTime(z)
        }
    }

    /// `kind` from ISO 8601 text.
    static func parse(_ kind: TemporalKind, _ text: String) throws(TemporalError) -> TemporalValue {
        let type: TemporalType = switch kind {
        case .date: .date
        case .localTime: .localTime
        case .time: .time
        case .localDateTime: .localDateTime
        case .dateTime: .dateTime
        }
        return try TemporalParser.parse(text, as: type)
    }

    /// An integer field; a float with no fraction is accepted.
    static func integer(_ fields: [String: RuntimeValue], _ key: String) throws(TemporalError) -> Int64? {
        guard let v = fields[key] else { return nil }
        switch v {
        case .integer(let i): return i
        case .double(let d) where d.exactInteger != nil: return d.exactInteger
        default: throw TemporalError("Invalid value for \(key): expected an integer")
        }
    }

    static let dateKeys: Set<String> = ["year", "month", "day", "week", "dayofweek", "weekyear", "quarter", "dayofquarter", "ordinalday"]
    static let timeKeys: Set<String> = ["hour", "minute", "second", "millisecond", "microsecond", "nanosecond"]
    static let otherKeys: Set<String> = ["timezone", "date", "time", "datetime", "epochmillis", "epochseconds"]

    /// `kind` from a map's fields (keys lower-cased), or from `base` alone (a temporal argument).
    /// `convertZone`: whether a map's `timezone` moves a zoned base to that zone at the same
    /// instant (selection) or replaces its zone keeping the wall-clock time (truncation).
    static func fromFields(_ kind: TemporalKind, _ fields: [String: RuntimeValue], base: TemporalParts?,
                           convertZone: Bool = true,
                           now: () -> (seconds: Int64, nanos: Int64)) throws(TemporalError) -> TemporalValue {
        if let unknown = fields.keys.first(where: { !dateKeys.contains($0) && !timeKeys.contains($0) && !otherKeys.contains($0) }) {
            throw TemporalError("No such field in a \(kind.name) map: '\(unknown)'")
        }
        var mapZone: ZoneSpec? = nil
        if let tz = fields["timezone"] {
            guard case .string(let text) = tz else { throw TemporalError("Invalid value for TimeZone: expected a string") }
            mapZone = try ZoneSpec.parse(text)
        }
        // The clock in a zone: `datetime({timezone: 'Europe/Stockholm'})`.
        if base == nil, fields.keys.allSatisfy({ $0 == "timezone" }) {
            let (s, n) = now()
            return project((mapZone ?? defaultZone).atInstant(seconds: s, nanos: n), kind)
        }
        if kind == .dateTime || kind == .localDateTime,
           fields["epochmillis"] != nil || fields["epochseconds"] != nil {
            return project(try fromEpoch(fields, zone: mapZone ?? defaultZone), kind)
        }
        var baseDate: LocalDate? = nil, baseTime: LocalTime? = nil, baseZone: ZoneSpec? = nil
        func take(_ key: String) throws(TemporalError) -> TemporalParts? {
            guard let v = fields[key] else { return nil }
            guard case .temporal(let t) = v else { throw TemporalError("Invalid value for \(key): expected a temporal value") }
            if case .duration = t { throw TemporalError("Invalid value for \(key): a Duration") }
            return TemporalParts(t)
        }
        if let base {
            baseDate = base.date; baseTime = base.time; baseZone = zone(of: base, for: kind)
        }
        if let parts = try take("datetime") {
            baseDate = parts.date; baseTime = parts.time; baseZone = zone(of: parts, for: kind)
        }
        if let parts = try take("date") {
            guard let d = parts.date else { throw TemporalError("Cannot select a date from a value without one") }
            baseDate = d
        }
        if let parts = try take("time") {
            guard let t = parts.time else { throw TemporalError("Cannot select a time from a value without one") }
            baseTime = t
            baseZone = zone(of: parts, for: kind)
        }
        if !convertZone, mapZone != nil { baseZone = nil }
        var date: LocalDate? = nil
        if kind.hasDate {
            date = try buildDate(fields, base: baseDate)
            guard date != nil else {
                if base != nil { throw TemporalError("Cannot construct a \(kind.name) from a value without a date") }
                throw TemporalError("A \(kind.name) needs at least a year")
            }
        }
        var time = LocalTime(nanosecondOfDay: 0)
        if kind.hasTime {
            guard let t = try buildTime(fields, base: baseTime) else {
                if kind.hasDate { return try finish(kind, date!, time, baseZone: baseZone, mapZone: mapZone) }
                throw TemporalError("A \(kind.name) needs at least an hour")
            }
            time = t
        }
        return try finish(kind, date ?? LocalDate(epochDay: 0), time, baseZone: baseZone, mapZone: mapZone)
    }

    /// The zone a base value lends: for a time, the offset it had (a time has no date on which
    /// to look a named zone up again), else its zone.
    static func zone(of parts: TemporalParts, for kind: TemporalKind) -> ZoneSpec? {
        kind == .time ? parts.offset.map(ZoneSpec.offset) : parts.zone
    }

    /// The value of `kind` at wall-clock `date` `time`, placed in its zone: the base's zone
    /// converted to the map's at the same instant, or whichever of the two was given, or UTC.
    static func finish(_ kind: TemporalKind, _ date: LocalDate, _ time: LocalTime,
                       baseZone: ZoneSpec?, mapZone: ZoneSpec?) throws(TemporalError) -> TemporalValue {
        let local = LocalDateTime(date: date, time: time)
        guard kind.hasZone else { return kind == .date ? .date(date) : (kind == .localTime ? .localTime(time) : .localDateTime(local)) }
        if kind == .time {
            // A time has no date to look a named zone's offset up on: today's offset applies.
            func fixed(_ zone: ZoneSpec) -> Int32 {
                switch zone {
                case .offset(let o): return o
                case .named(_, let z): return TimeZoneRules.offset(z, atEpochSecond: Int64(Date().timeIntervalSince1970))
                }
            }
            var offset = fixed(baseZone ?? mapZone ?? defaultZone)
            var nanos = time.nanosecondOfDay
            if let baseZone, let mapZone {
                let target = fixed(mapZone)
                nanos = floorMod(nanos + Int64(target - fixed(baseZone)) * 1_000_000_000, LocalTime.nanosecondsPerDay)
                offset = target
            }
            return .time(OffsetTime(time: LocalTime(nanosecondOfDay: nanos), offsetSeconds: offset))
        }
        var zoned = (baseZone ?? mapZone ?? defaultZone).resolve(local)
        if baseZone != nil, let mapZone {
            let (s, n) = zoned.epochSecondAndNano
            zoned = mapZone.atInstant(seconds: s, nanos: n)
        }
        return .dateTime(zoned)
    }

    /// The instant `{epochSeconds, epochMillis, nanosecond…}` names, in `zone`.
    static func fromEpoch(_ fields: [String: RuntimeValue], zone: ZoneSpec) throws(TemporalError) -> ZonedDateTime {
        // Far beyond the supported years (±999,999,999 is about ±3.2e16 s): refused before any
        // arithmetic could overflow.
        let limit: Int64 = 40_000_000_000_000_000
        func bounded(_ key: String, _ scale: Int64) throws(TemporalError) -> Int64 {
            guard let v = try integer(fields, key) else { return 0 }
            let (product, overflow) = v.multipliedReportingOverflow(by: scale)
            guard !overflow, product.magnitude <= UInt64(limit) else { throw TemporalError("Invalid value for \(key): \(v) is out of range") }
            return product
        }
        var seconds = try bounded("epochseconds", 1)
        if let ms = try integer(fields, "epochmillis") { seconds += floorDiv(ms, 1000) }
        var nanos = (try integer(fields, "epochmillis")).map { floorMod($0, 1000) * 1_000_000 } ?? 0
        nanos += try bounded("millisecond", 1_000_000)
        nanos += try bounded("microsecond", 1000)
        nanos += try bounded("nanosecond", 1)
        seconds += floorDiv(nanos, 1_000_000_000)
        let zoned = zone.atInstant(seconds: seconds, nanos: floorMod(nanos, 1_000_000_000))
        try TemporalParser.checkYear(CivilCalendar.civil(zoned.local.date.epochDay).year)
        return zoned
    }

    /// The date the fields describe, those not given taken from `base`; nil when neither has one.
    static func buildDate(_ f: [String: RuntimeValue], base: LocalDate?) throws(TemporalError) -> LocalDate? {
        let given = dateKeys.filter { f[$0] != nil }
        guard !given.isEmpty || base != nil else { return nil }
        let baseDay = base?.epochDay
        let civil = baseDay.map(CivilCalendar.civil)
        if f["week"] != nil || f["dayofweek"] != nil || f["weekyear"] != nil {
            let baseWeek = baseDay.map(CivilCalendar.isoWeek)
            let givenYear = try integer(f, "year")
            guard let weekYear = try integer(f, "weekyear") ?? givenYear ?? baseWeek?.weekYear else {
                throw TemporalError("A week date needs a year")
            }
            let week = try integer(f, "week") ?? baseWeek?.week ?? 1
            let dayOfWeek = try integer(f, "dayofweek") ?? baseDay.map(CivilCalendar.dayOfWeek) ?? 1
            return try TemporalParser.weekDate(year: weekYear, week: week, dayOfWeek: dayOfWeek)
        }
        guard let year = try integer(f, "year") ?? civil?.year else { throw TemporalError("A date needs a year") }
        if let ordinal = try integer(f, "ordinalday") {
            return try TemporalParser.ordinalDate(year: year, day: ordinal)
        }
        if f["quarter"] != nil || f["dayofquarter"] != nil {
            let q = baseDay.map(CivilCalendar.quarter)
            return try TemporalParser.quarterDate(year: year, quarter: try integer(f, "quarter") ?? q?.quarter ?? 1,
                                                  dayOfQuarter: try integer(f, "dayofquarter") ?? q?.dayOfQuarter ?? 1)
        }
        if f["day"] != nil, f["month"] == nil, base == nil { throw TemporalError("A day needs a month") }
        return try TemporalParser.calendarDate(year: year, month: try integer(f, "month") ?? civil?.month ?? 1,
                                               day: try integer(f, "day") ?? civil?.day ?? 1)
    }

    /// The time the fields describe, those not given taken from `base`; nil when neither has one.
    static func buildTime(_ f: [String: RuntimeValue], base: LocalTime?) throws(TemporalError) -> LocalTime? {
        let given = timeKeys.filter { f[$0] != nil }
        guard !given.isEmpty || base != nil else { return nil }
        let hour = try integer(f, "hour") ?? base?.hour ?? 0
        let minute = try integer(f, "minute") ?? base?.minute ?? 0
        let second = try integer(f, "second") ?? base?.second ?? 0
        var nanos = base?.nanosecond ?? 0
        let ms = try integer(f, "millisecond"), us = try integer(f, "microsecond"), ns = try integer(f, "nanosecond")
        if ms != nil || us != nil || ns != nil {
            // Each field sets its own digits: {millisecond: 123, microsecond: 456, nanosecond: 789} is .123456789.
            if let ms, !(0...999).contains(ms) { throw TemporalError("Invalid value for Millisecond (valid values 0 - 999): \(ms)") }
            if let us, !(0...999_999).contains(us) || (ms != nil && us > 999) {
                throw TemporalError("Invalid value for Microsecond (valid values 0 - 999): \(us)")
            }
            if let ns, ns < 0 || ((ms != nil || us != nil) && ns > 999) {
                throw TemporalError("Invalid value for Nanosecond (valid values 0 - 999): \(ns)")
            }
            let baseMs = nanos / 1_000_000, baseUs = nanos / 1000 % 1000, baseNs = nanos % 1000
            if ms == nil && us == nil, let ns { nanos = base == nil || ns > 999 ? ns : baseMs * 1_000_000 + baseUs * 1000 + ns }
            else if ms == nil, let us, us > 999 { nanos = us * 1000 + (ns ?? (base == nil ? 0 : baseNs)) }
            else {
                let fill = base == nil
                nanos = (ms ?? (fill ? 0 : baseMs)) * 1_000_000 + (us ?? (fill ? 0 : baseUs)) * 1000 + (ns ?? (fill ? 0 : baseNs))
            }
        }
        return try TemporalParser.localTime(hour: hour, minute: minute, second: second, nanosecond: nanos)
    }

    /// `duration(…)`: from a map of amounts (floats allowed; fractions cascade), ISO text, or null.
    static func duration(_ argument: RuntimeValue) throws(QueryError) -> RuntimeValue {
        switch argument {
        case .null: return .null
        case .string(let text):
            return .temporal(.duration(try runTemporal { () throws(TemporalError) in try TemporalParser.parseDuration(text) }))
        case .temporal(.duration): return argument
        case .map(let keys, let values):
            var builder = DurationBuilder()
            for (key, value) in zip(keys, values) {
                guard let unit = DurationUnit(rawValue: key.lowercased()) else {
                    throw QueryError(.runtime, "No such field in a duration map: '\(key)'")
                }
                let amount: DurationAmount?
                switch value {
                case .null: return .null
                case .integer(let i): amount = DurationAmount(whole: i)
                case .double(let d): amount = DurationAmount(d)
                default: throw RuntimeValue.typeMismatch(expected: "Integer or Float", value)
                }
                guard let amount else { throw QueryError(.runtime, "Invalid value for \(key) in a duration") }
                builder.add(amount, unit: unit)
            }
            return .temporal(.duration(try runTemporal { () throws(TemporalError) in try builder.build() }))
        default:
            throw RuntimeValue.typeMismatch(expected: "String, Map, or Duration", argument)
        }
    }
}
