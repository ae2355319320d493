// ReadWriteLock.swift — a many-readers/one-writer lock around pthread_rwlock.
// GraphStore needs readers to run in parallel (a reader holds the lock for a whole query);
// the standard library's Mutex admits one holder at a time, so we wrap pthread_rwlock.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A reader-writer lock: any number of concurrent `withReadLock`, or one `withWriteLock`.
/// A final class because a pthread_rwlock_t must not move in memory once initialised; the
/// storage is allocated once and freed in deinit.
final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if canImport(Glibc)
        // Prefer writers so that a stream of readers cannot starve a writer.
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        let result = pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
        precondition(result == 0, "pthread_rwlock_init failed: \(result)")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Tries before sleeping: a writer's transaction holds the lock for microseconds, far less
    /// than a futex sleep and wake-up costs, so a short spin keeps both sides off the scheduler.
    static let spinAttempts = 200

    func withReadLock<R>(_ body: () throws -> R) rethrows -> R {
        var acquired = false
        for _ in 0..<Self.spinAttempts where pthread_rwlock_tryrdlock(lock) == 0 { acquired = true; break }
        if !acquired { pthread_rwlock_rdlock(lock) }
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body` under the read lock if it is free now (no writer holds or, the lock
    /// preferring writers, awaits it); nil otherwise, without waiting.
    func withReadLockIfFree<R>(_ body: () throws -> R) rethrows -> R? {
        guard pthread_rwlock_tryrdlock(lock) == 0 else { return nil }
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    func withWriteLock<R>(_ body: () throws -> R) rethrows -> R {
        var acquired = false
        for _ in 0..<Self.spinAttempts where pthread_rwlock_trywrlock(lock) == 0 { acquired = true; break }
        if !acquired { pthread_rwlock_wrlock(lock) }
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
