// ChangeFeedTests.swift — the change feed over real sockets: `graphd:` channels in RESP2 and
// RESP3, payloads, replay after a token with its one position message, resets, GRAPH.CHANGES,
// a subscriber that stops reading and catches up, and reconnects under writes that lose nothing.

import Foundation
import Testing
@testable import graphd

@Suite("Change feed", .serialized)
struct ChangeFeedTests {
    /// A payload as a dictionary.
    static func json(_ reply: RESPReply) -> [String: Any] {
        let payload: String
        switch reply {
        case .array(let items), .push(let items):
            guard case .bulk(let text)? = items.last else { return [:] }
            payload = text
        case .bulk(let text): payload = text
        default: return [:]
        }
        return (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any] ?? [:]
    }

    static func setUp(_ client: RESPTestClient, users: Int = 3) throws {
        let list = (1...users).map { "(:User {id: \($0)})" }.joined(separator: ", ")
        _ = try client.command("GRAPH.QUERY", "g", "CREATE \(list)")
    }

    static func token(_ client: RESPTestClient) throws -> String {
        guard case .array(let rows) = try client.command("GRAPH.QUERY", "g", "RETURN graph.token()"),
              rows.count >= 2, case .array(let row) = rows[1], case .array(let cells) = row.first, case .bulk(let token) = cells.first
        else { throw TestClientError(description: "no token") }
        return token
    }

