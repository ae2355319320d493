// RESPValue.swift — a RESP2 reply as a value, for replies built up front (PING, errors,
// GRAPH.LIST) and for tests. Large replies (result sets) are streamed into a
// `RESPEncoder` instead of being built as a tree first.

/// One RESP2 reply value.
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

    /// A bulk string holding `text`'s UTF-8 bytes.
    static func bulk(_ text: String) -> RESPValue { .bulkString(Array(text.utf8)) }

    /// The wire bytes of this value.
    var encoded: [UInt8] {
        var encoder = RESPEncoder()
        encoder.write(self)
        return encoder.bytes
    }
}
