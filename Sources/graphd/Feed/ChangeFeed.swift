// ChangeFeed.swift — the change feed of every graph: each open store's commit observer derives
// the events of its commits (off the writer's path, on the store's notifier thread, and only
// while someone listens), keeps the recent ones in a ring, wakes GRAPH.CHANGES waiters and hands
// them to the server loop (`FeedSink`), which queues them on subscribers' connections.
// Older commits are read back from the store's retained log (`committedRecords`) and derived again.
//
// Locks: the feed's own (never held while calling out); the data directory's store observer
// calls in under the directory's lock; the sink is called with none held.

import Dispatch
import GraphStore
import Synchronization

/// Where the feed hands newly derived commits: the server loop. `through` is the last sequence
/// the call covers; `commits` may be fewer (none were derived while nobody listened).
typealias FeedSink = @Sendable (_ graph: String, _ generation: Int, _ commits: [DerivedCommit], _ through: ChangeToken) -> Void

/// One graph's place in the feed.
struct FeedPosition: Sendable {
    /// Changes whenever the graph's store is replaced (deleted, copied over, installed).
    var generation: Int
    var token: ChangeToken
    /// The store, nil while the graph does not exist.
    var store: GraphStore?
}

/// What the ring (or the log) has after a sequence.
enum FeedRead: Sendable {
    /// Commits after the sequence asked, ascending and contiguous (empty: none newer yet).
    case commits([DerivedCommit])
    /// The ring no longer holds the next one: read the log.
    case needsLog
    /// Neither does the log (retention passed): `oldest` is the oldest it holds.
    case gone(oldest: UInt64)
}

/// The server's change feed (one per ServerContext).
final class ChangeFeed: Sendable {
    /// Derived commits kept in memory per graph for replay and catch-up; older ones come from the log.
    static let ringCommits = 4096

    private final class GraphFeed: @unchecked Sendable {
        // @unchecked: touched only under ChangeFeed.state.
        var store: GraphStore?
        var observer: CommitObserverID?
        var generation = 0
        var history = GraphHistory.fresh().id
        var lastSequence: UInt64 = 0
        /// Contiguous derived commits ending at `lastSequence` (when not empty).
        var ring: [DerivedCommit] = []
        var ringHead = 0
        /// Subscriptions and GRAPH.CHANGES waiters: commits are derived only while some exist.
        var listeners = 0
        var waiters: [DispatchSemaphore] = []

        var ringCount: Int { ring.count - ringHead }
        func append(_ commit: DerivedCommit) {
            if let last = ring.last, ringCount > 0, last.sequence + 1 != commit.sequence { clearRing() }
            ring.append(commit)
            if ringCount > ChangeFeed.ringCommits { ringHead += 1 }
            if ringHead > ChangeFeed.ringCommits { ring.removeFirst(ringHead); ringHead = 0 }
        }
        func clearRing() { ring.removeAll(); ringHead = 0 }
    }

    private struct State {
        var graphs: [String: GraphFeed] = [:]
        var sink: FeedSink?
    }

    private let state = Mutex(State())
    let dataDirectory: DataDirectory

    init(dataDirectory: DataDirectory) {
        self.dataDirectory = dataDirectory
        dataDirectory.observeStores { [weak self] name, store in self?.storeChanged(name, store) }
    }

    /// Connects the server loop; commits derived before are not handed to it.
    func connect(_ sink: @escaping FeedSink) { state.withLock { $0.sink = sink } }

    // MARK: stores

    /// A graph's store was opened or replaced (or deleted: nil). Called under the directory's lock.
    private func storeChanged(_ name: String, _ store: GraphStore?) {
        let feed = state.withLock { state in
            let feed = state.graphs[name] ?? GraphFeed()
            state.graphs[name] = feed
            return feed
        }
        let sequence = store?.publishedSequence ?? 0
        let history = store?.history.id ?? GraphHistory.fresh().id
        let (old, oldObserver, generation): (GraphStore?, CommitObserverID?, Int) = state.withLock { _ in
            if feed.store === store, store != nil { return (nil, nil, -1) }
            let old = (feed.store, feed.observer)
            feed.store = store
            feed.observer = nil
            feed.generation += 1
            feed.history = history
            feed.lastSequence = sequence
            feed.clearRing()
            for waiter in feed.waiters { waiter.signal() }
            feed.waiters = []
            return (old.0, old.1, feed.generation)
        }
        guard generation >= 0 else { return }
        if let old, let oldObserver { old.removeCommitObserver(oldObserver) }
        if let store {
            let observer = store.addCommitObserver { [weak self] records in
                self?.committed(name, generation: generation, records)
            }
            // Records published between the observer's start and `sequence` are skipped by sequence.
            state.withLock { _ in if feed.generation == generation { feed.observer = observer } }
        }
        let sink = state.withLock { $0.sink }
        // Not from under the directory's lock: the loop may be waiting on it.
        if let sink { DispatchQueue.global().async { sink(name, generation, [], ChangeToken(history: history, sequence: sequence)) } }
    }

