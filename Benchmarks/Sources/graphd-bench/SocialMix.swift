// SocialMix.swift — the social query mix: each operation in up to three forms (the Swift kernel,
// the `CALL social.*` procedure, plain Cypher), run against one store, each call timed and its
// answer written in canonical form (Canonical.swift) to be compared with the reference's.

import GraphQuery
import GraphStore
import SocialData

/// One question of the mix.
enum Operation: String, CaseIterable, Codable, Sendable {
    case lookup, friends, connections, mutual, relationships, audience
    /// The size of the invitable audience alone: the question the peers and the C floor answer (d).
    case audienceCount = "audience-count"
    case feed
    /// Degrees of separation: the length of a shortest friendship path between a random pair.
    case path

    var title: String {
        switch self {
        case .lookup: "point lookup by id"
        case .friends: "friends"
        case .connections: "connections top 50"
        case .mutual: "mutual friends of a pair"
        case .relationships: "relationship labels, 20 users"
        case .audience: "invitable audience (2 hops)"
        case .audienceCount: "invitable audience, count"
        case .feed: "invitation feed"
        case .path: "shortest path of a random pair"
        }
    }
}

/// How an operation is asked.
enum Form: String, CaseIterable, Codable, Sendable {
    /// The Swift kernel over `Graph` (embedded apps, no query language).
    case kernel
    /// `CALL social.…` through QueryEngine.
    case procedure
    /// Plain Cypher through QueryEngine (what the planner must recognise).
    case cypher
    /// FalkorDB's own phrasing, the fastest correct Cypher it runs (Benchmarks/peers/bench_peers.py
    /// sends the same texts): to drive a FalkorDB server with this harness (`server --form
    /// falkordb`), or graphd with the peer's texts. Only the questions the peers answer have one.
    case falkordb

    /// graphd's own forms: what a run measures unless told otherwise.
    static let graphd: [Form] = [.kernel, .procedure, .cypher]
}

