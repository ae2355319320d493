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
    /// `%.6f`, as in `Query internal execution time: 0.208440 milliseconds`. Every reply
    /// carries one, so times under a day are printed from integers (printf's buffer, va_list
    /// and parsing cost more than the point lookup the line reports on).
    static func milliseconds(_ value: Double) -> String {
        withMilliseconds(value) { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` given `milliseconds(value)`'s bytes, from a stack buffer: the reply writes them
    /// without a String in between.
    static func withMilliseconds<R>(_ value: Double, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard value >= 0, value < 86_400_000 else { return Array(format("%.6f", value).utf8).withUnsafeBufferPointer(body) }
        // printf rounds the exact binary value; the product is rounded once already, so
        // correct it by the exact remainder (a fused multiply-add computes it without rounding).
        var rounded = (value * 1_000_000).rounded(.toNearestOrEven)
        let remainder = (-rounded).addingProduct(value, 1_000_000)
        // (`rounded` is a whole number below 2^47: its parity is its integer's.)
        let odd = UInt64(rounded) & 1 != 0
        if remainder > 0.5 || (remainder == 0.5 && odd) {
            rounded += 1
        } else if remainder < -0.5 || (remainder == -0.5 && odd) {
            rounded -= 1
        }
        // Written back to front: six fraction digits, the point, then the whole part (under
        // 86,400,000: at most 8 digits, 15 bytes in all).
        var millionths = UInt64(rounded)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { text in
            var i = 16
            func digit() {
                i -= 1
                text[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: millionths % 10)
                millionths /= 10
            }
            for _ in 0..<6 { digit() }
            i -= 1
            text[i] = UInt8(ascii: ".")
            repeat { digit() } while millionths > 0
            return body(UnsafeBufferPointer(rebasing: text[i..<16]))
        }
    }

    /// Any one-double printf pattern.
    static func format(_ pattern: String, _ value: Double) -> String {
        // 512 bytes holds any %f of a finite double up to ~1e308 with 6 decimals.
        var buffer = [CChar](repeating: 0, count: 512)
        let written = withVaList([value]) { args in
            vsnprintf(&buffer, buffer.count, pattern, args)
        }
        guard written >= 0 else { return String(value) }
        return String(nulTerminated: buffer)
    }
}
