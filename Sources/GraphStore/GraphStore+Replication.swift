// GraphStore+Replication.swift — what replication reads of a store: how far its log is
// durable (the only records a primary ships, and a replica's acknowledged position).

extension GraphStore {
    /// The sequence number of the last record known durable (0: none, or an in-memory store).
    /// Records up to it survive a crash; a primary ships no record past it.
    public var durableSequence: UInt64 { storage?.commit.durablePosition.sequence ?? 0 }
}
