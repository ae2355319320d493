// ReplicationLogTests.swift — the store's side of replication: a primary's committed records
// read back framed as group commit writes them (only durable ones; a copy once compaction took them), a
// replica appending them so its log equals the primary's (applied first, durable once synced;
// a failed sync undoes what was not durable), a corrupt record, a gap or a record that does not
// apply refused with the graph and log kept as they were, a full copy installed with the
// primary's history, and histories compared on the wire.

import Testing
import Foundation
@testable import GraphStore
import GraphTestSupport

@Suite struct ReplicationLogTests {
    func addUsers(_ store: GraphStore, _ ids: ClosedRange<Int>) throws {
        for i in ids {
            try store.write { g in
                _ = try g.createNode(labels: [g.internLabel("User")], properties: [(g.internPropertyKey("id"), .integer(Int64(i)))])
            }
        }
    }

    @Test("Records read from a primary and appended by a replica give the same graph, log and sequence")
    func recordsRoundTrip() throws {
        try withTemporaryDirectory { root in
            var primaryDirectory: DataDirectory? = try DataDirectory(path: root + "/p")
            let replicaDirectory = try DataDirectory(path: root + "/r")
            let primary = try primaryDirectory!.createGraph(named: "g")
            try addUsers(primary, 1...5)
            let copy = try primary.replicationSnapshot(scratch: root)
            #expect(copy.lastSequence == 5)
            let replica = try replicaDirectory.installReplicated(named: "g", snapshot: copy.bytes, history: primary.history)
            #expect(replica.history == primary.history)
            #expect(replica.durableSequence == 5)
            try primary.compact()   // a new segment, after the snapshot through record 5
            try addUsers(primary, 6...12)
            let records = try #require(try primary.framedRecords(after: 5, maxBytes: 1 << 20))
            #expect(try replica.appendReplicated(records) == 12)
            #expect(replica.read { $0.dump() } == primary.read { $0.dump() })
            #expect(try replica.syncReplicated() == 12)
            // Nothing new: empty; a new record is there as soon as it is durable.
            #expect(try primary.framedRecords(after: 12, maxBytes: 1 << 20) == [])
            try addUsers(primary, 13...13)
            #expect(try primary.framedRecords(after: 12, maxBytes: 1 << 20)?.isEmpty == false)
            // Records a snapshot replaced are gone from the segments, not from the latest commits
            // kept in memory; once those do not reach back either (the store reopened), a copy is needed.
            let afterSeven = try #require(try primary.framedRecords(after: 7, maxBytes: 1 << 20))
            try primary.compact()
            #expect(try primary.framedRecords(after: 7, maxBytes: 1 << 20) == afterSeven)
            primary.close()
            primaryDirectory = nil
            let reopened = try #require(try DataDirectory(path: root + "/p").graph(named: "g"))
            #expect(try reopened.framedRecords(after: 7, maxBytes: 1 << 20) == nil)
            #expect(try reopened.framedRecords(after: 13, maxBytes: 1 << 20) == [])
            // Ahead of the primary: nil too.
            #expect(try reopened.framedRecords(after: 99, maxBytes: 1 << 20) == nil)
            // The replica's log reads back the same bytes.
            #expect(try replica.framedRecords(after: 5, maxBytes: 1 << 20) == records)
            // A small budget still returns whole records.
            let first = try #require(try replica.framedRecords(after: 5, maxBytes: 1))
            #expect(ReplicaLinkCount.records(first) == 1 && records.starts(with: first))
        }
    }

    @Test("The latest commits are kept in memory for replicas: read without the log, bounded, started over after a gap")
    func recentRecordsInMemory() throws {
        try withTemporaryDirectory { root in
            let directory = try DataDirectory(path: root + "/p")
            let store = try directory.createGraph(named: "g")
            try addUsers(store, 1...10)
            let framed = try #require(try store.framedRecords(after: 3, maxBytes: 1 << 20))
            // The log's segments gone from under the store: the records still come, from memory.
            let logDirectory = try #require(store.storage).directory
            let logs = try FileManager.default.contentsOfDirectory(atPath: logDirectory).filter { $0.hasSuffix(".glog") }
            #expect(!logs.isEmpty)
            for name in logs { try FileManager.default.removeItem(atPath: logDirectory + "/" + name) }
            #expect(try store.committedRecords(after: 3, limit: 100) != .records([]), "the log reader finds nothing")
            #expect(try store.framedRecords(after: 3, maxBytes: 1 << 20) == framed)
            #expect(ReplicaLinkCount.records(framed) == 7)
        }
        var ring = RecentRecords()
        func record(_ sequence: UInt64, mutations: Int = 1) -> LogRecord {
            LogRecord(sequence: sequence, commitTime: 0, mutations: Array(repeating: .deleteNode(NodeID(1)), count: mutations))
        }
        #expect(ring.after(0, through: 10, limit: 10) == nil, "nothing kept")
        for sequence in 1...UInt64(RecentRecords.recordLimit + 10) { ring.append(record(sequence)) }
        #expect(ring.after(9, through: .max, limit: 1) == nil, "the oldest dropped past the limit")
        #expect(ring.after(10, through: .max, limit: 2)?.map(\.sequence) == [11, 12])
        #expect(ring.after(20, through: 22, limit: 100)?.map(\.sequence) == [21, 22], "never past `through`")
        #expect(ring.after(UInt64(RecentRecords.recordLimit + 10), through: .max, limit: 5) == [])
        let last = UInt64(RecentRecords.recordLimit + 10)
        ring.append(record(last + 2))
        #expect(ring.after(last, through: .max, limit: 5) == nil, "a gap starts the ring over")
        #expect(ring.after(last + 1, through: .max, limit: 5)?.map(\.sequence) == [last + 2])
        ring.append(record(last + 3, mutations: RecentRecords.mutationLimit + 1))
        #expect(ring.after(last + 1, through: .max, limit: 5) == nil, "a bulk write is not kept, nor anything before it")
    }

