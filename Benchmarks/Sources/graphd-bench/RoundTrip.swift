// RoundTrip.swift — the calls `graphd-bench server` times to know what the protocol's round trip
// costs right now: PING to graphd, and (with --redis-port) PING and SMEMBERS of a 50-member set
// to a real Redis, the way Benchmarks/anchors/limit/resp_floor.sh measures the round trip (about
// 31 µs) that the wire target (the C floor plus the round trip plus 20%) adds to the floor. On
// this virtual machine the round trip moves by half from one hour to the next, so a figure taken
// beside graphd's is the one to compare with.

/// A round-trip phase's call and how its answer is checked.
enum RoundTripProbe: String {
    /// PING to graphd.
    case ping
    /// PING to the reference Redis.
    case redisPing = "redis-ping"
    /// SMEMBERS of the reference set: a reply the size of a median friend list.
    case redisMembers = "redis-smembers"

    /// Sent to the reference Redis (`--redis-port`), not to graphd.
    var asksRedis: Bool { self != .ping }

    var title: String {
        switch self {
        case .ping: "PING"
        case .redisPing: "Redis PING"
        case .redisMembers: "Redis SMEMBERS, \(RedisReference.members.count)"
        }
    }

    var request: [String] {
        switch self {
        case .ping, .redisPing: ["PING"]
        case .redisMembers: ["SMEMBERS", RedisReference.key]
        }
    }

    /// Why the reply is wrong, or nil if it is right.
    func check(_ reply: RESPReply) -> String? {
        switch self {
        case .ping, .redisPing:
            return reply == .simple("PONG") ? nil : "PING answered \(reply)"
        case .redisMembers:
            guard case .array(let items?) = reply else { return "SMEMBERS answered \(reply)" }
            let members = items.compactMap { item -> String? in if case .bulk(let s?) = item { s } else { nil } }
            return members.sorted() == RedisReference.members.sorted() ? nil
                : "SMEMBERS answered \(items.count) items, not the \(RedisReference.members.count) members stored"
        }
    }
}

/// The reference Redis's set: made before the phases, removed after.
enum RedisReference {
    /// A key no application would use, so a shared Redis loses nothing.
    static let key = "graphd-bench:round-trip-members"
    /// Integer members, as a friend list's ids (Redis keeps them as an intset).
    static let members = (1_000..<1_050).map(String.init)

    static func prepare(port: Int) throws {
        let client = try RESPClient(port: port)
        _ = try client.call(["DEL", key])
        let added = try client.call(["SADD", key] + members)
        guard added == .integer(members.count) else {
            throw UsageError("127.0.0.1:\(port) did not store the reference set (SADD answered \(added)); is it a Redis server?")
        }
    }

    static func clean(port: Int) {
        _ = try? RESPClient(port: port).call(["DEL", key])
    }
}
