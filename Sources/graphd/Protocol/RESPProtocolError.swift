// RESPProtocolError.swift — a request that cannot be framed. Each case carries Redis's
// exact wording; the server replies with it and then closes the connection, as Redis does,
// because after a framing error the byte stream can no longer be trusted.

/// A framing error in a client's request stream.
enum RESPProtocolError: Error, Sendable, Equatable {
    case invalidMultibulkLength
    case invalidBulkLength
    case expectedDollar(got: UInt8)
    case tooBigMultibulkCountString
    case tooBigBulkCountString
    case tooBigInlineRequest
    case unbalancedQuotes
    /// An inline request with more words than the argument cap.
    case tooManyInlineArguments
    /// Before AUTH: more arguments than the unauthenticated cap.
    case unauthenticatedMultibulkLength
    /// Before AUTH: a bulk longer than the unauthenticated cap.
    case unauthenticatedBulkLength

    /// The error reply text, without the leading `-` and trailing CRLF.
    var message: String {
        switch self {
        case .invalidMultibulkLength: return "ERR Protocol error: invalid multibulk length"
        case .invalidBulkLength: return "ERR Protocol error: invalid bulk length"
        case .expectedDollar(let byte):
            // Redis prints the byte with %c; a control byte would break the reply line.
            let shown = (byte >= 0x20 && byte < 0x7f) ? Character(Unicode.Scalar(byte)) : "?"
            return "ERR Protocol error: expected '$', got '\(shown)'"
        case .tooBigMultibulkCountString: return "ERR Protocol error: too big mbulk count string"
        case .tooBigBulkCountString: return "ERR Protocol error: too big bulk count string"
        case .tooBigInlineRequest: return "ERR Protocol error: too big inline request"
        case .unbalancedQuotes: return "ERR Protocol error: unbalanced quotes in request"
        case .tooManyInlineArguments: return "ERR Protocol error: too many arguments in inline request"
        case .unauthenticatedMultibulkLength: return "ERR Protocol error: unauthenticated multibulk length"
        case .unauthenticatedBulkLength: return "ERR Protocol error: unauthenticated bulk length"
        }
    }
}
