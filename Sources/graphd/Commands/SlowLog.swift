// SlowLog.swift — GRAPH.SLOWLOG: per graph, the slowest queries seen (FalkorDB keeps the
// 10 slowest), each with when it ran, the command, the query text and how long it took.

import Glibc
import Synchronization

/// The slowest queries per graph.
final class SlowLog: Sendable {
    /// One recorded query.
    struct Entry: Sendable, Equatable {
        var unixTime: Int
        var command: String
        var query: String
        var milliseconds: Double
    }

    /// Entries kept per graph.
    static let capacity = 10
    /// Query text kept per entry, so the log stays small whatever the clients send.
    static let maxQueryBytes = 1024

    private let entries = Mutex<[String: [Entry]]>([:])

    init() {}

    /// Offers a finished query; kept when it is among the slowest of its graph. `command` is
    /// stored upper-cased; the case is changed only for a query that is kept (most are not).
    func record(graph: String, command: String, query: String, milliseconds: Double) {
        entries.withLock { table in
            var list = table[graph, default: []]
            if list.count >= Self.capacity, let fastest = list.last, fastest.milliseconds >= milliseconds { return }
            let text = query.utf8.count > Self.maxQueryBytes ? String(decoding: query.utf8.prefix(Self.maxQueryBytes), as: UTF8.self) : query
            list.append(Entry(unixTime: time(nil), command: command.uppercased(), query: text, milliseconds: milliseconds))
            list.sort { $0.milliseconds > $1.milliseconds }
            if list.count > Self.capacity { list.removeLast(list.count - Self.capacity) }
            table[graph] = list
        }
    }

    /// The entries of `graph`, slowest first.
    func entries(of graph: String) -> [Entry] { entries.withLock { $0[graph] ?? [] } }

    /// GRAPH.SLOWLOG key RESET.
    func reset(graph: String) { _ = entries.withLock { $0.removeValue(forKey: graph) } }
}