    @Test("A corrupt record, a gap and a record that does not apply are refused; what came before stays, nothing after")
    func badRecordsRefused() throws {
        try withTemporaryDirectory { root in
            let primaryDirectory = try DataDirectory(path: root + "/p"), replicaDirectory = try DataDirectory(path: root + "/r")
            let primary = try primaryDirectory.createGraph(named: "g")
            try addUsers(primary, 1...3)
            let replica = try replicaDirectory.installReplicated(named: "g", snapshot: try primary.replicationSnapshot(scratch: root).bytes,
                                                                 history: primary.history)
            try addUsers(primary, 4...6)
            let records = try #require(try primary.framedRecords(after: 3, maxBytes: 1 << 20))
            var corrupt = records
            corrupt[corrupt.count - 2] ^= 0xff   // in the last record's payload
            #expect(throws: StoreError.self) { try replica.appendReplicated(corrupt) }
            #expect(replica.appliedSequence == 5, "the two good records before the corrupt one are applied")
            #expect(try replica.syncReplicated() == 5, "and made durable by the sync that follows")
            let dump = replica.read { $0.dump() }
            // A gap: record 6 is next, not 4 again.
            #expect(throws: StoreError.self) { try replica.appendReplicated(records) }
            #expect(replica.read { $0.dump() } == dump)
            // The replica's log holds exactly the two good records, as the primary wrote them.
            let kept = try #require(try replica.framedRecords(after: 3, maxBytes: 1 << 20))
            #expect(kept == Array(records.prefix(kept.count)) && ReplicaLinkCount.records(kept) == 2)
            // A record whose mutations do not fit the graph (created twice) is refused as well.
            let sixth = try #require(try primary.framedRecords(after: 5, maxBytes: 1 << 20))
            #expect(try replica.appendReplicated(sixth) == 6)
            #expect(try replica.syncReplicated() == 6)
            #expect(replica.read { $0.dump() } == primary.read { $0.dump() })
            // Record 7 of another graph touches node 10, which this graph does not have.
            let other = try primaryDirectory.createGraph(named: "other")
            try other.write { g in
                for _ in 0..<11 { _ = try g.createNode(labels: [g.internLabel("User")], properties: []) }
            }
            try addUsers(other, 2...6)
            try other.write { g in try g.setProperty(g.internPropertyKey("id"), to: .integer(1), of: NodeID(10)) }
            let misfit = try #require(try other.framedRecords(after: 6, maxBytes: 1 << 20))
            let before = replica.read { $0.dump() }
            #expect(throws: StoreError.self) { try replica.appendReplicated(misfit) }
            #expect(replica.read { $0.dump() } == before && replica.durableSequence == 6)
        }
    }

