// TemporalType.swift — the six temporal types by name, and reading any of them from its ISO 8601
// text: what a typed import column (`at:datetime`) and the `date('…')`-style constructors share.
// Zoned text without a zone is in UTC, graphd's default time zone.

import Foundation

/// A temporal type, named as its Cypher constructor is.
public enum TemporalType: String, Sendable, CaseIterable {
    case date, localTime = "localtime", time, localDateTime = "localdatetime", dateTime = "datetime", duration
}

extension TemporalParser {
    /// A value of `type` from its text.
    public static func parse(_ text: String, as type: TemporalType) throws(TemporalError) -> TemporalValue {
        switch type {
        case .date: return .date(try parseDate(text))
        case .localTime: return .localTime(try parseTime(text).time)
        case .time:
            let p = try parseTime(text)
            var offset = p.offset ?? 0
            if p.offset == nil, let name = p.zoneName {
                // A time has no date to look the zone's offset up on: today's offset applies.
                guard let zone = TimeZoneRules.zone(named: name) else { throw TemporalError("Unknown time zone: '\(name)'") }
                offset = TimeZoneRules.offset(zone, atEpochSecond: Int64(Date().timeIntervalSince1970))
            }
            return .time(OffsetTime(time: p.time, offsetSeconds: offset))
        case .localDateTime:
            let (date, p) = try parseDateAndTime(text)
            return .localDateTime(LocalDateTime(date: date, time: p.time))
        case .dateTime:
            return .dateTime(try parseDateTime(text) { () throws(TemporalError) in (0, nil) })
        case .duration: return .duration(try parseDuration(text))
        }
    }
}
