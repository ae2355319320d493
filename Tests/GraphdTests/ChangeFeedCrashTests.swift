// ChangeFeedCrashTests.swift — the real graphd under --fsync always, killed with SIGKILL while a
// writer commits and a subscriber reads the change feed, then restarted, again and again. The
// subscriber resumes each time from the last commit it received whole; in the end what it kept
// must be exactly the log's account of those commits (GRAPH.CHANGES): nothing lost, nothing out
// of order, nothing it saw that the restarted server does not have. Three cycles by default,
// GRAPHD_FEED_CRASH_CYCLES=50 runs fifty. And a token older than what a snapshot and a restart
// left of the log: a reset, never a gap.

import Foundation
import Synchronization
import Testing
import GraphTestSupport

@Suite("End to end: the change feed across kill -9", .serialized)
struct ChangeFeedCrashTests {
    static var cycles: Int {
        ProcessInfo.processInfo.environment["GRAPHD_FEED_CRASH_CYCLES"].flatMap(Int.init).map { max(1, $0) } ?? 3
    }

    @Test("kill -9 and restart under writes (--fsync always): the resumed feed equals the log")
    func killAndResume() throws {
        let directory = try TemporaryDirectory("graphd-feed-crash")
        defer { directory.remove() }
        let data = directory.path + "/data"
        var server = try GraphdProcess(dataDirectory: data, extraArguments: ["--fsync", "always"])
        let setup = try server.client()
        _ = try setup.command("GRAPH.QUERY", "g", "CREATE (:Seed)")
        let start = try ChangeFeedTests.token(setup)
        var complete = start
        var kept: [String] = []
        for cycle in 0..<Self.cycles {
            let stop = Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            let port = server.port
            let writer = Thread {
                defer { done.signal() }
                guard let client = try? RESPTestClient(port: port, timeoutSeconds: 5) else { return }
                var k = 0
                while !stop.load(ordering: .relaxed) {
                    let query = "UNWIND range(1, 2) AS i CREATE (:N {cycle: \(cycle), k: \(k), i: i})"
                    guard (try? client.command("GRAPH.QUERY", "g", query)) != nil else { return }
                    k += 1
                }
            }
            writer.start()
            let subscriber = try server.client()
            _ = try subscriber.command("SUBSCRIBE", "graphd:g:changes@\(complete)")
            var partial: (token: String, events: [String])? = nil
            // Enough messages that the kill falls amid live delivery.
            for _ in 0..<(40 + cycle * 13 % 60) {
                let message = try subscriber.readReply()
                let payload = ChangeFeedTests.json(message)
                guard let token = payload["token"] as? String, case .array(let items) = message,
                      case .bulk(let text)? = items.last else { continue }
                #expect(payload["type"] as? String != "reset", "a token of this history was reset: \(text)")
                if payload["type"] as? String == "position" { continue }
                if partial?.token != token {
                    if let whole = partial { kept += whole.events; complete = whole.token }
                    partial = (token, [])
                }
                partial!.events.append(text)
            }
            server.kill9()
            stop.store(true, ordering: .relaxed)
            done.wait()
            server = try GraphdProcess(dataDirectory: data, extraArguments: ["--fsync", "always"])
        }
        let reader = try server.client()
        let end = try ChangeFeedTests.token(reader)
        let log = try ChangeFeedDeliveryTests.pulled(reader, since: start, through: end)
        #expect(kept.count > 0)
        #expect(Array(log.prefix(kept.count)) == kept, "lost, reordered or vanished events")
        server.kill9()
    }
}

@Suite("End to end: the change feed past retention", .serialized)
struct ChangeFeedRetentionTests {
    @Test("After a snapshot and a restart without retention, an old token gets a reset (Pub/Sub) or RESET (GRAPH.CHANGES), never a gap")
    func oldTokenAfterSnapshotAndRestart() throws {
        let directory = try TemporaryDirectory("graphd-feed-retention")
        defer { directory.remove() }
        let data = directory.path + "/data"
        var server = try GraphdProcess(dataDirectory: data, extraArguments: ["--change-retention", "0"])
        var client = try server.client()
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1}), (:User {id: 2})")
        let old = try ChangeFeedTests.token(client)
        for i in 0..<5 { _ = try client.command("GRAPH.QUERY", "g", "CREATE (:N {i: \(i)})") }
        #expect(try client.command("GRAPH.SAVE", "g") == .simple("OK"))
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:N {i: 99})")
        server.kill9()
        server = try GraphdProcess(dataDirectory: data, extraArguments: ["--change-retention", "0"])
        client = try server.client()
        let current = try ChangeFeedTests.token(client)
        #expect(current.split(separator: "-")[0] == old.split(separator: "-")[0], "the history survives kill -9 under --fsync always")
        let listener = try server.client()
        _ = try listener.command("SUBSCRIBE", "graphd:g:changes@\(old)")
        let first = ChangeFeedTests.json(try listener.readReply())
        if first["type"] as? String == "reset" {
            #expect(first["token"] as? String == current)
        } else {
            // A complete replay is the other honest answer: then every commit after the token comes.
            var tokens = [first["token"] as? String ?? ""]
            while true {
                let next = ChangeFeedTests.json(try listener.readReply())
                if next["type"] as? String == "position" { break }
                tokens.append(next["token"] as? String ?? "")
            }
            #expect(Set(tokens).count == 6, "\(tokens)")
        }
        guard case .error(let message) = try client.command("GRAPH.CHANGES", "g", "SINCE", old) else {
            // Equally: the log still had it all.
            return
        }
        #expect(message.hasPrefix("RESET ") && message.contains("current \(current)"), "\(message)")
        server.kill9()
    }
}
