// TemporalDuration.swift — building durations from amounts of named units and the arithmetic
// of durations among themselves. A fraction of a unit cascades into the smaller units as Neo4j
// does it (a month is 30.436875 days, the Gregorian average; a day is 86,400 seconds), so
// `P0.75M` is `P22DT19H51M49.5S`; whole amounts never go through floating point.

import Foundation

/// A signed amount of one unit: an exact whole part and a fraction of the same sign.
public struct DurationAmount: Sendable {
    public var whole: Int64
    public var fraction: Double

    public init(whole: Int64, fraction: Double = 0) { self.whole = whole; self.fraction = fraction }

    /// A float amount; nil when it is not finite or too large for 64 bits.
    public init?(_ value: Double) {
        guard value.isFinite, abs(value) < 9.2e18 else { return nil }
        let w = value.rounded(.towardZero)
        self.init(whole: Int64(w), fraction: value - w)
    }

    /// `12`, `-1.5`, `0.75`: decimal text.
    public init?<S: StringProtocol>(_ text: S) {
        if let i = Int64(text) { self.init(whole: i); return }
        guard let d = Double(String(text)) else { return nil }
        self.init(d)
    }
}

/// The units a duration is built from.
public enum DurationUnit: String, Sendable, CaseIterable {
    case years, quarters, months, weeks, days, hours, minutes, seconds, milliseconds, microseconds, nanoseconds
}

/// Accumulates amounts of units into a duration.
public struct DurationBuilder: Sendable {
    var months: Int64 = 0, days: Int64 = 0, seconds: Int64 = 0, nanos: Int64 = 0
    var monthsFraction = 0.0, daysFraction = 0.0, secondsFraction = 0.0, nanosFraction = 0.0
    var overflow = false

    public init() {}

    public mutating func add(_ amount: DurationAmount, unit: DurationUnit) {
        func accumulate(_ total: inout Int64, _ fraction: inout Double, _ factor: Int64) {
            let (product, o1) = amount.whole.multipliedReportingOverflow(by: factor)
            let (sum, o2) = total.addingReportingOverflow(product)
            overflow = overflow || o1 || o2
            total = sum
            fraction += amount.fraction * Double(factor)
        }
        switch unit {
        case .years: accumulate(&months, &monthsFraction, 12)
        case .quarters: accumulate(&months, &monthsFraction, 3)
        case .months: accumulate(&months, &monthsFraction, 1)
        case .weeks: accumulate(&days, &daysFraction, 7)
        case .days: accumulate(&days, &daysFraction, 1)
        case .hours: accumulate(&seconds, &secondsFraction, 3600)
        case .minutes: accumulate(&seconds, &secondsFraction, 60)
        case .seconds: accumulate(&seconds, &secondsFraction, 1)
        case .milliseconds: accumulate(&nanos, &nanosFraction, 1_000_000)
        case .microseconds: accumulate(&nanos, &nanosFraction, 1000)
        case .nanoseconds: accumulate(&nanos, &nanosFraction, 1)
        }
    }

