// GeneratorDataset.swift — a social data set as plain arrays: what the generator makes, what the
// CSV files hold, and what GraphBuilder and the benchmark's reference answers are computed from.
// Users are 0..<userCount and events 0..<eventCount; every pair list is two parallel arrays.

/// A whole social data set in columnar form (no graph, no objects per edge).
public struct SocialDataset: Sendable {
    /// Users have ids 0..<userCount.
    public var userCount: Int
    /// Display name per user ("Ada Smith").
    public var names: [String]
    /// Login name per user ("adasmith17"), unique.
    public var usernames: [String]
    /// Friendships, each undirected pair once with `friendA[i] < friendB[i]`, sorted by (a, b).
    public var friendA: [UInt32]
    public var friendB: [UInt32]
    /// Pending friend requests sender → recipient (never between friends, never both ways).
    public var requestFrom: [UInt32]
    public var requestTo: [UInt32]
    /// FOLLOWS follower → followed (no self-follows, no duplicates).
    public var followFrom: [UInt32]
    public var followTo: [UInt32]
    /// Host user per event (events have ids 0..<eventCount).
    public var eventHost: [UInt32]
    /// Start per event in minutes since the Unix epoch (the CSV writes ISO 8601, the graph milliseconds).
    public var eventStartMinutes: [Int64]
    /// Title per event.
    public var eventTitles: [String]
    /// Invitations (event, user), sorted by event then user.
    public var invitedEvent: [UInt32]
    public var invitedUser: [UInt32]
    /// RSVPs (event, user): a subset of the invitations.
    public var attendingEvent: [UInt32]
    public var attendingUser: [UInt32]

    public var eventCount: Int { eventHost.count }
    public var friendshipCount: Int { friendA.count }

    /// An empty data set of `userCount` users with generated names, for readers that fill the rest.
    public init(userCount: Int, names: [String], usernames: [String]) {
        self.userCount = userCount
        self.names = names
        self.usernames = usernames
        friendA = []; friendB = []; requestFrom = []; requestTo = []; followFrom = []; followTo = []
        eventHost = []; eventStartMinutes = []; eventTitles = []
        invitedEvent = []; invitedUser = []; attendingEvent = []; attendingUser = []
    }

    /// Friends per user in CSR form (both directions, each list sorted ascending): `offsets` has
    /// userCount + 1 entries and user u's friends are `neighbours[offsets[u]..<offsets[u+1]]`.
    public func friendAdjacency() -> (offsets: [Int], neighbours: [UInt32]) {
        var offsets = [Int](repeating: 0, count: userCount + 1)
        for i in 0..<friendA.count {
            offsets[Int(friendA[i]) + 1] += 1
            offsets[Int(friendB[i]) + 1] += 1
        }
        for u in 0..<userCount { offsets[u + 1] += offsets[u] }
        var cursor = offsets
        var neighbours = [UInt32](repeating: 0, count: offsets[userCount])
        // With pairs sorted by (a, b) and a < b, u's list is its smaller neighbours (pairs (a, u),
        // met in ascending a) then its larger ones (pairs (u, b), ascending b): two passes, in that
        // order, fill every list already sorted. (The CSV reader normalises to this order.)
        for i in 0..<friendA.count {
            let b = Int(friendB[i])
            neighbours[cursor[b]] = friendA[i]; cursor[b] += 1
        }
        for i in 0..<friendA.count {
            let a = Int(friendA[i])
            neighbours[cursor[a]] = friendB[i]; cursor[a] += 1
        }
        return (offsets, neighbours)
    }
}
