// GraphStore+Changes.swift — change tokens and "changed since" for one graph.
// A token names the last commit a client saw; a node's versions (ChangeVersions.swift) say which
// commit last changed it. So "changed since T" is: is any version involved newer than T's
// sequence? A token this graph cannot place (another history, the future, malformed) and a time
// it cannot place answer "changed": a false "changed" costs a refetch, a false "unchanged"
// shows stale data.

/// What a store keeps to issue and place change tokens. Guarded by the store's lock.
struct ChangeState: Sendable {
    var history = GraphHistory.fresh()
    var commitTimes = CommitTimeIndex()
    /// The last commit (for a store without a log, which numbers its commits itself).
    var lastSequence: UInt64 = 0
    /// The latest commits, for a replica's pull (GraphStore.framedRecords).
    var recent = RecentRecords()
}

/// Where a client's "since" points: a commit, or "before anything this graph can tell".
public enum ChangeBaseline: Sendable, Equatable {
    /// Commits up to this sequence are known to the client.
    case sequence(UInt64)
    /// The token or time cannot be placed in this graph's history: everything counts as changed.
    case unknown
}

extension GraphStore {
    /// The token of the last commit, which a reader sees now.
    public func token() -> ChangeToken { lock.withReadLock { currentToken } }

    /// Under the lock: the token of the last commit.
    var currentToken: ChangeToken { ChangeToken(history: changes.history.id, sequence: changes.lastSequence) }

    /// The graph's history (its id, and the ones it continues).
    public var history: GraphHistory { lock.withReadLock { changes.history } }

    /// Places a client's token in this graph's history.
    public func baseline(for token: ChangeToken) -> ChangeBaseline {
        lock.withReadLock { baselineLocked(token) }
    }

    /// Places a wall-clock time (ms since 1970 UTC): the commits made before it.
    public func baseline(forTime milliseconds: UInt64) -> ChangeBaseline {
        lock.withReadLock { baselineLocked(time: milliseconds) }
    }

    /// `token()` for code that runs under this store's lock already (a query's run).
    public var tokenHoldingLock: ChangeToken { currentToken }

    /// `baseline(for:)` for code that runs under this store's lock already.
    public func baselineHoldingLock(_ token: ChangeToken) -> ChangeBaseline { baselineLocked(token) }

    /// `baseline(forTime:)` for code that runs under this store's lock already.
    public func baselineHoldingLock(time milliseconds: UInt64) -> ChangeBaseline { baselineLocked(time: milliseconds) }

    func baselineLocked(_ token: ChangeToken) -> ChangeBaseline {
        changes.history.contains(token.history, token.sequence, last: changes.lastSequence) ? .sequence(token.sequence) : .unknown
    }

    func baselineLocked(time milliseconds: UInt64) -> ChangeBaseline {
        changes.commitTimes.sequence(before: milliseconds, now: AppendLog.wallClockMilliseconds()).map { .sequence($0) } ?? .unknown
    }

    /// Under the write lock, after a commit: its versions, its time, the last sequence.
    func noteCommitted(_ record: LogRecord) {
        graph.versions.stamp(record.mutations, sequence: record.sequence)
        changes.commitTimes.note(sequence: record.sequence, time: record.commitTime)
        changes.lastSequence = record.sequence
        changes.recent.append(record)
    }
}

extension ChangeVersions {
    /// Whether `node` itself changed after `baseline`.
    @inline(__always)
    public func changed(_ node: NodeID, after baseline: ChangeBaseline) -> Bool {
        guard case .sequence(let s) = baseline else { return true }
        return version(of: node) > s
    }

    /// Whether `node`'s relationships of `type` in `direction` changed after `baseline`.
    @inline(__always)
    public func changed(_ node: NodeID, _ type: RelationshipTypeID, _ direction: Direction = .both,
                        after baseline: ChangeBaseline) -> Bool {
        guard case .sequence(let s) = baseline else { return true }
        return version(of: node, type, direction) > s
    }
}

/// What reading the log back keeps between calls: where the last read ended, and the first
/// record of each segment (a segment's start never changes once it has one).
struct LogReadingCache: Sendable {
    var cursor: LogCursor?
    var starts: [UInt64: LogReader.SegmentStart] = [:]
}

