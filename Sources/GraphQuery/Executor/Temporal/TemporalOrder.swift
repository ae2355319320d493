// TemporalOrder.swift — how temporal values compare: `<` and friends between two values of the
// same type (instants for the zoned types, null across types and for durations, which have no
// natural order), and the total order ORDER BY needs, which also ranks the types and orders
// durations by their average length.

import GraphStore

/// Comparison and ordering of temporal values.
enum TemporalOrder {
    /// The sign of `a` against `b`, or nil when they are not comparable.
    static func compare(_ a: TemporalValue, _ b: TemporalValue) -> Int? {
        switch (a, b) {
        case (.date(let x), .date(let y)): return sign(x.epochDay, y.epochDay)
        case (.localTime(let x), .localTime(let y)): return sign(x.nanosecondOfDay, y.nanosecondOfDay)
        case (.time(let x), .time(let y)): return sign(x.utcNanoseconds, y.utcNanoseconds)
        case (.localDateTime(let x), .localDateTime(let y)):
            let p = x.epochSecondAndNano, q = y.epochSecondAndNano
            return p.seconds != q.seconds ? sign(p.seconds, q.seconds) : sign(p.nanos, q.nanos)
        case (.dateTime(let x), .dateTime(let y)):
            let p = x.epochSecondAndNano, q = y.epochSecondAndNano
            return p.seconds != q.seconds ? sign(p.seconds, q.seconds) : sign(p.nanos, q.nanos)
        default: return nil
        }
    }

    /// Rank among the temporal types in ORDER BY (Neo4j's: zoned date-times first, durations last).
    static func rank(_ t: TemporalValue) -> Int {
        switch t {
        case .dateTime: return 0
        case .localDateTime: return 1
        case .date: return 2
        case .time: return 3
        case .localTime: return 4
        case .duration: return 5
        }
    }

    /// The total order: by type, then by value; ties of equal instants broken by offset and zone.
    static func order(_ a: TemporalValue, _ b: TemporalValue) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        if let c = compare(a, b), c != 0 { return c }
        switch (a, b) {
        case (.time(let x), .time(let y)): return sign(Int64(x.offsetSeconds), Int64(y.offsetSeconds))
        case (.dateTime(let x), .dateTime(let y)):
            if x.offsetSeconds != y.offsetSeconds { return sign(Int64(x.offsetSeconds), Int64(y.offsetSeconds)) }
            let p = x.zoneName ?? "", q = y.zoneName ?? ""
            return p < q ? -1 : (p == q ? 0 : 1)
        case (.duration(let x), .duration(let y)):
            let p = x.approximateSeconds, q = y.approximateSeconds
            if p != q { return p < q ? -1 : 1 }
            for (u, v) in [(x.months, y.months), (x.days, y.days), (x.seconds, y.seconds), (x.nanoseconds, y.nanoseconds)] where u != v {
                return sign(u, v)
            }
            return 0
        default: return 0
        }
    }

    static func sign(_ x: Int64, _ y: Int64) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
}
