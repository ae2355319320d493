// RecentRecords.swift — the latest commits of a store (up to a thousand), kept in memory as
// they commit, so that a replica's pull finds the records it is about to be sent without a read
// of the log: such a read (the segment list, an open, a header and a chunk, per pull) costs
// several times the rest of a pull's work on a loaded machine, and a caught-up replica pulls
// after every few writes (docs/replication.md, "Lag"). Bounded in records and in mutations, so
// a bulk write is not kept twice; a pull this does not reach back for reads the log.

/// The latest commits, in sequence order with no gap. Guarded by the store's lock.
struct RecentRecords: Sendable {
    /// How many commits are kept at most.
    static let recordLimit = 1024
    /// How many mutations they may hold together (a bulk write alone may be larger: kept not at all).
    static let mutationLimit = 65_536

    private var records: [LogRecord] = []
    /// `records[start...]` are kept; the slots before it are dropped on the next compaction.
    private var start = 0
    private var mutations = 0

    /// A commit, the one after the last kept (anything else starts the ring over).
    mutating func append(_ record: LogRecord) {
        if let last = records.last, start < records.count, record.sequence != last.sequence + 1 { removeAll() }
        guard record.mutations.count <= Self.mutationLimit else { return removeAll() }
        records.append(record)
        mutations += record.mutations.count
        while records.count - start > Self.recordLimit || mutations > Self.mutationLimit {
            mutations -= records[start].mutations.count
            start += 1
        }
        if start >= Self.recordLimit {
            records.removeFirst(start)
            start = 0
        }
    }

    mutating func removeAll() {
        records.removeAll()
        start = 0
        mutations = 0
    }

    /// The kept records after `sequence` up to `through`, at most `limit`; nil when the ring
    /// does not reach back to `sequence + 1` (or holds nothing).
    func after(_ sequence: UInt64, through: UInt64, limit: Int) -> [LogRecord]? {
        guard start < records.count, records[start].sequence <= sequence + 1 else { return nil }
        let from = start + Int(sequence + 1 - records[start].sequence)
        guard from <= records.count else { return nil }
        var out: [LogRecord] = []
        var index = from
        while index < records.count, out.count < limit, records[index].sequence <= through {
            out.append(records[index])
            index += 1
        }
        return out
    }
}
