// TemporalCodec.swift — the binary form of temporal values in log records and snapshots (value
// tags 9–14, after the eight tags older files use, so those still read). Each type is its few
// integers as varints: signed ones zigzag-encoded, a named zone as its name.

extension ByteWriter {
    mutating func zigzag(_ i: Int64) { varint(UInt64(bitPattern: (i << 1) ^ (i >> 63))) }

    mutating func temporal(_ t: TemporalValue) {
        switch t {
        case .date(let d):
            u8(ValueTag.date.rawValue); zigzag(d.epochDay)
        case .localTime(let lt):
            u8(ValueTag.localTime.rawValue); varint(UInt64(lt.nanosecondOfDay))
        case .time(let ot):
            u8(ValueTag.time.rawValue); varint(UInt64(ot.time.nanosecondOfDay)); zigzag(Int64(ot.offsetSeconds))
        case .localDateTime(let dt):
            u8(ValueTag.localDateTime.rawValue); zigzag(dt.date.epochDay); varint(UInt64(dt.time.nanosecondOfDay))
        case .dateTime(let z):
            u8(ValueTag.dateTime.rawValue)
            zigzag(z.local.date.epochDay); varint(UInt64(z.local.time.nanosecondOfDay))
            zigzag(Int64(z.offsetSeconds)); string(z.zoneName ?? "")
        case .duration(let d):
            u8(ValueTag.duration.rawValue)
            zigzag(d.months); zigzag(d.days); zigzag(d.seconds); varint(UInt64(d.nanoseconds))
        }
    }
}

extension ByteReader {
    mutating func zigzag() throws(CodecError) -> Int64 {
        let z = try varint()
        return Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1)
    }

    mutating func nanosecondOfDay() throws(CodecError) -> LocalTime {
        let n = try varint()
        guard n < UInt64(LocalTime.nanosecondsPerDay) else { throw CodecError(message: "time of day \(n) ns out of range") }
        return LocalTime(nanosecondOfDay: Int64(n))
    }

    mutating func offset() throws(CodecError) -> Int32 {
        let o = try zigzag()
        guard abs(o) <= Int64(TimeZoneRules.maximumOffsetSeconds) else { throw CodecError(message: "offset \(o) s out of range") }
        return Int32(o)
    }

    /// The temporal value after its tag.
    mutating func temporal(tag: ValueTag) throws(CodecError) -> TemporalValue {
        switch tag {
        case .date: return .date(LocalDate(epochDay: try zigzag()))
        case .localTime: return .localTime(try nanosecondOfDay())
        case .time:
            let time = try nanosecondOfDay()
            return .time(OffsetTime(time: time, offsetSeconds: try offset()))
        case .localDateTime:
            let day = try zigzag()
            return .localDateTime(LocalDateTime(date: LocalDate(epochDay: day), time: try nanosecondOfDay()))
        case .dateTime:
            let day = try zigzag()
            let time = try nanosecondOfDay()
            let offset = try offset()
            let zone = try string()
            return .dateTime(ZonedDateTime(local: LocalDateTime(date: LocalDate(epochDay: day), time: time),
                                           offsetSeconds: offset, zoneName: zone.isEmpty ? nil : zone))
        case .duration:
            let months = try zigzag(), days = try zigzag(), seconds = try zigzag()
            let nanos = try varint()
            guard nanos < 1_000_000_000 else { throw CodecError(message: "duration nanoseconds \(nanos) out of range") }
            return .duration(TemporalDuration(months: months, days: days, seconds: seconds, nanoseconds: Int64(nanos)))
        default:
            throw CodecError(message: "value tag \(tag.rawValue) is not a temporal type")
        }
    }
}
