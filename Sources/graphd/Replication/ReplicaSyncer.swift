// ReplicaSyncer.swift — makes the records a replica's link applied durable, on a thread of its
// own: the link goes on pulling and applying while an fsync runs, so a write the primary ships
// in the meantime is applied (and acknowledged as applied) without waiting for the disk. Each
// round syncs every graph written since the last one (GraphStore.syncReplicated: one fsync per
// graph under --fsync always, the policy's own flushing otherwise), at most about one round a
// millisecond under a stream of writes. It reports nothing itself: the link's next pull reads
// each store's durable sequence, which moves only once the fsync has returned.

import Foundation
import GraphStore
import Synchronization

/// The fsyncs of one replica link.
final class ReplicaSyncer: Sendable {
    private struct State {
        /// Graphs with records applied and not yet given to an fsync.
        var pending: Set<String> = []
        /// A round is running.
        var syncing = false
        var stopped = false
    }
    private let state = Mutex(State())
    private let signal = ChangeSignal()
    private let context: ServerContext
    /// The pause after a round that synced something, to gather the next few batches into one
    /// fsync. Back-to-back fsyncs of a replica sharing a disk with its primary (the loopback
    /// benchmark) slowed the primary's own fsyncs, and its writes, by about a quarter.
    static let pause: TimeInterval = 0.001

    init(context: ServerContext) {
        self.context = context
    }

    /// Starts the thread; it runs until `stop`.
    func start() {
        let thread = Thread { self.run() }
        thread.name = "graphd.replica-sync"
        thread.start()
    }

    /// Records of `graph` were applied: make them durable.
    func add(_ graph: String) {
        _ = state.withLock { $0.pending.insert(graph) }
        signal.broadcast()
    }

    /// True while records applied are on their way to durability (the link's pulls then
    /// come back soon, to report the durable positions).
    var isBusy: Bool { state.withLock { $0.syncing || !$0.pending.isEmpty } }

    /// Ends the thread after the round it may be running (and one for what is pending).
    func stop() {
        state.withLock { $0.stopped = true }
        signal.broadcast()
    }

    private func run() {
        while true {
            let seen = signal.current
            let (graphs, stopped) = state.withLock { state -> (Set<String>, Bool) in
                let graphs = state.pending
                state.pending = []
                state.syncing = !graphs.isEmpty
                return (graphs, state.stopped)
            }
            for name in graphs.sorted() {
                guard let store = (try? context.dataDirectory.graph(named: name)) ?? nil else { continue }
                do throws(StoreError) {
                    try store.syncReplicated()
                } catch {
                    // The store undid what was not durable: the next pull names the position it
                    // fell back to and fetches those records again.
                    context.log("replica link: graph '\(name)': \(error.message)")
                }
            }
            state.withLock { $0.syncing = false }
            if stopped { return }
            if graphs.isEmpty {
                signal.wait(after: seen, until: nil)
            } else {
                Thread.sleep(forTimeInterval: Self.pause)
            }
        }
    }
}
