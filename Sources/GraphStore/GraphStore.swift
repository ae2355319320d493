// GraphStore.swift — one named graph with its log: the unit the query layer reads and writes.
// Reads share a read lock; a write takes the write lock, runs one transaction, appends its
// mutations to the log as one record (fsync'ed) and only then commits in memory.

/// Where a store's committed transactions go; the append-only log, or nothing (in memory).
protocol TransactionSink: AnyObject, Sendable {
    /// Makes `mutations` durable as one record, or throws and leaves the log as it was.
    func append(_ mutations: [Mutation]) throws(StoreError)
    func close()
}

/// A graph with its append-only log: readers share, one writer at a time.
public final class GraphStore: @unchecked Sendable {
    // @unchecked: `graph` and `closed` are only touched under `lock` (reads under the read
    // lock, changes under the write lock), which is what makes the class safe to share.
    public let name: String
    private let lock = ReadWriteLock()
    private var graph: Graph
    private let sink: TransactionSink?
    private var closed = false

    init(name: String, graph: Graph, sink: TransactionSink?) {
        self.name = name
        self.graph = graph
        self.sink = sink
    }

    /// Every reader sees only committed transactions. The closure must not let `graph` escape
    /// and must not call `write` on this store. Readers run in parallel with each other.
    public func read<R>(_ body: (Graph) throws -> R) rethrows -> R {
        try lock.withReadLock { try body(graph) }
    }

    /// Runs `body` as one transaction: on throw, everything is rolled back and the error rethrown;
    /// on return, the mutations are appended to the log as ONE checksummed record and fsync'ed
    /// BEFORE `write` returns. If the append fails the transaction is rolled back and a
    /// StoreError is thrown. A body that changed nothing writes no record.
    /// `body` must not call back into this store (it holds the write lock).
    public func write<R>(_ body: (inout Graph) throws -> R) throws -> R {
        try lock.withWriteLock {
            if closed { throw StoreError(.closed, "graph '\(name)' was deleted or closed; it takes no more writes") }
            graph.beginTransaction()
            let result: R
            do {
                result = try body(&graph)
            } catch {
                graph.rollbackTransaction()
                throw error
            }
            let mutations = graph.pendingMutations
            if !mutations.isEmpty, let sink {
                do {
                    try sink.append(mutations)
                } catch {
                    graph.rollbackTransaction()
                    throw error
                }
            }
            _ = graph.commitTransaction()
            return result
        }
    }

    /// Closes the log; later writes throw StoreError(.closed). Reads still see the last state.
    /// Waits for a running write to finish.
    public func close() {
        lock.withWriteLock {
            guard !closed else { return }
            closed = true
            sink?.close()
        }
    }

    public var isClosed: Bool { lock.withReadLock { closed } }
}

extension GraphStore {
    /// A store with no log: for tests and for embedding without persistence.
    public static func inMemory(name: String = "memory") -> GraphStore {
        GraphStore(name: name, graph: Graph(), sink: nil)
    }
}
