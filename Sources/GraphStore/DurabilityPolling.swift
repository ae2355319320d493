// DurabilityPolling.swift — lets a thread that waits for its write's fdatasync keep its core
// awake: under `--fsync always`, a write made while a budget is current
// (`DurabilityPolling.$budget.withValue`) has the log's flush queue run the block write and the
// fdatasync, and polls for their end, yielding its core on every turn, for up to the budget;
// past it the writer sleeps as any other.
//
// Why: in a VM, a core whose only thread sleeps in fdatasync halts, and the disk's completion
// interrupt then wakes a halted virtual CPU, and that CPU the sleeping writer: tens of
// microseconds a write, a fifth of a lone client's durable write on this project's two-core VM
// (docs/durability.md, "Where the time goes"). Polling keeps that core running, so the
// completion lands on a running core. The server sets a budget only for a lone client's write
// run on its loop thread while the server is quiet, the case its busy polling is for; writes of
// a busy server are answered by the thread that synced them (DurabilityDeferral) and poll not.

/// The polling budget of durable writes made on this thread or task.
public enum DurabilityPolling {
    /// How long a write waiting for its fdatasync polls before it sleeps; nil: it sleeps at
    /// once, leading the sync itself when no other thread does.
    @TaskLocal public static var budget: Duration?
}
