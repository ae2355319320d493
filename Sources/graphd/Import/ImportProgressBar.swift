// ImportProgressBar.swift — the import's progress line on a terminal: a bar by bytes read,
// rows, rows per second and the time left, redrawn in place at most ten times a second.

import Glibc

/// Draws import progress on standard error.
struct ImportProgressBar {
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant?
    private(set) var drawn = false

    init() { started = clock.now }

    /// Redraws for `rows` of `bytesRead`/`bytesTotal` (throttled unless `force`).
    mutating func update(rows: Int, bytesRead: Int, bytesTotal: Int, force: Bool = false) {
        let now = clock.now
        if !force, let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        drawn = true
        Terminal.write(Self.line(rows: rows, bytesRead: bytesRead, bytesTotal: bytesTotal,
                                 seconds: REPLSession.milliseconds(now - started) / 1000), to: STDERR_FILENO)
    }

    /// Ends the progress line so the summary starts on a clean one.
    func finish() {
        if drawn { Terminal.write("\r\u{1B}[K", to: STDERR_FILENO) }
    }

    /// `\r[#########...........]  45%  2,300,000 rows  1.2M rows/s  ETA 1s`.
    static func line(rows: Int, bytesRead: Int, bytesTotal: Int, seconds: Double) -> String {
        let fraction = bytesTotal > 0 ? min(1, Double(bytesRead) / Double(bytesTotal)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let rate = seconds > 0 ? Double(rows) / seconds : 0
        var text = "\r[\(bar)] \(Int(fraction * 100))%  \(grouped(rows)) rows  \(compact(rate)) rows/s"
        if fraction > 0.01 && fraction < 1 {
            let remaining = seconds * (1 - fraction) / fraction
            text += "  ETA \(Int(remaining.rounded(.up)))s"
        }
        return text + "\u{1B}[K"
    }

    /// 1234567 → "1,234,567".
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// 1_234_567 → "1.2M".
    static func compact(_ x: Double) -> String {
        if x >= 1e6 { return "\(Double(Int(x / 1e5)) / 10)M" }
        if x >= 1e3 { return "\(Double(Int(x / 1e2)) / 10)k" }
        return String(Int(x))
    }
}
