// GraphStore.swift — one named graph with its log: the unit the query layer reads and writes.
// Reads share a read lock. A write takes the write lock, runs one transaction, appends its
// mutations to the log as one record (under --fsync always into the segment's tail in memory,
// which the group-commit leader writes; otherwise with pwrite) and commits in memory; it then
// RELEASES the lock and waits (under always) for a group-commit fdatasync that covers its
// record, so concurrent writers share fsyncs. Compaction (SnapshotCompaction.swift) and the recovery from
// a failed fsync (FsyncFailureRecovery.swift) are extensions of this class.
//
// VISIBILITY. A reader may see a write whose record is written but not yet fdatasync'ed (for
// at most one fsync's time); its writer is not answered until it is durable. If that fsync
// fails, the write is not acknowledged, and the store cuts the log back to its last durable
// record and reloads the graph from disk, undoing it — so a reader can, in that rare case,
// have seen a write that then disappears (as with Redis's and FalkorDB's appendfsync always);
// the same holds for a write in flight when the process is killed.

import Dispatch
import Synchronization

/// A graph with its append-only log: readers share, one writer at a time applies, and
/// writers wait for durability together.
public final class GraphStore: @unchecked Sendable {
    // @unchecked: `graph`, `log`, `closed` and `snapshotLength` are only touched under `lock`
    // (reads under the read lock, changes under the write lock); `storage` is immutable and
    // thread-safe; the compaction fields are a Mutex and an Atomic.
    public let name: String
    let lock = ReadWriteLock()
    /// The graph's own memory, allocated once: readers are handed a pointer to it (`readInPlace`)
    /// instead of a copy, since copying a Graph retains and releases each of its buffers —
    /// reference counts every reader core would share.
    private let graphCell: UnsafeMutablePointer<Graph>
    var graph: Graph {
        get { graphCell.pointee }
        _modify { yield &graphCell.pointee }
    }
    /// The durable side; nil for an in-memory store.
    let storage: StoreStorage?
    /// The open log; replaced when a failed fsync makes the store reload from disk.
    var log: AppendLog?
    var closed = false
    /// Size of the newest snapshot (0: none), the base of the automatic-compaction ratio.
    var snapshotLength: Int
    /// The history, the last commit and the commit times behind change tokens (under `lock`).
    var changes: ChangeState
    /// Hands published commits to observers (the change feed, replicas), off the writers' path.
    let notifier: CommitNotifier
    /// Where reading the log back (`committedRecords`) resumes, and the segments' first records.
    let logReading = Mutex<LogReadingCache>(LogReadingCache())
    /// Held for the whole of a compaction, so two never overlap (and close waits for one).
    let compactionGate = Mutex<Void>(())
    /// True while an automatic compaction is queued or running.
    let compactionScheduled = Atomic<Bool>(false)
    /// After a failed automatic compaction: do not retry before the log holds this many bytes.
    let compactionRetryBytes = Atomic<Int>(0)

    init(name: String, graph: Graph, log: AppendLog?, storage: StoreStorage?, snapshotLength: Int = 0,
         changes: ChangeState = ChangeState()) {
        self.name = name
        self.changes = changes
        if let storage, storage.options.fsync == .always {
            let commit = storage.commit
            notifier = CommitNotifier { commit.waitForDurable($0) }
        } else {
            notifier = CommitNotifier { $0 }
        }
        graphCell = .allocate(capacity: 1)
        graphCell.initialize(to: graph)
        self.log = log
        self.storage = storage
        self.snapshotLength = snapshotLength
    }

    deinit {
        notifier.stop()
        graphCell.deinitialize(count: 1)
        graphCell.deallocate()
    }

    /// Every reader sees only committed transactions. The closure must not let `graph` escape
    /// and must not call `write` on this store. Readers run in parallel with each other.
    public func read<R>(_ body: (Graph) throws -> R) rethrows -> R {
        try lock.withReadLock { try body(graphCell.pointee) }
    }

    /// `read`, handing the store's own graph instead of a copy: for the query engine's hot
    /// path, where each read query's copy cost more than a cheap query. The body must not
    /// change the graph through the pointer (other readers are using it), nor keep it.
    public func readInPlace<R>(_ body: (UnsafeMutablePointer<Graph>) throws -> R) rethrows -> R {
        try lock.withReadLock { try body(graphCell) }
    }

    /// `readInPlace` if the read lock can be had at once (no writer holds or awaits it);
    /// nil without running `body` otherwise. For callers that must not wait.
    public func readInPlaceIfFree<R>(_ body: (UnsafeMutablePointer<Graph>) throws -> R) rethrows -> R? {
        try lock.withReadLockIfFree { try body(graphCell) }
    }

