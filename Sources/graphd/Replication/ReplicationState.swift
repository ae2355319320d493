// ReplicationState.swift — what this server is in a replicated set, shared by every
// connection: its role (primary, or replica of host:port), the state of its link to the
// primary, the replicas following it and what each has acknowledged, the knobs Sentinel and
// operators set (replica-priority, min-replicas-to-write/-max-lag), and the process's run id.
// INFO, ROLE, REPLICAOF, WAIT and the write check all read this one value.

import Glibc
import Synchronization

/// A replica's or primary's address as given (`SLAVEOF 127.0.0.1 6479`): reported back
/// byte for byte, since Sentinel compares it as text.
struct ReplicationAddress: Sendable, Equatable {
    var host: String
    var port: Int
}

/// Whether the server takes writes or follows another server.
enum ReplicationRole: Sendable, Equatable {
    case primary
    case replica(of: ReplicationAddress)
}

/// The state of a replica's link to its primary, in ROLE's words.
enum ReplicaLinkState: String, Sendable {
    /// Not connected yet (or reconnecting after a failure).
    case connect
    /// Connected, handshake in progress.
    case handshake
    /// Receiving a full copy (snapshot) of a graph.
    case sync
    /// Caught up and following the stream.
    case connected
}

/// Where a replica is in one graph, as it last acknowledged: the history it follows (its id),
/// the last record it applied, and the last it made durable (never past `applied`).
struct FollowerPosition: Sendable, Equatable {
    var history: String
    var applied: UInt64
    var durable: UInt64
}

/// One replica as its primary sees it: where clients reach it and what it acknowledged.
struct FollowerRecord: Sendable, Equatable {
    /// The replica's connection on this server (CLIENT KILL never kills it by TYPE normal).
    var connection: Int64
    var address: ReplicationAddress
    /// Per graph, what the replica applied and made durable (ReplicaLink acknowledges the two
    /// apart: applied before its fsync, durable after).
    var positions: [String: FollowerPosition] = [:]
    /// When it last acknowledged (a pull is an acknowledgement).
    var lastAck: ContinuousClock.Instant

    /// Sum of applied sequences: the offset INFO reports for it.
    var offset: UInt64 { positions.values.reduce(0) { $0 &+ $1.applied } }
}

/// The replication knobs settable with CONFIG SET.
struct ReplicationSettings: Sendable, Equatable {
    /// Sentinel's promotion order: lower first; 0 never (`replica-priority`).
    var replicaPriority = 100
    /// Writes are refused with -NOREPLICAS when fewer replicas than this acknowledged within
    /// `minReplicasMaxLag` seconds; 0 turns the check off.
    var minReplicasToWrite = 0
    var minReplicasMaxLag = 10
}

/// The replication state of this server. Thread-safe.
final class ReplicationState: Sendable {
    /// 40 hex characters, new for every process (Sentinel's reboot detection).
    let runID: String
    /// The full copies this primary is sending in parts.
    let copies = ReplicationCopies()
    /// The password a replica gives its primary (--masterauth, else --requirepass); nil: none.
    let primaryPassword: String?

    private struct State: Sendable {
        var role: ReplicationRole = .primary
        var settings = ReplicationSettings()
        var linkState: ReplicaLinkState = .connect
        /// When the link to the primary went down (nil while up, or never connected: -1).
        var linkDownSince: ContinuousClock.Instant?
        var everConnected = false
        var lastIO: ContinuousClock.Instant?
        /// The last error the link met (wrong password, not a graphd, …), for INFO and logs.
        var linkError: String?
        /// The followers, by their connection id.
        var followers: [Int64: FollowerRecord] = [:]
        /// This server's history (Redis's replid) and the one before it with where it ended.
        var historyID: String
        var previousHistoryID = String(repeating: "0", count: 40)
        var previousHistoryOffset: Int64 = -1
        /// Records a replica set aside because its new primary never had them (ReplicaLink.setAside).
        var divergedRecords = 0
        /// Bumped on every role change: a link started for an older role stops.
        var generation: UInt64 = 0
    }
    private let state: Mutex<State>
    /// Lets the writer of a role change and WAIT/WAITSEQ callers wake each other.
    private let changes = ChangeSignal()
    /// Moves when a write command wrote records: wakes the followers' pulls waiting for them.
    private let written = ChangeSignal()
    /// Mirrors `role != .primary`, read on every write command without the lock.
    private let replicaFlag = Atomic<Bool>(false)
    /// Mirrors `settings.minReplicasToWrite > 0`, likewise.
    private let quorumFlag = Atomic<Bool>(false)

