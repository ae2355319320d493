// FeedSubscriptions.swift — who listens to the change feed, and where each listener is: the
// server loop's side of the feed, touched only under the loop's state lock (like PubSubRegistry,
// where the same subscriptions are counted for acknowledgements and UNSUBSCRIBE).
//
// A subscription is live (it has been given every commit the loop has delivered) or behind at a
// cursor (the last commit whose events were queued for it). Live ones get each new commit's
// events as it is delivered; one whose connection has more than `outputBudget` bytes unsent
// stops being queued there and falls behind. A subscription behind is refilled — from the ring,
// or through a log read on a worker — whenever its connection's unsent output is under
// `refillWater`, and turns live again once its cursor reaches the delivered commit. So a slow
// subscriber holds at most about `outputBudget` bytes, and never misses or repeats a commit.
// A subscription made with `@token` starts behind at the token: the replay is that same refill,
// and its position message goes out when the cursor reaches the position read at subscribe time.
//
// A subscription that fell behind for its budget is *stalled* until it reaches the delivered
// commit again; the feed stops observing a graph whose every subscription is stalled
// (ChangeFeed), since their events come from the log anyway. A stalled one that catches up turns
// live at the last commit delivered; the feed observes again, the commits made meanwhile arrive as
// a gap, and it is refilled across it like any subscription behind (not stalled: the feed keeps
// observing while it catches up).

import GraphStore

/// One SUBSCRIBE or PSUBSCRIBE of a feed channel by one connection.
/// @unchecked Sendable: touched only under the server loop's state lock (log reads carry it to a worker and back).
final class FeedSubscription: @unchecked Sendable {
    let connection: UInt64
    /// The name as subscribed (with its `@…` suffix): frames carry it, as clients registered it.
    let name: [UInt8]
    let channel: FeedChannel
    let glob: GlobPattern?
    var generation: Int
    /// nil: live. Else the last commit whose events were queued.
    var cursor: UInt64?
    /// Send the position message once the cursor reaches this (an `@token` subscription's replay).
    var positionAt: UInt64?
    /// A log read for it is running on a worker.
    var readingLog = false
    /// It fell behind because its connection passed the output budget, and has not caught up since.
    var stalled = false

    init(connection: UInt64, name: [UInt8], channel: FeedChannel, generation: Int) {
        self.connection = connection
        self.name = name
        self.channel = channel
        self.generation = generation
        glob = channel.isPattern ? GlobPattern(channel.channel) : nil
    }

    /// Whether an event on `channel` (a name without suffix) is for this subscription.
    func matches(_ channelName: [UInt8]) -> Bool { glob?.matches(channelName) ?? (channelName == channel.channel) }
}

/// What the loop must do after a feed operation.
struct FeedOutcome {
    /// Frames to queue, in order, on connections.
    var frames: [(connection: UInt64, frame: [UInt8])] = []
    /// Subscriptions that need commits read from the log (on a worker).
    var logReads: [(subscription: FeedSubscription, after: UInt64)] = []
    /// Connections to close once their output is flushed (a subscriber behind past retention).
    var closing: [UInt64] = []
    /// Connections with subscriptions that fell behind: to refill as soon as their output allows.
    var refills: Set<UInt64> = []
    /// Change in each graph's count of stalled subscriptions (for ChangeFeed.listen).
    var stalls: [String: Int] = [:]

    var isEmpty: Bool { frames.isEmpty && logReads.isEmpty && closing.isEmpty && refills.isEmpty && stalls.isEmpty }

    mutating func append(_ other: FeedOutcome) {
        frames += other.frames
        logReads += other.logReads
        closing += other.closing
        refills.formUnion(other.refills)
        stalls.merge(other.stalls, uniquingKeysWith: +)
    }

    /// `subscription` is stalled from now on (`true`) or no longer.
    mutating func stall(_ subscription: FeedSubscription, _ stalled: Bool) {
        guard subscription.stalled != stalled else { return }
        subscription.stalled = stalled
        stalls[subscription.channel.graph, default: 0] += stalled ? 1 : -1
        if stalls[subscription.channel.graph] == 0 { stalls[subscription.channel.graph] = nil }
    }
}

