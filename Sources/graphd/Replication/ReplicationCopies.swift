// ReplicationCopies.swift — full copies a primary is sending in parts. A graph's snapshot can
// be larger than one reply may be (`--client-output-limit`, and the pull's max-bytes): the
// primary makes the snapshot once, keeps it here under the replica's run id and the graph, and
// each pull takes the next part from the offset the replica names, until it has all of it. A
// replica that reconnects (same process, same run id) resumes where it was. A copy no pull
// asked for within `idleLimit` is dropped (its replica went away); a new copy of the same graph
// for the same replica replaces it.

import Synchronization

/// The copies in progress on a primary.
final class ReplicationCopies: Sendable {
    /// One snapshot being sent.
    struct Copy: Sendable {
        /// Names this copy in the replica's pulls (a copy made later gets another).
        var id: String
        var history: String
        var fork: UInt64
        var bytes: [UInt8]
        var lastUse: ContinuousClock.Instant
    }

    private struct Key: Hashable {
        var runID: String
        var graph: String
    }

    private let copies = Mutex<[Key: Copy]>([:])
    /// How long a copy waits for its next pull.
    static let idleLimit: Duration = .seconds(60)

    /// Keeps a new copy of `graph` for the replica `runID` (replacing one it had) and returns it.
    func start(runID: String, graph: String, history: String, fork: UInt64, bytes: [UInt8]) -> Copy {
        let copy = Copy(id: ReplicationState.randomHex(count: 16), history: history, fork: fork, bytes: bytes, lastUse: .now)
        copies.withLock { copies in
            copies = copies.filter { copy.lastUse - $0.value.lastUse < Self.idleLimit }
            copies[Key(runID: runID, graph: graph)] = copy
        }
        return copy
    }

    /// Copy `id` of `graph` for `runID`, if it is still kept (its use noted).
    func find(runID: String, graph: String, id: String) -> Copy? {
        copies.withLock { copies in
            let key = Key(runID: runID, graph: graph)
            guard var copy = copies[key], copy.id == id else { return nil }
            copy.lastUse = .now
            copies[key] = copy
            return copy
        }
    }

    /// The replica `runID` wants no more of its copy of `graph` (it installed it).
    func discard(runID: String, graph: String) {
        copies.withLock { copies in
            guard !copies.isEmpty else { return }
            copies[Key(runID: runID, graph: graph)] = nil
        }
    }
}
