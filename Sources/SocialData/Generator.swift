// Generator.swift — the seeded synthetic social graph: a degree-corrected community configuration
// model (the model of Benchmarks/anchors/gen_social.py, re-implemented without numpy), then events,
// invitations, RSVPs, pending friend requests and follows on top of the friendships.

import Foundation

/// Makes a `SocialDataset` from `SocialGraphParameters`; deterministic for a given seed.
///
/// Friendships: every user draws a target degree from a power law (capped), users are split into
/// communities with power-law sizes, a fraction `1 - mixing` of each user's stubs are paired inside
/// its community (capped at half its size so hubs do not saturate it) and the rest globally; self
/// loops and duplicate pairs are dropped, and the run is repeated with a corrected inflation until
/// the realised mean degree is within 1.5% of the target. This gives hubs with thousands of friends
/// and real clustering (triangles inside communities).
public struct SocialGraphGenerator: Sendable {
    public var parameters: SocialGraphParameters

    public init(parameters: SocialGraphParameters) {
        self.parameters = parameters
    }

    public init(preset: SocialGraphPreset, seed: UInt64 = 42) {
        var p = preset.parameters
        p.seed = seed
        self.parameters = p
    }

    /// Generates the data set. `progress` receives a short line per step (long on large).
    public func generate(progress: (String) -> Void = { _ in }) -> SocialDataset {
        let p = parameters
        let (names, usernames) = SocialGraphGenerator.names(users: p.users, seed: p.seed &+ 2)
        var data = SocialDataset(userCount: p.users, names: names, usernames: usernames)
        progress("friendships: \(p.users) users, mean degree \(p.averageDegree)")
        var inflate = 1.05
        var pairs: [UInt64] = []
        for _ in 0..<4 {
            pairs = friendshipKeys(targetMean: p.averageDegree * inflate)
            let realised = 2.0 * Double(pairs.count) / Double(max(1, p.users))
            if abs(realised - p.averageDegree) / p.averageDegree < 0.015 { break }
            inflate *= p.averageDegree / realised
            progress("friendships: mean degree \(realised), re-running with inflation \(inflate)")
        }
        let n = UInt64(p.users)
        data.friendA = pairs.map { UInt32($0 / n) }
        data.friendB = pairs.map { UInt32($0 % n) }
        pairs = []
        progress("friendships: \(data.friendshipCount)")
        let adjacency = data.friendAdjacency()
        addEvents(to: &data, adjacency: adjacency)
        progress("events: \(data.eventCount), invitations: \(data.invitedEvent.count), RSVPs: \(data.attendingEvent.count)")
        addRequests(to: &data, adjacency: adjacency)
        addFollows(to: &data, adjacency: adjacency)
        progress("pending requests: \(data.requestFrom.count), follows: \(data.followFrom.count)")
        return data
    }

    // MARK: friendships

    /// Friendship pairs as sorted, unique keys a * users + b with a < b.
    func friendshipKeys(targetMean: Double) -> [UInt64] {
        let p = parameters
        let n = p.users
        guard n > 1 else { return [] }
        var random = SeededRandom(seed: p.seed)
        let degree = powerLawDegrees(count: n, mean: targetMean, random: &random)
        let sizes = communitySizes(total: n, random: &random)
        var permutation = Array(0..<n)
        permutation.seededShuffle(0..<n, using: &random)
        // community[u] and the users of each community, contiguous in `permutation` order.
        var community = [Int32](repeating: 0, count: n)
        var starts = [Int](repeating: 0, count: sizes.count + 1)
        for (c, size) in sizes.enumerated() { starts[c + 1] = starts[c] + size }
        for c in 0..<sizes.count {
            for i in starts[c]..<starts[c + 1] { community[permutation[i]] = Int32(c) }
        }
        var inside = [UInt32]()
        var outside = [UInt32]()
        var internalStubs = [Int](repeating: 0, count: n)
        for u in 0..<n {
            let cap = (sizes[Int(community[u])] - 1) / 2
            internalStubs[u] = min(Int((Double(degree[u]) * (1 - p.mixing)).rounded(.toNearestOrEven)), cap)
        }
        // Internal stubs grouped by community (community order, users in permutation order),
        // shuffled within each community and paired neighbour to neighbour.
        var keys = [UInt64]()
        keys.reserveCapacity(Int(Double(n) * targetMean / 2))
        for c in 0..<sizes.count {
            inside.removeAll(keepingCapacity: true)
            for i in starts[c]..<starts[c + 1] {
                let u = permutation[i]
                for _ in 0..<internalStubs[u] { inside.append(UInt32(u)) }
            }
            inside.seededShuffle(0..<inside.count, using: &random)
            appendPairs(inside, to: &keys, users: n)
        }
        for u in 0..<n {
            for _ in 0..<(degree[u] - internalStubs[u]) { outside.append(UInt32(u)) }
        }
        outside.seededShuffle(0..<outside.count, using: &random)
        appendPairs(outside, to: &keys, users: n)
        keys.sort()
        // Drop duplicates in place.
        var w = 0
        for r in 0..<keys.count where r == 0 || keys[r] != keys[r - 1] {
            keys[w] = keys[r]; w += 1
        }
        keys.removeLast(keys.count - w)
        return keys
    }