    /// The duration, fractions cascaded down to the nanosecond.
    public func build() throws(TemporalError) -> TemporalDuration {
        guard !overflow else { throw TemporalError("Duration is too large to represent") }
        var months = self.months, days = self.days, seconds = self.seconds, nanos = self.nanos
        // Whole units a fraction adds up to stay in their unit (12.5 years is 150 months).
        let wholeMonths = monthsFraction.rounded(.towardZero)
        months += Int64(wholeMonths)
        var dayFraction = daysFraction + (monthsFraction - wholeMonths) * 30.436875
        let wholeDays = dayFraction.rounded(.towardZero)
        dayFraction -= wholeDays
        var secondFraction = secondsFraction + dayFraction * 86_400
        let wholeSeconds = secondFraction.rounded(.towardZero)
        secondFraction -= wholeSeconds
        // The fractions are below a few units each, so only the sums can overflow.
        let (d, o1) = days.addingReportingOverflow(Int64(wholeDays))
        let (s0, o2) = seconds.addingReportingOverflow(Int64(wholeSeconds))
        guard !o1, !o2 else { throw TemporalError("Duration is too large to represent") }
        days = d; seconds = s0
        // Truncated as Neo4j truncates (half a nanosecond is none), after a nudge of a thousandth
        // of a nanosecond so 0.1 s computed as 99,999,999.99999 ns is still 100,000,000.
        let fractionalNanos = nanosFraction + secondFraction * 1e9
        let (n, o3) = nanos.addingReportingOverflow(Int64((fractionalNanos + (fractionalNanos < 0 ? -1e-3 : 1e-3)).rounded(.towardZero)))
        guard !o3 else { throw TemporalError("Duration is too large to represent") }
        nanos = n
        let (s, o) = seconds.addingReportingOverflow(floorDiv(nanos, 1_000_000_000))
        guard !o else { throw TemporalError("Duration is too large to represent") }
        return TemporalDuration(months: months, days: days, seconds: s, nanoseconds: floorMod(nanos, 1_000_000_000))
    }
}

extension TemporalDuration {
    /// Every component negated.
    public func negated() throws(TemporalError) -> TemporalDuration {
        // -1.5 s is -2 s and 500,000,000 ns: the seconds of a negation with nanoseconds are one
        // lower, and Int64.min has no negation.
        guard months != .min, days != .min, seconds > .min + 1 else { throw TemporalError("Duration is too large to represent") }
        return TemporalDuration(months: -months, days: -days, seconds: -seconds, nanoseconds: -nanoseconds)
    }

    /// Component-wise sum; nil on overflow.
    public func plus(_ o: TemporalDuration) -> TemporalDuration? {
        let (m, a) = months.addingReportingOverflow(o.months)
        let (d, b) = days.addingReportingOverflow(o.days)
        let (s, c) = seconds.addingReportingOverflow(o.seconds)
        if a || b || c { return nil }
        let n = nanoseconds + o.nanoseconds
        if n >= 1_000_000_000 && s == .max { return nil }
        return TemporalDuration(months: m, days: d, seconds: s, nanoseconds: n)
    }

    /// Every component multiplied by an integer; nil on overflow.
    public func times(_ k: Int64) -> TemporalDuration? {
        let (m, a) = months.multipliedReportingOverflow(by: k)
        let (d, b) = days.multipliedReportingOverflow(by: k)
        let (s, c) = seconds.multipliedReportingOverflow(by: k)
        let (n, e) = nanoseconds.multipliedReportingOverflow(by: k)
        if a || b || c || e { return nil }
        let (total, f) = s.addingReportingOverflow(floorDiv(n, 1_000_000_000))
        if f { return nil }
        return TemporalDuration(months: m, days: d, seconds: total, nanoseconds: floorMod(n, 1_000_000_000))
    }

    /// Every component multiplied by a float, fractions cascading into smaller units.
    public func times(_ f: Double) throws(TemporalError) -> TemporalDuration { try scaled { $0 * f } }

    /// Every component divided by a float, fractions cascading into smaller units.
    public func divided(by f: Double) throws(TemporalError) -> TemporalDuration { try scaled { $0 / f } }

    private func scaled(_ transform: (Double) -> Double) throws(TemporalError) -> TemporalDuration {
        var b = DurationBuilder()
        for (value, unit) in [(transform(Double(months)), DurationUnit.months), (transform(Double(days)), .days),
                              (transform(Double(seconds)), .seconds), (transform(Double(nanoseconds)), .nanoseconds)] {
            guard let amount = DurationAmount(value) else { throw TemporalError("Duration is too large to represent") }
            b.add(amount, unit: unit)
        }
        return try b.build()
    }

    /// Seconds with the nanoseconds as a fraction, and the average lengths of a month and a day:
    /// the order ORDER BY gives durations.
    public var approximateSeconds: Double {
        Double(months) * 2_629_746 + Double(days) * 86_400 + Double(seconds) + Double(nanoseconds) / 1e9
    }
}
