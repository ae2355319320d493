// Timing.swift — the harness's clock and latency summaries: monotonic nanoseconds around each
// call, then percentiles (nearest rank) over all samples of one operation.

import Glibc

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC: a vDSO call, ~20 ns).
func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Latency figures of one operation, in microseconds.
struct LatencySummary: Codable, Sendable {
    var count: Int
    var p50: Double
    var p95: Double
    var p99: Double
    var max: Double
    var mean: Double
    /// Calls per second at one call at a time (count / summed latency), or measured wall rate.
    var throughput: Double

    init(nanoseconds samples: [UInt64], wallNanoseconds: UInt64? = nil) {
        let sorted = samples.sorted()
        count = sorted.count
        func rank(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let i = Swift.min(sorted.count - 1, Swift.max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
            return Double(sorted[i]) / 1000
        }
        p50 = rank(50); p95 = rank(95); p99 = rank(99)
        max = Double(sorted.last ?? 0) / 1000
        let total = sorted.reduce(0, +)
        mean = sorted.isEmpty ? 0 : Double(total) / Double(sorted.count) / 1000
        let denominator = wallNanoseconds ?? total
        throughput = denominator == 0 ? 0 : Double(sorted.count) / (Double(denominator) / 1e9)
    }
}

/// A number for a table cell: µs below 1 ms, else ms or s, with 2–3 significant digits.
func formatMicroseconds(_ us: Double) -> String {
    if us < 10 { return String(format2: us, decimals: 2) + " µs" }
    if us < 1000 { return String(format2: us, decimals: us < 100 ? 1 : 0) + " µs" }
    if us < 1_000_000 { return String(format2: us / 1000, decimals: us < 10_000 ? 2 : 1) + " ms" }
    return String(format2: us / 1_000_000, decimals: 2) + " s"
}

extension String {
    /// Fixed decimals without Foundation's locale-dependent formatting.
    init(format2 value: Double, decimals: Int) {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if let dot = text.firstIndex(of: ".") {
            let have = text.distance(from: dot, to: text.endIndex) - 1
            if decimals == 0 { text = String(text[..<dot]) } else if have < decimals { text += String(repeating: "0", count: decimals - have) }
        }
        self = text
    }
}
