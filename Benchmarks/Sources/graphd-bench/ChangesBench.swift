// ChangesBench.swift — `graphd-bench changes`: cache validation at scale. (1) A property check over
// a million random social operations: whenever social.changedSince's categories say "unchanged"
// since a token, the category's data — read here straight from the graph, with no versions — is
// what it was at the token; the rate of "changed" answers whose data is equal is reported.
// (2) The time of changedSince for a user with 300 friends and 50 events: the kernel, the
// procedure in process, and (with --port) over RESP beside PING.

import Foundation
import GraphQuery
import GraphStore

enum ChangesCommand {
    static let flags: [String: String] = [
        "ops": "random social operations in the property check (default 1000000)",
        "users": "users in the property check's graph (default 2000)",
        "events": "events in the property check's graph (default 300)",
        "seed": "random seed (default 7)",
        "samples": "timed calls per form (default 20000)",
        "port": "also time changedSince over RESP against the graphd listening on 127.0.0.1:PORT (it creates graph changes_bench there)",
    ]

    static func run(_ options: Options) throws -> Bool {
        let ok = try propertyCheck(ops: try options.int("ops", default: 1_000_000), users: try options.int("users", default: 2000),
                                   events: try options.int("events", default: 300), seed: UInt64(try options.int("seed", default: 7)))
        let timed = try timing(samples: try options.int("samples", default: 20_000), port: try options.int("port"))
        return ok && timed
    }

    // MARK: the property check

    /// A category's data read straight from the graph: what an app would have cached.
    static func answer(_ category: ChangeCategory, of u: NodeID, in g: Graph, _ s: SocialSchema) -> [String] {
        func node(_ n: NodeID) -> String { "\(n.rawValue)\(g.labels(of: n).map(\.rawValue))\(g.properties(of: n).map { "\($0.key.rawValue)=\($0.value)" }.sorted())" }
        func ties(_ type: RelationshipTypeID?, _ directions: [Direction], full: Bool) -> [String] {
            guard let type else { return [] }
            var rows: [String] = []
            for d in directions {
                for step in g.steps(of: u, type: type, direction: d) {
                    let props = g.properties(of: step.relationship).map { "\($0.key.rawValue)=\($0.value)" }.sorted()
                    rows.append("\(d.rawValue):\(full ? node(step.neighbor) : String(step.neighbor.rawValue)):\(props)")
                }
            }
            return rows.sorted()
        }
        switch category {
        case .profile: return [node(u)]
        case .blocked: return ties(s.blocked, [.outgoing], full: false)
        case .friends: return ties(s.friend, [.outgoing, .incoming], full: true)
        case .friendRequests: return ties(s.friendRequest, [.outgoing, .incoming], full: true)
        case .events:
            var rows: [String] = []
            for (role, type) in [("hosts", s.hosts), ("invited", s.invited), ("attending", s.attending)] {
                guard let type else { continue }
                for e in g.adjacency(of: u, type: type, direction: .outgoing) {
                    let lists = [s.hosts, s.invited, s.attending].map { t in
                        t.map { Array(g.adjacency(of: e, type: $0, direction: .incoming)).map(\.rawValue) } ?? []
                    }
                    rows.append("\(role):\(node(e)):\(lists)")
                }
            }
            return rows.sorted()
        }
    }

