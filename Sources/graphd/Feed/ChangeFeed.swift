// ChangeFeed.swift — the change feed of every graph: each open store's commit observer derives
// the events of its commits (off the writer's path, on the store's notifier thread, and only
// while someone listens who is not stalled: a subscriber past its output budget is refilled from
// the log, so deriving for it alone would only take the writers' CPU), keeps the recent ones in
// a ring, wakes GRAPH.CHANGES waiters and hands them to the server loop (`FeedSink`), which
// queues them on subscribers' connections.
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
    /// The store's last published commit (the feed's own `token` lags it while nobody listens).
    var published: UInt64
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
    /// …and at most this many events in them (older commits are read back from the log).
    static let ringEvents = 200_000

    private final class GraphFeed: @unchecked Sendable {
        // @unchecked: touched only under ChangeFeed.state.
        var store: GraphStore?
        var observation: CommitObservation?
        /// An attach or detach of the observer is queued.
        var attaching = false
        var generation = 0
        var history = GraphHistory.fresh().id
        /// The last commit the feed knows of (stale while nobody listens: no observer runs then).
        var lastSequence: UInt64 = 0
        /// Contiguous derived commits ending at `lastSequence` (when not empty).
        var ring: [DerivedCommit] = []
        var ringHead = 0
        /// Subscriptions and GRAPH.CHANGES waiters: the store is observed only while some exist
        /// that are not stalled (FeedSubscriptions).
        var listeners = 0
        var stalled = 0
        var wantsObserver: Bool { listeners > stalled }
        var waiters: [DispatchSemaphore] = []

        /// Events held in `ring[ringHead...]`.
        var ringEvents = 0

        var ringCount: Int { ring.count - ringHead }
        func append(_ commit: DerivedCommit) {
            if let last = ring.last, ringCount > 0, last.sequence + 1 != commit.sequence { clearRing() }
            ring.append(commit)
            ringEvents += commit.social.count + commit.changes.count
            // Bounded in commits and in events (one bulk commit can hold a million), newest kept.
            while ringCount > 1 && (ringCount > ChangeFeed.ringCommits || ringEvents > ChangeFeed.ringEvents) {
                ringEvents -= ring[ringHead].social.count + ring[ringHead].changes.count
                ringHead += 1
            }
            if ringHead > ChangeFeed.ringCommits { ring.removeFirst(ringHead); ringHead = 0 }
        }
        func clearRing() { ring.removeAll(); ringHead = 0; ringEvents = 0 }
        func wakeWaiters() {
            for waiter in waiters { waiter.signal() }
            waiters = []
        }
    }

    private struct State {
        var graphs: [String: GraphFeed] = [:]
        var sink: FeedSink?

        mutating func feed(_ name: String) -> GraphFeed {
            if let feed = graphs[name] { return feed }
            let feed = GraphFeed()
            graphs[name] = feed
            return feed
        }
    }

    private let state = Mutex(State())
    /// Attaches and detaches observers: addCommitObserver takes the store's write lock, which the
    /// loop must not wait for.
    private let attachments = DispatchQueue(label: "graphd.feed-attachments")
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
        let sequence = store?.publishedSequence ?? 0
        let history = store?.history.id ?? GraphHistory.fresh().id
        let changed: (old: GraphStore?, observation: CommitObservation?, generation: Int, sink: FeedSink?)? = state.withLock { state in
            let feed = state.feed(name)
            if feed.store === store, store != nil { return nil }
            let old = (feed.store, feed.observation)
            feed.store = store
            feed.observation = nil
            feed.generation += 1
            feed.history = history
            feed.lastSequence = sequence
            feed.clearRing()
            feed.wakeWaiters()
            if feed.wantsObserver { scheduleAttachment(name, feed) }
            return (old.0, old.1, feed.generation, state.sink)
        }
        guard let changed else { return }
        if let old = changed.old, let observation = changed.observation { old.removeCommitObserver(observation) }
        // Not from under the directory's lock: the loop may be waiting on it.
        if let sink = changed.sink {
            let generation = changed.generation
            DispatchQueue.global().async { sink(name, generation, [], ChangeToken(history: history, sequence: sequence)) }
        }
    }

    /// Under `state`: queues the attachment (or detachment) of `feed`'s observer to match its listeners.
    private func scheduleAttachment(_ name: String, _ feed: GraphFeed) {
        guard !feed.attaching else { return }
        feed.attaching = true
        attachments.async { [weak self] in self?.attach(name, feed) }
    }

    /// Observes the store while `feed` has listeners not all stalled, and not otherwise.
    private func attach(_ name: String, _ feed: GraphFeed) {
        while true {
            let (store, generation, wanted, current): (GraphStore?, Int, Bool, CommitObservation?) = state.withLock { _ in
                (feed.store, feed.generation, feed.wantsObserver, feed.observation)
            }
            if wanted, current == nil, let store {
                let observation = store.addCommitObserver { [weak self] records in
                    self?.committed(name, generation: generation, records)
                }
                let sink: FeedSink? = state.withLock { state in
                    guard feed.generation == generation else { return nil }
                    feed.observation = observation
                    guard observation.startAfter > feed.lastSequence else { return nil }
                    // Commits made while nobody observed: known by number only (the log has them).
                    feed.lastSequence = observation.startAfter
                    feed.clearRing()
                    feed.wakeWaiters()
                    return state.sink
                }
                if state.withLock({ _ in feed.observation != observation }) { store.removeCommitObserver(observation) }
                let history = state.withLock { _ in feed.history }
                sink?(name, generation, [], ChangeToken(history: history, sequence: observation.startAfter))
            } else if !wanted, let current, let store {
                store.removeCommitObserver(current)
                state.withLock { _ in if feed.observation == current { feed.observation = nil } }
            }
            let done: Bool = state.withLock { _ in
                let settled = feed.wantsObserver == (feed.observation != nil) || feed.store == nil
                if settled { feed.attaching = false }
                return settled
            }
            if done { return }
        }
    }

    /// The store's notifier thread: records published, ascending.
    private func committed(_ name: String, generation: Int, _ records: [LogRecord]) {
        guard let last = records.last else { return }
        let (feed, store, derive, after): (GraphFeed?, GraphStore?, Bool, UInt64) = state.withLock { state in
            guard let feed = state.graphs[name], feed.generation == generation else { return (nil, nil, false, 0) }
            return (feed, feed.store, feed.listeners > 0, feed.lastSequence)
        }
        guard let feed, let store else { return }
        let fresh = records.filter { $0.sequence > after }
        guard !fresh.isEmpty else { return }
        let commits = derive ? store.derive(fresh) : []
        let delivery: (ChangeToken, FeedSink?)? = state.withLock { state in
            guard feed.generation == generation, last.sequence > feed.lastSequence else { return nil }
            if commits.isEmpty { feed.clearRing() }
            for commit in commits where commit.sequence > feed.lastSequence {
                feed.append(commit)
                feed.history = commit.history
            }
            feed.lastSequence = last.sequence
            feed.wakeWaiters()
            return (ChangeToken(history: feed.history, sequence: last.sequence), state.sink)
        }
        if let (through, sink) = delivery, let sink { sink(name, generation, commits, through) }
    }

    // MARK: reading

    /// The graph's current feed position, opening its store if it exists on disk (the first
    /// subscription to a graph not yet open reads it).
    func position(of graph: String) -> FeedPosition {
        if state.withLock({ $0.graphs[graph]?.store == nil }) {
            _ = try? dataDirectory.graph(named: graph)  // announces the store (storeChanged)
        }
        let (generation, token, store) = state.withLock { state in
            let feed = state.feed(graph)
            return (feed.generation, ChangeToken(history: feed.history, sequence: feed.lastSequence), feed.store)
        }
        return FeedPosition(generation: generation, token: token, store: store,
                            published: max(token.sequence, store?.publishedSequence ?? 0))
    }

    /// One more (or one fewer: `delta` -1) subscription to `graph`'s events, and `stalled` more
    /// (or fewer) of them stalled: a graph whose every listener is stalled is not observed.
    func listen(_ graph: String, _ delta: Int, stalled: Int = 0) {
        state.withLock { state in
            let feed = state.feed(graph)
            let before = feed.wantsObserver
            feed.listeners = max(0, feed.listeners + delta)
            feed.stalled = max(0, feed.stalled + stalled)
            if feed.listeners == 0, feed.store == nil, feed.waiters.isEmpty, !feed.attaching {
                // A graph that does not exist keeps no entry (clients may name any number of them).
                state.graphs[graph] = nil
                return
            }
            if before != feed.wantsObserver { scheduleAttachment(graph, feed) }
        }
    }

    /// Whether `graph`'s store is observed now (its events derived as it commits).
    func isObserving(_ graph: String) -> Bool { state.withLock { $0.graphs[graph]?.observation != nil } }

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
        if case .commits(let commits) = read, !commits.isEmpty { return read }
        // The store decides what else there is (the feed's own position is stale while nobody listens).
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
        listen(graph, 1)
        defer { listen(graph, -1) }
        while true {
            let semaphore = DispatchSemaphore(value: 0)
            let ready = state.withLock { state -> Bool in
                let feed = state.feed(graph)
                if feed.lastSequence > sequence { return true }
                feed.waiters.append(semaphore)
                return false
            }
            if ready { return true }
            if semaphore.wait(timeout: deadline) == .timedOut {
                return state.withLock { state in
                    let feed = state.graphs[graph]
                    feed?.waiters.removeAll { $0 === semaphore }
                    return (feed?.lastSequence ?? 0) > sequence
                }
            }
        }
    }
}
