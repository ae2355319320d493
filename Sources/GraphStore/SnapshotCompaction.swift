// SnapshotCompaction.swift — GraphStore.compact(): snapshot the graph, start a new log segment,
// and drop what the snapshot covers, while readers and writers keep going.
//
// STEPS. (1) Under the write lock, briefly: make the current segment durable, freeze a copy of
// the graph (a value type: O(1), copy-on-write), start segment N+1 and point the log at it.
// (2) Without any lock: write snapshot N+1 from the copy (temporary file, fsync, rename, fsync
// of the directory). (3) Remove the segments and snapshots it covers.
// CRASH SAFETY. Before the rename, the directory holds the old snapshot (if any) and every
// segment, so recovery replays them all; after it, recovery loads snapshot N+1 and replays from
// segment N+1, deleting leftovers. At no moment is a record only in a file about to be removed.

import Dispatch

extension GraphStore {
    /// Writes a snapshot and starts a new log segment while readers and writers continue
    /// (GRAPH.SAVE, and automatically when the log outgrows the snapshot). Throws when the
    /// snapshot cannot be written; the log then still holds everything.
    /// An in-memory store has nothing to write and returns at once.
    public func compact() throws(StoreError) {
        guard let storage else { return }
        try compactionGate.withLock { (_) throws(StoreError) in try compactHoldingGate(storage) }
    }

    private func compactHoldingGate(_ storage: StoreStorage) throws(StoreError) {
        // (1) Freeze.
        let (frozen, sequence, commitTime, number, afterFailure) = try withWriteLock {
            () throws(StoreError) -> (Graph, UInt64, UInt64, UInt64, Bool) in
            if closed { throw StoreError(.closed, "graph '\(name)' was deleted or closed") }
            guard let log else { throw StoreError(.closed, "graph '\(name)' has no log") }
            var afterFailure = false
            if storage.commit.failureError != nil {
                if storage.options.fsync == .always {
                    try recoverAfterFailedFsyncLocked(storage)
                } else {
                    // The acknowledged writes are only in memory now: this snapshot is what
                    // makes them durable, so the old segment's sync is not to be trusted.
                    afterFailure = true
                }
            }
            if !afterFailure { try storage.commit.flush() }
            let previous = try log.startNextSegment()
            storage.commit.switchFile(to: log.file, tail: log.tail, end: log.end)
            previous.close()
            return (graph, log.lastSequence, log.lastCommitTime, log.segment, afterFailure)
        }
        // (2) Write the snapshot from the frozen copy.
        let length = try SnapshotWriter(fileSystem: storage.fileSystem)
            .write(frozen, number: number, lastSequence: sequence, lastCommitTime: commitTime, directory: storage.directory)
        // (3) Publish, then drop what it covers.
        lock.withWriteLock {
            log?.snapshotWritten(number)
            snapshotLength = length
            if afterFailure, let log {
                storage.commit.reset(file: log.file, tail: log.tail, sequence: log.lastSequence, end: log.end)
                storage.report("graphd: \(name): snapshot \(SnapshotFormat.fileName(number)) made the graph durable again "
                               + "after the failed fsync; writes are accepted again")
            }
        }
        compactionRetryBytes.store(0, ordering: .relaxed)
        do {
            try removeFiles(coveredBy: number, storage: storage)
        } catch {
            storage.report("graphd: \(name): snapshot \(number) is written, but removing the files it replaces failed "
                           + "(\(error.message)); the next start removes them")
        }
    }

    /// Removes the snapshots `number` replaces, and the segments it covers that are past
    /// --change-retention (the others are kept for reading commits back).
    private func removeFiles(coveredBy number: UInt64, storage: StoreStorage) throws(StoreError) {
        let fileSystem = storage.fileSystem
        let names = try fileSystem.contentsOfDirectory(storage.directory)
        var expired = Set(try expiredSegments(below: number, storage: storage).map(AppendLog.segmentFileName))
        for name in names where SnapshotFormat.number(inFileName: name).map({ $0 < number }) ?? false { expired.insert(name) }
        for name in names where expired.contains(name) {
            try fileSystem.removeFile(storage.directory + "/" + name)
        }
        if !expired.isEmpty { try fileSystem.syncDirectory(storage.directory) }
    }

    /// The segments below snapshot `number` that retention no longer keeps.
    func expiredSegments(below number: UInt64, storage: StoreStorage) throws(StoreError) -> [UInt64] {
        let reader = LogReader(directory: storage.directory, fileSystem: storage.fileSystem)
        let covered = try reader.segments().filter { $0 < number }
        return logReading.withLock { cache in
            storage.options.changeRetention.segmentsToDelete(
                covered: covered, now: AppendLog.wallClockMilliseconds(),
                sizeOf: { (try? storage.fileSystem.open(storage.directory + "/" + AppendLog.segmentFileName($0)))
                            .map { file in defer { file.close() }; return (try? file.size()) ?? 0 } ?? 0 },
                startOf: { segment in
                    if let known = cache.starts[segment] { return known }
                    let start = reader.start(of: segment)
                    if let start { cache.starts[segment] = start }
                    return start
                })
        }
    }

    /// Whether the log replayed after the snapshot has grown past the configured ratio.
    func isCompactionDue(logBytes: Int, storage: StoreStorage) -> Bool {
        let ratio = storage.options.compactionRatio
        guard ratio > 0 else { return false }
        let snapshot = lock.withReadLock { snapshotLength }
        let threshold = max(storage.options.compactionMinimumBytes, Int(Double(snapshot) * ratio),
                            compactionRetryBytes.load(ordering: .relaxed))
        return logBytes >= threshold
    }

    /// Runs `compact()` in the background unless one is already queued or running.
    func scheduleCompaction(reason: String) {
        guard let storage, compactionScheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            defer { compactionScheduled.store(false, ordering: .releasing) }
            guard !isClosed else { return }
            do throws(StoreError) {
                try compact()
            } catch where error.kind != .closed {
                // Do not retry on every write while the disk is full: wait for more log.
                let bytes = lock.withReadLock { log?.bytesSinceSnapshot ?? 0 }
                compactionRetryBytes.store(bytes + storage.options.compactionMinimumBytes, ordering: .relaxed)
                storage.report("graphd: \(name): compaction (\(reason)) failed: \(error.message); the log still holds "
                               + "every write, and compaction is retried later")
            } catch {}
        }
    }
}
