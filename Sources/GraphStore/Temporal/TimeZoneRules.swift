// TimeZoneRules.swift — offsets from UTC: parsing and printing `+01:00`-style offsets, and the
// offset a named IANA zone has at an instant or for a wall-clock time, from Foundation's time
// zone database. A wall-clock time in a daylight-saving gap or overlap resolves as java.time
// (and so Neo4j) resolves it: a gap moves the time later by the gap's length, an overlap takes
// the earlier offset.

import Foundation

/// Offsets and named time zones.
public enum TimeZoneRules {
    /// The largest offset either way, ±18:00, as ISO 8601 and java.time allow.
    public static let maximumOffsetSeconds: Int32 = 18 * 3600

    /// The zone named `name` (`Europe/Stockholm`), or nil when the database does not know it.
    public static func zone(named name: String) -> TimeZone? {
        // IANA names only: letters, digits, `_`, `+`, `-` and `/` between non-dot parts, so no
        // name can lead the lookup out of the zone database's folder.
        guard !name.isEmpty, name.utf8.count <= 64, !name.hasPrefix("+"), !name.hasPrefix("-"),
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_+-/".unicodeScalars.contains($0)) }),
              !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else { return nil }
        return TimeZone(identifier: name)
    }

    /// Seconds east of UTC in zone `zone` at `epochSecond`.
    public static func offset(_ zone: TimeZone, atEpochSecond epochSecond: Int64) -> Int32 {
        Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(epochSecond))))
    }

    /// The instant and offset for wall-clock `local` in `zone`; `preferredOffset` picks between
    /// the two offsets of an overlap when it is one of them.
    public static func resolve(_ local: LocalDateTime, in zone: TimeZone, zoneName: String,
                               preferredOffset: Int32? = nil) -> ZonedDateTime {
        let (wall, nanos) = local.epochSecondAndNano
        // Transitions are far more than two days apart, so the offsets a day either side are
        // the ones in force before and after any transition near this wall-clock time.
        let before = offset(zone, atEpochSecond: wall - 86_400 * 2)
        let after = offset(zone, atEpochSecond: wall + 86_400 * 2)
        var valid: [Int32] = []
        for candidate in [before, after] where !valid.contains(candidate) {
            if offset(zone, atEpochSecond: wall - Int64(candidate)) == candidate { valid.append(candidate) }
        }
        if valid.isEmpty {
            // No transition nearby after all (the offsets differ only across the window):
            // try the offset at the wall time read as UTC.
            let guess = offset(zone, atEpochSecond: wall)
            if offset(zone, atEpochSecond: wall - Int64(guess)) == guess { valid.append(guess) }
        }
        let chosen: Int32
        let instant: Int64
        if valid.isEmpty {
            // A gap: read the wall time with the offset before it, which lands after the gap.
            instant = wall - Int64(before)
            chosen = offset(zone, atEpochSecond: instant)
        } else {
            chosen = preferredOffset.flatMap { valid.contains($0) ? $0 : nil } ?? valid[0]
            instant = wall - Int64(chosen)
        }
        return ZonedDateTime(local: LocalDateTime(epochSecond: instant + Int64(chosen), nanos: nanos),
                             offsetSeconds: chosen, zoneName: zoneName)
    }

    /// The zoned date-time of an instant in `zone`.
    public static func atInstant(epochSecond: Int64, nanos: Int64, in zone: TimeZone, zoneName: String) -> ZonedDateTime {
        let o = offset(zone, atEpochSecond: epochSecond)
        return ZonedDateTime(local: LocalDateTime(epochSecond: epochSecond + Int64(o), nanos: nanos),
                             offsetSeconds: o, zoneName: zoneName)
    }

    /// An offset written `Z`, `±HH`, `±HHMM`, `±HH:MM`, `±HHMMSS` or `±HH:MM:SS`; nil otherwise
    /// or beyond ±18:00.
    public static func parseOffset<S: StringProtocol>(_ text: S) -> Int32? {
        if text == "Z" || text == "z" { return 0 }
        let chars = Array(text.utf8)
        guard let sign = chars.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        var digits: [Int32] = []
        var i = 1
        var colons = 0
        while i < chars.count {
            let c = chars[i]
            if c == UInt8(ascii: ":") {
                // Colons separate two-digit groups only.
                guard digits.count % 2 == 0, digits.count > 0 else { return nil }
                colons += 1
            } else if c >= 48 && c <= 57 {
                digits.append(Int32(c - 48))
            } else {
                return nil
            }
            i += 1
        }
        guard [2, 4, 6].contains(digits.count), colons == 0 || colons == digits.count / 2 - 1 else { return nil }
        let hours = digits[0] * 10 + digits[1]
        let minutes = digits.count >= 4 ? digits[2] * 10 + digits[3] : 0
        let seconds = digits.count == 6 ? digits[4] * 10 + digits[5] : 0
        guard minutes < 60, seconds < 60 else { return nil }
        let total = hours * 3600 + minutes * 60 + seconds
        guard total <= maximumOffsetSeconds else { return nil }
        return sign == UInt8(ascii: "-") ? -total : total
    }

    /// `Z` for zero, else `±HH:MM`, with `:SS` only when the offset has seconds.
    public static func format(offset: Int32) -> String {
        if offset == 0 { return "Z" }
        let sign = offset < 0 ? "-" : "+"
        let a = abs(offset)
        var out = sign + twoDigits(Int64(a / 3600)) + ":" + twoDigits(Int64(a / 60 % 60))
        if a % 60 != 0 { out += ":" + twoDigits(Int64(a % 60)) }
        return out
    }
}

@inline(__always) func twoDigits(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