/// The query texts (procedure, Cypher and FalkorDB forms); parameters are `$uid`, `$a`/`$b`, `$viewer`/`$users`, `$eid`.
enum MixQueries {
    static func text(_ op: Operation, _ form: Form) -> String? {
        switch (op, form) {
        case (_, .kernel): return nil
        case (.lookup, _): return "MATCH (u:User {id: $uid}) RETURN u.name, u.username"
        case (.friends, .falkordb): return "MATCH (u:User {id: $uid})-[:FRIEND]-(f:User) RETURN f.id"
        case (.connections, .falkordb):
            // FalkorDB 4.22 folds an anonymous middle hop and returns wrong counts, and naming it is
            // 16–25× slower (Benchmarks/anchors/README.md): this collect form is its fastest correct
            // one.
            return "MATCH (u:User {id: $uid})-[:FRIEND]-(f:User) WITH u, collect(f) AS fs "
                + "UNWIND fs AS f MATCH (f)-[:FRIEND]-(c:User) WHERE c <> u AND NOT c IN fs "
                + "RETURN c.id AS id, count(*) AS mutual ORDER BY mutual DESC, id ASC LIMIT 50"
        case (.mutual, .falkordb): return "MATCH (a:User {id: $a})-[:FRIEND]-(m:User)-[:FRIEND]-(b:User {id: $b}) RETURN m.id"
        case (.audienceCount, .falkordb):
            return "MATCH (h:User)-[:HOSTS]->(e:Event {id: $eid}) OPTIONAL MATCH (i:User)-[:INVITED|ATTENDING]->(e) "
                + "WITH h, collect(i.id) AS inv MATCH (h)-[:FRIEND*1..2]-(x:User) "
                + "WHERE x.id <> h.id AND NOT x.id IN inv RETURN count(DISTINCT x)"
        case (.relationships, .falkordb), (.audience, .falkordb), (.feed, .falkordb), (.path, .procedure): return nil
        case (.path, .cypher):
            return "MATCH (a:User {id: $a}), (b:User {id: $b}) MATCH p = shortestPath((a)-[:FRIEND*]-(b)) RETURN length(p)"
        case (.path, .falkordb):
            // FalkorDB refuses an undirected shortestPath ("does not currently support undirected
            // shortestPath traversals") and allShortestPaths with ends not bound by an earlier
            // clause; this is its fastest accepted phrasing (Benchmarks/peers/bench_peers.py).
            return "MATCH (a:User {id: $a}), (b:User {id: $b}) WITH a, b "
                + "MATCH p = allShortestPaths((a)-[:FRIEND*]-(b)) RETURN length(p) LIMIT 1"
        case (.friends, .procedure): return "CALL social.friends($uid, {}) YIELD friend RETURN friend.id"
        case (.friends, .cypher): return "MATCH (u:User {id: $uid})-[:FRIEND]-(f:User) RETURN f.id"
        case (.connections, .procedure):
            return "CALL social.connections($uid, {limit: 50}) YIELD user, mutual RETURN user.id, mutual"
        case (.connections, .cypher):
            return "MATCH (u:User {id: $uid})-[:FRIEND]-(f)-[:FRIEND]-(c) WHERE c <> u AND NOT (u)-[:FRIEND]-(c) "
                + "WITH c, count(DISTINCT f) AS mutual RETURN c.id AS id, mutual ORDER BY mutual DESC, id(c) LIMIT 50"
        case (.mutual, .procedure): return "CALL social.mutualFriends($a, $b) YIELD friend RETURN friend.id"
        case (.mutual, .cypher):
            return "MATCH (a:User {id: $a})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: $b}) WHERE a <> b RETURN DISTINCT m.id"
        case (.relationships, .procedure):
            return "CALL social.relationships($viewer, $users) YIELD user, relation, mutual, requestSent, requestReceived "
                + "RETURN user.id, relation, mutual, requestSent, requestReceived"
        case (.relationships, .cypher):
            return "MATCH (v:User {id: $viewer}) UNWIND range(0, size($users) - 1) AS i MATCH (x:User {id: $users[i]}) "
                + "OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x "
                + "WITH i, v, x, count(DISTINCT m) AS mutual "
                + "RETURN x.id AS user, CASE WHEN x = v THEN 'SELF' WHEN exists((v)-[:FRIEND]-(x)) THEN 'FRIEND' "
                + "WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END AS relation, mutual, "
                + "x <> v AND exists((v)-[:FRIEND_REQUEST]->(x)) AS requestSent, "
                + "x <> v AND exists((x)-[:FRIEND_REQUEST]->(v)) AS requestReceived ORDER BY i"
        case (.audience, .procedure):
            return "CALL social.invitableAudience($eid, {hops: 2}) YIELD user, relation, mutual RETURN user.id, relation, mutual"
        case (.audience, .cypher):
            return audience + "RETURN c.id AS user, CASE WHEN isFriend THEN 'FRIEND' ELSE 'CONNECTION' END AS relation, mutual "
                + "ORDER BY isFriend DESC, mutual DESC, id(c)"
        case (.audienceCount, .procedure): return "CALL social.invitableAudience($eid, {hops: 2}) YIELD user RETURN count(user)"
        case (.audienceCount, .cypher): return audience + "RETURN count(c)"
        case (.feed, .procedure):
            return "CALL social.invitations($uid, {}) YIELD event, attending, hostRelation, hostMutual "
                + "RETURN event.id, attending, hostRelation, hostMutual"
        case (.feed, .cypher):
            return "MATCH (u:User {id: $uid})-[r:INVITED|ATTENDING]->(event:Event) "
                + "WITH u, event, max(CASE type(r) WHEN 'ATTENDING' THEN 1 ELSE 0 END) = 1 AS attending "
                + "OPTIONAL MATCH (h:User)-[:HOSTS]->(event) "
                + "OPTIONAL MATCH (u)-[:FRIEND]-(m)-[:FRIEND]-(h) WHERE u <> h "
                + "WITH u, event, attending, h, count(DISTINCT m) AS mutual "
                + "RETURN event.id, attending, "
                + "CASE WHEN h IS NULL THEN null WHEN h = u THEN 'SELF' WHEN exists((u)-[:FRIEND]-(h)) THEN 'FRIEND' "
                + "WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END AS hostRelation, "
                + "CASE WHEN h IS NULL THEN null ELSE mutual END AS hostMutual ORDER BY event.starts_at, id(event)"
        }
    }
}

