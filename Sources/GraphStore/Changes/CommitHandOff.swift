// CommitHandOff.swift — lets the thread that answered a write hand its commit to the store's
// observers itself, after the reply, instead of waking the store's notifier thread. A write
// made while a hand-off is current (`CommitHandOff.$current.withValue`) queues its record for
// the observers without a wake-up; its owner calls `handOut()` once the write is answered.
//
// Why: the server answers a lone client's write on a loop thread. With the notifier thread
// woken for every commit, the feed delivered the commit's events from that thread at the
// moment the write's reply was being sent, and the two queued on the server's lock: a live
// subscriber doubled a lone client's write latency (docs/benchmarks.md, "Change feed
// latency"). Handed out after the reply, on the same thread, the reply goes first and the
// events right behind it, with no wake-up between.

import Synchronization

/// The stores whose commits this thread is to hand out once its write is answered.
public final class CommitHandOff: Sendable {
    /// The hand-off that `GraphStore.write` reports to on this thread or task, if any.
    @TaskLocal public static var current: CommitHandOff?

    private let stores = Mutex<[GraphStore]>([])

    public init() {}

    func add(_ store: GraphStore) {
        stores.withLock { stores in
            if !stores.contains(where: { $0 === store }) { stores.append(store) }
        }
    }

    /// Hands the queued commits to their stores' observers on this thread (in commit order,
    /// after any the notifier thread is handing out). Call with no lock held that an
    /// observer may take.
    public func handOut() {
        let taken = stores.withLock { stores in defer { stores = [] }; return stores }
        for store in taken { store.notifier.handOutPending() }
    }
}
