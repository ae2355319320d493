// ChangedSinceCategoryTests.swift — the promise behind social.changedSince, checked by brute
// force: over thousands of random social operations, whenever a category says "unchanged"
// since a token, the category's data (read here directly, without versions) is exactly what it
// was at the token. The false "changed" rate is reported, not asserted.

import Foundation
import Testing
import GraphTestSupport
@testable import GraphStore

@Suite struct ChangedSinceCategoryTests {
    /// What an app caches for `category`, read straight from the graph.
    static func answer(_ category: ChangeCategory, of u: NodeID, in g: Graph, _ s: SocialSchema) -> String {
        func node(_ n: NodeID) -> String { "\(n.rawValue)\(g.labels(of: n).map(\.rawValue))\(g.properties(of: n).map { "\($0.key.rawValue)=\($0.value)" }.sorted())" }
        func relationships(_ type: RelationshipTypeID?, _ direction: Direction, withNode: Bool) -> [String] {
            guard let type else { return [] }
            var rows: [String] = []
            for d in [Direction.outgoing, .incoming] where direction == .both || direction == d {
                for step in g.steps(of: u, type: type, direction: d) {
                    let other = step.neighbor
                    let props = g.properties(of: step.relationship).map { "\($0.key.rawValue)=\($0.value)" }.sorted()
                    rows.append("\(d.rawValue):\(withNode ? node(other) : String(other.rawValue)):\(props)")
                }
            }
            return rows.sorted()
        }
        switch category {
        case .profile: return node(u)
        case .blocked: return relationships(s.blocked, .outgoing, withNode: false).joined(separator: ";")
        case .friends: return relationships(s.friend, .both, withNode: true).joined(separator: ";")
        case .friendRequests: return relationships(s.friendRequest, .both, withNode: true).joined(separator: ";")
        case .events:
            var rows: [String] = []
            for (role, type) in [("hosts", s.hosts), ("invited", s.invited), ("attending", s.attending)] {
                guard let type else { continue }
                for e in g.adjacency(of: u, type: type, direction: .outgoing) {
                    let guests = [s.hosts, s.invited, s.attending].map { t in
                        t.map { Array(g.adjacency(of: e, type: $0, direction: .incoming)).map(\.rawValue).sorted() } ?? []
                    }
                    rows.append("\(role):\(node(e)):\(guests)")
                }
            }
            return rows.sorted().joined(separator: ";")
        }
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func unchangedMeansTheCategoryIsAsItWas(seed: UInt64) throws {
        let store = GraphStore.inMemory()
        var random = SeededGenerator(seed: seed)
        let userCount = 16, eventCount = 5
        let (users, events) = try store.write { g -> ([NodeID], [NodeID]) in
            let user = g.internLabel("User"), event = g.internLabel("Event"), id = g.internPropertyKey("id")
            for name in ["FRIEND", "FRIEND_REQUEST", "BLOCKED", "HOSTS", "INVITED", "ATTENDING"] { _ = g.internRelationshipType(name) }
            _ = g.internLabel("VIP")
            _ = g.internPropertyKey("name")
            _ = g.internPropertyKey("since")
            let users = try (0..<userCount).map { try g.createNode(labels: [user], properties: [(id, .integer(Int64($0)))]) }
            let events = try (0..<eventCount).map { try g.createNode(labels: [event], properties: [(id, .integer(Int64(1000 + $0)))]) }
            return (users, events)
        }
        var people = users
        let schema = store.read { SocialSchema(graph: $0) }
        let types = [schema.friend!, schema.friendRequest!, schema.blocked!]
        let eventTypes = [schema.hosts!, schema.invited!, schema.attending!]
        let name = store.read { $0.propertyKeyID(named: "name")! }, since = store.read { $0.propertyKeyID(named: "since")! }
        let vip = store.read { $0.labelID(named: "VIP")! }, userLabel = schema.user!

        /// One random social operation, as one commit (or none when it changes nothing).
        func operate() throws {
            try store.write { g in
                let a = people[random.next(people.count)], b = people[random.next(people.count)]
                let e = events[random.next(events.count)]
                switch random.next(12) {
                case 0, 1, 2:  // a relationship between users, made or removed
                    let type = types[random.next(types.count)]
                    if let r = g.relationships(of: type, from: a, to: b).first { try g.deleteRelationship(r) }
                    else if a != b { _ = try g.createRelationship(type: type, from: a, to: b, properties: []) }
                case 3, 4:  // a user's tie to an event, made or removed
                    let type = eventTypes[random.next(eventTypes.count)]
                    if let r = g.relationships(of: type, from: a, to: e).first { try g.deleteRelationship(r) }
                    else { _ = try g.createRelationship(type: type, from: a, to: e, properties: []) }
                case 5: try g.setProperty(name, to: .string("n\(random.next(4))"), of: a)
                case 6: try g.setProperty(name, to: .string("e\(random.next(4))"), of: e)
                case 7:
                    if g.labels(of: a).contains(vip) { try g.removeLabel(vip, from: a) } else { try g.addLabel(vip, to: a) }
                case 8, 9:  // a property on some relationship of a
                    let type = (types + eventTypes)[random.next(types.count + eventTypes.count)]
                    if let step = g.steps(of: a, type: type, direction: .outgoing).first {
                        let r = Relationship(id: step.relationship, type: type, start: a, end: step.neighbor)
                        try g.setProperty(since, to: .integer(Int64(random.next(3))), of: r)
                    }
                case 10:  // a user leaves and another joins (ids are reused)
                    guard random.next(4) == 0, people.count > 4 else { return }
                    try g.deleteNode(a, detach: true)
                    people.removeAll { $0 == a }
                    people.append(try g.createNode(labels: [userLabel], properties: []))
                default: break
                }
            }
        }

        struct Checkpoint { var token: ChangeToken; var answers: [NodeID: [ChangeCategory: String]] }
        var checkpoints: [Checkpoint] = []
        var unchanged = 0, changedButEqual = 0, changedTotal = 0
        for step in 0..<3000 {
            try operate()
            if step % 15 == 0 {
                let token = store.token()
                let answers = store.read { g in
                    Dictionary(uniqueKeysWithValues: people.map { u in
                        (u, Dictionary(uniqueKeysWithValues: ChangeCategory.allCases.map { ($0, Self.answer($0, of: u, in: g, schema)) }))
                    })
                }
                checkpoints.append(Checkpoint(token: token, answers: answers))
            }
            guard step % 40 == 39 else { continue }
            store.read { g in
                for _ in 0..<12 {
                    let checkpoint = checkpoints[random.next(checkpoints.count)]
                    let baseline = store.baselineHoldingLock(checkpoint.token)
                    for (u, saved) in checkpoint.answers where g.contains(u) {
                        for category in ChangeCategory.allCases {
                            let now = Self.answer(category, of: u, in: g, schema)
                            if g.changed(category, of: u, after: baseline, schema: schema) {
                                changedTotal += 1
                                if now == saved[category] { changedButEqual += 1 }
                            } else {
                                unchanged += 1
                                #expect(now == saved[category], "\(category) of node \(u.rawValue) since \(checkpoint.token)")
                            }
                        }
                    }
                }
            }
        }
        #expect(unchanged > 1000 && changedTotal > 1000, "both answers are exercised (\(unchanged) unchanged, \(changedTotal) changed)")
        print("changedSince seed \(seed): \(unchanged) unchanged, \(changedTotal) changed of which \(changedButEqual) "
              + "(\(changedTotal == 0 ? 0 : 100 * changedButEqual / changedTotal)%) with equal data")
    }
}
