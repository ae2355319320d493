// ConditionLock.swift — a pthread mutex and condition variables on it, for code that waits for
// state under a lock (group commit's writers and leader, the commit notifier's thread, and
// graphd's waits for replicas: ChangeSignal). The
// standard library's Mutex has no condition variable. Final classes because pthread objects
// must not move in memory once initialised.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex.
public final class PosixMutex: @unchecked Sendable {
    let raw: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_mutex_t())
        pthread_mutex_init(raw, nil)
    }

    deinit {
        pthread_mutex_destroy(raw)
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    @inline(__always) public func lock() { pthread_mutex_lock(raw) }
    @inline(__always) public func unlock() { pthread_mutex_unlock(raw) }

    @inline(__always)
    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(raw)
        defer { pthread_mutex_unlock(raw) }
        return try body()
    }
}

/// A pthread condition variable, waited on with a `PosixMutex` held.
public final class PosixCondition: @unchecked Sendable {
    private let raw: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_cond_t())
        pthread_cond_init(raw, nil)
    }

    deinit {
        pthread_cond_destroy(raw)
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    /// Releases `mutex` (held), waits for a signal, holds it again.
    @inline(__always) public func wait(_ mutex: PosixMutex) { pthread_cond_wait(raw, mutex.raw) }

    /// `wait` until `deadline` (CLOCK_REALTIME); false when it passed without a signal.
    public func wait(_ mutex: PosixMutex, until deadline: inout timespec) -> Bool {
        pthread_cond_timedwait(raw, mutex.raw, &deadline) != ETIMEDOUT
    }

    @inline(__always) public func signal() { pthread_cond_signal(raw) }
    @inline(__always) public func broadcast() { pthread_cond_broadcast(raw) }
}