    /// Runs `body` as one transaction: on throw, everything is rolled back and the error rethrown.
    /// On return, the mutations are appended to the log as ONE checksummed record; under
    /// `--fsync always` `write` returns only once that record is fdatasync'ed (shared with the
    /// writers waiting at the same moment). If the append or its fsync fails, the transaction is
    /// undone and a StoreError is thrown. A body that changed nothing writes no record.
    /// `body` must not call back into this store (it holds the write lock).
    public func write<R>(_ body: (inout Graph) throws -> R) throws -> R {
        // Under `always`, announce this writer so that a leader about to fsync waits for it.
        let announced = storage?.options.fsync == .always ? storage?.commit : nil
        announced?.enter()
        var recorded = false
        defer { if !recorded { announced?.leave() } }
        let (result, ticket, logBytes): (R, GroupCommit.Ticket?, Int) = try lock.withWriteLock {
            if closed { throw StoreError(.closed, "graph '\(name)' was deleted or closed; it takes no more writes") }
            if let storage, storage.commit.failureError != nil { try recoverAfterFailedFsyncLocked(storage) }
            graph.beginTransaction()
            let result: R
            do {
                result = try body(&graph)
            } catch {
                graph.rollbackTransaction()
                throw error
            }
            let mutations = graph.pendingMutations
            guard !mutations.isEmpty, let storage, let log else {
                _ = graph.commitTransaction()
                if !mutations.isEmpty {
                    let record = LogRecord(sequence: changes.lastSequence + 1,
                                           commitTime: max(AppendLog.wallClockMilliseconds(), changes.commitTimes.lastTime),
                                           mutations: mutations)
                    noteCommitted(record)
                    if notifier.isActive.load(ordering: .relaxed) { notify(record) }
                }
                return (result, nil, 0)
            }
            let record: LogRecord
            do throws(StoreError) {
                if storage.options.fsync == .always && !log.usesBlockWrites {
                    // A replica promoted: its own writes go through the tail again.
                    try log.useBlockWrites()
                    storage.commit.switchTail(log.tail)
                }
                record = try log.append(mutations)
            } catch {
                graph.rollbackTransaction()
                throw StoreError(.io, "graph '\(name)': the write was not applied: \(error.message)", path: error.path)
            }
            _ = graph.commitTransaction()
            noteCommitted(record)
            recorded = announced != nil
            let ticket = announced?.wrote(sequence: record.sequence, end: log.end)
                ?? storage.commit.wrote(sequence: record.sequence, end: log.end, announced: false)
            // After `wrote`: the notifier may wait for this record to be durable at once.
            if notifier.isActive.load(ordering: .relaxed) { notify(record) }
            return (result, ticket, log.bytesSinceSnapshot)
        }
        guard let ticket, let storage else { return result }
        if storage.options.fsync == .always, let deferral = DurabilityDeferral.current {
            deferral.add(self, ticket)  // its owner answers once durable (DurabilityDeferral.swift)
        } else if storage.options.fsync == .always {
            do {
                try storage.commit.waitUntilDurable(ticket, polling: DurabilityPolling.budget)
            } catch {
                throw unacknowledged(error)
            }
        }
        if isCompactionDue(logBytes: logBytes, storage: storage) {
            scheduleCompaction(reason: "the log outgrew the snapshot")
        }
        return result
    }

    /// Queues a committed record for the observers (under the write lock): handed out by this
    /// thread's CommitHandOff once its write is answered, else by the notifier's thread.
    private func notify(_ record: LogRecord) {
        guard let handOff = CommitHandOff.current else { return notifier.append(record) }
        notifier.append(record, wake: false)
        handOff.add(self)
    }

    /// Closes the log (making everything written durable first); later writes throw
    /// StoreError(.closed). Reads still see the last state. Waits for a running write or
    /// compaction to finish.
    public func close() {
        notifier.stop()
        compactionGate.withLock { _ in
            lock.withWriteLock {
                guard !closed else { return }
                closed = true
                guard let storage else { return }
                var flushed = storage.commit.failureError == nil
                if flushed {
                    do throws(StoreError) { try storage.commit.flush() } catch {
                        flushed = false
                        storage.report("graphd: \(name): fsync of the log at close failed: \(error.message)")
                    }
                }
                storage.commit.close()
                // Everything published is durable: the next open keeps this history.
                if flushed, storage.fileSystem.isDirectory(storage.directory) {
                    try? HistoryFile(directory: storage.directory, fileSystem: storage.fileSystem).write(changes.history, openUnder: nil)
                }
            }
        }
    }

    public var isClosed: Bool { lock.withReadLock { closed } }

    /// Runs `body` under the write lock, keeping its typed error.
    func withWriteLock<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        do {
            return try lock.withWriteLock { try body() }
        } catch {
            throw error as! StoreError  // `body` throws only StoreError
        }
    }
}

/// What a durable store needs besides its graph: where its files are, how to sync them, and
/// where to report what happens in the background. Immutable; shared with its background work.
struct StoreStorage: Sendable {
    let directory: String
    let fileSystem: FileSystem
    let options: DataDirectory.Options
    let commit: GroupCommit
    /// Where background events (failed fsyncs, failed compactions) are reported.
    let report: @Sendable (String) -> Void
}

extension GraphStore {
    /// A store with no log: for tests and for embedding without persistence. `graph` is its
    /// starting content (e.g. from GraphBuilder); an open transaction on it is rolled back.
    public static func inMemory(name: String = "memory", graph: Graph = Graph()) -> GraphStore {
        var graph = graph
        if graph.isInTransaction { graph.rollbackTransaction() }
        return GraphStore(name: name, graph: graph, log: nil, storage: nil)
    }

    /// A store over a recovered graph directory.
    static func opened(name: String, recovered: RecoveredLog, directory: String, fileSystem: FileSystem,
                       options: DataDirectory.Options, report: @escaping @Sendable (String) -> Void) throws(StoreError) -> GraphStore {
        if options.fsync == .always { try recovered.log.useBlockWrites() }
        let commit = GroupCommit(file: recovered.log.file, tail: recovered.log.tail, sequence: recovered.log.lastSequence,
                                 end: recovered.log.end)
        let storage = StoreStorage(directory: directory, fileSystem: fileSystem, options: options, commit: commit, report: report)
        let changes = ChangeState(history: recovered.history, commitTimes: recovered.commitTimes,
                                  lastSequence: recovered.log.lastSequence)
        return GraphStore(name: name, graph: recovered.graph, log: recovered.log, storage: storage,
                          snapshotLength: recovered.snapshotLength, changes: changes)
    }
}
