// FunctionCatalog.swift — the functions the language knows, with their arity, so that the
// semantic pass rejects an unknown function or a wrong argument count before anything runs.
// Scalar bodies live in Executor/ScalarFunctions.swift, aggregates in Executor/Aggregation.swift.

/// A built-in function's signature. Names are matched case-insensitively.
struct FunctionSignature: Sendable {
    enum Kind: Sendable { case scalar, aggregate }
    var name: String
    var kind: Kind
    var minArguments: Int
    var maxArguments: Int
}

/// The catalog, keyed by lower-cased name.
enum FunctionCatalog {
    static let signatures: [String: FunctionSignature] = {
        let all: [FunctionSignature] = [
            .init(name: "count", kind: .aggregate, minArguments: 1, maxArguments: 1),
            .init(name: "collect", kind: .aggregate, minArguments: 1, maxArguments: 1),
            .init(name: "sum", kind: .aggregate, minArguments: 1, maxArguments: 1),
            .init(name: "avg", kind: .aggregate, minArguments: 1, maxArguments: 1),
            .init(name: "min", kind: .aggregate, minArguments: 1, maxArguments: 1),
            .init(name: "max", kind: .aggregate, minArguments: 1, maxArguments: 1),
            .init(name: "percentiledisc", kind: .aggregate, minArguments: 2, maxArguments: 2),
            .init(name: "percentilecont", kind: .aggregate, minArguments: 2, maxArguments: 2),
            .init(name: "id", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "labels", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "type", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "toupper", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "tolower", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "size", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "coalesce", kind: .scalar, minArguments: 1, maxArguments: Int.max),
            .init(name: "tostring", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "tointeger", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "range", kind: .scalar, minArguments: 2, maxArguments: 3),
            .init(name: "substring", kind: .scalar, minArguments: 2, maxArguments: 3),
            .init(name: "split", kind: .scalar, minArguments: 2, maxArguments: 2),
            .init(name: "replace", kind: .scalar, minArguments: 3, maxArguments: 3),
            .init(name: "left", kind: .scalar, minArguments: 2, maxArguments: 2),
            .init(name: "right", kind: .scalar, minArguments: 2, maxArguments: 2),
            .init(name: "round", kind: .scalar, minArguments: 1, maxArguments: 1),
            .init(name: "rand", kind: .scalar, minArguments: 0, maxArguments: 0),
            .init(name: "pi", kind: .scalar, minArguments: 0, maxArguments: 0),
            .init(name: "e", kind: .scalar, minArguments: 0, maxArguments: 0),
            .init(name: "timestamp", kind: .scalar, minArguments: 0, maxArguments: 0),
            .init(name: "graph.token", kind: .scalar, minArguments: 0, maxArguments: 0),
            .init(name: "graph.changedsince", kind: .scalar, minArguments: 2, maxArguments: 3),
        ] + ["properties", "keys", "startnode", "endnode", "nodes", "relationships", "length", "head", "last",
             "tail", "reverse", "tofloat", "toboolean", "trim", "ltrim", "rtrim", "abs", "sign", "ceil", "floor",
             "sqrt", "exp", "log", "log10", "exists"].map {
            FunctionSignature(name: $0, kind: .scalar, minArguments: 1, maxArguments: 1)
        } + TemporalFunctionCatalog.signatures
        return Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
    }()

    /// The signature for `name`, or nil when unknown.
    static func lookup(_ name: String) -> FunctionSignature? { signatures[name.lowercased()] }
}

/// The built-in scalar functions, by their lower-cased catalog names: what a bound call runs,
/// chosen once by the binder instead of by comparing names on every row.
package enum ScalarFunction: String, Sendable, CaseIterable {
    case id, labels, type, properties, keys, startnode, endnode, nodes, relationships, length
    case toupper, tolower, trim, ltrim, rtrim, size, head, last, tail, reverse, range
    case tostring, tointeger, tofloat, toboolean, substring, split, replace, left, right
    case abs, sign, ceil, floor, round, sqrt, exp, log, log10
    case coalesce, exists, rand, pi, e, timestamp
    // Change tokens (Executor/ChangeFunctions.swift).
    case graphToken = "graph.token", graphChangedSince = "graph.changedsince"
    // Temporal constructors and functions (Executor/Temporal/TemporalFunctions.swift).
    case date, localtime, time, localdatetime, datetime, duration
    case dateTruncate = "date.truncate", localtimeTruncate = "localtime.truncate", timeTruncate = "time.truncate"
    case localdatetimeTruncate = "localdatetime.truncate", datetimeTruncate = "datetime.truncate"
    case durationBetween = "duration.between", durationInMonths = "duration.inmonths"
    case durationInDays = "duration.indays", durationInSeconds = "duration.inseconds"
    case datetimeFromEpoch = "datetime.fromepoch", datetimeFromEpochMillis = "datetime.fromepochmillis"
    case dateTransaction = "date.transaction", dateStatement = "date.statement", dateRealtime = "date.realtime"
    case localtimeTransaction = "localtime.transaction", localtimeStatement = "localtime.statement"
    case localtimeRealtime = "localtime.realtime", timeTransaction = "time.transaction"
    case timeStatement = "time.statement", timeRealtime = "time.realtime"
    case localdatetimeTransaction = "localdatetime.transaction", localdatetimeStatement = "localdatetime.statement"
    case localdatetimeRealtime = "localdatetime.realtime", datetimeTransaction = "datetime.transaction"
    case datetimeStatement = "datetime.statement", datetimeRealtime = "datetime.realtime"
    /// `(node, type name, direction[, label])` → the rows `(node)-[:type]-()` (or
    /// `(node)-[:type]-(:label)`) matches in that direction (`Graph.expansionCount`): made by the
    /// planner's degree rule (GetDegree.swift), not in the catalog, so no query can name it.
    case expansionCount = " expansion count"

    /// The functions a query can name: all but the planner's own.
    static var nameable: [ScalarFunction] { allCases.filter { $0 != .expansionCount } }
}
