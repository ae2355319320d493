// RuntimeConfiguration.swift — the query limits GRAPH.CONFIG GET/SET reads and changes at
// run time (FalkorDB's names: TIMEOUT_DEFAULT, TIMEOUT_MAX, RESULTSET_SIZE,
// MAX_QUEUED_QUERIES, …), shared by every connection. Each parameter is described once as
// data (ConfigParameter) so GET *, GET name and SET all read the same table.

import Foundation
import Synchronization

/// The values behind GRAPH.CONFIG. Milliseconds for times; 0 means "no limit" where noted.
struct QueryLimits: Sendable, Equatable {
    /// Timeout of a query that names none, in ms; 0: none.
    var timeoutDefault: Int64 = 30_000
    /// Largest per-query TIMEOUT accepted, in ms; also caps the default. 0: no cap.
    var timeoutMax: Int64 = 300_000
    /// Most rows a result may hold; a larger result is an error, never silently cut.
    /// Negative: unlimited.
    var resultSetSize: Int64 = 1_000_000
    /// Queries waiting or running at once; beyond it new queries are refused at once.
    var maxQueuedQueries: Int64 = 4096
    /// Most bytes of query text (the GRAPH.QUERY argument).
    var maxQueryLength: Int64 = 1024 * 1024
    /// Bytes one query may hold in intermediate results; 0: unlimited. Passed to the
    /// engine's configuration when it enforces one. On by default (FalkorDB's default is 0),
    /// so that no query can grow the server until the kernel kills it, taking every other
    /// client with it: `defaultQueryMemoryCapacity`.
    var queryMemoryCapacity: Int64 = QueryLimits.defaultQueryMemoryCapacity
    /// Worker threads (load-time only, reported as THREAD_COUNT).
    var threadCount: Int64 = 1
    /// Plans kept in the plan cache (load-time only, reported as CACHE_SIZE).
    var cacheSize: Int64 = 1024

    init() {}

    /// 1 GiB or an eighth of the machine's memory, whichever is smaller.
    static let defaultQueryMemoryCapacity: Int64 = {
        let eighth = Int64(clamping: ProcessInfo.processInfo.physicalMemory / 8)
        return min(1 << 30, max(eighth, 64 << 20))
    }()

    /// The timeout for a query that asked for `requested` ms (nil: none given), or an
    /// error message when the request exceeds TIMEOUT_MAX. nil result: no timeout.
    func effectiveTimeout(requested: Int64?) -> Result<Int64?, ConfigError> {
        if let requested {
            if timeoutMax > 0 && requested > timeoutMax {
                return .failure(ConfigError(message: "The query TIMEOUT parameter value cannot exceed the TIMEOUT_MAX configuration parameter value"))
            }
            return .success(requested)
        }
        if timeoutDefault > 0 {
            return .success(timeoutMax > 0 ? min(timeoutDefault, timeoutMax) : timeoutDefault)
        }
        return .success(timeoutMax > 0 ? timeoutMax : nil)
    }
}

/// A GRAPH.CONFIG failure, with FalkorDB's wording.
struct ConfigError: Error, Sendable, Equatable {
    var message: String
}

/// One GRAPH.CONFIG parameter: its canonical name, whether SET may change it, the range
/// of values it takes, and where it lives in `QueryLimits`.
struct ConfigParameter: Sendable {
    var name: String
    var settable: Bool
    var range: ClosedRange<Int64>
    var keyPath: WritableKeyPath<QueryLimits, Int64> & Sendable

    /// Every parameter graphd honours, in GET * order. Parameters FalkorDB has but graphd
    /// does not implement are left out rather than reported with a value that means nothing.
    static let all: [ConfigParameter] = [
        // TIMEOUT is FalkorDB's deprecated name for the default timeout.
        ConfigParameter(name: "TIMEOUT", settable: true, range: 0...Int64(Int32.max), keyPath: \.timeoutDefault),
        ConfigParameter(name: "TIMEOUT_DEFAULT", settable: true, range: 0...Int64(Int32.max), keyPath: \.timeoutDefault),
        ConfigParameter(name: "TIMEOUT_MAX", settable: true, range: 0...Int64(Int32.max), keyPath: \.timeoutMax),
        ConfigParameter(name: "CACHE_SIZE", settable: false, range: 0...Int64.max, keyPath: \.cacheSize),
        ConfigParameter(name: "THREAD_COUNT", settable: false, range: 0...Int64.max, keyPath: \.threadCount),
        ConfigParameter(name: "RESULTSET_SIZE", settable: true, range: -1...Int64(Int32.max), keyPath: \.resultSetSize),
        ConfigParameter(name: "MAX_QUEUED_QUERIES", settable: true, range: 1...Int64(UInt32.max), keyPath: \.maxQueuedQueries),
        ConfigParameter(name: "QUERY_MEM_CAPACITY", settable: true, range: 0...Int64.max, keyPath: \.queryMemoryCapacity),
        ConfigParameter(name: "MAX_QUERY_LENGTH", settable: true, range: 1...Int64(512 * 1024 * 1024), keyPath: \.maxQueryLength),
    ]

    /// The parameter called `name` in any case.
    static func named(_ name: String) -> ConfigParameter? {
        let upper = name.uppercased()
        return all.first { $0.name == upper }
    }
}

/// The shared, thread-safe GRAPH.CONFIG values.
final class RuntimeConfiguration: Sendable {
    private let values: Mutex<QueryLimits>

    init(_ limits: QueryLimits = QueryLimits()) {
        values = Mutex(limits)
    }

    /// A consistent copy of every value.
    var limits: QueryLimits { values.withLock { $0 } }

    /// GRAPH.CONFIG SET: checks the name, that it may change at run time, and the value.
    func set(_ name: String, to text: String) -> Result<Void, ConfigError> {
        guard let parameter = ConfigParameter.named(name) else {
            return .failure(ConfigError(message: "Unknown configuration field"))
        }
        guard parameter.settable else {
            return .failure(ConfigError(message: "This configuration parameter cannot be set at run-time"))
        }
        guard let value = Int64(text), parameter.range.contains(value) else {
            return .failure(ConfigError(message: "Failed to set config value \(parameter.name) to \(text)"))
        }
        values.withLock { $0[keyPath: parameter.keyPath] = value }
        return .success(())
    }
}
