// ChangeRetention.swift — how much log a graph keeps past its snapshot (--change-retention).
// A snapshot makes the segments before it unnecessary for recovery, but subscribers resuming
// from a token, GRAPH.CHANGES and replicas read commits back from those segments. Retention
// keeps them for a time or up to a size; a position older than what is kept gets a reset, never
// a gap. The newest segments (those after the snapshot) are always kept.

/// How long, or how much, log is kept past the newest snapshot.
public enum ChangeRetention: Sendable, Equatable, CustomStringConvertible {
    /// Only what recovery needs (the segments after the newest snapshot).
    case none
    /// Segments whose newest commit is at most this many seconds old.
    case age(seconds: UInt64)
    /// The newest covered segments, up to this many bytes in all.
    case size(bytes: Int)

    /// Parses `0`, a duration (`90s`, `15m`, `24h`, `7d`) or a size (`512kb`, `64mb`, `1gb`).
    public init?(_ text: String) {
        let lower = text.lowercased()
        if lower == "0" || lower == "none" { self = .none; return }
        let digits = lower.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let n = UInt64(digits) else { return nil }
        let unit = lower.dropFirst(digits.count)
        let seconds: [Substring: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let bytes: [Substring: UInt64] = ["b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30]
        if let scale = seconds[unit], n <= UInt64.max / scale {
            self = n == 0 ? .none : .age(seconds: n * scale)
        } else if let scale = bytes[unit], n <= UInt64(Int.max) / scale {
            self = n == 0 ? .none : .size(bytes: Int(n * scale))
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .none: "0"
        case .age(let seconds): "\(seconds)s"
        case .size(let bytes): "\(bytes)b"
        }
    }

    /// Which of the segments below the newest snapshot (`covered`, ascending) to delete; the
    /// rest are kept. `sizeOf` and `startOf` (a segment's first commit) read the files;
    /// `firstAfter` is the first commit of the segment after the last covered one.
    func segmentsToDelete(covered: [UInt64], now milliseconds: UInt64, sizeOf: (UInt64) -> Int,
                          startOf: (UInt64) -> LogReader.SegmentStart?) -> [UInt64] {
        switch self {
        case .none:
            return covered
        case .size(let limit):
            var kept = 0, keepFrom = covered.count
            for (position, number) in covered.enumerated().reversed() {
                kept += sizeOf(number)
                if kept > limit { break }
                keepFrom = position
            }
            return Array(covered[..<keepFrom])
        case .age(let seconds):
            // A segment's newest commit is no later than the next segment's first: keep it while
            // that one is young enough (an empty or unreadable next one counts as now).
            let horizon = milliseconds > seconds * 1000 ? milliseconds - seconds * 1000 : 0
            var delete: [UInt64] = []
            for (position, number) in covered.enumerated() {
                let next = position + 1 < covered.count ? covered[position + 1] : number + 1
                guard let start = startOf(next), start.commitTime > 0, start.commitTime < horizon else { break }
                delete.append(number)
            }
            return delete
        }
    }
}
