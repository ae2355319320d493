// DurabilityDeferral.swift — lets a server answer a durable write from the thread that synced
// it, instead of keeping a thread blocked per waiting client. Under `--fsync always` a write made
// while a deferral is current (`DurabilityDeferral.$current.withValue`) returns once its record is
// appended; the deferral remembers it, and its owner calls `whenDurable` to learn when the
// record is durable, or why it never will be. The owner must not acknowledge the write before.
//
// Why: sixty-four clients writing at once kept sixty-four threads parked on the group-commit
// condition, each woken after every fdatasync only to hand its reply on; the context switches
// took more of the two cores than the writes. Now the sync's leader calls every writer it
// covered, and the server's loop is woken once for the group.

import Dispatch
import Synchronization

/// The writes a command made that are not yet durable, for the one who answers it.
public final class DurabilityDeferral: Sendable {
    /// The deferral that `GraphStore.write` reports to on this thread or task, if any.
    @TaskLocal public static var current: DurabilityDeferral?

    private let writes = Mutex<[(store: GraphStore, ticket: GroupCommit.Ticket)]>([])
    private let durableActions = Mutex<[@Sendable () -> Void]>([])

    public init() {}

    /// Whether any write was deferred (otherwise there is nothing to wait for).
    public var isEmpty: Bool { writes.withLock { $0.isEmpty } }

    func add(_ store: GraphStore, _ ticket: GroupCommit.Ticket) {
        writes.withLock { $0.append((store, ticket)) }
    }

    /// The sequence number of the last write deferred here to `store`'s log (nil: none): the
    /// write's position, before it is published.
    public func lastSequence(of store: GraphStore) -> UInt64? {
        writes.withLock { writes in writes.last { $0.store === store }?.ticket.sequence }
    }

    /// Runs `action` once the deferred writes are durable, before the answer (what a write
    /// that waited would do right after its wait); not at all if one failed.
    public func whenDurableRun(_ action: @escaping @Sendable () -> Void) {
        durableActions.withLock { $0.append(action) }
    }

    /// Calls `body` once every deferred write is durable (nil), or with the error the first
    /// failed one's writer would have been given (the store recovers first, as for a waiting
    /// writer). `body` runs on a thread that synced the log, or on a worker after a failure.
    public func whenDurable(_ body: @escaping @Sendable (StoreError?) -> Void) {
        let taken = writes.withLock { writes in defer { writes = [] }; return writes }
        guard !taken.isEmpty else { return body(nil) }
        let outcome = Mutex<(left: Int, error: StoreError?)>((taken.count, nil))
        let finish: @Sendable (StoreError?) -> Void = { error in
            let done = outcome.withLock { state -> (Bool, StoreError?) in
                state.left -= 1
                if state.error == nil { state.error = error }
                return (state.left == 0, state.error)
            }
            guard done.0 else { return }
            if done.1 == nil { for action in self.durableActions.withLock({ $0 }) { action() } }
            body(done.1)
        }
        for (store, ticket) in taken {
            guard let commit = store.storage?.commit else { finish(nil); continue }
            commit.whenDurable(ticket) { error in
                guard let error else { return finish(nil) }
                // Not on this thread: it may be a flush that holds the store's write lock,
                // which the recovery takes.
                DispatchQueue.global().async { finish(store.unacknowledged(error)) }
            }
        }
    }
}
