// Reference.swift — the independent reference answers every measured answer is checked against.
// Deliberately simple and separate from graphd's code: plain sorted arrays built from the CSV
// data set, dictionaries for counting, sets for exclusions. Slow is fine; wrong is not.

import SocialData

/// How a viewer relates to another user, as the social operations label it.
enum RelationKind: String, Sendable {
    case SELF, FRIEND, CONNECTION, NONE
}

/// The answers, computed from the data set alone.
struct Reference: Sendable {
    let data: SocialDataset
    let offsets: [Int]
    let neighbours: [UInt32]
    /// Pending requests as sender * users + recipient.
    let requests: Set<UInt64>
    let invitedByEvent: [Set<UInt32>]
    let attendingByEvent: [Set<UInt32>]
    /// Per user: (event, attending) for every event they are invited to or attend.
    let eventsByUser: [UInt32: [UInt32: Bool]]

    init(data: SocialDataset) {
        self.data = data
        (offsets, neighbours) = data.friendAdjacency()
        let n = UInt64(data.userCount)
        requests = Set(zip(data.requestFrom, data.requestTo).map { UInt64($0.0) * n + UInt64($0.1) })
        var invited = [Set<UInt32>](repeating: [], count: data.eventCount)
        var attending = [Set<UInt32>](repeating: [], count: data.eventCount)
        var byUser: [UInt32: [UInt32: Bool]] = [:]
        for (e, u) in zip(data.invitedEvent, data.invitedUser) {
            invited[Int(e)].insert(u)
            byUser[u, default: [:]][e] = byUser[u]?[e] ?? false
        }
        for (e, u) in zip(data.attendingEvent, data.attendingUser) {
            attending[Int(e)].insert(u)
            byUser[u, default: [:]][e] = true
        }
        invitedByEvent = invited
        attendingByEvent = attending
        eventsByUser = byUser
    }

    func friends(_ u: Int) -> ArraySlice<UInt32> { neighbours[offsets[u]..<offsets[u + 1]] }

    func isFriend(_ a: Int, _ b: Int) -> Bool { friends(a).contains(UInt32(b)) }

    /// Every friend of a friend of `u` that is neither `u` nor a friend, with its mutual count,
    /// by count descending then id ascending.
    func connections(_ u: Int) -> [(id: Int, mutual: Int)] {
        let mine = Set(friends(u))
        var counts: [UInt32: Int] = [:]
        for f in friends(u) {
            for c in friends(Int(f)) where Int(c) != u && !mine.contains(c) { counts[c, default: 0] += 1 }
        }
        return counts.map { (id: Int($0.key), mutual: $0.value) }
            .sorted { $0.mutual != $1.mutual ? $0.mutual > $1.mutual : $0.id < $1.id }
    }

    func mutualFriends(_ a: Int, _ b: Int) -> [Int] {
        Set(friends(a)).intersection(friends(b)).map { Int($0) }.sorted()
    }

    func relation(_ viewer: Int, _ user: Int) -> (kind: RelationKind, mutual: Int) {
        if viewer == user { return (.SELF, 0) }
        let mutual = mutualFriends(viewer, user).count
        if isFriend(viewer, user) { return (.FRIEND, mutual) }
        return (mutual > 0 ? .CONNECTION : .NONE, mutual)
    }

    func hasRequest(from a: Int, to b: Int) -> Bool {
        requests.contains(UInt64(a) * UInt64(data.userCount) + UInt64(b))
    }

    /// Friends then connections of the host, minus the host and anyone invited or attending,
    /// each group by mutual friends with the host descending, then id.
    func audience(_ event: Int) -> [(id: Int, kind: RelationKind, mutual: Int)] {
        let host = Int(data.eventHost[event])
        let excluded = invitedByEvent[event].union(attendingByEvent[event])
        var rows: [(id: Int, kind: RelationKind, mutual: Int)] = []
        for f in friends(host) where !excluded.contains(f) {
            rows.append((Int(f), .FRIEND, mutualFriends(host, Int(f)).count))
        }
        rows.sort { $0.mutual != $1.mutual ? $0.mutual > $1.mutual : $0.id < $1.id }
        for c in connections(host) where !excluded.contains(UInt32(c.id)) {
            rows.append((c.id, .CONNECTION, c.mutual))
        }
        return rows
    }

    /// The number of friendships on a shortest chain from `a` to `b`, nil when none joins them:
    /// a breadth-first search from `a` alone, level by level, over the whole graph if need be.
    func distance(_ a: Int, _ b: Int) -> Int? {
        if a == b { return 0 }
        var seen = Set([a])
        var level = [a]
        var depth = 0
        while !level.isEmpty {
            depth += 1
            var next: [Int] = []
            for u in level {
                for f in friends(u) where seen.insert(Int(f)).inserted {
                    if Int(f) == b { return depth }
                    next.append(Int(f))
                }
            }
            level = next
        }
        return nil
    }

    /// The events `user` is invited to or attends, by start then id, with the host's relation.
    func feed(_ user: Int) -> [(event: Int, attending: Bool, hostKind: RelationKind, hostMutual: Int)] {
        let mine = eventsByUser[UInt32(user)] ?? [:]
        return mine.map { (e, attending) in
            let r = relation(user, Int(data.eventHost[Int(e)]))
            return (Int(e), attending, r.kind, r.mutual)
        }.sorted {
            let s0 = data.eventStartMinutes[$0.event], s1 = data.eventStartMinutes[$1.event]
            return s0 != s1 ? s0 < s1 : $0.event < $1.event
        }
    }
}