    /// Pairs stubs 0-1, 2-3, …, dropping self loops, as keys min * users + max.
    private func appendPairs(_ stubs: [UInt32], to keys: inout [UInt64], users: Int) {
        var i = 0
        while i + 1 < stubs.count {
            let a = stubs[i], b = stubs[i + 1]
            i += 2
            if a == b { continue }
            keys.append(UInt64(min(a, b)) * UInt64(users) + UInt64(max(a, b)))
        }
    }

    /// Continuous Pareto(xmin, γ) rounded, capped, and rescaled toward the target mean.
    func powerLawDegrees(count n: Int, mean: Double, random: inout SeededRandom) -> [Int] {
        let gamma = parameters.degreeExponent
        let cap = Double(parameters.maximumDegree)
        let xmin = mean * (gamma - 2) / (gamma - 1)
        var d = (0..<n).map { _ in min(xmin * pow(1 - random.unit(), -1 / (gamma - 1)), cap) }
        for _ in 0..<20 {
            let m = d.reduce(0, +) / Double(n)
            let scale = mean / m
            for i in 0..<n { d[i] = min(d[i] * scale, cap) }
        }
        return d.map { max(1, Int($0.rounded(.toNearestOrEven))) }
    }

    /// Community sizes from a power law (exponent 2) on `communitySizes`, summing to `total`.
    func communitySizes(total: Int, random: inout SeededRandom) -> [Int] {
        let smin = Double(parameters.communitySizes.lowerBound)
        let smax = Double(min(parameters.communitySizes.upperBound, total))
        let a = 1.0 - 2.0
        var sizes = [Int]()
        var sum = 0
        while sum < total {
            let u = random.unit()
            let s = max(1, Int(pow((pow(smax, a) - pow(smin, a)) * u + pow(smin, a), 1 / a).rounded()))
            sizes.append(s)
            sum += s
        }
        sizes[sizes.count - 1] -= sum - total
        if sizes[sizes.count - 1] <= 0 { sizes.removeLast() }
        return sizes
    }

    // MARK: events, requests, follows

    /// Events with hosts ∝ degree; ~80% of invitations go to the host's friends, the rest to
    /// friends of friends; a fraction of invitations get an RSVP.
    func addEvents(to data: inout SocialDataset, adjacency: (offsets: [Int], neighbours: [UInt32])) {
        let p = parameters
        var random = SeededRandom(seed: p.seed &+ 1)
        let (offsets, nbr) = adjacency
        guard !nbr.isEmpty else { return }
        let base2026: Int64 = 29_453_760  // 2026-01-01T00:00Z in minutes since the epoch (20,454 days)
        var chosen = Set<UInt32>()
        for event in 0..<p.events {
            // offsets are the cumulative degree: a uniform stub picks a user ∝ degree.
            let stub = random.below(nbr.count)
            let host = upperBound(offsets, stub) - 1
            data.eventHost.append(UInt32(host))
            data.eventStartMinutes.append(base2026 + Int64(random.below(365 * 24 * 4)) * 15)
            data.eventTitles.append("Event \(event) by user \(host)")
            let friends = offsets[host]..<offsets[host + 1]
            let k = p.invitesPerEvent
            let wantFriends = min(friends.count, Int((Double(k) * 0.8).rounded()))
            chosen.removeAll(keepingCapacity: true)
            while chosen.count < wantFriends {
                chosen.insert(nbr[friends.lowerBound + random.below(friends.count)])
            }
            var tries = 0
            while chosen.count < k && tries < 20 * k && !friends.isEmpty {
                tries += 1
                let f = Int(nbr[friends.lowerBound + random.below(friends.count)])
                let ff = offsets[f]..<offsets[f + 1]
                let c = nbr[ff.lowerBound + random.below(ff.count)]
                if c != UInt32(host) { chosen.insert(c) }
            }
            for user in chosen.sorted() {
                data.invitedEvent.append(UInt32(event))
                data.invitedUser.append(user)
                if random.unit() < p.rsvpFraction {
                    data.attendingEvent.append(UInt32(event))
                    data.attendingUser.append(user)
                }
            }
        }
    }