    @Test("Received records are applied and readable before they are durable; the sync makes them durable, a restart keeps what was synced")
    func appliedBeforeDurable() throws {
        try withTemporaryDirectory { root in
            let primaryDirectory = try DataDirectory(path: root + "/p")
            let primary = try primaryDirectory.createGraph(named: "g")
            try addUsers(primary, 1...2)
            var replicaDirectory: DataDirectory? = try DataDirectory(path: root + "/r")
            let replica = try replicaDirectory!.installReplicated(named: "g", snapshot: try primary.replicationSnapshot(scratch: root).bytes,
                                                                  history: primary.history)
            try addUsers(primary, 3...6)
            let records = try #require(try primary.framedRecords(after: 2, maxBytes: 1 << 20))
            #expect(try replica.appendReplicated(records) == 6)
            // Applied: a reader sees all six users; not yet durable (--fsync always syncs in syncReplicated).
            #expect(replica.appliedSequence == 6 && replica.durableSequence == 2)
            #expect(replica.read { $0.nodeCount } == 6)
            #expect(try replica.framedRecords(after: 2, maxBytes: 1 << 20) == [], "a replica's log serves only durable records")
            #expect(try replica.syncReplicated() == 6)
            #expect(replica.durableSequence == 6)
            #expect(try replica.framedRecords(after: 2, maxBytes: 1 << 20) == records)
            // A restart starts from the log: the same six, numbered as the primary's.
            replica.close()
            replicaDirectory = nil
            let reopened = try #require(try DataDirectory(path: root + "/r").graph(named: "g"))
            #expect(reopened.appliedSequence == 6 && reopened.durableSequence == 6)
            #expect(reopened.read { $0.dump() } == primary.read { $0.dump() })
        }
    }

    @Test("A failed fsync of received records undoes them; received again, they apply after the last durable one, none twice")
    func failedSyncUndoes() throws {
        try withTemporaryDirectory { root in
            let primaryDirectory = try DataDirectory(path: root + "/p")
            let primary = try primaryDirectory.createGraph(named: "g")
            try addUsers(primary, 1...2)
            let faults = FaultyFileSystem()
            let replicaDirectory = try openData(root + "/r", fileSystem: faults)
            let replica = try replicaDirectory.installReplicated(named: "g", snapshot: try primary.replicationSnapshot(scratch: root).bytes,
                                                                 history: primary.history)
            try addUsers(primary, 3...5)
            let records = try #require(try primary.framedRecords(after: 2, maxBytes: 1 << 20))
            #expect(try replica.appendReplicated(records) == 5)
            faults.inject(.syncFails, where: ".glog")
            #expect(throws: StoreError.self) { try replica.syncReplicated() }
            faults.heal()
            #expect(replica.appliedSequence == 2 && replica.durableSequence == 2, "back to the last durable record")
            #expect(userIDs(replica) == [1, 2])
            // The link's next pull names record 2: the same records come again and apply after it.
            #expect(try replica.appendReplicated(records) == 5)
            #expect(try replica.syncReplicated() == 5)
            #expect(userIDs(replica) == [1, 2, 3, 4, 5])
            #expect(replica.read { $0.dump() } == primary.read { $0.dump() })
        }
    }

    @Test("Records larger than the log reader's first read, between small ones, are read back whole")
    func largeRecordsReadWhole() throws {
        try withTemporaryDirectory { root in
            let directory = try DataDirectory(path: root + "/p")
            let primary = try directory.createGraph(named: "g")
            try addUsers(primary, 1...1)
            for size in [LogReader.firstChunk * 3, 10, LogReader.firstChunk + 1] {
                try primary.write { g in
                    _ = try g.createNode(labels: [g.internLabel("Blob")],
                                         properties: [(g.internPropertyKey("bytes"), .string(String(repeating: "x", count: size)))])
                }
            }
            try addUsers(primary, 2...2)
            let records = try #require(try primary.framedRecords(after: 0, maxBytes: 1 << 30))
            #expect(ReplicaLinkCount.records(records) == 5)
            #expect(records.count > LogReader.firstChunk * 4)
            let replicaDirectory = try DataDirectory(path: root + "/r")
            let replica = try replicaDirectory.createGraph(named: "g")
            #expect(try replica.appendReplicated(records) == 5)
            #expect(replica.read { $0.dump() } == primary.read { $0.dump() })
        }
    }

    @Test("Histories on the wire: the shared sequence of a history and the ones it continues")
    func historiesCompare() throws {
        var primary = GraphHistory.fresh()
        let old = primary
        primary.fork(sharing: 10)
        #expect(GraphHistory(wire: primary.wire) == primary)
        #expect(GraphHistory(wire: "nonsense") == nil)
        #expect(primary.sharedSequence(with: old, otherLast: 8, last: 20) == 8, "behind the fork: all shared")
        #expect(primary.sharedSequence(with: old, otherLast: 13, last: 20) == 10, "past the fork: 11… are its own")
        #expect(primary.sharedSequence(with: primary, otherLast: 25, last: 20) == 20, "ahead of the primary")
        #expect(primary.sharedSequence(with: GraphHistory.fresh(), otherLast: 5, last: 20) == nil)
    }
}

/// Counts framed records (length-prefixed) in a byte string.
enum ReplicaLinkCount {
    static func records(_ bytes: [UInt8]) -> Int {
        var count = 0, offset = 0
        while offset + AppendLog.recordHeaderLength <= bytes.count {
            offset += AppendLog.recordHeaderLength + Int(bytes.littleEndian(UInt32.self, at: offset))
            count += 1
        }
        return count
    }
}
