// Samples.swift — the fixed, seeded sample every engine is measured on (written into the result
// JSON so the peer scripts replay exactly the same calls).

import SocialData

/// The inputs of the social mix: same seed and data set, same samples.
struct Samples: Codable, Sendable {
    var seed: UInt64
    /// Users for point lookups, friends and connections.
    var users: [Int]
    /// Pairs sharing at least one friend, for mutual friends.
    var pairs: [[Int]]
    /// A viewer and 20 users (friends, connections, strangers, sometimes the viewer) per list.
    var labelViewers: [Int]
    var labelLists: [[Int]]
    /// Events for the invitable audience.
    var events: [Int]
    /// Users with at least one invitation, for the invitation feed.
    var feedUsers: [Int]
    /// Random pairs of different users, for shortest paths.
    var pathPairs: [[Int]] = []

    init(data: SocialDataset, reference: Reference, seed: UInt64, users userCount: Int, others: Int) {
        self.seed = seed
        var random = SeededRandom(seed: seed)
        let n = data.userCount
        var picked = Set<Int>()
        users = []
        while users.count < min(userCount, n) {
            let u = random.below(n)
            if picked.insert(u).inserted { users.append(u) }
        }
        pairs = []
        var guardCount = 0
        while pairs.count < others && guardCount < 100 * others {
            guardCount += 1
            let u = random.below(n)
            let fu = reference.friends(u)
            guard !fu.isEmpty else { continue }
            let w = Int(fu[fu.startIndex + random.below(fu.count)])
            let fw = reference.friends(w)
            let v = Int(fw[fw.startIndex + random.below(fw.count)])
            if v != u { pairs.append([u, v]) }
        }
        labelViewers = []
        labelLists = []
        for i in 0..<others {
            let v = random.below(n)
            var list: [Int] = []
            let fv = reference.friends(v)
            for _ in 0..<5 where !fv.isEmpty { list.append(Int(fv[fv.startIndex + random.below(fv.count)])) }
            for _ in 0..<5 where !fv.isEmpty {
                let f = Int(fv[fv.startIndex + random.below(fv.count)])
                let ff = reference.friends(f)
                list.append(Int(ff[ff.startIndex + random.below(ff.count)]))
            }
            if i % 4 == 0 { list.append(v) }
            while list.count < 20 { list.append(random.below(n)) }
            labelViewers.append(v)
            labelLists.append(list)
        }
        let eventCount = data.eventCount
        events = []
        var pickedEvents = Set<Int>()
        while events.count < min(others, eventCount) {
            let e = random.below(eventCount)
            if pickedEvents.insert(e).inserted { events.append(e) }
        }
        feedUsers = []
        if !data.invitedUser.isEmpty {
            for _ in 0..<others { feedUsers.append(Int(data.invitedUser[random.below(data.invitedUser.count)])) }
        }
        while pathPairs.count < others && n > 1 {
            let (a, b) = (random.below(n), random.below(n))
            if a != b { pathPairs.append([a, b]) }
        }
    }
}