/// Every feed subscription of the server, by graph and by connection.
struct FeedSubscriptions {
    /// Unsent bytes past which a connection's live subscriptions stop being queued and fall behind.
    static let outputBudget = 1 << 20
    /// A subscription behind is refilled while its connection has less than this unsent.
    static let refillWater = 256 << 10
    /// Commits read per refill step.
    static let refillBatch = 64

    private final class GraphState {
        let name: String
        var generation: Int
        var history: String
        /// The last commit handed to the subscriptions.
        var delivered: UInt64
        var exact: [[UInt8]: [FeedSubscription]] = [:]
        var patterns: [FeedSubscription] = []
        var behind: [FeedSubscription] = []
        init(_ name: String, _ position: FeedPosition) {
            self.name = name
            generation = position.generation
            history = position.token.history
            delivered = position.token.sequence
        }
        var all: [FeedSubscription] { exact.values.flatMap { $0 } + patterns }
        var token: ChangeToken { ChangeToken(history: history, sequence: delivered) }
    }

    private var graphs: [String: GraphState] = [:]
    private(set) var byConnection: [UInt64: [FeedSubscription]] = [:]

    /// How a frame is written for a connection, and how much it has unsent.
    struct Connections {
        var protocolVersion: (UInt64) -> ProtocolVersion
        var unsent: (UInt64) -> Int
    }

    // MARK: subscribing

    /// Registers a subscription at `position` (read under the same lock as deliveries, so no
    /// commit falls between): live for `.now`, behind at the token for `.after`, live after a
    /// reset for a token the graph cannot place.
    mutating func subscribe(_ connection: UInt64, name: [UInt8], channel: FeedChannel, position: FeedPosition,
                            connections: Connections) -> FeedOutcome {
        var outcome = FeedOutcome()
        let state = graphState(channel.graph, position, &outcome, connections)
        let subscription = FeedSubscription(connection: connection, name: name, channel: channel, generation: state.generation)
        if channel.isPattern { state.patterns.append(subscription) } else { state.exact[channel.channel, default: []].append(subscription) }
        byConnection[connection, default: []].append(subscription)
        // Commits up to `now` were made before this subscription: it starts after them.
        let now = max(position.published, state.delivered)
        var start = now
        switch channel.resume {
        case .now:
            break
        case .invalid:
            outcome.frames.append((connection, frame(subscription, ChangePayload.reset(ChangeToken(history: state.history, sequence: now)), connections)))
        case .after(let token):
            let placed = position.store.map { $0.baseline(for: token) } ?? .unknown
            if case .sequence(let sequence) = placed {
                start = sequence
                subscription.positionAt = max(sequence, now)
            } else {
                outcome.frames.append((connection, frame(subscription, ChangePayload.reset(ChangeToken(history: state.history, sequence: now)), connections)))
            }
        }
        if start != state.delivered || subscription.positionAt != nil {
            subscription.cursor = start
            state.behind.append(subscription)
            outcome.refills.insert(connection)
        }
        return outcome
    }

    /// Removes `connection`'s subscription `name` (pattern or not); the graph it listened to, if
    /// any, and whether it was stalled.
    mutating func unsubscribe(_ connection: UInt64, name: [UInt8], pattern: Bool) -> (graph: String, stalled: Bool)? {
        guard let index = byConnection[connection]?.firstIndex(where: { $0.name == name && $0.channel.isPattern == pattern }),
              let subscription = byConnection[connection]?.remove(at: index) else { return nil }
        if byConnection[connection]?.isEmpty == true { byConnection[connection] = nil }
        forget(subscription)
        return (subscription.channel.graph, subscription.stalled)
    }

