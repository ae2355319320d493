// GraphStore+Replication.swift — what replication needs of a store. On a primary: how far its
// log is durable, the committed records after a sequence number framed as group commit writes
// them (read with the store's log reader, never past the durable frontier), and a full copy as
// snapshot bytes. On a replica: appending such records after checking each one's checksum and
// sequence and applying it, and installing a received snapshot. The record framing and the
// checks are AppendLog's and LogRecovery's, so a replica's log is byte for byte its primary's.

#if canImport(Glibc)
import Glibc
#endif

/// A full copy of a graph for a new or diverged replica: a snapshot file's bytes and the
/// last sequence number it covers.
public struct ReplicationSnapshot: Sendable {
    public var bytes: [UInt8]
    public var lastSequence: UInt64
}

extension GraphStore {
    /// The sequence number of the last record known durable (0: none, or an in-memory store).
    /// Records up to it survive a crash; a primary ships no record past it. Under `--fsync no`
    /// nothing is ever known durable, so it is the last record written (what the operator
    /// chose to trust).
    public var durableSequence: UInt64 {
        guard let storage else { return 0 }
        return storage.options.fsync == .no ? publishedSequence : storage.commit.durablePosition.sequence
    }

    /// The durable records after `sequence`, framed as in the log (length, CRC-32C, payload:
    /// what group commit wrote), about `maxBytes` at most (at least one record when there is
    /// one); empty when nothing newer is durable. Nil when the log no longer holds
    /// `sequence + 1`, or `sequence` is past the durable end: the follower needs a full copy.
    /// Taken from the latest commits kept in memory (RecentRecords) when they reach back to
    /// `sequence + 1`, else read with the store's one log reader (`committedRecords(after:limit:)`);
    /// capped at the durable frontier whatever the fsync policy publishes.
    public func framedRecords(after sequence: UInt64, maxBytes: Int) throws(StoreError) -> [UInt8]? {
        let durable = durableSequence
        if sequence >= durable { return sequence == durable ? [] : nil }
        let limit = Int(min(durable - sequence, 4096))
        let read: CommittedRecords
        if let recent = lock.withReadLock({ changes.recent.after(sequence, through: durable, limit: limit) }) {
            read = .records(recent)
        } else {
            read = try committedRecords(after: sequence, limit: limit)
        }
        switch read {
        case .gone:
            return nil
        case .records(let records):
            var out: [UInt8] = []
            var expected = sequence + 1
            for record in records where record.sequence <= durable {
                guard record.sequence == expected else { return nil }
                out += AppendLog.frame(MutationCodec.encode(record))
                expected += 1
                if out.count >= maxBytes { break }
            }
            return out
        }
    }


    /// A full copy for a follower: the graph as of its last durable record, as snapshot bytes
    /// (written to a scratch directory under `scratch`, read back and removed).
    public func replicationSnapshot(scratch: String) throws(StoreError) -> ReplicationSnapshot {
        guard let storage else { throw StoreError(.closed, "graph '\(name)' has no log to copy") }
        let (frozen, sequence) = try withWriteLock { () throws(StoreError) -> (Graph, UInt64) in
            if closed { throw StoreError(.closed, "graph '\(name)' was deleted or closed") }
            return (graph, log?.lastSequence ?? 0)
        }
        // Only durable records leave the primary: wait until the copy's last one is.
        try storage.commit.flush()
        let directory = scratch + "/copy-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try storage.fileSystem.createDirectory(directory)
        defer { try? storage.fileSystem.removeTree(directory) }
        try SnapshotWriter(fileSystem: storage.fileSystem).write(frozen, number: 1, lastSequence: sequence, directory: directory)
        let file = try storage.fileSystem.open(directory + "/" + SnapshotFormat.fileName(1))
        defer { file.close() }
        return ReplicationSnapshot(bytes: try file.read(at: 0, count: try file.size()), lastSequence: sequence)
    }

    /// The sequence number of the last record applied (in memory, and written to the log):
    /// on a replica it runs ahead of `durableSequence` between a batch's apply and its fsync.
    public var appliedSequence: UInt64 { lock.withReadLock { changes.lastSequence } }

    /// Appends `records` (framed as in the log) received from a primary: each is checked (its
    /// checksum, that it decodes, that its sequence is the next one), applied as one
    /// transaction and written byte for byte to this log, where readers see it at once. It is
    /// not made durable here: `syncReplicated` does that, so that a replica can acknowledge
    /// what it applied while the fsync runs. Returns the last sequence applied. Throws at the
    /// first record that fails, with the records before it kept (and to be synced): the
    /// caller resyncs.
    public func appendReplicated(_ records: [UInt8]) throws(StoreError) -> UInt64 {
        guard let storage else { throw StoreError(.closed, "graph '\(name)' has no log") }
        return try withWriteLock { () throws(StoreError) -> UInt64 in
            if closed { throw StoreError(.closed, "graph '\(name)' was deleted or closed; it takes no more writes") }
            if storage.commit.failureError != nil { try recoverAfterFailedFsyncLocked(storage) }
            guard let log else { throw StoreError(.closed, "graph '\(name)' has no log") }
            // Received records go to the file at once (a killed replica keeps what it said it
            // applied), not to the log's tail, which only a sync writes.
            if log.usesBlockWrites {
                try log.stopBlockWrites()
                storage.commit.switchTail(nil)
            }
            var offset = 0
            while offset < records.count {
                let next = try appendOne(records, at: offset, log: log, storage: storage)
                _ = storage.commit.wrote(sequence: log.lastSequence, end: log.end, announced: false)
                offset = next
            }
            return log.lastSequence
        }
    }

