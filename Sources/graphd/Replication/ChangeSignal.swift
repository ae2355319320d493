// ChangeSignal.swift — a counter with a condition variable: threads that wait for something
// to change (WAIT, GRAPHD.WAITSEQ, a pull waiting for a write) sleep until it moves past what
// they saw, with an optional deadline on the monotonic clock.

import Glibc

/// A counter with a condition variable: waiters sleep until it moves past what they saw.
final class ChangeSignal: @unchecked Sendable {
    // @unchecked: `count` is guarded by `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var count: UInt64 = 0

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    var current: UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return count
    }

    func broadcast() {
        pthread_mutex_lock(mutex)
        count &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until the count moves past `seen` or `deadline` passes (nil: no deadline).
    func wait(after seen: UInt64, until deadline: ContinuousClock.Instant?) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == seen {
            guard let deadline else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let (seconds, attoseconds) = remaining.components
            let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
            var until = timespec(tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
                                 tv_nsec: nanoseconds % 1_000_000_000)
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT { return }
        }
    }
}