    /// The store's notifier thread: records published, ascending.
    private func committed(_ name: String, generation: Int, _ records: [LogRecord]) {
        guard let last = records.last else { return }
        let (feed, store, derive, sink): (GraphFeed?, GraphStore?, Bool, FeedSink?) = state.withLock { state in
            guard let feed = state.graphs[name], feed.generation == generation else { return (nil, nil, false, nil) }
            return (feed, feed.store, feed.listeners > 0, state.sink)
        }
        guard let feed, let store else { return }
        let fresh = records.filter { $0.sequence > state.withLock { _ in feed.lastSequence } }
        guard !fresh.isEmpty else { return }
        let commits = derive ? store.derive(fresh) : []
        let through: ChangeToken? = state.withLock { _ in
            guard feed.generation == generation, last.sequence > feed.lastSequence else { return nil }
            if commits.isEmpty { feed.clearRing() }
            for commit in commits where commit.sequence > feed.lastSequence {
                feed.append(commit)
                feed.history = commit.history
            }
            feed.lastSequence = last.sequence
            for waiter in feed.waiters { waiter.signal() }
            feed.waiters = []
            return ChangeToken(history: feed.history, sequence: last.sequence)
        }
        if let through, let sink { sink(name, generation, commits, through) }
    }

    // MARK: reading

    /// The graph's current feed position, opening its store if it exists on disk (the first
    /// subscription to a graph not yet open reads it).
    func position(of graph: String) -> FeedPosition {
        if state.withLock({ $0.graphs[graph]?.store == nil }) {
            _ = try? dataDirectory.graph(named: graph)  // announces the store (storeChanged)
        }
        return state.withLock { state in
            let feed = state.graphs[graph] ?? GraphFeed()
            state.graphs[graph] = feed
            return FeedPosition(generation: feed.generation, token: ChangeToken(history: feed.history, sequence: feed.lastSequence),
                                store: feed.store)
        }
    }

    /// One more (or one fewer: `delta` -1) subscription to `graph`'s events.
    func listen(_ graph: String, _ delta: Int) {
        state.withLock { state in
            let feed = state.graphs[graph] ?? GraphFeed()
            state.graphs[graph] = feed
            feed.listeners = max(0, feed.listeners + delta)
        }
    }

    /// Commits after `sequence` from the ring, up to `limit`.
    func ringCommits(_ graph: String, generation: Int, after sequence: UInt64, limit: Int) -> FeedRead {
        state.withLock { state in
            guard let feed = state.graphs[graph], feed.generation == generation else { return .needsLog }
            if sequence >= feed.lastSequence { return .commits([]) }
            guard let first = feed.ring.count > feed.ringHead ? feed.ring[feed.ringHead] : nil,
                  first.sequence <= sequence + 1, feed.ring.last!.sequence == feed.lastSequence else { return .needsLog }
            let start = feed.ringHead + Int(sequence + 1 - first.sequence)
            return .commits(Array(feed.ring[start..<min(feed.ring.count, start + limit)]))
        }
    }

    /// Commits after `sequence` from the ring or, past it, the store's retained log (derived
    /// again against the graph as it is now). For workers: it may read files.
    func commits(_ graph: String, generation: Int, after sequence: UInt64, limit: Int) -> FeedRead {
        let read = ringCommits(graph, generation: generation, after: sequence, limit: limit)
        guard case .needsLog = read else { return read }
        guard let store = state.withLock({ $0.graphs[graph]?.generation == generation ? $0.graphs[graph]?.store : nil }) else {
            return .commits([])
        }
        do {
            switch try store.committedRecords(after: sequence, limit: limit) {
            case .records(let records): return .commits(store.derive(records))
            case .gone(let oldest): return .gone(oldest: oldest)
            }
        } catch {
            return .gone(oldest: sequence + 1)
        }
    }

    /// Waits until `graph` has commits after `sequence` or `deadline` passes; false on timeout.
    func wait(_ graph: String, after sequence: UInt64, until deadline: DispatchTime) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let ready = state.withLock { state -> Bool in
            let feed = state.graphs[graph] ?? GraphFeed()
            state.graphs[graph] = feed
            if feed.lastSequence > sequence { return true }
            feed.waiters.append(semaphore)
            feed.listeners += 1
            return false
        }
        if ready { return true }
        let outcome = semaphore.wait(timeout: deadline)
        return state.withLock { state in
            let feed = state.graphs[graph]
            feed?.listeners -= 1
            if outcome == .timedOut { feed?.waiters.removeAll { $0 === semaphore } }
            return (feed?.lastSequence ?? 0) > sequence
        }
    }
}
