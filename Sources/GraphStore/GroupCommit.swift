// GroupCommit.swift — makes log records durable with as few fdatasyncs as possible.
// Writers append their record under the store's write lock, release it, then wait here for an
// fdatasync that covers their record. Whoever finds no fsync running becomes the leader and
// syncs everything written so far; everyone who wrote before that sync started is answered by
// it. So N concurrent writers share about one fdatasync instead of paying N in a row.
// Under `--fsync always` the records are not in the file yet when writers get here: they are in
// the segment's LogTail, and the leader writes them (one block write for the whole group) just
// before its fdatasync.

import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durability frontier of one graph's log, shared by its writers and its flusher.
final class GroupCommit: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `mutex` (see `locked`).

    /// What a writer waits for: its record's sequence number, in the log generation it was
    /// written to. A recovery after a failed fsync starts a new generation (`epoch`); records of
    /// older generations that were not yet durable were cut from the log and undone.
    struct Ticket: Sendable, Equatable {
        var epoch: UInt64
        var sequence: UInt64
    }

    private let mutex = PosixMutex()
    /// Signalled when the durable frontier moves (or a sync fails): waiting writers check.
    private let condition = PosixCondition()
    /// Signalled when the last writer still on its way has appended: the leader stops waiting.
    private let arrivals = PosixCondition()
    /// Writers that have started a transaction but not yet appended (or given up).
    private var inFlight = 0
    /// How long a leader waits for in-flight writers before it fsyncs, so that one fsync covers
    /// them too (PostgreSQL's commit_delay, MySQL's binlog_group_commit_sync_delay). A lone
    /// writer never waits: there is no one in flight.
    let gatherDelay: Duration
    private var file: LogFile
    /// The segment's unwritten records, when they go through one (AppendLog, BLOCK WRITES).
    private var tail: LogTail?
    private var epoch: UInt64 = 0
    /// Last sequence number written (not necessarily durable), and the file offset after it.
    private var written: UInt64
    private var writtenEnd: Int
    /// Last sequence number known durable, and the offset in `file` up to which it is.
    private var durable: UInt64
    private var durableEnd: Int
    private var syncing = false
    /// The fsync failure that ended this generation; nil while the log is healthy.
    private var failure: StoreError?
    private var syncs = 0
    /// Writers that asked to be called once durable (`whenDurable`), in ticket order.
    private var deferred: [DeferredWriter] = []
    /// Writers polling for their sync's end (`pollLocked`).
    private var pollers = 0
    /// Sync rounds finished (or failed): what polling writers watch, without the mutex.
    private let roundsEnded = Atomic<UInt64>(0)
    /// Set while a sync for the deferred or polling writers is queued on `flushQueue`.
    private var flushScheduled = false
    /// Where deferred and polling writers' syncs run when no writer is leading one.
    private let flushQueue = DispatchQueue(label: "graphd.group-commit")

    private struct DeferredWriter {
        var ticket: Ticket
        var body: @Sendable (StoreError?) -> Void
    }

    init(file: LogFile, tail: LogTail? = nil, sequence: UInt64, end: Int, gatherDelay: Duration = .microseconds(200)) {
        self.file = file
        self.tail = tail
        self.gatherDelay = gatherDelay
        written = sequence
        durable = sequence
        writtenEnd = end
        durableEnd = end
    }

    private func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try mutex.withLock(body)
    }

    /// A writer starts a transaction; it ends with `wrote` or `leave`.
    func enter() { locked { inFlight += 1 } }

    /// A writer that entered ends without a record (it failed or changed nothing).
    func leave() {
        locked {
            inFlight -= 1
            if inFlight == 0 { arrivals.signal() }
        }
    }

    /// A writer that entered notes that its record `sequence` now ends at `end` in the log
    /// file. Called under the store's write lock, so sequence numbers arrive in order.
    /// `announced: false` for writers that did not `enter` (policies other than `always`).
    func wrote(sequence: UInt64, end: Int, announced: Bool = true) -> Ticket {
        locked { () -> Ticket in
            written = sequence
            writtenEnd = end
            if announced {
                inFlight -= 1
                if inFlight == 0 { arrivals.signal() }
            }
            return Ticket(epoch: epoch, sequence: sequence)
        }
    }

    /// Returns once `ticket`'s record is durable. Throws the fsync error when the fsync that
    /// had to cover it failed (then the record may or may not be on disk and must be undone),
    /// or when a recovery already cut it from the log. With a `polling` budget the flush queue
    /// runs the sync while this thread polls for its end, up to the budget
    /// (DurabilityPolling.swift); then, or without one, it sleeps until a sync covers the
    /// record, leading one itself when none runs.
    func waitUntilDurable(_ ticket: Ticket, polling budget: Duration? = nil) throws(StoreError) {
        mutex.lock()
        defer { mutex.unlock() }
        if let budget, try pollLocked(ticket, for: budget) { return }
        while true {
            switch answerLocked(ticket) {
            case .durable: return
            case .failed(let error): throw error
            case .pending: break
            }
            if syncing {
                condition.wait(mutex)
                continue
            }
            syncRoundLocked()
        }
    }

    /// Polls until `ticket` is answered (mutex held, released while polling): true when
    /// durable, the error when it never will be, false when `budget` ran out first.
    private func pollLocked(_ ticket: Ticket, for budget: Duration) throws(StoreError) -> Bool {
        let deadline = ContinuousClock.now + budget
        pollers += 1
        defer { pollers -= 1 }
        while true {
            switch answerLocked(ticket) {
            case .durable: return true
            case .failed(let error): throw error
            case .pending: break
            }
            let rounds = roundsEnded.load(ordering: .relaxed)  // moves only under the mutex
            scheduleFlushLocked()
            mutex.unlock()
            var timedOut = false
            while roundsEnded.load(ordering: .acquiring) == rounds {
                if ContinuousClock.now >= deadline {
                    timedOut = true
                    break
                }
                sched_yield()
            }
            mutex.lock()
            if timedOut { return false }
        }
    }

    /// Calls `body` once `ticket`'s record is durable (nil) or will never be (the error, as
    /// `waitUntilDurable` throws it), on whichever thread finishes the sync that decides it;
    /// returns at once. For writers that do not wait: a server answering a group's clients from
    /// the thread that synced, instead of a thread blocked per client. `body` runs with no
    /// lock of this log held and must not wait for a sync.
    func whenDurable(_ ticket: Ticket, _ body: @escaping @Sendable (StoreError?) -> Void) {
        mutex.lock()
        switch answerLocked(ticket) {
        case .durable:
            mutex.unlock()
            body(nil)
        case .failed(let error):
            mutex.unlock()
            body(error)
        case .pending:
            deferred.append(DeferredWriter(ticket: ticket, body: body))
            scheduleFlushLocked()
            mutex.unlock()
        }
    }

    /// Where a ticket stands, under the mutex.
    private enum Answer {
        case durable
        case failed(StoreError)
        case pending
    }

    private func answerLocked(_ ticket: Ticket) -> Answer {
        if ticket.epoch != epoch {
            return .failed(StoreError(.io, "the log was cut back after a failed fsync before this write was durable"))
        }
        if durable >= ticket.sequence { return .durable }
        if let failure { return .failed(failure) }
        return .pending
    }

    /// Leads one sync (mutex held, released during the write and the sync): lets the writers
    /// already on their way append first (bounded), then writes and syncs everything written so
    /// far, outside the mutex so writers keep appending. Then answers the waiting writers, the
    /// deferred ones by calling them (with the mutex released).
    private func syncRoundLocked() {
        syncing = true
        if inFlight > 0 { waitForArrivals() }
        let target = written, targetEnd = writtenEnd, syncedFile = file, syncedTail = tail
        let blocks = syncedTail?.beginWrite(through: targetEnd)
        mutex.unlock()
        var syncError: StoreError?
        do {
            if let blocks { try syncedFile.writeBlocks(blocks.bytes, at: blocks.offset) }
            try syncedFile.sync()
        } catch {
            syncError = error
        }
        if blocks != nil { syncedTail?.endWrite() }
        mutex.lock()
        syncing = false
        syncs += 1
        if let syncError {
            // After a failed fdatasync the kernel may have dropped the dirty pages: nothing
            // written since the last good sync can be trusted, and retrying cannot tell.
            if failure == nil { failure = syncError }
        } else if target > durable {
            durable = target
            if syncedFile === file { durableEnd = targetEnd }
        }
        roundsEnded.add(1, ordering: .releasing)
        condition.broadcast()
        answerDeferredLocked()
    }

    /// Calls the deferred writers this log can answer now (mutex held, released while they
    /// run), and has the rest synced by the flush queue.
    private func answerDeferredLocked() {
        guard !deferred.isEmpty else { return }
        var answered: [(body: @Sendable (StoreError?) -> Void, error: StoreError?)] = []
        deferred.removeAll { writer in
            switch answerLocked(writer.ticket) {
            case .durable: answered.append((writer.body, nil))
            case .failed(let error): answered.append((writer.body, error))
            case .pending: return false
            }
            return true
        }
        scheduleFlushLocked()
        guard !answered.isEmpty else { return }
        mutex.unlock()
        for (body, error) in answered { body(error) }
        mutex.lock()
    }

    /// Makes sure a sync will run for the deferred and polling writers (mutex held): one that
    /// runs covers them or hands them on when it ends; else the flush queue leads one.
    private func scheduleFlushLocked() {
        guard flushWantedLocked, !syncing, !flushScheduled else { return }
        flushScheduled = true
        flushQueue.async { [self] in
            mutex.lock()
            defer { mutex.unlock() }
            // Still scheduled while it leads: its rounds' answers need no other block queued.
            while flushWantedLocked && !syncing { syncRoundLocked() }
            flushScheduled = false
        }
    }

    /// Whether a writer that does not lead syncs itself is waiting (mutex held): a deferred
    /// one, or a polling one while records are written but not durable (after a failure,
    /// polling writers have their answer).
    private var flushWantedLocked: Bool {
        !deferred.isEmpty || (pollers > 0 && durable < written && failure == nil)
    }

    /// Waits (mutex held, released while waiting) until no writer is in flight or
    /// `gatherDelay` has passed.
    private func waitForArrivals() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let delay = gatherDelay.components
        let nanoseconds = Int(now.tv_nsec) + Int(delay.attoseconds / 1_000_000_000)
        var deadline = timespec(tv_sec: now.tv_sec + Int(delay.seconds) + nanoseconds / 1_000_000_000,
                                tv_nsec: nanoseconds % 1_000_000_000)
        while inFlight > 0 {
            if !arrivals.wait(mutex, until: &deadline) { break }
        }
    }

    /// Waits until record `sequence` (written already) is durable and returns the durable
    /// frontier then: at least `sequence`, or lower when a failed fsync means it never will be.
    func waitForDurable(_ sequence: UInt64) -> UInt64 {
        let ticket = locked { Ticket(epoch: epoch, sequence: sequence) }
        do {
            try waitUntilDurable(ticket)
            return max(ticket.sequence, locked { durable })
        } catch {
            return locked { durable }
        }
    }

    /// Makes everything written so far durable (everysec's flusher, close, compaction).
    func flush() throws(StoreError) {
        let ticket = locked { Ticket(epoch: epoch, sequence: written) }
        try waitUntilDurable(ticket)
    }

    /// The last record written (appended), durable or not.
    var writtenSequence: UInt64 { locked { written } }

    /// True when records were written that are not durable yet.
    var isDirty: Bool { locked { written > durable } }

    /// The fsync failure that stopped this log, if any.
    var failureError: StoreError? { locked { failure } }

    /// Marks the log as failed without an fsync (used when a flush elsewhere failed).
    func markFailed(_ error: StoreError) { locked { if failure == nil { failure = error } } }

    /// The last durable record and the offset in the current file up to which the file is durable.
    var durablePosition: (sequence: UInt64, end: Int) { locked { (durable, durableEnd) } }

    /// Number of fdatasyncs issued for records (for tests and statistics).
    var syncCount: Int { locked { syncs } }

    /// After `flush()` made the old segment durable: appends go to `newFile` from `end` on.
    /// Waits for a running fsync of the old file, so the caller may close it afterwards.
    func switchFile(to newFile: LogFile, tail newTail: LogTail?, end: Int) {
        mutex.lock()
        defer { mutex.unlock() }
        while syncing { condition.wait(mutex) }
        file = newFile
        tail = newTail
        writtenEnd = end
        durableEnd = end
    }

    /// The log's records go through `newTail` from now on (nil: they are written as appended).
    /// Waits for a running sync, which may be writing the old tail.
    func switchTail(_ newTail: LogTail?) {
        mutex.lock()
        defer { mutex.unlock() }
        while syncing { condition.wait(mutex) }
        tail = newTail
    }

    /// Starts a new generation after a recovery: the log now ends, durably, at `sequence` in
    /// `newFile` at `end`. Writers still waiting for a record after that are told it was cut.
    func reset(file newFile: LogFile, tail newTail: LogTail?, sequence: UInt64, end: Int) {
        mutex.lock()
        defer { mutex.unlock() }
        while syncing { condition.wait(mutex) }
        epoch += 1
        file = newFile
        tail = newTail
        written = sequence
        durable = sequence
        writtenEnd = end
        durableEnd = end
        failure = nil
        roundsEnded.add(1, ordering: .releasing)  // polling writers look again
        condition.broadcast()
        // The deferred writers of the old generation are told it was cut, but not from here:
        // the caller holds the store's write lock, which their answer may want.
        if !deferred.isEmpty {
            flushQueue.async { [self] in
                mutex.lock()
                defer { mutex.unlock() }
                answerDeferredLocked()
            }
        }
    }

    /// Waits for a running fsync to finish, then closes the file.
    func close() {
        mutex.lock()
        defer { mutex.unlock() }
        while syncing { condition.wait(mutex) }
        file.close()
    }
}
