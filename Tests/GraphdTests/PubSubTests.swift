// PubSubTests.swift — Redis Pub/Sub on the real server loop: subscribe acknowledgements with
// their counts, PUBLISH to channel and pattern subscribers in each one's protocol (RESP2 arrays,
// RESP3 push frames), RESP2's subscribed mode, UNSUBSCRIBE of everything, RESET, a closed
// subscriber forgotten; and the glob patterns PSUBSCRIBE matches with.

import Testing
@testable import graphd

@Suite("Pub/Sub", .serialized)
struct PubSubTests {
    func bulk(_ items: String...) -> [RESPReply] { items.map { .bulk($0) } }

    @Test("SUBSCRIBE and PSUBSCRIBE acknowledge each name with the count; PUBLISH reaches both kinds and counts them")
    func publishReachesSubscribers() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let channel = try server.client(), pattern = try server.client(), publisher = try server.client()
        try channel.send(RESPTestClient.encode(["SUBSCRIBE", "news", "sport"]))
        #expect(try channel.readReply() == .array(bulk("subscribe", "news") + [.integer(1)]))
        #expect(try channel.readReply() == .array(bulk("subscribe", "sport") + [.integer(2)]))
        #expect(try pattern.command("PSUBSCRIBE", "n*") == .array(bulk("psubscribe", "n*") + [.integer(1)]))
        #expect(try publisher.command("PUBLISH", "news", "hello") == .integer(2))
        #expect(try channel.readReply() == .array(bulk("message", "news", "hello")))
        #expect(try pattern.readReply() == .array(bulk("pmessage", "n*", "news", "hello")))
        #expect(try publisher.command("PUBLISH", "weather", "rain") == .integer(0))
        #expect(try publisher.command("PUBSUB", "NUMSUB", "news", "weather") == .array([.bulk("news"), .integer(1), .bulk("weather"), .integer(0)]))
        #expect(try publisher.command("PUBSUB", "NUMPAT") == .integer(1))
        #expect(try publisher.command("PUBSUB", "CHANNELS", "s*") == .array(bulk("sport")))
        // A subscriber that goes away is forgotten.
        channel.shutdownWrite()
        _ = try channel.readUntilClosed()  // the server forgets it before it closes the socket
        #expect(try publisher.command("PUBLISH", "sport", "goal") == .integer(0))
    }

    @Test("In RESP2 subscribed mode only the subscribe commands, PING (as a pong array), QUIT and RESET run")
    func subscribedMode() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client()
        _ = try client.command("SUBSCRIBE", "a")
        #expect(try client.command("GRAPH.QUERY", "g", "RETURN 1")
                == .error("ERR Can't execute 'graph.query': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"))
        #expect(try client.command("PING") == .array(bulk("pong", "")))
        #expect(try client.command("PING", "hi") == .array(bulk("pong", "hi")))
        // UNSUBSCRIBE with no names leaves every channel; with none left it says so with a null.
        _ = try client.command("PSUBSCRIBE", "p*")
        #expect(try client.command("UNSUBSCRIBE") == .array(bulk("unsubscribe", "a") + [.integer(1)]))
        #expect(try client.command("PUNSUBSCRIBE") == .array(bulk("punsubscribe", "p*") + [.integer(0)]))
        #expect(try client.command("UNSUBSCRIBE") == .array([.bulk("unsubscribe"), .null, .integer(0)]))
        #expect(try client.command("PING") == .simple("PONG"))
        // RESET leaves subscribed mode too.
        _ = try client.command("SUBSCRIBE", "b")
        #expect(try client.command("RESET") == .simple("RESET"))
        #expect(try client.command("PUBSUB", "NUMSUB", "b") == .array([.bulk("b"), .integer(0)]))
        #expect(try client.command("PUBLISH") == .error("ERR wrong number of arguments for 'publish' command"))
    }

    @Test("RESP3 subscribers get push frames and may run any command; a publisher subscribed to its channel gets its own message first")
    func resp3PushFrames() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let client = try server.client(), other = try server.client()
        _ = try client.command("HELLO", "3")
        #expect(try client.command("SUBSCRIBE", "a") == .push(bulk("subscribe", "a") + [.integer(1)]))
        #expect(try client.command("PING") == .simple("PONG"))
        #expect(try other.command("PUBLISH", "a", "x") == .integer(1))
        #expect(try client.readReply() == .push(bulk("message", "a", "x")))
        try client.send(RESPTestClient.encode(["PUBLISH", "a", "self"]))
        #expect(try client.readReply() == .push(bulk("message", "a", "self")))
        #expect(try client.readReply() == .integer(1))
        #expect(try client.command("UNSUBSCRIBE", "a") == .push(bulk("unsubscribe", "a") + [.integer(0)]))
    }

    @Test("A subscription needs AUTH when a password is set")
    func subscribingNeedsAuth() throws {
        let server = try InProcessServer(password: "secret")
        defer { server.stop() }
        let client = try server.client()
        guard case .error(let message) = try client.command("SUBSCRIBE", "a") else { Issue.record("subscribed without AUTH"); return }
        #expect(message.hasPrefix("NOAUTH"))
        #expect(try client.command("AUTH", "secret") == .simple("OK"))
        #expect(try client.command("SUBSCRIBE", "a") == .array(bulk("subscribe", "a") + [.integer(1)]))
    }

    @Test("Glob patterns match as Redis's stringmatchlen does")
    func globPatterns() {
        let cases: [(String, String, Bool)] = [
            ("*", "", true), ("*", "anything", true), ("n*", "news", true), ("n*", "ants", false),
            ("h?llo", "hello", true), ("h?llo", "hllo", false), ("h[ae]llo", "hallo", true), ("h[ae]llo", "hillo", false),
            ("h[^e]llo", "hallo", true), ("h[^e]llo", "hello", false), ("h[a-b]llo", "hbllo", true), ("h[a-b]llo", "hcllo", false),
            ("a\\*b", "a*b", true), ("a\\*b", "axb", false), ("graphd:*:user:*", "graphd:social:user:42", true),
            ("*a*b*c*", "xxaxxbxxcxx", true), ("*a*b*c*", "xxaxxcxxbxx", false), ("abc", "abcd", false),
        ]
        for (pattern, text, expected) in cases {
            #expect(GlobPattern(Array(pattern.utf8)).matches(Array(text.utf8)) == expected, "\(pattern) ~ \(text)")
        }
        // A pathological pattern is bounded, not exponential.
        let hard = GlobPattern(Array(String(repeating: "*a", count: 30).utf8) + Array("b".utf8))
        #expect(!hard.matches(Array(String(repeating: "a", count: 60).utf8)))
    }
}