    /// Removes every subscription of a connection; the graphs they listened to, one per
    /// subscription, and whether each was stalled.
    mutating func removeAll(of connection: UInt64) -> [(graph: String, stalled: Bool)] {
        let held = byConnection.removeValue(forKey: connection) ?? []
        for subscription in held { forget(subscription) }
        return held.map { ($0.channel.graph, $0.stalled) }
    }

    private mutating func forget(_ subscription: FeedSubscription) {
        guard let state = graphs[subscription.channel.graph] else { return }
        if subscription.channel.isPattern {
            state.patterns.removeAll { $0 === subscription }
        } else {
            state.exact[subscription.channel.channel]?.removeAll { $0 === subscription }
            if state.exact[subscription.channel.channel]?.isEmpty == true { state.exact[subscription.channel.channel] = nil }
        }
        state.behind.removeAll { $0 === subscription }
        if state.exact.isEmpty && state.patterns.isEmpty { graphs[subscription.channel.graph] = nil }
    }

    // MARK: delivering

    /// New commits of `graph` (generation `generation`) up to `through`: queued on live subscriptions.
    mutating func deliver(_ graph: String, generation: Int, commits: [DerivedCommit], through: ChangeToken,
                          connections: Connections) -> FeedOutcome {
        var outcome = FeedOutcome()
        guard let state = graphs[graph], generation >= state.generation else { return outcome }
        if generation > state.generation {
            let start = commits.first.map { ChangeToken(history: $0.history, sequence: $0.sequence - 1) } ?? through
            restart(state, generation: generation, at: start, &outcome, connections)
        }
        for commit in commits where commit.sequence > state.delivered {
            if commit.sequence != state.delivered + 1 { fallBehind(state, &outcome) }  // commits nobody derived
            deliver(commit, state, &outcome, connections)
            state.delivered = commit.sequence
            state.history = commit.history
            catchUp(state, &outcome, connections)
        }
        if through.sequence > state.delivered {
            fallBehind(state, &outcome)
            state.delivered = through.sequence
            state.history = through.history
            catchUp(state, &outcome, connections)
        }
        // Those behind have more to be refilled with now.
        for subscription in state.behind where !subscription.readingLog { outcome.refills.insert(subscription.connection) }
        return outcome
    }

    /// The store of a graph was replaced: every subscription is told to revalidate and goes on live.
    private func restart(_ state: GraphState, generation: Int, at token: ChangeToken, _ outcome: inout FeedOutcome,
                         _ connections: Connections) {
        state.generation = generation
        state.delivered = token.sequence
        state.history = token.history
        state.behind = []
        for subscription in state.all {
            subscription.generation = generation
            subscription.cursor = nil
            subscription.positionAt = nil
            outcome.stall(subscription, false)
            outcome.frames.append((subscription.connection, frame(subscription, ChangePayload.reset(token), connections)))
        }
    }

    /// Every live subscription stops at the delivered commit (what follows must come from the log).
    private func fallBehind(_ state: GraphState, _ outcome: inout FeedOutcome) {
        for subscription in state.all where subscription.cursor == nil {
            subscription.cursor = state.delivered
            state.behind.append(subscription)
            outcome.refills.insert(subscription.connection)
        }
    }

    private func deliver(_ commit: DerivedCommit, _ state: GraphState, _ outcome: inout FeedOutcome, _ connections: Connections) {
        var falling: Set<ObjectIdentifier> = []
        var checked: Set<ObjectIdentifier> = []
        func send(_ channel: [UInt8], _ payload: () -> [UInt8]) {
            var encoded: [UInt8]?
            for subscription in (state.exact[channel] ?? []) + state.patterns.filter({ $0.matches(channel) })
            where subscription.cursor == nil {
                let id = ObjectIdentifier(subscription)
                if checked.insert(id).inserted, connections.unsent(subscription.connection) > Self.outputBudget {
                    falling.insert(id)
                }
                guard !falling.contains(id) else { continue }
                if encoded == nil { encoded = payload() }
                outcome.frames.append((subscription.connection, frame(subscription, channel: channel, encoded!, connections)))
            }
        }
        forEachEvent(of: commit, graph: state) { channel, payload in send(channel, payload) }
        guard !falling.isEmpty else { return }
        for subscription in state.all where falling.contains(ObjectIdentifier(subscription)) {
            subscription.cursor = commit.sequence - 1
            state.behind.append(subscription)
            outcome.refills.insert(subscription.connection)
            outcome.stall(subscription, true)
        }
    }

