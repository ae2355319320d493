// QueryArguments.swift — the optional arguments after GRAPH.QUERY's query text:
// `--compact` and `TIMEOUT <ms>`, in any order, keyword case-insensitive (falkordb-py
// sends `timeout` in lower case). Anything else is refused with a message naming it,
// where FalkorDB silently ignores it (see docs/protocol.md).

/// The parsed flags of GRAPH.QUERY / RO_QUERY / PROFILE.
struct QueryArguments: Sendable, Equatable {
    /// `--compact`: FalkorDB's typed, id-based reply (what falkordb-py asks for).
    var compact = false
    /// `TIMEOUT ms`, when given; 0 is "use the default".
    var timeoutMilliseconds: Int64?

    /// Parses `arguments` (the words after the query text) for `command`.
    static func parse(_ arguments: ArraySlice<[UInt8]>, command: String) -> Result<QueryArguments, ConfigError> {
        var parsed = QueryArguments()
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = String(decoding: arguments[index], as: UTF8.self)
            switch word.uppercased() {
            case "--COMPACT":
                parsed.compact = true
                index += 1
            case "TIMEOUT":
                guard index + 1 < arguments.endIndex,
                      let value = Int64(String(decoding: arguments[index + 1], as: UTF8.self)), value >= 0 else {
                    return .failure(ConfigError(message: "Failed to parse query timeout value"))
                }
                parsed.timeoutMilliseconds = value == 0 ? nil : value
                index += 2
            default:
                return .failure(ConfigError(message: "ERR unknown argument '\(word)' for '\(command)' "
                                            + "(expected --compact or TIMEOUT <milliseconds>)"))
            }
        }
        return .success(parsed)
    }
}
