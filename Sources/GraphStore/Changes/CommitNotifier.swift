// CommitNotifier.swift — hands each published commit to the store's observers, off the writer's
// path. A writer only appends its record to `pending` under the store's write lock (so records
// arrive in sequence order); one thread per store waits until they are published — durable
// under --fsync always, at once under everysec and no — and calls the observers in order. A
// writer whose server answers it on its own thread hands its records out there instead, after
// the reply (CommitHandOff.swift). It
// keeps the most recent records in a ring, which serves readers a little behind without a read
// of the log. It runs only while someone observes: with no observer, a commit costs nothing.

import Foundation
import Synchronization

/// An observer's registration: remove it with this id; it is called with every record after
/// `startAfter`.
public struct CommitObservation: Sendable, Hashable {
    public let id: Int
    /// The last sequence before the first record this observer is given.
    public let startAfter: UInt64
}

/// The notifier of one store. @unchecked Sendable: every mutable field is guarded by `mutex`.
final class CommitNotifier: @unchecked Sendable {
    /// Records kept for readers a little behind.
    static let ringCapacity = 8192

    typealias Observer = @Sendable ([LogRecord]) -> Void

    private let mutex = PosixMutex()
    private let wake = PosixCondition()
    /// Records appended, not yet published.
    private var pending: [LogRecord] = []
    private var observers: [(id: Int, body: Observer)] = []
    private var nextID = 1
    /// The last record handed to the observers (or published before the notifier started).
    private var published: UInt64 = 0
    /// The newest records handed out, ascending: `ring[ringStart...]`.
    private var ring: [LogRecord] = []
    private var ringStart = 0
    private var running = false
    private var stopped = false
    /// Set while a thread (the notifier's, or a writer's through `handOutPending`) hands
    /// records out: one at a time, so observers see them in order.
    private var handingOut = false
    /// Whether writers should append their records (someone observes): read without the mutex.
    let isActive = Atomic<Bool>(false)
    /// Waits until the record `sequence` is published; returns the last published sequence,
    /// which is lower when records were cut from the log instead (a failed fsync).
    private let waitUntilPublished: @Sendable (UInt64) -> UInt64

    init(waitUntilPublished: @escaping @Sendable (UInt64) -> UInt64) {
        self.waitUntilPublished = waitUntilPublished
    }

    private func locked<R>(_ body: () -> R) -> R { mutex.withLock(body) }

    /// A writer's committed record (under the store's write lock, while `isActive`). `wake`
    /// false: the writer hands it out itself (`handOutPending`, CommitHandOff.swift).
    func append(_ record: LogRecord, wake wakes: Bool = true) {
        locked {
            pending.append(record)
            if wakes && pending.count == 1 { wake.signal() }
        }
    }

    /// Hands the pending records to the observers on this thread, unless another thread is
    /// handing records out (it takes these too before it stops).
    func handOutPending() {
        mutex.lock()
        if !handingOut && !pending.isEmpty && !stopped { handOutLocked() }
        mutex.unlock()
    }

    /// Adds an observer. The caller holds the store's write lock (writers take it before this
    /// mutex too, so the order is the same). `activate` runs when this is the first observer:
    /// it returns the last published sequence and the records written after it.
    func add(_ body: @escaping Observer, activate: () -> (published: UInt64, unpublished: [LogRecord])) -> CommitObservation {
        mutex.lock()
        defer { mutex.unlock() }
        if !isActive.load(ordering: .acquiring) {
            let (frontier, unpublished) = activate()
            published = frontier
            pending = unpublished + pending
            isActive.store(true, ordering: .releasing)
            if !running {
                running = true
                let thread = Thread { [self] in run() }
                thread.start()
            }
            wake.signal()
        }
        let id = nextID
        nextID += 1
        observers.append((id, body))
        return CommitObservation(id: id, startAfter: published)
    }

    /// Removes an observer; the last one's removal stops the appends (the thread idles).
    func remove(_ id: Int) {
        locked {
            observers.removeAll { $0.id == id }
            if observers.isEmpty {
                isActive.store(false, ordering: .releasing)
                pending.removeAll()
                ring.removeAll()
                ringStart = 0
            }
        }
    }

    /// Stops the thread (the store closed).
    func stop() {
        locked {
            stopped = true
            isActive.store(false, ordering: .releasing)
            wake.signal()
        }
    }

    /// The last record handed to the observers, while active.
    var publishedSequence: UInt64? { locked { isActive.load(ordering: .relaxed) ? published : nil } }

    /// The records after `sequence` up to `limit` from the ring, when the ring reaches back that far.
    func recent(after sequence: UInt64, limit: Int) -> [LogRecord]? {
        locked {
            guard isActive.load(ordering: .relaxed), ringStart < ring.count else { return nil }
            let first = ring[ringStart].sequence
            guard first <= sequence + 1 else { return nil }
            let from = ringStart + Int(sequence + 1 - first)
            guard from <= ring.count else { return [] }
            return Array(ring[from..<min(ring.count, from + limit)])
        }
    }

    private func run() {
        mutex.lock()
        while true {
            while (pending.isEmpty || handingOut) && !stopped { wake.wait(mutex) }
            if stopped {
                running = false
                mutex.unlock()
                return
            }
            handOutLocked()
        }
    }

    /// Hands out pending records until none are left (mutex held, released while waiting for
    /// them to be published and while the observers run). Bursts are handed out as one batch:
    /// observers (the feed) then cost one call per burst, as group commit costs one fsync.
    private func handOutLocked() {
        handingOut = true
        defer { handingOut = false }
        while !pending.isEmpty && !stopped {
            var batch = pending
            pending.removeAll(keepingCapacity: true)
            mutex.unlock()

            let reached = waitUntilPublished(batch[batch.count - 1].sequence)
            // A failed fsync cut the records after `reached`: they never happened.
            if let last = batch.lastIndex(where: { $0.sequence <= reached }) {
                batch.removeSubrange((last + 1)...)
            } else {
                batch.removeAll()
            }

            mutex.lock()
            guard isActive.load(ordering: .relaxed), !batch.isEmpty else {
                if reached < published { published = reached }
                continue
            }
            batch = batch.filter { $0.sequence > published }
            if let last = batch.last { published = last.sequence }
            ring.append(contentsOf: batch)
            if ring.count - ringStart > Self.ringCapacity { ringStart = ring.count - Self.ringCapacity }
            if ringStart > Self.ringCapacity {
                ring.removeSubrange(0..<ringStart)
                ringStart = 0
            }
            let current = observers
            mutex.unlock()
            if !batch.isEmpty { for observer in current { observer.body(batch) } }
            mutex.lock()
        }
    }
}