extension MixQueries {
    /// The plain audience (docs/social.md) up to its rows, each `c` with `isFriend` and `mutual`.
    static let audience = "MATCH (h:User)-[:HOSTS]->(e:Event {id: $eid}) MATCH (h)-[:FRIEND]-(f) "
        + "WITH e, h, collect(DISTINCT f) AS friends UNWIND friends AS f OPTIONAL MATCH (f)-[:FRIEND]-(x) "
        + "WITH e, h, friends, collect(DISTINCT x) + friends AS reach UNWIND reach AS c "
        + "WITH DISTINCT e, h, friends, c "
        + "WHERE c <> h AND NOT (c)-[:INVITED]->(e) AND NOT (c)-[:ATTENDING]->(e) AND NOT (h)-[:BLOCKED]-(c) "
        + "WITH c, c IN friends AS isFriend, size([m IN friends WHERE (m)-[:FRIEND]-(c)]) AS mutual "
}

/// A call's answer, deferred: writes the answer's canonical form (after the clock stops).
typealias MixAnswer = (inout CanonicalWriter) -> Void

/// The inputs and expected answers of each operation, in sample order.
struct MixPlan: Sendable {
    let samples: Samples
    /// The reference's answers in canonical text (for the report of a mismatch)…
    let expected: [Operation: [String]]
    /// …and their digests, which every timed answer is checked against.
    let expectedDigests: [Operation: [UInt64]]
    /// Size of the invitable audience per sampled event: the peers' query (d).
    let audienceCounts: [Int]

    init(samples: Samples, reference: Reference) {
        self.samples = samples
        var expected: [Operation: [String]] = [:]
        let data = reference.data
        let text = Canonical.text
        expected[.lookup] = samples.users.map { u in text { Canonical.lookup(CollectionOfOne((data.names[u], data.usernames[u])), into: &$0) } }
        expected[.friends] = samples.users.map { u in text { Canonical.ids(reference.friends(u).lazy.map { Int($0) }, into: &$0) } }
        expected[.connections] = samples.users.map { u in
            text { Canonical.ranked(reference.connections(u).prefix(50).lazy.map { ($0.id, $0.mutual) }, into: &$0) }
        }
        expected[.mutual] = samples.pairs.map { p in text { Canonical.ids(reference.mutualFriends(p[0], p[1]), into: &$0) } }
        expected[.relationships] = zip(samples.labelViewers, samples.labelLists).map { viewer, users in
            text { w in
                Canonical.labels(users.lazy.map { u in
                    let r = reference.relation(viewer, u)
                    let other = u != viewer
                    return (u, r.kind.rawValue, r.mutual, other && reference.hasRequest(from: viewer, to: u),
                            other && reference.hasRequest(from: u, to: viewer))
                }, into: &w)
            }
        }
        var counts: [Int] = []
        expected[.audience] = samples.events.map { e in
            let rows = reference.audience(e)
            counts.append(rows.count)
            return text { Canonical.audience(rows.lazy.map { ($0.id, $0.kind.rawValue, $0.mutual) }, into: &$0) }
        }
        audienceCounts = counts
        expected[.audienceCount] = counts.map { n in text { Canonical.ids(CollectionOfOne(n), into: &$0) } }
        expected[.path] = samples.pathPairs.map { p in
            text { Canonical.ids(reference.distance(p[0], p[1]).map { [$0] } ?? [], into: &$0) }
        }
        expected[.feed] = samples.feedUsers.map { u in
            text { Canonical.feed(reference.feed(u).lazy.map { ($0.event, $0.attending, $0.hostKind.rawValue, $0.hostMutual) }, into: &$0) }
        }
        self.expected = expected
        expectedDigests = expected.mapValues { answers in answers.map { t in Canonical.digest { $0.string(t) } } }
    }

    func count(_ op: Operation) -> Int { expected[op]?.count ?? 0 }

    /// Writes the canonical form of a query's rows (the RETURN columns of `MixQueries`' texts).
    static func canonical(_ op: Operation, rows: [[ResultValue]], into w: inout CanonicalWriter) {
        switch op {
        case .lookup: Canonical.lookup(rows.lazy.map { (text0($0[0]), text0($0[1])) }, into: &w)
        case .friends, .mutual, .audienceCount, .path: Canonical.ids(rows.lazy.map { int0($0[0]) }, into: &w)
        case .connections: Canonical.ranked(rows.lazy.map { (int0($0[0]), int0($0[1])) }, into: &w)
        case .relationships:
            Canonical.labels(rows.lazy.map { (int0($0[0]), text0($0[1]), int0($0[2]), bool0($0[3]), bool0($0[4])) }, into: &w)
        case .audience: Canonical.audience(rows.lazy.map { (int0($0[0]), text0($0[1]), int0($0[2])) }, into: &w)
        case .feed: Canonical.feed(rows.lazy.map { (int0($0[0]), bool0($0[1]), text0($0[2]), int0($0[3])) }, into: &w)
        }
    }

