// ChangeSignal.swift — a counter with a condition variable: threads that wait for something
// to change (WAIT, GRAPHD.WAITSEQ, a pull waiting for a write) sleep until it moves past what
// they saw, with an optional deadline. On the store's one mutex-and-condition wrapper.

import Glibc
import GraphStore

/// A counter that waiters sleep on until it moves.
final class ChangeSignal: @unchecked Sendable {
    // @unchecked: `count` is guarded by `mutex`.
    private let mutex = PosixMutex()
    private let condition = PosixCondition()
    private var count: UInt64 = 0

    var current: UInt64 { mutex.withLock { count } }

    func broadcast() {
        mutex.withLock {
            count &+= 1
            condition.broadcast()
        }
    }

    /// Sleeps until the count moves past `seen` or `deadline` passes (nil: no deadline).
    func wait(after seen: UInt64, until deadline: ContinuousClock.Instant?) {
        mutex.lock()
        defer { mutex.unlock() }
        while count == seen {
            guard let deadline else {
                condition.wait(mutex)
                continue
            }
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return }
            // The condition waits on CLOCK_REALTIME: the remaining time from now on that clock.
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let (seconds, attoseconds) = remaining.components
            let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
            var until = timespec(tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
                                 tv_nsec: nanoseconds % 1_000_000_000)
            if !condition.wait(mutex, until: &until) { return }
        }
    }
}
