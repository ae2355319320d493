// SocialTestGraphs.swift — graphs for the social kernel tests: SNAP ego-Facebook read with a tiny
// edge-list parser, and small hand-made social graphs built through transactions.

import Foundation
import GraphStore
import GraphTestSupport

/// SNAP ego-Facebook as a social graph: node i is `(:User {id: i})` with NodeID i, each line
/// `u v` one FRIEND u → v. Built once per test process (an immutable value, shared read-only).
enum EgoFacebook {
    static let directory = Fixtures.egoFacebook

    /// The parsed edge list, in file order.
    static let edges: [(Int, Int)] = {
        let url = directory.appendingPathComponent("facebook_combined.txt")
        guard let bytes = try? Data(contentsOf: url) else { return [] }
        var result: [(Int, Int)] = []
        result.reserveCapacity(90_000)
        var numbers: [Int] = []
        var current = -1
        for byte in bytes {
            if byte >= 48 && byte <= 57 {
                current = (current < 0 ? 0 : current * 10) + Int(byte - 48)
            } else if current >= 0 {
                numbers.append(current)
                current = -1
                if numbers.count == 2 { result.append((numbers[0], numbers[1])); numbers.removeAll(keepingCapacity: true) }
            }
        }
        if current >= 0 { numbers.append(current) }
        if numbers.count == 2 { result.append((numbers[0], numbers[1])) }
        return result
    }()

    static let graph: Graph = {
        let nodeCount = (edges.map { max($0.0, $0.1) }.max() ?? -1) + 1
        return SocialGraphBuilder.users(count: nodeCount, friendships: edges)
    }()

    /// expected.json, parsed (on each call: `[String: Any]` is not Sendable, so it is not cached).
    static func expected() -> [String: Any] {
        let url = directory.appendingPathComponent("expected.json")
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }
}

/// Builds small social graphs through transactions (the path every write takes).
enum SocialGraphBuilder {
    /// `count` users with ids 0..<count (NodeID == id) and a FRIEND per pair, first → second.
    static func users(count: Int, friendships: [(Int, Int)]) -> Graph {
        var graph = Graph()
        graph.beginTransaction()
        let user = graph.internLabel("User")
        let id = graph.internPropertyKey("id")
        let friend = graph.internRelationshipType("FRIEND")
        for i in 0..<count { _ = try! graph.createNode(labels: [user], properties: [(id, .integer(Int64(i)))]) }
        for (a, b) in friendships {
            _ = try! graph.createRelationship(type: friend, from: NodeID(a), to: NodeID(b), properties: [])
        }
        try! graph.createIndex(label: user, key: id, unique: true)
        _ = graph.commitTransaction()
        return graph
    }

    /// Adds `(:Event {id, starts_at})` hosted by `host`, with INVITED and ATTENDING guests.
    static func addEvent(to graph: inout Graph, id: Int64, host: NodeID, startsAt: Int64?,
                         invited: [NodeID] = [], attending: [NodeID] = []) -> NodeID {
        graph.beginTransaction()
        let eventLabel = graph.internLabel("Event")
        let idKey = graph.internPropertyKey("id")
        let startsKey = graph.internPropertyKey("starts_at")
        var properties: [(key: PropertyKeyID, value: Value)] = [(idKey, .integer(id))]
        if let startsAt { properties.append((startsKey, .integer(startsAt))) }
        let event = try! graph.createNode(labels: [eventLabel], properties: properties)
        let hosts = graph.internRelationshipType("HOSTS")
        let invitedType = graph.internRelationshipType("INVITED")
        let attendingType = graph.internRelationshipType("ATTENDING")
        _ = try! graph.createRelationship(type: hosts, from: host, to: event, properties: [])
        for u in invited { _ = try! graph.createRelationship(type: invitedType, from: u, to: event, properties: []) }
        for u in attending { _ = try! graph.createRelationship(type: attendingType, from: u, to: event, properties: []) }
        _ = graph.commitTransaction()
        return event
    }

    /// Runs `body` in a transaction and commits it, or rolls back and rethrows.
    static func write<R>(_ graph: inout Graph, _ body: (inout Graph) throws -> R) rethrows -> R {
        graph.beginTransaction()
        do {
            let r = try body(&graph)
            _ = graph.commitTransaction()
            return r
        } catch {
            graph.rollbackTransaction()
            throw error
        }
    }
}
