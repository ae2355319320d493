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
