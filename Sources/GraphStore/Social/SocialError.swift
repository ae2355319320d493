// SocialError.swift — why a social write (a friend request, a block) was refused.
// The graph is unchanged by a refused call; the query layer turns this into a runtime error.

/// A refused social write, with a message a person understands.
public struct SocialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of the refusal.
    public enum Kind: Sendable, Equatable {
        /// Sender and recipient are the same user.
        case selfRequest
        /// One of the two users blocked the other.
        case blocked
        /// Accepting, declining or cancelling a request that does not exist.
        case requestNotFound
        /// A node id that is not a live node.
        case userNotFound
        /// The underlying graph write failed.
        case graph(GraphError.Kind)
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    init(_ error: GraphError) {
        self.init(.graph(error.kind), error.message)
    }

    public var description: String { message }
}