    @Test("A friend request reaches the recipient's channel, notify and changes, with the commit's token (RESP2)")
    func friendRequestRESP2() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), user = try server.client(), notify = try server.client(), changes = try server.client()
        try Self.setUp(writer)
        #expect(try user.command("SUBSCRIBE", "graphd:g:user:2") == .array([.bulk("subscribe"), .bulk("graphd:g:user:2"), .integer(1)]))
        _ = try notify.command("SUBSCRIBE", "graphd:g:notify")
        _ = try changes.command("PSUBSCRIBE", "graphd:g:chan*")
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.sendRequest(1, 2) YIELD outcome RETURN outcome")
        let token = try Self.token(writer)
        let message = try user.readReply()
        guard case .array(let items) = message, items.count == 3 else { Issue.record("not a message: \(message)"); return }
        #expect(items[0] == .bulk("message") && items[1] == .bulk("graphd:g:user:2"))
        let payload = Self.json(message)
        #expect(payload["type"] as? String == "friend-request")
        #expect(payload["to"] as? Int == 2 && payload["user"] as? Int == 1)
        #expect(payload["token"] as? String == token)
        #expect((payload["at"] as? String)?.hasSuffix("Z") == true)
        #expect(Self.json(try notify.readReply())["type"] as? String == "friend-request")
        let change = try changes.readReply()
        guard case .array(let parts) = change, parts.count == 4 else { Issue.record("not a pmessage: \(change)"); return }
        #expect(parts[0] == .bulk("pmessage") && parts[1] == .bulk("graphd:g:chan*") && parts[2] == .bulk("graphd:g:changes"))
        let low = Self.json(change)
        #expect(low["type"] as? String == "relationship-created" && low["relType"] as? String == "FRIEND_REQUEST")
        #expect(low["start"] as? Int == 1 && low["end"] as? Int == 2 && low["token"] as? String == token)
        // The sender's channel got nothing: the next thing it hears is the acceptance.
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.acceptRequest(2, 1) YIELD outcome RETURN outcome")
        #expect(Self.json(try user.readReply())["type"] as? String == "friend-accepted")
        #expect(try writer.command("PUBLISH", "graphd:g:user:2", "forged")
                == .error("ERR channels starting with 'graphd:' carry the change feed; PUBLISH to them is refused"))
    }

    @Test("RESP3 subscribers get push frames; both ends hear friend-accepted when requests cross")
    func crossingRequestsRESP3() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), a = try server.client(), b = try server.client()
        try Self.setUp(writer)
        for client in [a, b] { _ = try client.command("HELLO", "3") }
        #expect(try a.command("SUBSCRIBE", "graphd:g:user:1") == .push([.bulk("subscribe"), .bulk("graphd:g:user:1"), .integer(1)]))
        _ = try b.command("SUBSCRIBE", "graphd:g:user:2")
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.sendRequest(1, 2) YIELD outcome RETURN outcome")
        #expect(Self.json(try b.readReply())["type"] as? String == "friend-request")
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.sendRequest(2, 1) YIELD outcome RETURN outcome")
        let toA = try a.readReply(), toB = try b.readReply()
        guard case .push(let items) = toA else { Issue.record("not a push: \(toA)"); return }
        #expect(items[0] == .bulk("message"))
        #expect(Self.json(toA)["type"] as? String == "friend-accepted" && Self.json(toA)["user"] as? Int == 2)
        #expect(Self.json(toB)["type"] as? String == "friend-accepted" && Self.json(toB)["user"] as? Int == 1)
        #expect(Self.json(toA)["token"] as? String == Self.json(toB)["token"] as? String)
    }

    @Test("SUBSCRIBE channel@token replays what followed the token, then one position message, then live events")
    func replayThenPosition() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), listener = try server.client()
        try Self.setUp(writer, users: 4)
        let start = try Self.token(writer)
        for other in 2...4 {
            _ = try writer.command("GRAPH.QUERY", "g", "CALL social.sendRequest(\(other), 1) YIELD outcome RETURN outcome")
        }
        let now = try Self.token(writer)
        let name = "graphd:g:user:1@\(start)"
        #expect(try listener.command("SUBSCRIBE", name) == .array([.bulk("subscribe"), .bulk(name), .integer(1)]))
        var senders: [Int] = []
        for _ in 2...4 {
            let message = try listener.readReply()
            guard case .array(let items) = message else { Issue.record("\(message)"); return }
            #expect(items[1] == .bulk(name))
            senders.append(Self.json(message)["user"] as? Int ?? 0)
        }
        #expect(senders == [2, 3, 4])
        let position = Self.json(try listener.readReply())
        #expect(position["type"] as? String == "position" && position["token"] as? String == now)
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.acceptRequest(1, 2) YIELD outcome RETURN outcome")
        #expect(Self.json(try listener.readReply())["type"] as? String == "friend-accepted")
        // At the current token: nothing to replay, the position at once.
        let other = try server.client()
        let current = try Self.token(writer)
        _ = try other.command("SUBSCRIBE", "graphd:g:user:1@\(current)")
        #expect(Self.json(try other.readReply())["token"] as? String == current)
    }

    @Test("A token the graph cannot place gets a reset naming the current token, then live events")
    func resetForUnknownToken() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), listener = try server.client()
        try Self.setUp(writer)
        let current = try Self.token(writer)
        for name in ["graphd:g:user:1@0123456789abcdef-1", "graphd:g:user:1@\(current.split(separator: "-")[0])-999", "graphd:g:user:1@junk"] {
            _ = try listener.command("SUBSCRIBE", name)
            let reset = Self.json(try listener.readReply())
            #expect(reset["type"] as? String == "reset" && reset["token"] as? String == current, "\(name)")
        }
    }

    @Test("GRAPH.CHANGES pages whole commits, filters by user and type, blocks for the next commit, and resets foreign tokens")
    func pull() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), reader = try server.client()
        try Self.setUp(writer)
        let start = try Self.token(writer)
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.sendRequest(1, 2) YIELD outcome RETURN outcome")
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.acceptRequest(2, 1) YIELD outcome RETURN outcome")
        let end = try Self.token(writer)
        guard case .array(let reply) = try reader.command("GRAPH.CHANGES", "g", "SINCE", start, "FOR", "user:2"),
              reply.count == 2, case .array(let events) = reply[1] else { Issue.record("bad reply"); return }
        #expect(reply[0] == .bulk(end))
        #expect(events.map { Self.json($0)["type"] as? String } == ["friend-request", "friend-accepted"])
        // COUNT 1 stops after the first commit with an event; its token resumes.
        guard case .array(let first) = try reader.command("GRAPH.CHANGES", "g", "SINCE", start, "FOR", "user:2", "COUNT", "1"),
              case .bulk(let next) = first[0], case .array(let firstEvents) = first[1] else { Issue.record("bad reply"); return }
        #expect(firstEvents.map { Self.json($0)["type"] as? String } == ["friend-request"] && next != end)
        guard case .array(let rest) = try reader.command("GRAPH.CHANGES", "g", "SINCE", next, "FOR", "user:2"),
              case .array(let restEvents) = rest[1] else { Issue.record("bad reply"); return }
        #expect(restEvents.map { Self.json($0)["type"] as? String } == ["friend-accepted"] && rest[0] == .bulk(end))
        guard case .array(let typed) = try reader.command("GRAPH.CHANGES", "g", "SINCE", start, "TYPES", "relationship-deleted"),
              case .array(let deleted) = typed[1] else { Issue.record("bad reply"); return }
        #expect(deleted.count == 1 && Self.json(deleted[0])["relType"] as? String == "FRIEND_REQUEST")
        // Nothing new: BLOCK waits for the next commit.
        try reader.send(RESPTestClient.encode(["GRAPH.CHANGES", "g", "SINCE", end, "BLOCK", "10000"]))
        _ = try writer.command("GRAPH.QUERY", "g", "MATCH (u:User {id: 3}) SET u.name = 'Cy'")
        guard case .array(let woken) = try reader.readReply(), case .array(let fresh) = woken[1] else { Issue.record("bad reply"); return }
        #expect(fresh.map { Self.json($0)["type"] as? String } == ["profile-updated", "node-updated"])
        guard case .error(let foreign) = try reader.command("GRAPH.CHANGES", "g", "SINCE", "0123456789abcdef-1") else {
            Issue.record("a foreign token was answered"); return
        }
        #expect(foreign.hasPrefix("RESET ") && foreign.contains("current"))
        guard case .array(let timeout) = try reader.command("GRAPH.CHANGES", "g", "SINCE", try Self.token(writer), "BLOCK", "20"),
              case .array(let none) = timeout[1] else { Issue.record("bad reply"); return }
        #expect(none.isEmpty)
    }

    @Test("A graph deleted and made again: its subscribers get a reset with the new history, then its events")
    func replacedGraphResets() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writer = try server.client(), listener = try server.client()
        try Self.setUp(writer)
        _ = try listener.command("SUBSCRIBE", "graphd:g:notify")
        _ = try writer.command("GRAPH.DELETE", "g")
        let reset = Self.json(try listener.readReply())
        #expect(reset["type"] as? String == "reset")
        try Self.setUp(writer)
        _ = try writer.command("GRAPH.QUERY", "g", "CALL social.sendRequest(1, 2) YIELD outcome RETURN outcome")
        var message = Self.json(try listener.readReply())
        // The new graph's creation may come first as a reset of its own (the store is announced then).
        while message["type"] as? String == "reset" { message = Self.json(try listener.readReply()) }
        #expect(message["type"] as? String == "friend-request")
        #expect((message["token"] as? String)?.hasPrefix((reset["token"] as? String ?? "").split(separator: "-")[0] + "-") == false)
    }

    @Test("With a password, a feed channel needs AUTH like any command")
    func feedNeedsAuth() throws {
        let server = try InProcessServer(password: "secret")
        defer { server.stop() }
        let client = try server.client()
        guard case .error(let message) = try client.command("SUBSCRIBE", "graphd:g:user:1") else {
            Issue.record("subscribed without AUTH"); return
        }
        #expect(message.hasPrefix("NOAUTH"))
        guard case .error = try client.command("GRAPH.CHANGES", "g", "SINCE", "0123456789abcdef-0") else {
            Issue.record("pulled without AUTH"); return
        }
        _ = try client.command("AUTH", "secret")
        #expect(try client.command("SUBSCRIBE", "graphd:g:user:1") == .array([.bulk("subscribe"), .bulk("graphd:g:user:1"), .integer(1)]))
    }
}
