// QueryErrorReply.swift — the error reply for a failed query, in FalkorDB's wording.
// FalkorDB's module errors carry no `ERR` prefix; a syntax error adds its position and
// the offending line (`errMsg: … line: L, column: C, offset: O errCtx: … errCtxOffset: N`).

import GraphQuery

/// Formats `QueryError`s as FalkorDB does.
enum QueryErrorReply {
    /// The error text (without the leading `-`).
    static func message(for error: QueryError) -> String {
        if error.kind == .syntax, let location = error.location {
            let context = error.contextLine ?? ""
            return "errMsg: \(error.message) line: \(location.line), column: \(location.column), "
                + "offset: \(location.offset) errCtx: \(context) errCtxOffset: \(max(0, location.column - 1))"
        }
        return error.message
    }

    static func write(_ error: QueryError, into reply: inout RESPEncoder) {
        reply.error(message(for: error))
    }
}
