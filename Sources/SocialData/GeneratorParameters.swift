// GeneratorParameters.swift — the knobs of the synthetic social graph and its named presets.
// The presets small and medium match Benchmarks/anchors/gen_social.py's, so graphd and its peers
// are measured on graphs of the same shape; large (1M users, ~50M friendships) is the largest
// graph graphd is measured on.

/// How big and how shaped a generated social graph is. Same parameters and seed, same graph.
public struct SocialGraphParameters: Sendable, Hashable, Codable {
    /// Number of users; their ids are 0..<users.
    public var users: Int
    /// Target mean number of friends per user (realised within about 1.5%).
    public var averageDegree: Double
    /// No user gets more friends than this (Facebook caps friends at 5,000).
    public var maximumDegree: Int
    /// Exponent of the power law of target degrees (heavy tail: a few hubs).
    public var degreeExponent: Double = 2.5
    /// Fraction of each user's friends drawn from outside its community; the rest are inside
    /// (friend groups, which is what makes "people you may know" have mutual friends).
    public var mixing: Double = 0.3
    /// Community sizes follow a power law between these bounds.
    public var communitySizes: ClosedRange<Int> = 20...1_000
    /// Number of events; hosts are drawn in proportion to their degree.
    public var events: Int
    /// Invitations per event: about 80% the host's friends, the rest friends of friends.
    public var invitesPerEvent: Int
    /// Fraction of invitations answered with an RSVP (an ATTENDING beside the INVITED).
    public var rsvpFraction: Double = 0.4
    /// Pending friend requests per user, on average (sent to friends of friends, never to friends).
    public var pendingRequestsPerUser: Double = 0.5
    /// FOLLOWS per user, on average (followed users drawn in proportion to degree: celebrities).
    public var followsPerUser: Double = 1.0
    /// Seed of every random choice.
    public var seed: UInt64 = 42

    public init(users: Int, averageDegree: Double, maximumDegree: Int, events: Int, invitesPerEvent: Int) {
        self.users = users
        self.averageDegree = averageDegree
        self.maximumDegree = maximumDegree
        self.events = events
        self.invitesPerEvent = invitesPerEvent
    }
}

/// The named sizes (small and medium as in gen_social.py; large: 1M users, ~50M friendships).
public enum SocialGraphPreset: String, Sendable, CaseIterable {
    /// 10k users, ~200k friendships, 1,000 events × 20 invitations: seconds.
    case small
    /// 200k users, ~5M friendships, 10,000 events × 30: the peers' benchmark graph.
    case medium
    /// 1M users, ~50M friendships, 50,000 events × 30.
    case large

    public var parameters: SocialGraphParameters {
        switch self {
        case .small: SocialGraphParameters(users: 10_000, averageDegree: 40, maximumDegree: 1_000, events: 1_000, invitesPerEvent: 20)
        case .medium: SocialGraphParameters(users: 200_000, averageDegree: 50, maximumDegree: 5_000, events: 10_000, invitesPerEvent: 30)
        case .large: SocialGraphParameters(users: 1_000_000, averageDegree: 100, maximumDegree: 5_000, events: 50_000, invitesPerEvent: 30)
        }
    }
}
