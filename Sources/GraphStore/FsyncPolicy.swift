// FsyncPolicy.swift — when graphd makes log records durable (the --fsync flag), and the
// once-a-second flush that `everysec` relies on. Group commit (GroupCommit.swift) serves `always`.

/// When appended log records are fdatasync'ed.
public enum FsyncPolicy: String, Sendable, CaseIterable, Equatable {
    /// Before every write is acknowledged; writers waiting at the same moment share one
    /// fdatasync (group commit). An acknowledged write survives power failure.
    case always
    /// A background flusher fdatasyncs every second. A process crash loses nothing (the record
    /// is in the kernel before the reply); a power failure loses at most about a second.
    case everysec
    /// Never explicitly: the kernel writes back when it likes (typically within 30 s). A process
    /// crash loses nothing; a power failure loses what the kernel had not written.
    case no
}

extension GraphStore {
    /// The `everysec` flusher's tick: fdatasync what was written since the last tick. After a
    /// failed fsync, retries the snapshot that makes the acknowledged writes durable again.
    func flushTick() {
        guard let storage, storage.options.fsync == .everysec, !isClosed else { return }
        if let failure = storage.commit.failureError {
            scheduleCompaction(reason: "the log could not be made durable (\(failure.message))")
            return
        }
        guard storage.commit.isDirty else { return }
        do {
            try storage.commit.flush()
        } catch {
            storage.report("graphd: \(name): fsync of the log failed (\(error.message)); writes are refused until a snapshot "
                           + "makes the graph durable again (retried every second; GRAPH.SAVE \(name) to try now)")
            scheduleCompaction(reason: "the log could not be made durable (\(error.message))")
        }
    }
}
