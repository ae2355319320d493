// MemoryCeiling.swift — one server-wide count of the memory that work in flight holds: what
// running queries have charged their watchdogs (buffered rows, collected lists, joined strings)
// and what the server's client connections buffer. Past its limit, a query's next charge
// fails and a new query is refused at once, with an error saying so, instead of the process
// growing until the kernel kills it and every client with it (Redis's maxmemory-clients plays
// this part for client buffers).

import Synchronization

/// A shared, thread-safe count of bytes against a limit.
public final class MemoryCeiling: Sendable, Equatable {
    /// Bytes the count may reach.
    public let limit: Int
    private let used = Atomic<Int>(0)

    public init(limit: Int) { self.limit = limit }

    /// Bytes counted now.
    public var bytesInUse: Int { used.load(ordering: .relaxed) }
    /// Whether the count is past the limit.
    public var isExceeded: Bool { bytesInUse > limit }

    /// Counts `bytes` more (or fewer, when negative); false when the count is then past the limit.
    @discardableResult
    public func add(_ bytes: Int) -> Bool {
        used.wrappingAdd(bytes, ordering: .relaxed).newValue <= limit
    }

    /// The error of a query refused or stopped because the ceiling was reached.
    var error: QueryError {
        QueryError(.runtime, "Server memory ceiling reached: running queries and client buffers hold more than "
                   + "\(limit) bytes (--memory-ceiling); the query was refused, try again when others finish")
    }

    public static func == (a: MemoryCeiling, b: MemoryCeiling) -> Bool { a === b }
}
