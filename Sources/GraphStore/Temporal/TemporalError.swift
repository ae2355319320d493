// TemporalError.swift — why a temporal value could not be built: a malformed string, a field out
// of range, an unknown zone. The query layer turns it into a runtime QueryError.

/// A temporal value that cannot exist or text that does not describe one.
public struct TemporalError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
