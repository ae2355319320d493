// QueryError.swift — the one error type the query layer throws: a category, a message a
// person understands, and for errors tied to the text, where in the text it happened.

/// A position in the query text. Lines and columns are 1-based; `offset` is the 0-based
/// UTF-8 byte offset from the start of the query body (after any `CYPHER` header).
public struct SourceLocation: Sendable, Hashable {
    public var line: Int
    public var column: Int
    public var offset: Int
    public init(line: Int, column: Int, offset: Int) { self.line = line; self.column = column; self.offset = offset }
}

/// An error raised while lexing, parsing, checking, planning or running a query.
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The phase or rule that rejected the query.
    public enum Kind: String, Sendable, Hashable {
        case syntax, semantic, type, runtime, constraint
        /// The query ran past its time limit or was cancelled.
        case timeout
        /// The store could not make the write durable (I/O error, disk full).
        case storage
    }

    public var kind: Kind
    /// What was wrong, e.g. `'m' not defined` or `Division by zero`.
    public var message: String
    /// Where in the text, for syntax errors (and semantic ones where known).
    public var location: SourceLocation?
    /// The full text of the line that holds `location`, for a caret display.
    public var contextLine: String?

    public init(_ kind: Kind, _ message: String, location: SourceLocation? = nil, contextLine: String? = nil) {
        self.kind = kind; self.message = message; self.location = location; self.contextLine = contextLine
    }

    /// The message, and for located errors a second line with the text and a third with a caret.
    public var description: String {
        guard let location, let contextLine else { return message }
        let caret = String(repeating: " ", count: max(0, location.column - 1)) + "^"
        return "\(message) (line \(location.line), column \(location.column))\n\(contextLine)\n\(caret)"
    }
}