    /// The query parameters of call `i` of `op`.
    func parameters(_ op: Operation, _ i: Int) -> [String: Value] {
        let s = samples
        switch op {
        case .lookup, .friends, .connections: return ["uid": .integer(Int64(s.users[i]))]
        case .mutual: return ["a": .integer(Int64(s.pairs[i][0])), "b": .integer(Int64(s.pairs[i][1]))]
        case .relationships:
            return ["viewer": .integer(Int64(s.labelViewers[i])), "users": .list(s.labelLists[i].map { .integer(Int64($0)) })]
        case .audience, .audienceCount: return ["eid": .integer(Int64(s.events[i]))]
        case .feed: return ["uid": .integer(Int64(s.feedUsers[i]))]
        case .path: return ["a": .integer(Int64(s.pathPairs[i][0])), "b": .integer(Int64(s.pathPairs[i][1]))]
        }
    }
}

/// A failed call: the engine's error, which fails the run like a wrong answer.
struct MixCallError: Error, CustomStringConvertible {
    var description: String
}

/// Runs one call of the mix against an in-process store and returns (nanoseconds, answer).
struct EmbeddedMix: Sendable {
    let store: GraphStore
    let engine: QueryEngine
    let plan: MixPlan
    let schema: SocialSchema
    let userLabel: LabelID
    let eventLabel: LabelID
    let idKey: PropertyKeyID
    let nameKey: PropertyKeyID
    let usernameKey: PropertyKeyID

    init(store: GraphStore, engine: QueryEngine, plan: MixPlan) throws {
        self.store = store
        self.engine = engine
        self.plan = plan
        let ids = store.read { g in
            (SocialSchema(graph: g), g.labelID(named: "User"), g.labelID(named: "Event"), g.propertyKeyID(named: "id"),
             g.propertyKeyID(named: "name"), g.propertyKeyID(named: "username"))
        }
        guard let user = ids.1, let id = ids.3, let name = ids.4, let username = ids.5 else {
            throw MixCallError(description: "the loaded graph lacks :User, id, name or username")
        }
        // A graph without events (a SNAP edge list) has no Event label: no event sample reads it.
        (schema, userLabel, eventLabel, idKey, nameKey, usernameKey) = (ids.0, user, ids.2 ?? LabelID(rawValue: .max), id, name, username)
    }

    func call(_ op: Operation, _ form: Form, _ i: Int, scratch: inout TraversalScratch) throws -> (UInt64, MixAnswer) {
        form == .kernel ? kernel(op, i, scratch: &scratch) : try query(op, form, i)
    }

    // MARK: queries

    private func query(_ op: Operation, _ form: Form, _ i: Int) throws -> (UInt64, MixAnswer) {
        guard let text = MixQueries.text(op, form) else { throw MixCallError(description: "no \(form) form of \(op)") }
        let params = plan.parameters(op, i)
        let t0 = nowNanoseconds()
        let result: QueryResult
        do {
            result = try engine.execute(text, on: store, parameters: params, readOnly: true)
        } catch {
            throw MixCallError(description: "\(op)/\(form): \(error)")
        }
        let elapsed = nowNanoseconds() - t0
        return (elapsed, { MixPlan.canonical(op, rows: result.rows, into: &$0) })
    }

    // MARK: kernels

    /// Times what an app calling the kernel gets: the user (or event) found by its id through
    /// the index, the kernel's answer, and its nodes mapped back to the app's ids. Writing
    /// that answer in the canonical form the reference is checked against happens after the
    /// clock stops, as it does for the query forms. The graph is read in place, as the query
    /// engine reads it (a copy would retain every buffer of the graph).
    private func kernel(_ op: Operation, _ i: Int, scratch: inout TraversalScratch) -> (UInt64, MixAnswer) {
        let t0 = nowNanoseconds()
        let answer = store.readInPlace { pointer in kernelAnswer(op, i, &pointer.pointee, scratch: &scratch) }
        let elapsed = nowNanoseconds() - t0
        return (elapsed, answer)
    }

