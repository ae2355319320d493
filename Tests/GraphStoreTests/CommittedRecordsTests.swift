// CommittedRecordsTests.swift — reading commits back: observers get every published commit in
// order, `committedRecords` pages through memory and the log segments retention keeps, and a
// position the log no longer holds is reported as gone, never skipped.

import Foundation
import Synchronization
import Testing
import GraphTestSupport
@testable import GraphStore

@Suite struct CommittedRecordsTests {
    /// Every record the log holds from `after` on, paging by `limit`.
    static func readAll(_ store: GraphStore, after: UInt64, limit: Int) throws -> [LogRecord]? {
        var all: [LogRecord] = [], position = after
        while true {
            switch try store.committedRecords(after: position, limit: limit) {
            case .gone: return nil
            case .records(let records):
                if records.isEmpty { return all }
                #expect(records.count <= limit)
                all += records
                position = records[records.count - 1].sequence
            }
        }
    }

    @Test func observersGetEveryPublishedCommitInOrderFromConcurrentWriters() throws {
        for policy in [FsyncPolicy.always, .everysec] {
            try withTemporaryDirectory { data in
                let directory = try openData(data, .init(fsync: policy))
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<5)
                let seen = Mutex<[UInt64]>([])
                let observation = store.addCommitObserver { records in seen.withLock { $0 += records.map(\.sequence) } }
                #expect(observation.startAfter == 5)
                DispatchQueue.concurrentPerform(iterations: 4) { worker in
                    try? addUsers(store, (100 * (worker + 1))..<(100 * (worker + 1) + 50))
                }
                let last = store.token().sequence
                #expect(last == 205)
                // Published records reach the observer; poll, bounded.
                let deadline = ContinuousClock.now + .seconds(10)
                while seen.withLock({ $0.count }) < 200, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
                #expect(seen.withLock { $0 } == Array(6...205))
                store.removeCommitObserver(observation)
                // What the observer saw is what the log holds.
                let logged = try #require(try Self.readAll(store, after: 5, limit: 7))
                #expect(logged.map(\.sequence) == Array(6...205))
            }
        }
    }

    @Test func recordsArePagedFromTheLogAcrossSegmentsThatRetentionKeeps() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data, .init(changeRetention: .size(bytes: 1 << 30)))
            let store = try directory.createGraph(named: "g")
            try addUsers(store, 0..<10)
            try store.compact()
            try addUsers(store, 10..<20)
            try store.compact()
            try addUsers(store, 20..<25)
            #expect(try graphFiles(data, "g").filter { $0.hasPrefix("log-") }.count == 3, "retention keeps the covered segments")
            let all = try #require(try Self.readAll(store, after: 0, limit: 4))
            #expect(all.map(\.sequence) == Array(1...25))
            #expect(all.allSatisfy { $0.commitTime > 0 })
            let tail = try #require(try Self.readAll(store, after: 17, limit: 100))
            #expect(tail.map(\.sequence) == Array(18...25))
            #expect(try store.committedRecords(after: 25, limit: 10) == .records([]))
            // The records replay to the same users.
            var replayed = Graph()
            for record in all { #expect(LogRecovery.apply(record.mutations, to: &replayed) == nil) }
            #expect(replayed.nodeCount == 25)
        }
    }

    @Test func withoutRetentionAPositionBeforeTheSnapshotIsGone() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, 0..<10)
            try store.compact()
            try addUsers(store, 10..<12)
            #expect(try store.committedRecords(after: 3, limit: 10) == .gone(oldest: 11))
            let rest = try #require(try Self.readAll(store, after: 10, limit: 10))
            #expect(rest.map(\.sequence) == [11, 12])
        }
    }

    @Test func retentionParsesDurationsAndSizesAndChoosesWhatToDelete() {
        #expect(ChangeRetention("24h") == .age(seconds: 86_400))
        #expect(ChangeRetention("90s") == .age(seconds: 90))
        #expect(ChangeRetention("7d") == .age(seconds: 604_800))
        #expect(ChangeRetention("1gb") == .size(bytes: 1 << 30))
        #expect(ChangeRetention("512KB") == .size(bytes: 512 << 10))
        #expect(ChangeRetention("0") == ChangeRetention.none)
        for bad in ["", "h", "12", "1x", "-1h", "99999999999999999999h"] { #expect(ChangeRetention(bad) == nil, "\(bad)") }

        let covered: [UInt64] = [1, 2, 3, 4]
        // Segment n's first commit is at n × 1000 ms; segment 5 is the snapshot's.
        func start(_ n: UInt64) -> LogReader.SegmentStart? { LogReader.SegmentStart(sequence: n * 10, commitTime: n * 1000) }
        #expect(ChangeRetention.none.segmentsToDelete(covered: covered, now: 9000, sizeOf: { _ in 100 }, startOf: start) == covered)
        #expect(ChangeRetention.size(bytes: 250).segmentsToDelete(covered: covered, now: 9000, sizeOf: { _ in 100 }, startOf: start)
                == [1, 2])
        // Keep what may hold a commit from the last 5.5 s: segments whose successor starts after 3.5 s.
        #expect(ChangeRetention.age(seconds: 5).segmentsToDelete(covered: covered, now: 8500, sizeOf: { _ in 100 }, startOf: start)
                == [1, 2])
        // A successor of unknown time keeps everything from there on.
        #expect(ChangeRetention.age(seconds: 1).segmentsToDelete(covered: covered, now: 99_000, sizeOf: { _ in 100 },
                                                              startOf: { $0 == 3 ? nil : start($0) }) == [1])
    }
}
