// TemporalFunctions.swift — the temporal functions' signatures and bodies: the constructors,
// `*.truncate`, `duration.between` / `inMonths` / `inDays` / `inSeconds`, the clocks
// (`*.transaction()`, `*.statement()`, `*.realtime()`) and `datetime.fromEpoch[Millis]`.
// A query's transaction and statement clocks are one reading, taken the first time one is used.

import Foundation
import GraphStore

/// Signatures of the temporal functions, added to FunctionCatalog.
enum TemporalFunctionCatalog {
    static var signatures: [FunctionSignature] {
        var all: [FunctionSignature] = []
        for kind in ["date", "localtime", "time", "localdatetime", "datetime"] {
            all.append(.init(name: kind, kind: .scalar, minArguments: 0, maxArguments: 1))
            all.append(.init(name: kind + ".truncate", kind: .scalar, minArguments: 2, maxArguments: 3))
            for clock in ["transaction", "statement", "realtime"] {
                all.append(.init(name: kind + "." + clock, kind: .scalar, minArguments: 0, maxArguments: 1))
            }
        }
        all.append(.init(name: "duration", kind: .scalar, minArguments: 1, maxArguments: 1))
        for name in ["duration.between", "duration.inmonths", "duration.indays", "duration.inseconds", "datetime.fromepoch"] {
            all.append(.init(name: name, kind: .scalar, minArguments: 2, maxArguments: 2))
        }
        all.append(.init(name: "datetime.fromepochmillis", kind: .scalar, minArguments: 1, maxArguments: 1))
        return all
    }
}

extension ScalarFunction {
    /// The constructor kind of `date`, `date.truncate`, `date.statement`, …
    var temporalKind: TemporalKind? {
        switch rawValue.split(separator: ".").first {
        case "date": return .date
        case "localtime": return .localTime
        case "time": return .time
        case "localdatetime": return .localDateTime
        case "datetime": return .dateTime
        default: return nil
        }
    }

    /// True for the clock functions, which take an optional zone and treat null as none.
    var isTemporalClock: Bool {
        rawValue.hasSuffix(".transaction") || rawValue.hasSuffix(".statement") || rawValue.hasSuffix(".realtime")
    }
}

extension ExecutionContext {
    /// The statement's clock reading, taken once per query.
    func statementNow() -> (seconds: Int64, nanos: Int64) {
        if let clock = statementClock { return clock }
        let clock = Self.realNow()
        statementClock = clock
        return clock
    }