    static func propertyCheck(ops: Int, users userCount: Int, events eventCount: Int, seed: UInt64) throws -> Bool {
        let store = GraphStore.inMemory()
        var random = SearchRandom(seed: seed)
        let (users, events) = try store.write { g -> ([NodeID], [NodeID]) in
            let user = g.internLabel("User"), event = g.internLabel("Event"), id = g.internPropertyKey("id")
            for name in ["FRIEND", "FRIEND_REQUEST", "BLOCKED", "HOSTS", "INVITED", "ATTENDING"] { _ = g.internRelationshipType(name) }
            _ = g.internLabel("VIP"); _ = g.internPropertyKey("name"); _ = g.internPropertyKey("since")
            let users = try (0..<userCount).map { try g.createNode(labels: [user], properties: [(id, .integer(Int64($0)))]) }
            let events = try (0..<eventCount).map { try g.createNode(labels: [event], properties: [(id, .integer(Int64(1_000_000 + $0)))]) }
            return (users, events)
        }
        let s = store.read { SocialSchema(graph: $0) }
        let userTypes = [s.friend!, s.friendRequest!, s.blocked!], eventTypes = [s.hosts!, s.invited!, s.attending!]
        let name = store.read { $0.propertyKeyID(named: "name")! }, since = store.read { $0.propertyKeyID(named: "since")! }
        let vip = store.read { $0.labelID(named: "VIP")! }
        // Friendships cluster (a user's friends are mostly near it), so categories overlap as in
        // a social graph; a tenth of the ties go anywhere.
        func partner(_ a: Int) -> Int { random.next(10) == 0 ? random.next(userCount) : (a + 1 + random.next(40)) % userCount }

        struct Checkpoint { var token: ChangeToken; var answers: [(NodeID, [[String]])] }
        var checkpoints: [Checkpoint] = []
        var unchanged = [Int](repeating: 0, count: ChangeCategory.allCases.count)
        var changed = unchanged, changedButEqual = unchanged, violations = 0
        let watched = 64, checkpointEvery = 997, checkEvery = 4999
        let started = nowNanoseconds()
        for step in 0..<ops {
            try store.write { g in
                let i = random.next(userCount)
                // Each user ties to the ten events near its place, so events have dozens of guests.
                let a = users[i], b = users[partner(i)], e = events[(i * eventCount / userCount + random.next(10)) % eventCount]
                switch random.next(12) {
                case 0, 1, 2:
                    let type = userTypes[random.next(userTypes.count)]
                    if let r = g.relationships(of: type, from: a, to: b).first { try g.deleteRelationship(r) }
                    else if a != b { _ = try g.createRelationship(type: type, from: a, to: b, properties: []) }
                case 3, 4:
                    let type = eventTypes[random.next(eventTypes.count)]
                    if let r = g.relationships(of: type, from: a, to: e).first { try g.deleteRelationship(r) }
                    else { _ = try g.createRelationship(type: type, from: a, to: e, properties: []) }
                case 5: try g.setProperty(name, to: .string("n\(random.next(5))"), of: a)
                case 6: try g.setProperty(name, to: .string("e\(random.next(5))"), of: e)
                case 7: if g.labels(of: a).contains(vip) { try g.removeLabel(vip, from: a) } else { try g.addLabel(vip, to: a) }
                case 8, 9:
                    let types = userTypes + eventTypes
                    let type = types[random.next(types.count)]
                    if let step = g.steps(of: a, type: type, direction: .outgoing).first {
                        try g.setProperty(since, to: .integer(Int64(random.next(3))), of: Relationship(id: step.relationship, type: type, start: a, end: step.neighbor))
                    }
                default: break
                }
            }
            if step % checkpointEvery == 0 {
                let token = store.token()
                let sample = (0..<watched).map { _ in users[random.next(userCount)] }
                let answers = store.read { g in sample.map { u in (u, ChangeCategory.allCases.map { answer($0, of: u, in: g, s) }) } }
                checkpoints.append(Checkpoint(token: token, answers: answers))
                if checkpoints.count > 64 { checkpoints.remove(at: random.next(checkpoints.count - 8)) }
            }
            guard step % checkEvery == checkEvery - 1 else { continue }
            store.read { g in
                // The newest checkpoints most: a cache a little behind is the common case.
                for k in 0..<4 {
                    let checkpoint = checkpoints[k == 0 ? random.next(checkpoints.count) : max(0, checkpoints.count - k)]
                    let baseline = store.baselineHoldingLock(checkpoint.token)
                    for (u, saved) in checkpoint.answers {
                        for (c, category) in ChangeCategory.allCases.enumerated() {
                            let now = answer(category, of: u, in: g, s)
                            if g.changed(category, of: u, after: baseline, schema: s) {
                                changed[c] += 1
                                if now == saved[c] { changedButEqual[c] += 1 }
                            } else {
                                unchanged[c] += 1
                                if now != saved[c] {
                                    violations += 1
                                    if violations <= 5 { print("VIOLATION: \(category) of node \(u.rawValue) unchanged since \(checkpoint.token) but its data moved") }
                                }
                            }
                        }
                    }
                }
            }
        }
        let seconds = Double(nowNanoseconds() - started) / 1e9
        print("changes: property check, \(ops) random operations on \(userCount) users and \(eventCount) events "
              + "(\(String(format2: seconds, decimals: 1)) s), seed \(seed)")
        var rows: [[String]] = []
        for (c, category) in ChangeCategory.allCases.enumerated() {
            let rate = changed[c] == 0 ? 0 : 100 * Double(changedButEqual[c]) / Double(changed[c])
            rows.append([category.rawValue, String(unchanged[c]), String(changed[c]), String(changedButEqual[c]),
                         String(format2: rate, decimals: 1) + "%"])
        }
        print(renderTable(["category", "unchanged (all checked equal)", "changed", "changed, data equal", "false changed"], rows))
        print(violations == 0 ? "changes: 0 false unchanged" : "changes: \(violations) FALSE UNCHANGED")
        return violations == 0
    }

    // MARK: timing

