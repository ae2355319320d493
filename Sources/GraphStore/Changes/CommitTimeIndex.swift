// CommitTimeIndex.swift — maps a wall-clock time to the commits made before it.
// Apps validate caches with the time they last fetched ("friends as of 10:00"); graphd answers
// with sequence numbers. A point (t, s) says: every commit up to sequence s was made before
// time t. Looking up t takes the largest
// s among points at or before t: a lower bound of the true answer, so fewer points only make an
// answer "changed" more often, never "unchanged" wrongly. That is what lets the index thin out
// its older points to stay bounded.

/// Sampled (commit time, sequence) points of one graph's commits; bounded in memory.
struct CommitTimeIndex: Sendable {
    /// Points (time in ms, last sequence committed strictly before that time), ascending in both.
    private(set) var times: [UInt64] = []
    private(set) var sequences: [UInt64] = []
    /// At most this many points; past it every other older point is dropped.
    let capacity: Int
    /// The newest commit noted: its time and sequence.
    private(set) var lastTime: UInt64 = 0
    private(set) var lastSequence: UInt64 = 0

    init(capacity: Int = 1 << 16) { self.capacity = max(capacity, 4) }

    /// Notes that commit `sequence` was made at `time` (ms; 0: unknown), commits arriving in
    /// sequence order with non-decreasing times.
    mutating func note(sequence: UInt64, time: UInt64) {
        if time > lastTime {
            // Every commit so far was made at or before lastTime, so before lastTime + 1 ms.
            if lastTime > 0 { append(lastTime + 1, lastSequence) }
            lastTime = time
        }
        lastSequence = max(lastSequence, sequence)
    }

    /// The largest sequence s such that every commit up to s was made before `time`, as far as
    /// the index can tell; nil when it cannot tell (earlier than anything it holds). `now` is
    /// the current wall-clock time: a time in the future has no answer either.
    func sequence(before time: UInt64, now: UInt64) -> UInt64? {
        guard time <= now else { return nil }
        if lastTime > 0 && time > lastTime { return lastSequence }
        // The last point whose time is at or before `time`.
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] <= time { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : sequences[low - 1]
    }

    private mutating func append(_ time: UInt64, _ sequence: UInt64) {
        if let last = times.last, time <= last {
            sequences[sequences.count - 1] = max(sequences[sequences.count - 1], sequence)
            return
        }
        if times.count >= capacity { thin() }
        times.append(time)
        sequences.append(sequence)
    }

    /// Drops every other point in the older half: recent times stay precise.
    private mutating func thin() {
        let half = times.count / 2
        var keptTimes: [UInt64] = [], keptSequences: [UInt64] = []
        keptTimes.reserveCapacity(capacity)
        keptSequences.reserveCapacity(capacity)
        for i in 0..<times.count where i >= half || i % 2 == 1 {
            keptTimes.append(times[i])
            keptSequences.append(sequences[i])
        }
        times = keptTimes
        sequences = keptSequences
    }
}