    /// Calls `body` with each message of `commit`: its channel and its payload (encoded on demand).
    private func forEachEvent(of commit: DerivedCommit, graph state: GraphState,
                              _ body: ([UInt8], () -> [UInt8]) -> Void) {
        let graph = state.name
        let notify = FeedChannel.notify(graph), changes = FeedChannel.changes(graph)
        for event in commit.social {
            if let id = event.to.appID { body(FeedChannel.user(graph, id)) { ChangePayload.encode(event, of: commit) } }
            body(notify) { ChangePayload.encode(event, of: commit) }
        }
        for change in commit.changes { body(changes) { ChangePayload.encode(change, of: commit) } }
    }

    /// Subscriptions behind whose cursor has reached the delivered commit turn live.
    private func catchUp(_ state: GraphState, _ outcome: inout FeedOutcome, _ connections: Connections) {
        guard !state.behind.isEmpty else { return }
        state.behind.removeAll { subscription in
            guard let cursor = subscription.cursor, cursor >= state.delivered, !subscription.readingLog else { return false }
            if cursor > state.delivered { return false }  // replay read past what was delivered: wait for it
            subscription.cursor = nil
            outcome.stall(subscription, false)
            notePosition(subscription, at: cursor, state, &outcome, connections)
            return true
        }
    }

    private func notePosition(_ subscription: FeedSubscription, at sequence: UInt64, _ state: GraphState,
                              _ outcome: inout FeedOutcome, _ connections: Connections) {
        guard let at = subscription.positionAt, sequence >= at else { return }
        subscription.positionAt = nil
        let token = ChangeToken(history: state.history, sequence: sequence)
        outcome.frames.append((subscription.connection, frame(subscription, ChangePayload.position(token), connections)))
    }

    // MARK: refilling

    /// Queues commits for `connection`'s subscriptions that are behind, while its unsent output
    /// stays under `refillWater`: from the ring (`ring`), else asking for a log read.
    mutating func refill(_ connection: UInt64, ring: (String, Int, UInt64, Int) -> FeedRead,
                         connections: Connections) -> FeedOutcome {
        var outcome = FeedOutcome()
        guard let held = byConnection[connection] else { return outcome }
        var queued = connections.unsent(connection)
        for subscription in held where subscription.cursor != nil && !subscription.readingLog {
            guard let state = graphs[subscription.channel.graph] else { continue }
            while queued < Self.refillWater, let cursor = subscription.cursor {
                if cursor >= state.delivered {
                    catchUp(state, &outcome, connections)
                    break
                }
                switch ring(subscription.channel.graph, state.generation, cursor, Self.refillBatch) {
                case .commits(let commits) where !commits.isEmpty:
                    queued += apply(commits, to: subscription, state, &outcome, connections)
                case .commits, .needsLog, .gone:
                    // Not in the ring: the store decides (its log, or that they are gone).
                    subscription.readingLog = true
                    outcome.logReads.append((subscription, cursor))
                }
                if subscription.readingLog { break }
            }
        }
        return outcome
    }

