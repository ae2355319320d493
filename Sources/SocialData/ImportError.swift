// ImportError.swift — why an import failed or why one row was skipped: the file, the line
// (1-based, counting every physical line) and the reason, printed as `file:line: reason`.

/// A problem with the import's input, pointing at the file and line.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based line number, nil for problems with the file as a whole.
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `users.csv:12: expected 3 fields, found 2`.
    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}
