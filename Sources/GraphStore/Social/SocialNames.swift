// SocialNames.swift — the names of the social schema (labels, relationship types, property keys)
// and their interned ids in one graph. Every social kernel reads ids from a SocialSchema, so an
// app whose graph says :Person / :KNOWS maps its names once and keeps the kernels unchanged.

/// The labels, relationship types and property keys the social operations use (docs/social.md).
/// The defaults are graphd's schema; an app with other names passes its own.
public struct SocialNames: Sendable, Hashable {
    /// Label of people: `(:User {id})`.
    public var user = "User"
    /// Label of events: `(:Event {id, starts_at})`.
    public var event = "Event"
    /// The app's unique id of a user or an event (a unique constraint on `:User(id)` makes lookups O(1)).
    public var id = "id"
    /// `(a:User)-[:FRIEND]->(b:User)`: stored once per pair, matched in either direction.
    public var friend = "FRIEND"
    /// `(sender:User)-[:FRIEND_REQUEST]->(recipient:User)`: a pending request.
    public var friendRequest = "FRIEND_REQUEST"
    /// `(blocker:User)-[:BLOCKED]->(blocked:User)`.
    public var blocked = "BLOCKED"
    /// `(follower:User)-[:FOLLOWS]->(followed:User)`: one-way, independent of friendship.
    public var follows = "FOLLOWS"
    /// `(host:User)-[:HOSTS]->(e:Event)`.
    public var hosts = "HOSTS"
    /// `(guest:User)-[:INVITED]->(e:Event)`.
    public var invited = "INVITED"
    /// `(guest:User)-[:ATTENDING]->(e:Event)`.
    public var attending = "ATTENDING"
    /// User property: the display name `social.searchPeople` searches (through a full-text index).
    public var name = "name"
    /// Relationship property: when it was made (integer, milliseconds since the Unix epoch).
    public var createdAt = "created_at"
    /// Event property: when it starts (integer, milliseconds since the Unix epoch).
    public var startsAt = "starts_at"

    /// graphd's own names.
    public init() {}

    /// The default names.
    public static let standard = SocialNames()
}

/// The social names resolved to one graph's interned ids. A name the graph has never seen is
/// nil, and reads treat it as "no such relationships" (an empty adjacency), so a fresh graph
/// answers every question with empty results instead of an error.
/// Resolving costs a few dictionary lookups: resolve once per query, not once per node.
public struct SocialSchema: Sendable, Equatable {
    public let user: LabelID?
    public let event: LabelID?
    public let id: PropertyKeyID?
    public let friend: RelationshipTypeID?
    public let friendRequest: RelationshipTypeID?
    public let blocked: RelationshipTypeID?
    public let follows: RelationshipTypeID?
    public let hosts: RelationshipTypeID?
    public let invited: RelationshipTypeID?
    public let attending: RelationshipTypeID?
    public let createdAt: PropertyKeyID?
    public let startsAt: PropertyKeyID?

    /// Looks the names up in `graph` without interning anything (reads never write).
    public init(graph: Graph, names: SocialNames = .standard) {
        user = graph.labelID(named: names.user)
        event = graph.labelID(named: names.event)
        id = graph.propertyKeyID(named: names.id)
        friend = graph.relationshipTypeID(named: names.friend)
        friendRequest = graph.relationshipTypeID(named: names.friendRequest)
        blocked = graph.relationshipTypeID(named: names.blocked)
        follows = graph.relationshipTypeID(named: names.follows)
        hosts = graph.relationshipTypeID(named: names.hosts)
        invited = graph.relationshipTypeID(named: names.invited)
        attending = graph.relationshipTypeID(named: names.attending)
        createdAt = graph.propertyKeyID(named: names.createdAt)
        startsAt = graph.propertyKeyID(named: names.startsAt)
    }
}

extension Graph {
    /// `names` resolved to this graph's ids: kept resolved for the standard names, looked up for others.
    public func socialSchema(names: SocialNames = .standard) -> SocialSchema {
        if names == .standard, let standardSocialSchema { return standardSocialSchema }
        return SocialSchema(graph: self, names: names)
    }

    mutating func resolveStandardSocialNames() {
        standardSocialSchema = SocialSchema(graph: self, names: .standard)
    }

    /// The adjacency of `node` for an optional type: empty when the type was never interned.
    @inline(__always) func socialAdjacency(of node: NodeID, _ type: RelationshipTypeID?, _ direction: Direction) -> AdjacencyList {
        guard let type else { return AdjacencyList() }
        return adjacency(of: node, type: type, direction: direction)
    }

    /// The node of the user (or event, by `label`) whose app id equals `value`; nil if none.
    /// O(1) expected with an index on `(label, id)`, a label scan without one.
    public func socialNode(label: LabelID?, id value: Value, schema: SocialSchema) -> NodeID? {
        guard let label, let key = schema.id else { return nil }
        return firstNodeID(withLabel: label, key: key, equalTo: value)
    }
}
