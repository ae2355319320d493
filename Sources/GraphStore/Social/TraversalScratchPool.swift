// TraversalScratchPool.swift — lends TraversalScratch values to concurrent queries: each borrower
// gets one to itself for the length of a call and gives it back, so readers never share scratch
// space and a warm server reuses a few instead of allocating per query.

import Synchronization

/// A small stack of idle scratches behind a mutex. A call takes one (or makes a new one when all
/// are lent out), runs with exclusive use of it, and returns it; at most `keep` idle ones stay.
public final class TraversalScratchPool: Sendable {
    private let idle = Mutex<[TraversalScratch]>([])
    private let keep: Int

    /// A pool keeping at most `keep` idle scratches (about 8 bytes per graph node each).
    public init(keep: Int = 8) { self.keep = keep }

    /// Runs `body` with a scratch no other caller holds meanwhile.
    public func withScratch<R, E: Error>(_ body: (inout TraversalScratch) throws(E) -> R) throws(E) -> R {
        var scratch = checkOut()
        defer { checkIn(scratch) }
        return try body(&scratch)
    }

    /// A scratch for the caller alone until it hands it back with `checkIn(_:)`: for a holder
    /// that outlives one call (a query run keeping a user's friends marked between rows).
    public func checkOut() -> TraversalScratch {
        idle.withLock { $0.popLast() } ?? TraversalScratch()
    }

    /// Takes back a scratch from `checkOut()` (kept if fewer than `keep` are idle).
    public func checkIn(_ scratch: consuming TraversalScratch) {
        let returned = scratch
        idle.withLock { if $0.count < keep { $0.append(returned) } }
    }
}
