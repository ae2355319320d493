// DurabilityDeferralTests.swift — a write made under a DurabilityDeferral returns before its
// record is durable, and the deferral is answered by the thread that syncs it: nil once
// durable, the waiting writer's error (after the store undid the write) when the sync failed.

import Foundation
import Synchronization
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct DurabilityDeferralTests {
    @Test func aDeferredWriteReturnsBeforeItsSyncAndIsAnsweredAfterIt() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let directory = try openData(data, fileSystem: faults)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [1])
            let held = HeldSyncs(faults)
            let deferral = DurabilityDeferral()
            try DurabilityDeferral.$current.withValue(deferral) { try addUsers(store, [2]) }
            #expect(!deferral.isEmpty)
            let answer = Mutex<(called: Bool, error: StoreError?)>((false, nil))
            deferral.whenDurable { error in answer.withLock { $0 = (true, error) } }
            #expect(eventually { held.hasStarted }, "a sync runs for the deferred write")
            #expect(!answer.withLock { $0.called }, "not answered while its sync is held")
            #expect(userIDs(store) == [1, 2], "applied (and visible) before it is durable")
            held.release()
            #expect(eventually { answer.withLock { $0.called } })
            #expect(answer.withLock { $0.error } == nil)
            faults.onSync(nil)
            // Durable: a store opened afresh on the same files holds it.
            #expect(try LogTests().logRecordBytes(data + "/graphs/g/log-00000001.glog").count > AppendLog.headerLength)
        }
    }

    @Test func aDeferredWriteWhoseSyncFailsIsAnsweredWithTheErrorAndUndone() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let directory = try openData(data, fileSystem: faults)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [1])
            faults.inject(.syncFails, where: ".glog")
            let deferral = DurabilityDeferral()
            try DurabilityDeferral.$current.withValue(deferral) { try addUsers(store, [2]) }
            let answer = Mutex<(called: Bool, error: StoreError?)>((false, nil))
            deferral.whenDurable { error in answer.withLock { $0 = (true, error) } }
            #expect(eventually { answer.withLock { $0.called } })
            let message = answer.withLock { $0.error?.message } ?? ""
            #expect(message.hasPrefix("graph 'g': the write was not acknowledged: cannot fsync"), "\(message)")
            #expect(message.contains("it was undone"))
            #expect(userIDs(store) == [1], "the unacknowledged write is undone")
            faults.heal()
            try addUsers(store, [3])
            #expect(userIDs(store) == [1, 3])
        }
    }

    @Test func manyDeferredWritersAreAnsweredWithFewSyncs() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [0])
            let syncsBefore = store.storage!.commit.syncCount
            let answered = Atomic<Int>(0)
            let writers = 64
            DispatchQueue.concurrentPerform(iterations: writers) { i in
                let deferral = DurabilityDeferral()
                do {
                    try DurabilityDeferral.$current.withValue(deferral) { try addUsers(store, [i + 1]) }
                } catch {
                    Issue.record("write \(i + 1): \(error)")
                }
                deferral.whenDurable { error in
                    if error == nil { answered.add(1, ordering: .relaxed) }
                }
            }
            #expect(eventually { answered.load(ordering: .relaxed) == writers })
            #expect(store.storage!.commit.syncCount - syncsBefore <= writers)
            #expect(userIDs(store) == Array(0...Int64(writers)))
        }
    }
}