    /// Pending requests from random users to friends of their friends (who they are not friends
    /// with), no duplicates, never both ways between one pair.
    func addRequests(to data: inout SocialDataset, adjacency: (offsets: [Int], neighbours: [UInt32])) {
        let p = parameters
        var random = SeededRandom(seed: p.seed &+ 3)
        let (offsets, nbr) = adjacency
        let wanted = Int(Double(p.users) * p.pendingRequestsPerUser)
        var seen = Set<UInt64>()
        var tries = 0
        while data.requestFrom.count < wanted && tries < 20 * wanted {
            tries += 1
            let s = random.below(p.users)
            let fs = offsets[s]..<offsets[s + 1]
            if fs.isEmpty { continue }
            let f = Int(nbr[fs.lowerBound + random.below(fs.count)])
            let ffs = offsets[f]..<offsets[f + 1]
            let r = Int(nbr[ffs.lowerBound + random.below(ffs.count)])
            if r == s || contains(nbr, offsets[s]..<offsets[s + 1], UInt32(r)) { continue }
            let key = UInt64(min(s, r)) * UInt64(p.users) + UInt64(max(s, r))
            guard seen.insert(key).inserted else { continue }
            data.requestFrom.append(UInt32(s))
            data.requestTo.append(UInt32(r))
        }
    }

    /// Follows from random users to users drawn ∝ degree; no self-follows, no duplicates.
    func addFollows(to data: inout SocialDataset, adjacency: (offsets: [Int], neighbours: [UInt32])) {
        let p = parameters
        var random = SeededRandom(seed: p.seed &+ 4)
        let (offsets, nbr) = adjacency
        guard !nbr.isEmpty else { return }
        let wanted = Int(Double(p.users) * p.followsPerUser)
        var seen = Set<UInt64>()
        var tries = 0
        while data.followFrom.count < wanted && tries < 20 * wanted {
            tries += 1
            let a = random.below(p.users)
            let b = upperBound(offsets, random.below(nbr.count)) - 1
            if a == b { continue }
            guard seen.insert(UInt64(a) * UInt64(p.users) + UInt64(b)).inserted else { continue }
            data.followFrom.append(UInt32(a))
            data.followTo.append(UInt32(b))
        }
    }

    // MARK: names

    static let firstNames = ("Ada Alan Alice Amir Ana Ben Bella Carlos Chen Chloe Dana David Diego Elena Emma Eva Fatima Felix Grace Hana "
        + "Hugo Ines Ivan Jack Jana Jonas Julia Kai Karim Lea Leo Lina Luca Maria Mateo Mia Nina Noah Omar Olga "
        + "Paul Priya Rosa Sam Sara Sofia Tom Uma Yuki Zoe").split(separator: " ").map(String.init)
    static let lastNames = ("Smith Garcia Muller Rossi Kim Tanaka Silva Novak Ivanova Cohen Khan Nguyen Martin Dubois Jensen Costa "
        + "Fischer Lopez Santos Weber Moreau Ricci Sato Park Ali Haddad Kowalski Horvat Berg Larsen").split(separator: " ").map(String.init)

    /// "First Last" and "firstlast<id>" per user (gen_social.py's name lists and username rule).
    static func names(users: Int, seed: UInt64) -> ([String], [String]) {
        var random = SeededRandom(seed: seed)
        var names = [String](), usernames = [String]()
        names.reserveCapacity(users); usernames.reserveCapacity(users)
        for i in 0..<users {
            let f = firstNames[random.below(firstNames.count)], l = lastNames[random.below(lastNames.count)]
            names.append("\(f) \(l)")
            usernames.append("\(f.lowercased())\(l.lowercased())\(i)")
        }
        return (names, usernames)
    }
}

/// The first index i with values[i] > x, for ascending `values`.
func upperBound(_ values: [Int], _ x: Int) -> Int {
    var lo = 0, hi = values.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if values[mid] <= x { lo = mid + 1 } else { hi = mid }
    }
    return lo
}

/// Whether the sorted slice `values[range]` holds `x` (binary search).
func contains(_ values: [UInt32], _ range: Range<Int>, _ x: UInt32) -> Bool {
    var lo = range.lowerBound, hi = range.upperBound
    while lo < hi {
        let mid = (lo + hi) / 2
        if values[mid] < x { lo = mid + 1 } else { hi = mid }
    }
    return lo < range.upperBound && values[lo] == x
}
