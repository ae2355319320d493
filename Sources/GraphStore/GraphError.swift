// GraphError.swift — the typed error of in-memory graph writes.
// Thrown by Graph's mutating methods; the query layer turns it into a runtime error reply.

/// Why a write to the in-memory graph was refused. The graph is unchanged by the refused call.
public struct GraphError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of a refused write, for callers that react differently to each.
    public enum Kind: Sendable, Equatable {
        /// A node or relationship id that does not name a live entity.
        case notFound
        /// `deleteNode(_:detach: false)` on a node that still has relationships.
        case stillHasRelationships
        /// A unique constraint would be violated.
        case constraintViolation
        /// An index was created twice or dropped when absent.
        case indexExists, indexMissing
        /// A replayed mutation does not fit the graph (wrong id, unknown name): a corrupt log.
        case invalidMutation
    }

    public var kind: Kind
    /// A message a person understands, e.g.
    /// "Cannot delete node 3: it still has relationships; use DETACH DELETE".
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
