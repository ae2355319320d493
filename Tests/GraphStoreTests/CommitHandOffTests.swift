// CommitHandOffTests.swift — a write made under a CommitHandOff reaches the commit observers
// only when its owner hands it out, on the owner's thread; other writes are handed out by the
// store's notifier thread; either way the observers see every commit once, in order.

import Foundation
import Synchronization
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct CommitHandOffTests {
    /// What an observer saw: each record's sequence, and the thread that handed it out.
    final class Observed: Sendable {
        private let list = Mutex<[(sequence: UInt64, thread: pthread_t)]>([])
        func note(_ records: [LogRecord]) {
            let thread = pthread_self()
            list.withLock { $0 += records.map { ($0.sequence, thread) } }
        }
        var sequences: [UInt64] { list.withLock { $0.map(\.sequence) } }
        var threads: [pthread_t] { list.withLock { $0.map(\.thread) } }
    }

    @Test func aHandedOffCommitReachesTheObserversOnTheOwnersThreadWhenHandedOut() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [1])
            let observed = Observed()
            let observation = store.addCommitObserver { observed.note($0) }
            let first = observation.startAfter + 1

            // Without a hand-off the notifier's thread hands a commit out (and is then idle,
            // waiting to be woken).
            try addUsers(store, [2])
            #expect(eventually { observed.sequences.count == 1 })
            #expect(pthread_equal(observed.threads[0], pthread_self()) == 0)

            let handOff = CommitHandOff()
            try CommitHandOff.$current.withValue(handOff) { try addUsers(store, [3]) }
            let beforeHandOut = observed.sequences
            #expect(beforeHandOut == [first], "handed out before its owner asked: \(beforeHandOut)")
            handOff.handOut()
            #expect(observed.sequences == [first, first + 1])
            #expect(pthread_equal(observed.threads[1], pthread_self()) != 0, "handed out on the owner's thread")
            store.removeCommitObserver(observation)
        }
    }

    @Test func handedOffAndNotifiedCommitsFromManyThreadsArriveOnceInOrder() throws {
        try withTemporaryDirectory { data in
            var options = DataDirectory.Options()
            options.fsync = .everysec
            let directory = try openData(data, options)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, [0])
            let observed = Observed()
            let observation = store.addCommitObserver { observed.note($0) }
            let writers = 4, writesEach = 200
            let group = DispatchGroup()
            for w in 0..<writers {
                group.enter()
                Thread {
                    for i in 0..<writesEach {
                        let id = 1 + w * writesEach + i
                        do {
                            if w % 2 == 0 {
                                let handOff = CommitHandOff()
                                try CommitHandOff.$current.withValue(handOff) { try addUsers(store, [id]) }
                                handOff.handOut()
                            } else {
                                try addUsers(store, [id])
                            }
                        } catch {
                            Issue.record("write \(id) failed: \(error)")
                        }
                    }
                    group.leave()
                }.start()
            }
            group.wait()
            let total = writers * writesEach
            #expect(eventually { observed.sequences.count >= total })
            let start = observation.startAfter + 1
            #expect(observed.sequences == Array(start..<start + UInt64(total)))
            store.removeCommitObserver(observation)
        }
    }
}