    /// A log read for `subscription` after `after` finished with `read`.
    mutating func logRead(_ subscription: FeedSubscription, after: UInt64, _ read: FeedRead,
                          connections: Connections) -> FeedOutcome {
        var outcome = FeedOutcome()
        subscription.readingLog = false
        guard byConnection[subscription.connection]?.contains(where: { $0 === subscription }) == true,
              let state = graphs[subscription.channel.graph], subscription.generation == state.generation,
              subscription.cursor == after else { return outcome }
        switch read {
        case .commits(let commits) where !commits.isEmpty:
            _ = apply(commits, to: subscription, state, &outcome, connections)
        case .commits, .needsLog:
            // Delivered commits the store no longer has (a log cut back after a failed fsync):
            // never a silent gap, a reset.
            subscription.positionAt = nil
            subscription.cursor = nil
            outcome.stall(subscription, false)
            state.behind.removeAll { $0 === subscription }
            outcome.frames.append((subscription.connection, frame(subscription, ChangePayload.reset(state.token), connections)))
        case .gone:
            if subscription.positionAt != nil {
                // An `@token` replay the log can no longer give: reset, then live.
                subscription.positionAt = nil
                subscription.cursor = nil
                outcome.stall(subscription, false)
                state.behind.removeAll { $0 === subscription }
                outcome.frames.append((subscription.connection, frame(subscription, ChangePayload.reset(state.token), connections)))
            } else {
                var encoder = RESPEncoder(protocolVersion: connections.protocolVersion(subscription.connection))
                let resume = String(decoding: subscription.channel.channel, as: UTF8.self) + "@"
                    + ChangeToken(history: state.history, sequence: after).description
                encoder.error("ERR graphd: subscriber fell behind by \(state.delivered > after ? state.delivered - after : 0) changes, past the retained log; "
                              + "resume with \(subscription.channel.isPattern ? "PSUBSCRIBE" : "SUBSCRIBE") \(resume)")
                outcome.frames.append((subscription.connection, encoder.bytes))
                outcome.closing.append(subscription.connection)
            }
        }
        catchUp(state, &outcome, connections)
        return outcome
    }

    /// Queues `subscription`'s events of `commits` (those after its cursor, up to what was
    /// delivered); returns the bytes queued.
    private func apply(_ commits: [DerivedCommit], to subscription: FeedSubscription, _ state: GraphState,
                       _ outcome: inout FeedOutcome, _ connections: Connections) -> Int {
        var bytes = 0
        for commit in commits {
            guard let cursor = subscription.cursor, commit.sequence == cursor + 1 else { continue }
            forEachEvent(of: commit, graph: state) { channel, payload in
                guard subscription.matches(channel) else { return }
                let framed = frame(subscription, channel: channel, payload(), connections)
                bytes += framed.count
                outcome.frames.append((subscription.connection, framed))
            }
            subscription.cursor = commit.sequence
            notePosition(subscription, at: commit.sequence, state, &outcome, connections)
        }
        catchUp(state, &outcome, connections)
        return bytes
    }

    // MARK: frames and figures

    private func frame(_ subscription: FeedSubscription, channel: [UInt8]? = nil, _ payload: [UInt8],
                       _ connections: Connections) -> [UInt8] {
        let frames = PubSubFrames(protocolVersion: connections.protocolVersion(subscription.connection))
        if subscription.channel.isPattern {
            return frames.patternMessage(pattern: subscription.name, channel: channel ?? subscription.channel.channel, payload: payload)
        }
        return frames.message(channel: subscription.name, payload: payload)
    }

    /// The graph state for a subscription at `position`, made or brought to its generation.
    private mutating func graphState(_ graph: String, _ position: FeedPosition, _ outcome: inout FeedOutcome,
                                     _ connections: Connections) -> GraphState {
        if let state = graphs[graph] {
            if position.generation > state.generation {
                restart(state, generation: position.generation, at: position.token, &outcome, connections)
            }
            return state
        }
        let state = GraphState(graph, position)
        graphs[graph] = state
        return state
    }

    /// How many commits `connection`'s subscriptions are behind, at most (CLIENT LIST's `sub-lag`).
    func lag(of connection: UInt64) -> UInt64 {
        (byConnection[connection] ?? []).reduce(0) { most, subscription in
            guard let cursor = subscription.cursor, let state = graphs[subscription.channel.graph] else { return most }
            return max(most, state.delivered > cursor ? state.delivered - cursor : 0)
        }
    }

    /// Subscriptions behind (INFO): O(graphs subscribed to).
    var behindCount: Int { graphs.values.reduce(0) { $0 + $1.behind.count } }
}
