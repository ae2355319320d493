// GroupCommitTests.swift — the fsync policies: under `always` concurrent writers share an
// fdatasync and a failed one acknowledges nothing (the graph reloads from its durable log);
// `everysec` and `no` answer before any fsync but have the record in the file already.

import Foundation
import Synchronization
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct GroupCommitTests {
    /// Runs `body(i)` on `count` separate threads at once and waits for all of them.
    func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            Thread { body(i); group.leave() }.start()
        }
        group.wait()
    }

    @Test func concurrentWritersShareOneFsync() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let directory = try openData(data, fileSystem: faults)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [0])
            let writers = 8
            let syncsBefore = store.storage!.commit.syncCount
            let writesBefore = faults.writeCount
            let commit = store.storage!.commit
            let sequenceBefore = commit.writtenSequence
            // The first fsync waits until every writer has appended its record, as a slow disk
            // would make it; all of them are then answered by at most one more fsync.
            faults.onSync { path in
                guard path.hasSuffix(".glog") else { return }
                let deadline = Date().addingTimeInterval(10)
                while commit.writtenSequence < sequenceBefore + UInt64(writers) && Date() < deadline { usleep(200) }
            }
            onThreads(writers) { i in
                do { try addUsers(store, [i + 1]) } catch { Issue.record("write \(i + 1) failed: \(error)") }
            }
            faults.onSync(nil)
            let syncs = store.storage!.commit.syncCount - syncsBefore
            #expect(syncs >= 1 && syncs <= 2, "\(writers) concurrent writes took \(syncs) fsyncs")
            // The records reach the file in one block write per fsync, not one write each.
            let writes = faults.writeCount - writesBefore
            #expect(writes <= syncs, "\(writers) concurrent writes took \(writes) file writes")
            #expect(userIDs(store) == Array(0...Int64(writers)))
        }
    }

    @Test func aFailedFsyncAcknowledgesNothingAndUndoesTheWrite() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let directory = try openData(data, fileSystem: faults)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [1])
            faults.inject(.syncFails, where: ".glog")
            let error = expectStoreError { try addUsers(store, [2]) }
            #expect(error?.message.contains("the write was not acknowledged: cannot fsync") == true, "\(String(describing: error))")
            #expect(error?.message.contains("Input/output error") == true)
            #expect(userIDs(store) == [1], "the unacknowledged write must be undone")
            // Concurrent writers whose fsync fails all get errors; none is applied.
            let failures = Mutex(0)
            onThreads(4) { i in
                do { try addUsers(store, [10 + i]) } catch { failures.withLock { $0 += 1 } }
            }
            #expect(failures.withLock { $0 } == 4)
            #expect(userIDs(store) == [1])
            #expect(directory.events.contains { $0.contains("were not acknowledged and were undone") })
            faults.heal()
            try addUsers(store, [3])
            #expect(userIDs(store) == [1, 3])
        }
        // (reopen checked in the next test's shape: the log holds exactly the acknowledged records)
    }

    @Test func afterAFailedFsyncTheLogHoldsExactlyTheAcknowledgedWrites() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            do {
                let directory = try openData(data, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, [1, 2])
                faults.inject(.syncFails, where: ".glog")
                _ = expectStoreError { try addUsers(store, [3]) }
                faults.heal()
                try addUsers(store, [4])
            }
            let reopened = try openData(data)
            #expect(userIDs(try #require(try reopened.graph(named: "g"))) == [1, 2, 4])
            #expect(reopened.recoveryMessages.isEmpty)
        }
    }

    @Test(arguments: [FsyncPolicy.everysec, .no])
    func relaxedPoliciesAnswerBeforeAnyFsyncWithTheRecordInTheFile(policy: FsyncPolicy) throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let directory = try openData(data, .init(fsync: policy), fileSystem: faults)
            let store = try directory.createGraph(named: "g")
            let syncs = faults.syncCount
            try addUsers(store, 1...5)
            #expect(faults.syncCount == syncs, "\(policy) must not fsync in the write path")
            // A process crash now loses nothing: the records are in the file (the kernel has them).
            try FileManager.default.copyItem(atPath: data + "/graphs", toPath: data + "-crash/graphs")
            defer { try? FileManager.default.removeItem(atPath: data + "-crash") }
            #expect(userIDs(try #require(try openData(data + "-crash").graph(named: "g"))) == [1, 2, 3, 4, 5])
            directory.flushAll()
            #expect(store.storage!.commit.isDirty == (policy == .no), "everysec's tick syncs, no leaves it to the kernel")
        }
    }

    @Test func everysecRefusesWritesAfterAFailedFsyncUntilASnapshotSucceeds() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let options = DataDirectory.Options(fsync: .everysec, compactionRatio: 0)
            do {
                let directory = try openData(data, options, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, [1])
                faults.inject(.syncFails, where: ".glog")
                try addUsers(store, [2])  // acknowledged: everysec does not wait for the fsync
                directory.flushAll()       // the flusher's fsync fails
                let refused = expectStoreError { try addUsers(store, [3]) }
                #expect(refused?.message.contains("writes are refused") == true, "\(String(describing: refused))")
                #expect(refused?.message.contains("GRAPH.SAVE g") == true)
                #expect(userIDs(store) == [1, 2], "acknowledged writes stay visible")
                faults.heal()
                try store.compact()        // what the flusher retries every second
                try addUsers(store, [4])
                #expect(userIDs(store) == [1, 2, 4])
                store.close()
            }
            #expect(userIDs(try #require(try openData(data).graph(named: "g"))) == [1, 2, 4])
        }
    }
}
