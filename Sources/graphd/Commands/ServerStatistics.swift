// ServerStatistics.swift — the figures INFO reports that the server counts itself:
// connections, commands processed, queries waiting and running, queries and clients
// refused, and per-command call counts and latency. Updated from the I/O thread and the
// workers, so counters are atomics and the per-command table sits behind a mutex.

import Synchronization

/// Live counters for INFO and load shedding.
final class ServerStatistics: Sendable {
    let connectedClients = Atomic<Int>(0)
    let totalConnections = Atomic<Int>(0)
    let rejectedConnections = Atomic<Int>(0)
    let commandsProcessed = Atomic<Int>(0)
    /// Queries accepted and not yet finished (waiting for a worker or running).
    let pendingQueries = Atomic<Int>(0)
    /// Queries refused because `pendingQueries` was at MAX_QUEUED_QUERIES.
    let shedQueries = Atomic<Int>(0)
    /// Queries answered on the I/O thread within the quick budget (GraphCommands.quickBudget).
    let quickQueries = Atomic<Int>(0)
    /// Reads run by the event loop's own thread, with another thread leading meanwhile
    /// (Server's leader/follower path) instead of by a worker.
    let loopReads = Atomic<Int>(0)
    /// Writes run by the event loop's own thread because no other command was running.
    let loopWrites = Atomic<Int>(0)
    /// Times the event loop found events while polling instead of sleeping (Server's busy poll).
    let busyPollHits = Atomic<Int>(0)
    /// Reads a loop thread ran through which the other loop thread polled instead of sleeping
    /// (Server's `waitOnStandby` and `waitForEvents`).
    let polledReads = Atomic<Int>(0)
    /// Times the leader woke the sleeping follower to poll (Server's `wakeFollowerToPoll`).
    let followerWakeUps = Atomic<Int>(0)
    /// Clients closed because their unsent output passed the limit.
    let outputLimitDisconnections = Atomic<Int>(0)
    /// Clients closed because their buffers put the server past its memory ceiling.
    let memoryCeilingDisconnections = Atomic<Int>(0)
    /// Change-feed subscriptions (`graphd:` channels and patterns) held now.
    let feedSubscriptions = Atomic<Int>(0)
    /// Those of them behind (refilled from the ring or the log as their sockets drain).
    let feedSubscriptionsBehind = Atomic<Int>(0)
    /// Subscribers closed because they fell behind past the retained log.
    let feedClosedPastRetention = Atomic<Int>(0)
    let startedAt = ContinuousClock.now

    /// Calls and total time per command name, for INFO commandstats.
    struct CommandCounter: Sendable, Equatable {
        var calls = 0
        /// Nanoseconds, so that sub-microsecond commands (PING) still add up.
        var nanoseconds: Int64 = 0
        var failedCalls = 0

        mutating func record(nanoseconds: Int64, failed: Bool) {
            calls += 1
            self.nanoseconds += nanoseconds
            if failed { failedCalls += 1 }
        }
    }
    private let perCommand = Mutex<[String: CommandCounter]>([:])

    init() {}

    /// Records one finished command.
    func record(command: String, duration: Duration, failed: Bool) {
        commandsProcessed.add(1, ordering: .relaxed)
        let nanos = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        perCommand.withLock { table in
            // In place: one hash of the name, not a read and a write.
            table[command, default: CommandCounter()].record(nanoseconds: nanos, failed: failed)
        }
    }

    /// A copy of the per-command table.
    var commandCounters: [String: CommandCounter] { perCommand.withLock { $0 } }
}