    init(role: ReplicationRole = .primary, settings: ReplicationSettings = ReplicationSettings(),
         primaryPassword: String? = nil) {
        runID = Self.randomHex(count: 40)
        self.primaryPassword = primaryPassword
        var initial = State(historyID: Self.randomHex(count: 40))
        initial.role = role
        initial.settings = settings
        state = Mutex(initial)
        replicaFlag.store(role != .primary, ordering: .relaxed)
        quorumFlag.store(settings.minReplicasToWrite > 0, ordering: .relaxed)
    }

    /// `count` random hex digits.
    static func randomHex(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<count).map { _ in digits[Int(generator.next() % 16)] })
    }

    // MARK: Role

    var role: ReplicationRole { state.withLock { $0.role } }
    var isReplica: Bool { replicaFlag.load(ordering: .relaxed) }
    /// Whether writes need min-replicas-to-write followers (checked without the lock).
    var hasWriteQuorum: Bool { quorumFlag.load(ordering: .relaxed) }
    var settings: ReplicationSettings { state.withLock { $0.settings } }
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Changes the role (REPLICAOF). Returns the new generation, which a link started for it
    /// carries, and whether anything changed. Promotion (`.primary` from a replica) starts a
    /// new history and keeps the old one with where it ended (Redis's shiftReplicationId).
    @discardableResult
    func setRole(_ role: ReplicationRole, offset: Int64) -> (generation: UInt64, changed: Bool) {
        let result = state.withLock { state -> (UInt64, Bool) in
            guard state.role != role else { return (state.generation, false) }
            if case .replica = state.role, role == .primary {
                state.previousHistoryID = state.historyID
                state.previousHistoryOffset = offset + 1
                state.historyID = Self.randomHex(count: 40)
            }
            state.role = role
            state.generation += 1
            state.linkState = .connect
            state.linkDownSince = nil
            state.everConnected = false
            state.linkError = nil
            if role != .primary { state.followers = [:] }
            return (state.generation, true)
        }
        replicaFlag.store(role != .primary, ordering: .relaxed)
        changes.broadcast()
        return result
    }

    /// Ends the running link (the server is stopping): it applies nothing more. The role stays.
    func endLinks() {
        state.withLock { $0.generation += 1 }
        changes.broadcast()
    }

    func updateSettings(_ body: (inout ReplicationSettings) -> Void) {
        let minimum = state.withLock { state in
            body(&state.settings)
            return state.settings.minReplicasToWrite
        }
        quorumFlag.store(minimum > 0, ordering: .relaxed)
    }

    // MARK: The replica's link

    /// The link of `generation` moved to `linkState`; false when that generation is over.
    @discardableResult
    func linkChanged(generation: UInt64, to linkState: ReplicaLinkState, error: String? = nil) -> Bool {
        state.withLock { state in
            guard state.generation == generation else { return false }
            let wasUp = state.linkState == .connected
            state.linkState = linkState
            if linkState == .connected {
                state.linkDownSince = nil
                state.everConnected = true
                state.linkError = nil
            } else if wasUp || state.linkDownSince == nil && state.everConnected {
                state.linkDownSince = .now
            }
            if let error { state.linkError = error }
            state.lastIO = .now
            return true
        }
    }

    /// Whether the link of `generation` is still the one wanted.
    func isCurrent(_ generation: UInt64) -> Bool { state.withLock { $0.generation == generation } }

    /// The link applied records or installed a copy: wakes GRAPHD.WAITSEQ callers.
    func replicaApplied() {
        state.withLock { $0.lastIO = .now }
        changes.broadcast()
    }

    /// Records were set aside as diverged (counted for INFO).
    func noteDiverged(records: Int) { state.withLock { $0.divergedRecords += records } }

    // MARK: Followers (on a primary)

    /// A follower pulled: it is at these positions (an acknowledgement).
    func followerAcknowledged(connection: Int64, address: ReplicationAddress, positions: [String: FollowerPosition]) {
        state.withLock { state in
            var record = state.followers[connection]
                ?? FollowerRecord(connection: connection, address: address, lastAck: .now)
            record.address = address
            record.positions = positions
            record.lastAck = .now
            state.followers[connection] = record
        }
        changes.broadcast()
    }

    /// A follower acknowledged between pulls (GRAPHD.ACK); false when `connection` is no follower.
    func followerAdvanced(connection: Int64, positions: [String: FollowerPosition]) -> Bool {
        let known = state.withLock { state -> Bool in
            guard state.followers[connection] != nil else { return false }
            state.followers[connection]!.positions = positions
            state.followers[connection]!.lastAck = .now
            return true
        }
        if known { changes.broadcast() }
        return known
    }

    /// A follower's connection closed.
    func followerLeft(connection: Int64) {
        _ = state.withLock { $0.followers.removeValue(forKey: connection) }
        changes.broadcast()
    }

    /// The followers, in connection order.
    var followers: [FollowerRecord] { state.withLock { $0.followers.values.sorted { $0.connection < $1.connection } } }

    /// Whether `connection` is a follower's (CLIENT KILL TYPE normal spares it).
    func isFollower(_ connection: Int64) -> Bool { state.withLock { $0.followers[connection] != nil } }

    /// Followers that acknowledged within `min-replicas-max-lag` seconds.
    func goodFollowerCount() -> Int {
        state.withLock { state in
            let lag = Duration.seconds(state.settings.minReplicasMaxLag)
            let now = ContinuousClock.now
            return state.followers.values.filter { now - $0.lastAck <= lag }.count
        }
    }

    /// The refusal for a write under min-replicas-to-write, or nil when it may go ahead.
    func minReplicasRefusal() -> String? {
        let needed = state.withLock { $0.settings.minReplicasToWrite }
        guard needed > 0, goodFollowerCount() < needed else { return nil }
        return "NOREPLICAS Not enough good replicas to write."
    }

    /// How many followers have `write` applied (`durable: false`, WAIT) or durable (WAITAOF).
    func followers(reaching write: WritePosition, durable: Bool) -> Int {
        state.withLock { state in state.followers.values.filter { write.isReached(by: $0.positions, durable: durable) }.count }
    }

    /// Waits until `condition` holds or `deadline` passes (nil: forever); returns whether it held.
    /// Woken by every acknowledgement, apply and role change.
    func wait(until deadline: ContinuousClock.Instant?, for condition: () -> Bool) -> Bool {
        while true {
            let seen = changes.current
            if condition() { return true }
            if let deadline, ContinuousClock.now >= deadline { return false }
            changes.wait(after: seen, until: deadline)
        }
    }

    // MARK: The primary's feed

    /// A command wrote log records (they may still be on their way to durability).
    func recordsWritten() { written.broadcast() }

    /// The feed's position, to wait past with `waitForRecords`.
    var recordsSeen: UInt64 { written.current }

    /// Sleeps until a write after `seen`, or `deadline`.
    func waitForRecords(after seen: UInt64, until deadline: ContinuousClock.Instant) {
        written.wait(after: seen, until: deadline)
    }

    // MARK: Reports

    /// A consistent view for INFO and ROLE.
    struct Snapshot: Sendable {
        var role: ReplicationRole
        var settings: ReplicationSettings
        var linkState: ReplicaLinkState
        var linkDownSeconds: Int64?
        var lastIOSeconds: Int64
        var linkError: String?
        var followers: [FollowerRecord]
        var historyID: String
        var previousHistoryID: String
        var previousHistoryOffset: Int64
        var divergedRecords: Int
    }

    var snapshot: Snapshot {
        state.withLock { state in
            let now = ContinuousClock.now
            var down: Int64? = nil
            if state.linkState != .connected {
                down = state.linkDownSince.map { (now - $0).components.seconds } ?? -1
            }
            return Snapshot(role: state.role, settings: state.settings, linkState: state.linkState,
                            linkDownSeconds: down,
                            lastIOSeconds: state.lastIO.map { (now - $0).components.seconds } ?? -1,
                            linkError: state.linkError,
                            followers: state.followers.values.sorted { $0.connection < $1.connection },
                            historyID: state.historyID, previousHistoryID: state.previousHistoryID,
                            previousHistoryOffset: state.previousHistoryOffset, divergedRecords: state.divergedRecords)
        }
    }
}
