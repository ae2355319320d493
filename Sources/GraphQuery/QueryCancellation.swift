// QueryCancellation.swift — a flag another thread raises to stop a running query (the REPL's
// Ctrl-C). The query's watchdog reads it where it reads the clock, so the query stops within a
// few hundred rows, with the same rollback as a timeout.

import Synchronization

/// Cancels one query run from another thread: pass it to `QueryEngine.execute(…cancellation:)`,
/// then `cancel()`. The run fails with a `.timeout` error, "Query cancelled", and a write is
/// rolled back. A cancelled token stays cancelled; use a new one per query.
public final class QueryCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    /// Asks the query to stop; safe from any thread, any number of times.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
