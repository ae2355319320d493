// DurabilityTestSupport.swift — helpers for the durability tests: opening a data directory
// with options and an injected file system, writing numbered users one transaction each,
// reading them back, a dump that ignores free-id bookkeeping (which a snapshot rebuilds), and
// graph-log syncs held until released.

import Foundation
import Synchronization
import Testing
@testable import GraphStore

/// Holds every fdatasync of a graph's log until `release()`, as a slow disk would.
final class HeldSyncs: Sendable {
    private let started = Atomic<Bool>(false)
    private let released = Atomic<Bool>(false)

    init(_ faults: FaultyFileSystem) {
        faults.onSync { [self] path in
            guard path.hasSuffix(".glog") else { return }
            started.store(true, ordering: .sequentiallyConsistent)
            while !released.load(ordering: .sequentiallyConsistent) { usleep(100) }
        }
    }

    /// Whether a sync has started (and is held, unless released).
    var hasStarted: Bool { started.load(ordering: .sequentiallyConsistent) }

    func release() { released.store(true, ordering: .sequentiallyConsistent) }
}

extension Graph {
    /// `dump()` without the id allocators' free lists and capacities: a snapshot restores every
    /// id, but hands out future ids in its own order.
    func logicalDump() -> String {
        dump().split(separator: "\n").filter { !$0.hasPrefix("free ") }.joined(separator: "\n")
    }
}

/// A data directory over `fileSystem` (the real one by default).
func openData(_ path: String, _ options: DataDirectory.Options = .init(),
              fileSystem: FileSystem = PosixFileSystem()) throws -> DataDirectory {
    try DataDirectory(path: path, options: options, events: nil, fileSystem: fileSystem)
}

/// Writes `(:User {id: n})` for each n, one transaction (one log record) each.
func addUsers(_ store: GraphStore, _ ids: some Sequence<Int>) throws {
    for n in ids {
        try store.write { g in
            _ = try g.createNode(labels: [g.internLabel("User")], properties: [(g.internPropertyKey("id"), .integer(Int64(n)))])
        }
    }
}

/// The `id`s of all :User nodes, ascending.
func userIDs(_ store: GraphStore) -> [Int64] {
    store.read { g in
        guard let user = g.labelID(named: "User"), let id = g.propertyKeyID(named: "id") else { return [] }
        return g.nodeIDs(withLabel: user).compactMap { node in
            if case .integer(let n) = g.property(id, of: node) { return n } else { return nil }
        }.sorted()
    }
}

/// The file names in a graph's directory, sorted.
func graphFiles(_ data: String, _ graph: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: data + "/graphs/" + graph).sorted()
}

/// Expects `body` to throw a StoreError and returns it.
func expectStoreError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreError? {
    do {
        try body()
        Issue.record("expected a StoreError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        return error
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
