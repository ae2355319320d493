// CommitFeedStub.swift — TEMPORARY stand-in for the store's commit observers and retained
// records (main adds the real ones); deleted when main's are merged.

import Dispatch
import Synchronization

public enum CommittedRecords: Sendable {
    case records([LogRecord])
    case gone(oldest: UInt64)
}

public struct CommitObserverID: Hashable, Sendable {
    let value: UInt64
}

final class CommitStubState: @unchecked Sendable {
    var records: [LogRecord] = []
    var observers: [UInt64: @Sendable ([LogRecord]) -> Void] = [:]
    var next: UInt64 = 0
    let queue = DispatchQueue(label: "graphd.commit-notifier")
}

let commitStubStates = Mutex<[ObjectIdentifier: CommitStubState]>([:])

extension GraphStore {
    var commitStub: CommitStubState {
        commitStubStates.withLock { states in
            if let s = states[ObjectIdentifier(self)] { return s }
            let s = CommitStubState()
            states[ObjectIdentifier(self)] = s
            return s
        }
    }

    func stubNoteCommitted(_ record: LogRecord) {
        let stub = commitStub
        let observers: [@Sendable ([LogRecord]) -> Void] = commitStubStates.withLock { _ in
            stub.records.append(record)
            return Array(stub.observers.values)
        }
        stub.queue.async { for o in observers { o([record]) } }
    }

    public func committedRecords(after: UInt64, limit: Int) throws(StoreError) -> CommittedRecords {
        let stub = commitStub
        return commitStubStates.withLock { _ in
            guard let first = stub.records.first else { return .records([]) }
            if after + 1 < first.sequence { return .gone(oldest: first.sequence) }
            let start = Int(after + 1 - first.sequence)
            guard start < stub.records.count else { return .records([]) }
            return .records(Array(stub.records[start..<min(stub.records.count, start + limit)]))
        }
    }

    public func addCommitObserver(_ body: @escaping @Sendable ([LogRecord]) -> Void) -> CommitObserverID {
        let stub = commitStub
        return commitStubStates.withLock { _ in
            stub.next += 1
            stub.observers[stub.next] = body
            return CommitObserverID(value: stub.next)
        }
    }

    public func removeCommitObserver(_ id: CommitObserverID) {
        let stub = commitStub
        commitStubStates.withLock { _ in stub.observers[id.value] = nil }
    }

    public var publishedSequence: UInt64 { lock.withReadLock { changes.lastSequence } }
}
