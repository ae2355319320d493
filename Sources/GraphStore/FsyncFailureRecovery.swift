// FsyncFailureRecovery.swift — what a store does after an fdatasync of its log failed.
// Linux may drop the dirty pages of a failed fsync and report success next time, so nothing
// written since the last good fsync can be trusted, and retrying the fsync proves nothing.
// Under `always` no such write was acknowledged: cut the log back to the last durable record
// and reload the graph from disk, undoing them. Under `everysec`/`no` they were acknowledged:
// refuse writes until a snapshot of the in-memory graph makes them durable (FsyncPolicy.swift).

extension GraphStore {
    /// Called by a writer whose fsync failed: recovers (under the write lock) unless another
    /// writer already did. Returns a sentence for that writer's error reply.
    func recoverAfterFailedFsync() -> String {
        guard let storage else { return "" }
        do {
            try withWriteLock { () throws(StoreError) in try recoverAfterFailedFsyncLocked(storage) }
            return "it was undone (the log was cut back to its last durable record and the graph reloaded from it); "
                + "writes are accepted again"
        } catch {
            return error.message
        }
    }

    /// The error for the writer whose record a failed sync (`error`) left unacknowledged, after
    /// the store recovered (`recoverAfterFailedFsync`); `what` says what was not acknowledged.
    func unacknowledged(_ error: StoreError, what: String = "the write was not acknowledged") -> StoreError {
        let outcome = recoverAfterFailedFsync()
        return StoreError(.io, "graph '\(name)': \(what): \(error.message); \(outcome)", path: error.path)
    }

    /// Under the write lock: if the log has failed, recover (always) or refuse (everysec, no).
    func recoverAfterFailedFsyncLocked(_ storage: StoreStorage) throws(StoreError) {
        guard let failure = storage.commit.failureError, let log, !closed else { return }
        guard storage.options.fsync == .always else {
            throw StoreError(.io, "graph '\(name)': writes are refused because the log could not be made durable "
                + "(\(failure.message)); a snapshot will make the graph durable again (retried every second, or run "
                + "GRAPH.SAVE \(name))", path: failure.path)
        }
        let durable = storage.commit.durablePosition
        do throws(StoreError) {
            // No fsync here: it may fail again, and the next record's fdatasync makes the
            // shorter size durable together with that record.
            try log.file.truncate(to: durable.end)
            let recovered = try LogRecovery.open(directory: storage.directory, graphName: name, fileSystem: storage.fileSystem,
                                                 mode: RecoveryMode(repair: false, cleanUp: false, fsync: storage.options.fsync,
                                                                    slotMemoryLimit: storage.options.slotMemoryLimit))
            guard recovered.log.lastSequence == durable.sequence else {
                throw StoreError(.replayFailed, "the reloaded log ends at record \(recovered.log.lastSequence), "
                                 + "expected \(durable.sequence)")
            }
            graph = recovered.graph
            self.log = recovered.log
            snapshotLength = recovered.snapshotLength
            // Readers may have seen (and been given tokens for) the records undone here, whose
            // sequence numbers the next commits reuse.
            var history = recovered.history
            history.fork(sharing: durable.sequence)
            try HistoryFile(directory: storage.directory, fileSystem: storage.fileSystem).write(history, openUnder: storage.options.fsync)
            changes = ChangeState(history: history, commitTimes: recovered.commitTimes, lastSequence: durable.sequence)
            try recovered.log.useBlockWrites()
            storage.commit.reset(file: recovered.log.file, tail: recovered.log.tail, sequence: durable.sequence, end: recovered.log.end)
            storage.report("graphd: \(name): fsync of the log failed (\(failure.message)); the writes after record "
                           + "\(durable.sequence) were not acknowledged and were undone: the log was cut back to offset "
                           + "\(durable.end) of \(log.file.path) and the graph reloaded from disk")
        } catch {
            throw StoreError(.io, "graph '\(name)': writes are refused: the log could not be made durable "
                + "(\(failure.message)) and recovering from that failed too (\(error.message)); the next write retries",
                path: error.path)
        }
    }
}
