// ChangeEvent.swift — what the change feed says about one commit: the low-level changes of nodes
// and relationships (Neo4j CDC's shape: operation, entity, labels or type, ends, changed keys) and
// the social events with their recipients (Spawn's names). Ids, not data: clients re-read through
// queries, which apply visibility. Derived by ChangeEventDerivation.swift, encoded by ChangePayload.swift.

/// An app's id for a user or an event: the `id` property's value (an integer or a string).
public enum AppID: Sendable, Hashable, CustomStringConvertible {
    case integer(Int64)
    case string(String)

    /// The id as a channel name writes it (`graphd:<graph>:user:<id>`).
    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .string(let text): return text
        }
    }
}

/// A node named by an event: the app's id when the node has one, and its node id always.
public struct EntityRef: Sendable, Hashable {
    public var node: UInt32
    public var appID: AppID?

    public init(node: UInt32, appID: AppID?) {
        self.node = node
        self.appID = appID
    }
}

/// The social event types, with the names the payload's `type` carries.
public enum SocialEventType: String, Sendable, CaseIterable {
    /// A friend request arrived (to its recipient; `user` is the sender).
    case friendRequest = "friend-request"
    /// Two users became friends (to both; `user` is the other one).
    case friendAccepted = "friend-accepted"
    /// A friendship ended (to both; `user` is the other one). A block that ends a friendship
    /// says only this to the blocked user.
    case friendRemoved = "friend-removed"
    /// The recipient blocked `user` (to the blocker only).
    case friendBlocked = "friend-blocked"
    /// The recipient lifted its block of `user` (to the blocker only).
    case friendUnblocked = "friend-unblocked"
    /// An event was created (to its host and whoever attends it from the start).
    case eventCreated = "event-created"
    /// The recipient was invited to `event`.
    case eventInvited = "event-invited"
    /// An event's properties or guest list changed, or it was deleted (to host and guests).
    case eventUpdated = "event-updated"
    /// The recipient's own labels or properties changed.
    case profileUpdated = "profile-updated"
}

/// One social event for one recipient (`graphd:<graph>:user:<to>`; `notify` carries every one).
public struct SocialEvent: Sendable, Hashable {
    public var type: SocialEventType
    public var to: EntityRef
    /// The other user involved, if any.
    public var user: EntityRef?
    /// The event (`:Event` node) involved, if any.
    public var event: EntityRef?

    public init(type: SocialEventType, to: EntityRef, user: EntityRef? = nil, event: EntityRef? = nil) {
        self.type = type
        self.to = to
        self.user = user
        self.event = event
    }
}

/// One node or relationship created, updated or deleted by a commit (`graphd:<graph>:changes`).
/// A commit's changes to one entity are collapsed into one (an update after a create is part of it).
public struct EntityChange: Sendable, Hashable {
    public enum Operation: String, Sendable {
        case created, updated, deleted
    }
    public enum Entity: Sendable, Hashable {
        /// A node with its labels (as of the commit; empty for a deleted one the graph no longer knows).
        case node(EntityRef, labels: [String])
        /// A relationship with its type and ends.
        case relationship(id: UInt32, type: String, start: EntityRef, end: EntityRef)
    }

    public var operation: Operation
    public var entity: Entity
    /// Property keys set or removed, and labels added or removed (as `:Label`), by an update.
    public var changed: [String]

    public init(operation: Operation, entity: Entity, changed: [String] = []) {
        self.operation = operation
        self.entity = entity
        self.changed = changed
    }

    /// The payload's `type`: `node-created`, `relationship-deleted`, …
    public var type: String {
        switch entity {
        case .node: return "node-" + operation.rawValue
        case .relationship: return "relationship-" + operation.rawValue
        }
    }
}

/// Everything the feed says about one commit; every event of it carries its token.
public struct DerivedCommit: Sendable, Hashable {
    public var sequence: UInt64
    /// Milliseconds since 1970 UTC.
    public var commitTime: UInt64
    /// The history the commit belongs to (the token's first half).
    public var history: String
    public var social: [SocialEvent]
    public var changes: [EntityChange]

    public init(sequence: UInt64, commitTime: UInt64, history: String, social: [SocialEvent], changes: [EntityChange]) {
        self.sequence = sequence
        self.commitTime = commitTime
        self.history = history
        self.social = social
        self.changes = changes
    }

    public var token: ChangeToken { ChangeToken(history: history, sequence: sequence) }
}
