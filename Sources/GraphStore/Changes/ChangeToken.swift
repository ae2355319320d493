// ChangeToken.swift — the opaque position clients keep: `<history>-<sequence>`.
// The sequence is in decimal; "after T" means commits with a larger sequence in T's history.

/// A position in a graph's commits: every commit up to `sequence` of history `history`.
public struct ChangeToken: Sendable, Hashable, CustomStringConvertible {
    public var history: String
    public var sequence: UInt64

    public init(history: String, sequence: UInt64) {
        self.history = history
        self.sequence = sequence
    }

    /// Parses `<history>-<sequence>`; nil for anything else (which callers treat as changed or
    /// as an error, never as unchanged).
    public init?(_ text: String) {
        guard let dash = text.lastIndex(of: "-") else { return nil }
        let history = String(text[..<dash]), digits = text[text.index(after: dash)...]
        guard !history.isEmpty, history.utf8.count <= 64,
              history.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }),
              let sequence = UInt64(digits) else { return nil }
        self.init(history: history, sequence: sequence)
    }

    public var description: String { history + "-" + String(sequence) }
}
