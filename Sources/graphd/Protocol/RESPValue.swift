// RESPValue.swift — a reply as a value, for replies built up front (PING, errors,
// GRAPH.LIST) and for tests. Large replies (result sets) are streamed into a
// `RESPEncoder` instead of being built as a tree first.

/// One reply value; `map` and `boolean` are written in the connection's dialect.
indirect enum RESPValue: Sendable, Equatable {
    /// `+OK`
    case simpleString(String)
    /// `-ERR …`: the text after the dash.
    case error(String)
    /// `:42`
    case integer(Int64)
    /// `$3\r\nabc`
    case bulkString([UInt8])
    /// `$-1`
    case null
    /// `*n` followed by the items.
    case array([RESPValue])
    /// RESP3 `%n` (RESP2: a flat array of keys and values).
    case map([(RESPValue, RESPValue)])
    /// RESP3 `#t`/`#f` (RESP2: `:1`/`:0`).
    case boolean(Bool)

    /// A bulk string holding `text`'s UTF-8 bytes.
    static func bulk(_ text: String) -> RESPValue { .bulkString(Array(text.utf8)) }

    /// The wire bytes of this value in `version`.
    func encoded(_ version: ProtocolVersion) -> [UInt8] {
        var encoder = RESPEncoder(protocolVersion: version)
        encoder.write(self)
        return encoder.bytes
    }

    /// The RESP2 wire bytes of this value.
    var encoded: [UInt8] { encoded(.resp2) }

    static func == (lhs: RESPValue, rhs: RESPValue) -> Bool {
        lhs.encoded(.resp3) == rhs.encoded(.resp3)
    }
}