/// Committed records after some sequence, or why there are none to give.
public enum CommittedRecords: Sendable, Equatable {
    /// Ascending and gap-free from the sequence asked after; empty when nothing newer is published.
    case records([LogRecord])
    /// The log no longer holds the record asked for; `oldest` is the oldest it holds (0: none).
    case gone(oldest: UInt64)
}

extension GraphStore {
    /// The last commit published: durable under --fsync always, written under everysec and no
    /// (which a process crash does not lose). Observers and `committedRecords` see no further.
    public var publishedSequence: UInt64 {
        if let published = notifier.publishedSequence { return published }
        return frontierSequence()
    }

    /// The published frontier from the log itself (the notifier's when it runs).
    private func frontierSequence() -> UInt64 {
        if let storage, storage.options.fsync == .always { return storage.commit.durablePosition.sequence }
        return lock.withReadLock { changes.lastSequence }
    }

    /// Calls `body` on a background thread with every published commit after the returned
    /// `startAfter`, in order, in batches; never on a writer's path (a slow observer delays
    /// only the observers after it), except that a write made under a CommitHandOff is handed
    /// out on its owner's thread when the owner calls `handOut()`, after answering it. Remove
    /// it with `removeCommitObserver`.
    public func addCommitObserver(_ body: @escaping @Sendable ([LogRecord]) -> Void) -> CommitObservation {
        lock.withWriteLock {
            notifier.add(body) { () -> (published: UInt64, unpublished: [LogRecord]) in
                // Under the write lock: nothing is being appended. Records written but not yet
                // durable go to the notifier, which publishes them once they are.
                let last = changes.lastSequence
                guard let storage, storage.options.fsync == .always, log != nil else { return (last, []) }
                // Records not yet durable may not be in the file either (the log's tail writes
                // them with their sync): wait for that sync, which needs no lock of ours.
                if storage.commit.durablePosition.sequence < last { try? storage.commit.flush() }
                let durable = storage.commit.durablePosition.sequence
                guard durable < last else { return (last, []) }
                let reader = LogReader(directory: storage.directory, fileSystem: storage.fileSystem)
                var starts: [UInt64: LogReader.SegmentStart] = [:]
                guard let cursor = try? reader.cursor(after: durable, starts: &starts),
                      let (records, _) = try? reader.read(from: cursor, through: last, limit: Int(last - durable)),
                      records.count == Int(last - durable) else {
                    return (last, [])  // unreadable: they are published as written, not lost
                }
                return (durable, records)
            }
        }
    }

    public func removeCommitObserver(_ observation: CommitObservation) { notifier.remove(observation.id) }

    /// Published records after `sequence`, at most `limit`: from memory when they are recent,
    /// else from the log segments still kept (--change-retention keeps them past compaction).
    public func committedRecords(after sequence: UInt64, limit: Int) throws(StoreError) -> CommittedRecords {
        let published = publishedSequence
        guard sequence < published, limit > 0 else { return .records([]) }
        if let recent = notifier.recent(after: sequence, limit: limit) { return .records(recent) }
        guard let storage else { return .gone(oldest: 0) }
        let reader = LogReader(directory: storage.directory, fileSystem: storage.fileSystem)
        return try logReading.withLock { (cache) throws(StoreError) -> CommittedRecords in
            let cursor: LogCursor
            if let cached = cache.cursor, cached.sequence == sequence {
                cursor = cached
            } else if let found = try reader.cursor(after: sequence, starts: &cache.starts) {
                cursor = found
            } else {
                var oldest: UInt64 = 0
                for number in try reader.segments() {
                    if let start = cache.starts[number] ?? reader.start(of: number) { oldest = start.sequence; break }
                }
                return .gone(oldest: oldest)
            }
            guard let (records, next) = try reader.read(from: cursor, through: published, limit: limit) else {
                cache.cursor = nil
                return .gone(oldest: 0)
            }
            // A read that found nothing it should have (a segment removed under it) is a gap.
            if records.isEmpty {
                cache.cursor = nil
                return .gone(oldest: 0)
            }
            cache.cursor = next
            return .records(records)
        }
    }
}