    static func realNow() -> (seconds: Int64, nanos: Int64) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return (Int64(ts.tv_sec), Int64(ts.tv_nsec))
    }

    /// Runs temporal function `function`, or returns nil when it is not one.
    func callTemporal(_ function: ScalarFunction, _ arguments: [RuntimeValue]) throws(QueryError) -> RuntimeValue? {
        switch function {
        case .date, .localtime, .time, .localdatetime, .datetime:
            return try TemporalConstruction.make(function.temporalKind!, arguments) { [unowned(unsafe) self] in self.statementNow() }
        case .duration:
            return try TemporalConstruction.duration(arguments[0])
        case .dateTruncate, .localtimeTruncate, .timeTruncate, .localdatetimeTruncate, .datetimeTruncate:
            return try truncate(function.temporalKind!, arguments)
        case .durationBetween, .durationInMonths, .durationInDays, .durationInSeconds:
            guard case .temporal(let from) = arguments[0], !from.isDuration else {
                throw RuntimeValue.typeMismatch(expected: "a temporal value", arguments[0])
            }
            guard case .temporal(let to) = arguments[1], !to.isDuration else {
                throw RuntimeValue.typeMismatch(expected: "a temporal value", arguments[1])
            }
            let unit: DurationBetween.Unit? = switch function {
            case .durationInMonths: .months
            case .durationInDays: .days
            case .durationInSeconds: .seconds
            default: nil
            }
            return .temporal(.duration(try runTemporal { () throws(TemporalError) in try DurationBetween.between(from, to, unit: unit) }))
        case .datetimeFromEpoch, .datetimeFromEpochMillis:
            var fields: [String: RuntimeValue] = [:]
            if function == .datetimeFromEpoch { fields["epochseconds"] = arguments[0]; fields["nanosecond"] = arguments[1] }
            else { fields["epochmillis"] = arguments[0] }
            return .temporal(try runTemporal { () throws(TemporalError) in
                .dateTime(try TemporalConstruction.fromEpoch(fields, zone: TemporalConstruction.defaultZone))
            })
        default:
            guard function.isTemporalClock, let kind = function.temporalKind else { return nil }
            let (s, n) = function.rawValue.hasSuffix(".realtime") ? Self.realNow() : statementNow()
            var zone = TemporalConstruction.defaultZone
            switch arguments.first ?? .null {
            case .null: break
            case .string(let text): zone = try runTemporal { () throws(TemporalError) in try ZoneSpec.parse(text) }
            case .map(let keys, let values):
                if let i = keys.firstIndex(where: { $0.lowercased() == "timezone" }), case .string(let text) = values[i] {
                    zone = try runTemporal { () throws(TemporalError) in try ZoneSpec.parse(text) }
                }
            case let other: throw RuntimeValue.typeMismatch(expected: "String or Null", other)
            }
            return .temporal(TemporalConstruction.project(zone.atInstant(seconds: s, nanos: n), kind))
        }
    }

    /// `kind.truncate(unit, value[, fields])`: `value` cut down to `unit`, then `fields` set.
    func truncate(_ kind: TemporalKind, _ arguments: [RuntimeValue]) throws(QueryError) -> RuntimeValue {
        guard case .string(let unitName) = arguments[0] else { throw RuntimeValue.typeMismatch(expected: "String", arguments[0]) }
        guard case .temporal(let value) = arguments[1], !value.isDuration else {
            throw RuntimeValue.typeMismatch(expected: "a temporal value", arguments[1])
        }
        var fields: [String: RuntimeValue] = [:]
        if arguments.count > 2 {
            guard case .map(let keys, let values) = arguments[2] else { throw RuntimeValue.typeMismatch(expected: "Map", arguments[2]) }
            for (k, v) in zip(keys, values) { fields[k.lowercased()] = v }
        }
        return .temporal(try runTemporal { () throws(TemporalError) in
            var parts = TemporalParts(value)
            let unit = unitName.lowercased()
            let dateUnits: Set<String> = ["millennium", "century", "decade", "year", "weekyear", "quarter", "month", "week", "day"]
            let timeUnits: [String: Int64] = ["hour": 3_600_000_000_000, "minute": 60_000_000_000, "second": 1_000_000_000,
                                              "millisecond": 1_000_000, "microsecond": 1000]
            if dateUnits.contains(unit) {
                if kind.hasDate {
                    guard let d = parts.date else { throw TemporalError("Cannot truncate a \(value.typeName) to a \(kind.name)") }
                    parts.date = try truncateDate(d, unit)
                } else if unit != "day" {
                    throw TemporalError("Cannot truncate a \(kind.name) to unit '\(unitName)'")
                }
                parts.time = LocalTime(nanosecondOfDay: 0)
            } else if let size = timeUnits[unit] {
                if kind == .date { throw TemporalError("Cannot truncate a date to unit '\(unitName)'") }
                let t = parts.time?.nanosecondOfDay ?? 0
                parts.time = LocalTime(nanosecondOfDay: t - t % size)
            } else {
                throw TemporalError("Unknown truncation unit '\(unitName)'")
            }
            if kind.hasDate, parts.date == nil { throw TemporalError("Cannot truncate a \(value.typeName) to a \(kind.name)") }
            return try TemporalConstruction.fromFields(kind, fields, base: parts, convertZone: false) { [unowned(unsafe) self] in
                self.statementNow()
            }
        })
    }

    func truncateDate(_ d: LocalDate, _ unit: String) throws(TemporalError) -> LocalDate {
        let (y, m, _) = CivilCalendar.civil(d.epochDay)
        func first(_ year: Int64, _ month: Int64 = 1) -> LocalDate {
            LocalDate(epochDay: CivilCalendar.epochDay(year: year, month: month, day: 1))
        }
        switch unit {
        case "millennium": return first(floorDiv(y, 1000) * 1000)
        case "century": return first(floorDiv(y, 100) * 100)
        case "decade": return first(floorDiv(y, 10) * 10)
        case "year": return first(y)
        case "weekyear": return LocalDate(epochDay: CivilCalendar.firstDayOfWeekYear(CivilCalendar.isoWeek(d.epochDay).weekYear))
        case "quarter": return first(y, (m - 1) / 3 * 3 + 1)
        case "month": return first(y, m)
        case "week": return LocalDate(epochDay: d.epochDay - CivilCalendar.dayOfWeek(d.epochDay) + 1)
        default: return d
        }
    }
}

extension TemporalValue {
    var isDuration: Bool { if case .duration = self { return true } else { return false } }
}
