// DurabilityPollingTests.swift — a write made under a DurabilityPolling budget has its
// fdatasync run by another thread while it polls, returns only once its record is durable (also
// when the sync outlasts the budget), and gets the waiting writer's error when the sync fails.

import Foundation
import Synchronization
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct DurabilityPollingTests {
    /// The pthreads that ran the graph log's fdatasyncs, in order.
    final class SyncThreads: Sendable {
        private let list = Mutex<[pthread_t]>([])
        init(_ faults: FaultyFileSystem) {
            faults.onSync { [self] path in
                guard path.hasSuffix(".glog") else { return }
                list.withLock { $0.append(pthread_self()) }
            }
        }
        var all: [pthread_t] { list.withLock { $0 } }
    }

    @Test func aPollingWriteHasItsSyncRunElsewhereAndAWaitingOneSyncsItself() throws {
        try withTemporaryDirectory { data in
            do {
                let faults = FaultyFileSystem()
                let directory = try openData(data, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, [1])
                let threads = SyncThreads(faults)
                try DurabilityPolling.$budget.withValue(.seconds(10)) { try addUsers(store, [2]) }
                let polled = threads.all
                #expect(polled.count == 1, "one sync for the polling write")
                #expect(polled.allSatisfy { pthread_equal($0, pthread_self()) == 0 }, "the polling writer does not sync itself")
                try addUsers(store, [3])
                let waited = Array(threads.all.dropFirst(polled.count))
                #expect(waited.count == 1 && pthread_equal(waited[0], pthread_self()) != 0, "a lone waiting writer leads its sync")
                faults.onSync(nil)
            }
            #expect(userIDs(try #require(try openData(data).graph(named: "g"))) == [1, 2, 3])
        }
    }

    @Test func aSyncThatOutlastsTheBudgetStillAnswersOnlyOnceDurable() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let directory = try openData(data, fileSystem: faults)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [1])
            let held = HeldSyncs(faults)
            let returned = Atomic<Bool>(false)
            let failure = Mutex<StoreError?>(nil)
            let writer = Thread {
                do {
                        try DurabilityPolling.$budget.withValue(.microseconds(200)) { try addUsers(store, [2]) }
                    } catch {
                        failure.withLock { $0 = error as? StoreError }
                    }
                    returned.store(true, ordering: .sequentiallyConsistent)
            }
            writer.start()
            #expect(eventually { held.hasStarted })
            // Well past the budget the writer sleeps, and still has no answer: its sync is held.
            usleep(20_000)
            let answeredEarly = returned.load(ordering: .sequentiallyConsistent)
            #expect(!answeredEarly, "answered before its record was durable")
            held.release()
            #expect(eventually { returned.load(ordering: .sequentiallyConsistent) })
            #expect(failure.withLock { $0 } == nil)
            faults.onSync(nil)
            #expect(userIDs(store) == [1, 2])
        }
    }

    @Test func aPollingWriteWhoseSyncFailsGetsTheErrorAndIsUndone() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let directory = try openData(data, fileSystem: faults)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [1])
            faults.inject(.syncFails, where: ".glog")
            let error = expectStoreError {
                try DurabilityPolling.$budget.withValue(.seconds(10)) { try addUsers(store, [2]) }
            }
            #expect(error?.message.contains("the write was not acknowledged: cannot fsync") == true, "\(String(describing: error))")
            #expect(userIDs(store) == [1], "the unacknowledged write is undone")
            faults.heal()
            try DurabilityPolling.$budget.withValue(.seconds(10)) { try addUsers(store, [3]) }
            #expect(userIDs(store) == [1, 3])
        }
    }
}
