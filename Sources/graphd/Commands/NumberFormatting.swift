// NumberFormatting.swift — C printf formatting of doubles, because FalkorDB's replies are
// defined by it: `%.15g` for a top-level double, `%f` inside lists and maps, `%.6f` for
// the execution time. Swift's own description would print `3.0`, `1e-07` differently.

import Glibc

/// printf-style double formatting through the C library.
enum NumberFormatting {
    /// `%.15g`: `3.14`, `3`, `0.333333333333333`, `1e-07`, `inf`, `-nan`.
    static func shortest(_ value: Double) -> String { format("%.15g", value) }
    /// `%f`: six decimals, `3.000000`.
    static func fixed(_ value: Double) -> String { format("%f", value) }
    /// `%.6f`, as in `Query internal execution time: 0.208440 milliseconds`.
    static func milliseconds(_ value: Double) -> String { format("%.6f", value) }

    /// Any one-double printf pattern.
    static func format(_ pattern: String, _ value: Double) -> String {
        // 512 bytes holds any %f of a finite double up to ~1e308 with 6 decimals.
        var buffer = [CChar](repeating: 0, count: 512)
        let written = withVaList([value]) { args in
            vsnprintf(&buffer, buffer.count, pattern, args)
        }
        guard written >= 0 else { return String(value) }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