    /// The kernel's answer for sample `i`, its canonical form deferred.
    private func kernelAnswer(_ op: Operation, _ i: Int, _ g: inout Graph, scratch: inout TraversalScratch) -> MixAnswer {
        let s = plan.samples
        let (idKey, userLabel, eventLabel, schema) = (self.idKey, self.userLabel, self.eventLabel, self.schema)
        func node(_ label: LabelID, _ id: Int) -> NodeID? {
            g.firstNodeID(withLabel: label, key: idKey, equalTo: .integer(Int64(id)))
        }
        func appID(_ n: NodeID) -> Int {
            if case .integer(let v) = g.property(idKey, of: n) { return Int(v) }
            return -1
        }
        switch op {
        case .lookup:
            guard let u = node(userLabel, s.users[i]) else { return { _ in } }
            let (name, username) = (g.property(nameKey, of: u), g.property(usernameKey, of: u))
            return { Canonical.lookup(CollectionOfOne((text0(name), text0(username))), into: &$0) }
        case .friends:
            guard let u = node(userLabel, s.users[i]) else { return { _ in } }
            let ids = g.friendIntegerValues(idKey, of: u, schema: schema)
            return { Canonical.ids(ids.lazy.map { Int($0 ?? -1) }, into: &$0) }
        case .connections:
            guard let u = node(userLabel, s.users[i]) else { return { _ in } }
            let rows = g.connections(of: u, schema: schema, options: ConnectionOptions(limit: 50), scratch: &scratch)
            let ranked = rows.map { (appID($0.node), $0.mutualFriends) }
            return { Canonical.ranked(ranked, into: &$0) }
        case .mutual:
            guard let a = node(userLabel, s.pairs[i][0]), let b = node(userLabel, s.pairs[i][1]) else { return { _ in } }
            // Mapped to app ids in one batch, as friends are (a function value such as
            // `map(appID)` would capture a copy of the whole graph, retains and all).
            let ids = g.integerValues(idKey, of: g.mutualFriends(a, b, schema: schema).map(\.rawValue))
            return { Canonical.ids(ids.lazy.map { Int($0 ?? -1) }, into: &$0) }
        case .relationships:
            guard let v = node(userLabel, s.labelViewers[i]) else { return { _ in } }
            let users = s.labelLists[i].compactMap { node(userLabel, $0) }
            let rows = g.relations(of: v, to: users, schema: schema, scratch: &scratch)
            let labels = rows.map { (appID($0.user), $0.kind.rawValue, $0.mutualFriends, $0.requestSent, $0.requestReceived) }
            return { Canonical.labels(labels, into: &$0) }
        case .audience:
            guard let e = node(eventLabel, s.events[i]) else { return { _ in } }
            let rows = g.invitableAudience(of: e, schema: schema, scratch: &scratch)
            let ids = g.integerValues(idKey, of: rows.map(\.node.rawValue))
            return { Canonical.audience(zip(ids, rows).lazy.map { (Int($0 ?? -1), $1.kind.rawValue, $1.mutualFriends) }, into: &$0) }
        case .audienceCount:
            guard let e = node(eventLabel, s.events[i]) else { return { _ in } }
            let n = g.invitableAudienceCount(of: e, schema: schema, scratch: &scratch)
            return { Canonical.ids(CollectionOfOne(n), into: &$0) }
        case .feed:
            guard let u = node(userLabel, s.feedUsers[i]) else { return { _ in } }
            let rows = g.invitations(of: u, schema: schema, scratch: &scratch)
            let feed = rows.map { (appID($0.event), $0.attending, $0.hostRelation?.kind.rawValue ?? "null", $0.hostRelation?.mutualFriends ?? 0) }
            return { Canonical.feed(feed, into: &$0) }
        case .path:
            guard let a = node(userLabel, s.pathPairs[i][0]), let b = node(userLabel, s.pathPairs[i][1]),
                  let friend = schema.friend else { return { _ in } }
            let search = ShortestPathSearch(types: [friend], direction: .both)
            let length = g.shortestPaths(from: a, to: b, search: search, scratch: &scratch, accept: { _ in true }) { _ in false }
            return { Canonical.ids(length.map { [$0] } ?? [], into: &$0) }
        }
    }
}

// Scalar readers of result and property values; anything unexpected becomes text that fails the check.
func int0(_ v: ResultValue) -> Int { if case .integer(let x) = v { return Int(x) }; return Int.min }
func bool0(_ v: ResultValue) -> Bool { if case .bool(let x) = v { return x }; return false }
func text0(_ v: ResultValue) -> String {
    switch v {
    case .string(let s): s
    case .null: "null"
    default: "\(v)"
    }
}
func text0(_ v: Value) -> String { if case .string(let s) = v { return s }; return "\(v)" }