    /// A user (id 0) with 300 friends and 50 events, as Cypher: the graph the timings run on.
    static let setup = [
        "UNWIND range(0, 2000) AS i CREATE (:User {id: i, name: 'u' + toString(i)})",
        "CREATE INDEX FOR (u:User) ON (u.id)",
        "MATCH (a:User {id: 0}), (b:User) WHERE b.id >= 1 AND b.id <= 300 CREATE (a)-[:FRIEND]->(b)",
        "UNWIND range(0, 49) AS j CREATE (:Event {id: 100000 + j, starts_at: j})",
        "MATCH (a:User {id: 0}), (e:Event) WHERE e.id < 100010 CREATE (a)-[:HOSTS]->(e)",
        "MATCH (a:User {id: 0}), (e:Event) WHERE e.id >= 100010 CREATE (a)-[:INVITED]->(e)",
        "MATCH (e:Event), (g:User) WHERE g.id > 300 AND g.id <= 340 CREATE (g)-[:INVITED]->(e)",
    ]
    static let query = "CALL social.changedSince(0, {friends: $t, events: $t}) YIELD category, changed RETURN category, changed"

    static func timing(samples: Int, port: Int?) throws -> Bool {
        let store = GraphStore.inMemory()
        let engine = QueryEngine()
        for statement in setup { _ = try engine.execute(statement, on: store) }
        let token = store.token()
        let schema = store.read { SocialSchema(graph: $0) }
        let user = try store.read { g in try g.socialNode(label: schema.user, id: .integer(0), schema: schema).orThrow("no user 0") }
        var ok = true
        // The kernel: both categories for one baseline.
        var kernel: [UInt64] = []
        kernel.reserveCapacity(samples)
        for _ in 0..<samples {
            let t0 = nowNanoseconds()
            let answer = store.read { g in
                let baseline = store.baselineHoldingLock(token)
                return g.changed(.friends, of: user, after: baseline, schema: schema) || g.changed(.events, of: user, after: baseline, schema: schema)
            }
            kernel.append(nowNanoseconds() - t0)
            ok = ok && !answer
        }
        var procedure: [UInt64] = []
        let parameters: [String: Value] = ["t": .string(token.description)]
        for _ in 0..<samples {
            let t0 = nowNanoseconds()
            let rows = try engine.execute(query, on: store, parameters: parameters).rows
            procedure.append(nowNanoseconds() - t0)
            ok = ok && rows.count == 2 && rows.allSatisfy { $0[1] == .bool(false) }
        }
        var rows = [["kernel (2 categories)", summary(kernel)], ["social.changedSince in process", summary(procedure)]]
        if let port {
            let client = try RESPClient(port: port)
            _ = try client.call(["GRAPH.DELETE", "changes_bench"])
            for statement in setup { _ = try client.call(["GRAPH.QUERY", "changes_bench", statement]) }
            guard case .array(let reply?) = try client.call(["GRAPH.QUERY", "changes_bench", "RETURN graph.token()"]),
                  reply.count >= 2, case .array(let tokenRows?) = reply[1], case .array(let first?) = tokenRows.first,
                  case .bulk(let wireToken?) = first.first else { throw UsageError("graph.token() over RESP did not answer a token") }
            let text = "CYPHER t='\(wireToken)' " + query
            var wire: [UInt64] = [], ping: [UInt64] = []
            for _ in 0..<samples {
                var t0 = nowNanoseconds()
                let reply = try client.call(["GRAPH.QUERY", "changes_bench", text])
                wire.append(nowNanoseconds() - t0)
                if case .array(let parts?) = reply, parts.count >= 2, case .array(let answer?) = parts[1] {
                    ok = ok && answer == [.array([.bulk("friends"), .integer(0)]), .array([.bulk("events"), .integer(0)])]
                        || answer == [.array([.bulk("friends"), .bulk("false")]), .array([.bulk("events"), .bulk("false")])]
                } else {
                    ok = false
                }
                t0 = nowNanoseconds()
                _ = try client.call(["PING"])
                ping.append(nowNanoseconds() - t0)
            }
            // A change is seen.
            _ = try client.call(["GRAPH.QUERY", "changes_bench", "MATCH (u:User {id: 5}) SET u.name = 'changed'"])
            if case .array(let parts?) = try client.call(["GRAPH.QUERY", "changes_bench", text]), parts.count >= 2,
               case .array(let answer?) = parts[1], answer.count == 2, case .array(let friends?) = answer[0] {
                ok = ok && (friends.last == .bulk("true") || friends.last == .integer(1))
            } else {
                ok = false
            }
            _ = try client.call(["GRAPH.DELETE", "changes_bench"])
            rows.append(["social.changedSince over RESP (port \(port))", summary(wire)])
            rows.append(["PING over RESP", summary(ping)])
        }
        print("changes: changedSince({friends, events}) for a user with 300 friends and 50 events, \(samples) calls each")
        print(renderTable(["form", "p50 / p99"], rows))
        print(ok ? "changes: every answer checked" : "changes: WRONG ANSWERS")
        return ok
    }

    static func summary(_ samples: [UInt64]) -> String {
        let s = LatencySummary(nanoseconds: samples)
        return formatMicroseconds(s.p50) + " / " + formatMicroseconds(s.p99)
    }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let value = self else { throw UsageError(message) }
        return value
    }
}
