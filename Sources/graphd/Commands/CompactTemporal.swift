// CompactTemporal.swift — temporal values in the compact reply, as FalkorDB sends them: a type
// number (13 datetime, 14 date, 15 time, 16 duration) and one integer of seconds. FalkorDB has no
// local types on the wire, so a localdatetime goes as a datetime read as UTC and a localtime as a
// time; sub-second digits, offsets and zone names do not survive (the verbose reply keeps them
// all, as ISO 8601 text).

import GraphQuery
import GraphStore

/// The compact encoding of temporal values.
enum CompactTemporal {
    /// FalkorDB's epoch for a time of day: 1900-01-01T00:00Z, in Unix seconds (its `03:04:05`
    /// arrives as -2208977755).
    static let timeEpoch: Int64 = -2_208_988_800

    static func valueType(of t: TemporalValue) -> CompactResultSetReply.ValueType {
        switch t {
        case .dateTime, .localDateTime: return .datetime
        case .date: return .date
        case .time, .localTime: return .time
        case .duration: return .duration
        }
    }

    /// What a compact temporal value (type 13–16 and its seconds) says, as a value: a datetime
    /// in UTC, a date, a local time, a duration of seconds. The REPL reads a server's replies so.
    static func decode(type: Int64, seconds s: Int64) -> TemporalValue? {
        switch type {
        case 13: return .dateTime(ZonedDateTime(local: LocalDateTime(epochSecond: s, nanos: 0), offsetSeconds: 0, zoneName: nil))
        case 14: return .date(LocalDate(epochDay: floorDiv(s, 86_400)))
        case 15: return .localTime(LocalTime(nanosecondOfDay: floorMod(s - timeEpoch, 86_400) * 1_000_000_000))
        case 16: return .duration(TemporalDuration(months: 0, days: 0, seconds: s, nanoseconds: 0))
        default: return nil
        }
    }

    /// Unix seconds of the instant (a local value read as UTC); for a time, seconds after
    /// FalkorDB's time epoch; for a duration, its length with a month of 30.436875 days.
    static func seconds(of t: TemporalValue) -> Int64 {
        switch t {
        case .dateTime(let z): return z.epochSecondAndNano.seconds
        case .localDateTime(let dt): return dt.epochSecondAndNano.seconds
        case .date(let d): return d.epochDay &* 86_400
        case .time(let ot): return timeEpoch + ot.time.nanosecondOfDay / 1_000_000_000
        case .localTime(let lt): return timeEpoch + lt.nanosecondOfDay / 1_000_000_000
        case .duration(let d):
            let s = d.approximateSeconds
            return s.isFinite && abs(s) < 9e18 ? Int64(s.rounded(.towardZero)) : 0
        }
    }
}