    /// Makes the records `appendReplicated` wrote durable, as the fsync policy says: under
    /// `always` one fdatasync for everything written so far; under `everysec` and `no` the
    /// policy's own flushing (nothing here). Returns `durableSequence` then. A failed fsync
    /// throws, after the store's recovery cut the log back to its last durable record and
    /// undid the rest: `appliedSequence` falls back to it, and the replica fetches them again.
    @discardableResult
    public func syncReplicated() throws(StoreError) -> UInt64 {
        guard let storage else { return 0 }
        if storage.options.fsync == .always {
            do { try storage.commit.flush() } catch {
                throw unacknowledged(error, what: "fsync of replicated records failed")
            }
        }
        return durableSequence
    }

    /// Under the write lock: checks, applies and appends the record at `offset` of `records`;
    /// returns the offset after it.
    private func appendOne(_ records: [UInt8], at offset: Int, log: AppendLog, storage: StoreStorage) throws(StoreError) -> Int {
        guard let (payload, next) = LogRecovery.validRecord(in: records, at: offset) else {
            throw StoreError(.corruptLog, "graph '\(name)': received record at offset \(offset) fails its checksum or framing")
        }
        let decoded: LogRecord
        do { decoded = try MutationCodec.decode(payload) } catch {
            throw StoreError(.corruptLog, "graph '\(name)': received record at offset \(offset) does not decode: \(error)")
        }
        guard decoded.sequence == log.lastSequence + 1 else {
            throw StoreError(.corruptLog, "graph '\(name)': received record \(decoded.sequence) where \(log.lastSequence + 1) "
                             + "was expected (a gap)")
        }
        if let problem = LogRecovery.applyOpen(decoded.mutations, to: &graph) {
            throw StoreError(.corruptLog, "graph '\(name)': received record \(decoded.sequence) does not apply: \(problem)")
        }
        do throws(StoreError) {
            try log.appendRecord(Array(records[offset..<next]), sequence: decoded.sequence, commitTime: decoded.commitTime)
        } catch {
            graph.rollbackTransaction()
            throw error
        }
        _ = graph.commitTransaction()
        noteCommitted(decoded)
        return next
    }
}

extension GraphStore {
    /// Starts a new history sharing every commit so far (a replica promoted to primary: the
    /// writes it takes from now on are not its old primary's, whatever their numbers).
    public func forkHistory() throws(StoreError) {
        try withWriteLock { () throws(StoreError) in
            var history = changes.history
            history.fork(sharing: log?.lastSequence ?? changes.lastSequence)
            if let storage {
                try HistoryFile(directory: storage.directory, fileSystem: storage.fileSystem)
                    .write(history, openUnder: storage.options.fsync)
            }
            changes.history = history
        }
    }

    /// Takes the primary's history (a replica that follows it: its records are the primary's).
    public func adoptHistory(_ history: GraphHistory) throws(StoreError) {
        try withWriteLock { () throws(StoreError) in
            guard changes.history != history else { return }
            if let storage {
                try HistoryFile(directory: storage.directory, fileSystem: storage.fileSystem)
                    .write(history, openUnder: storage.options.fsync)
            }
            changes.history = history
        }
    }
}

extension GraphHistory {
    /// The history as one word for the replication stream: `id[,ancestor@lastSequence]…`.
    public var wire: String {
        ([id] + ancestors.map { "\($0.id)@\($0.lastSequence)" }).joined(separator: ",")
    }

    /// Parses `wire`; nil for anything else.
    public init?(wire: String) {
        let parts = wire.split(separator: ",").map(String.init)
        guard let first = parts.first, Self.isID(first) else { return nil }
        var ancestors: [Ancestor] = []
        for part in parts.dropFirst() {
            let fields = part.split(separator: "@").map(String.init)
            guard fields.count == 2, Self.isID(fields[0]), let sequence = UInt64(fields[1]) else { return nil }
            ancestors.append(Ancestor(id: fields[0], lastSequence: sequence))
        }
        self.init(id: first, ancestors: ancestors)
    }

    /// The last sequence of history `other` (another server's) that this one shares, or nil when
    /// they share nothing known: `otherLast` is where `other` has got to.
    public func sharedSequence(with other: GraphHistory, otherLast: UInt64, last: UInt64) -> UInt64? {
        if other.id == id { return min(otherLast, last) }
        if let ancestor = ancestors.first(where: { $0.id == other.id }) { return min(ancestor.lastSequence, otherLast, last) }
        if let ancestor = other.ancestors.first(where: { $0.id == id }) { return min(ancestor.lastSequence, otherLast, last) }
        for mine in ancestors {
            if let theirs = other.ancestors.first(where: { $0.id == mine.id }) {
                return min(mine.lastSequence, theirs.lastSequence, otherLast, last)
            }
        }
        return nil
    }

    private static func isID(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

extension DataDirectory {
    /// Makes a primary's snapshot (`ReplicationSnapshot.bytes`) the whole of graph `name`,
    /// replacing what is there, with its log continuing after the snapshot's last sequence.
    /// The bytes are checked as any snapshot is before anything is replaced.
    /// The graph takes `history` (the primary's), so that the two compare from then on.
    public func installReplicated(named name: String, snapshot bytes: [UInt8],
                                  history: GraphHistory) throws(StoreError) -> GraphStore {
        let loaded = try SnapshotReader(fileSystem: fileSystem, slotMemoryLimit: options.slotMemoryLimit)
            .read(bytes: bytes, path: "the copy of graph '\(name)' from the primary", number: 1)
        return try installGraph(named: name, graph: loaded.graph, replacing: true, lastSequence: loaded.lastSequence,
                                history: history, snapshotBytes: bytes)
    }
}
