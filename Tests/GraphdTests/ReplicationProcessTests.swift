// ReplicationProcessTests.swift — replication between real graphd processes on loopback: a
// replica copies a primary, follows its log, serves reads and refuses writes, WAIT, WAITAOF and
// GRAPHD.WAITSEQ; kill -9 of the primary under writes acknowledged with WAIT 1 loses none of
// them once the replica is promoted; an old primary that comes back as a replica sets its
// unreplicated tail aside, counts it, and ends equal to the new primary; a replica pointed at
// itself, at a Redis, or with a wrong password says why and keeps its data; a copy larger than
// one reply goes in parts. Every wait polls with a deadline.

import Foundation
import Glibc
import Testing
import GraphTestSupport

@Suite("Replication between processes", .serialized)
struct ReplicationProcessTests {
    /// `eventually` with a minute's limit: a link comes up slowly on a loaded CI machine.
    func eventually(within limit: Duration = .seconds(60), _ condition: () throws -> Bool) rethrows -> Bool {
        try GraphTestSupport.eventually(within: limit, every: .milliseconds(10), condition)
    }

    func info(_ server: GraphdProcess, _ name: String) -> String? {
        guard let client = try? server.client(), case .bulk(let text)? = try? client.command("INFO", "replication") else { return nil }
        return text.components(separatedBy: "\r\n").first { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)) }
    }

    func count(_ server: GraphdProcess, _ graph: String = "g") throws -> Int64 {
        let reply = try server.client().command("GRAPH.RO_QUERY", graph, "MATCH (u:User) RETURN count(u)")
        guard case .integer(let n)? = reply.rows.first?.first else { return -1 }
        return n
    }

    func ids(_ server: GraphdProcess) throws -> Set<Int64> {
        let reply = try server.client().command("GRAPH.RO_QUERY", "g", "MATCH (u:User) RETURN u.id")
        return Set(reply.rows.compactMap { if case .integer(let n)? = $0.first { n } else { nil } })
    }

    @Test("A replica copies the primary, follows its writes, serves reads, refuses writes; WAIT, WAITAOF and GRAPHD.WAITSEQ")
    func replicaFollows() throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p")
        let writer = try primary.client()
        for id in 1...5 { _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})") }
        let replica = try GraphdProcess(dataDirectory: directory.path + "/r",
                                        extraArguments: ["--replica-of", "127.0.0.1:\(primary.port)"])
        #expect(eventually { info(replica, "master_link_status") == "up" }, "\(replica.output)")
        #expect(try count(replica) == 5)
        for id in 6...20 {
            _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})")
            #expect(try writer.command("WAIT", "1", "5000") == .integer(1))
        }
        #expect(try count(replica) == 20, "WAIT 1 returned: the replica has applied every write")
        guard case .bulk(let stats) = try writer.command("INFO", "commandstats") else {
            Issue.record("no INFO commandstats")
            return
        }
        #expect(stats.contains("cmdstat_graphd.ack:calls="),
                "the replica acknowledges what it applied with GRAPHD.ACK, ahead of its next pull: \(stats)")
        #expect(try writer.command("WAITAOF", "1", "1", "5000") == .array([.integer(1), .integer(1)]),
                "the replica reports the last write durable once its fsync returned")
        _ = try writer.command("GRAPH.QUERY", "other", "CREATE (:User {id: 1})")
        #expect(try replica.client().command("GRAPHD.WAITSEQ", "other", "1", "5000") == .integer(1))
        #expect(try count(replica, "other") == 1)
        // Read-your-writes with a change token: the primary's token after a write, waited for on the replica.
        _ = try writer.command("GRAPH.QUERY", "other", "CREATE (:User {id: 2})")
        guard case .bulk(let token)? = try writer.command("GRAPH.RO_QUERY", "other", "RETURN graph.token()").rows.first?.first else {
            Issue.record("no token")
            return
        }
        #expect(try replica.client().command("GRAPHD.WAITSEQ", "other", token, "5000") == .integer(2))
        #expect(try count(replica, "other") == 2)
        #expect(try replica.client().command("GRAPHD.WAITSEQ", "other", "0123456789abcdef-1", "50") == .integer(2),
                "a token of another history is not reached: the wait ends at its timeout")
        let readOnly = try replica.client()
        #expect(try readOnly.command("GRAPH.QUERY", "g", "CREATE (:User {id: 99})")
                == .error("READONLY You can't write against a read only replica."))
        #expect(try readOnly.command("GRAPH.QUERY", "g", "MATCH (u:User) RETURN count(u)").rows == [[.integer(20)]])
        #expect(info(primary, "slave0")?.hasPrefix("ip=127.0.0.1,port=\(replica.port),state=online,offset=") == true)
        #expect(info(primary, "connected_slaves") == "1")
        #expect(info(replica, "slave_repl_offset") == info(primary, "master_repl_offset"))
        // A deleted graph goes on the replica too.
        _ = try writer.command("GRAPH.DELETE", "other")
        #expect(eventually { (try? replica.client().command("GRAPH.LIST")) == .array([.bulk("g")]) })
    }

    @Test("kill -9 of the primary under writes acknowledged with WAIT 1: the promoted replica has every one of them")
    func failoverKeepsAcknowledgedWrites() throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p")
        let replica = try GraphdProcess(dataDirectory: directory.path + "/r",
                                        extraArguments: ["--replica-of", "127.0.0.1:\(primary.port)"])
        #expect(eventually(within: .seconds(60)) { info(replica, "master_link_status") == "up" }, "\(replica.output)")
        let writer = try primary.client()
        var acknowledged: Set<Int64> = []
        for id in 1...200 {
            _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})")
            if try writer.command("WAIT", "1", "2000") == .integer(1) { acknowledged.insert(Int64(id)) }
            if id == 150 { primary.kill9(); break }
        }
        #expect(acknowledged.count == 150)
        let promote = try replica.client()
        #expect(try promote.command("REPLICAOF", "NO", "ONE") == .simple("OK"))
        #expect(info(replica, "role") == "master")
        #expect(try ids(replica).isSuperset(of: acknowledged))
        _ = try promote.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1000})")
        #expect(try count(replica) == 151)
    }

    @Test("An old primary that comes back as a replica sets its unreplicated tail aside, counts it, and ends equal to the new primary")
    func oldPrimaryRejoins() throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        var primary: GraphdProcess? = try GraphdProcess(dataDirectory: directory.path + "/p")
        let oldPort = primary!.port
        var replica: GraphdProcess? = try GraphdProcess(dataDirectory: directory.path + "/r",
                                                        extraArguments: ["--replica-of", "127.0.0.1:\(oldPort)"])
        let writer = try primary!.client()
        for id in 1...10 { _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})") }
        #expect(try writer.command("WAIT", "1", "5000") == .integer(1))
        // The replica stops; the primary takes three writes it never sends, then dies.
        replica!.kill9()
        for id in 11...13 { _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})") }
        primary!.kill9()
        primary = nil
        // The replica comes back and is promoted; it takes writes of its own.
        let replicaPort = replica!.port
        replica = try GraphdProcess(dataDirectory: directory.path + "/r", port: replicaPort)
        let newPrimary = replica!
        #expect(info(newPrimary, "role") == "master", "no --replica-of and no CONFIG REWRITE: it starts as a primary")
        for id in 21...22 { _ = try newPrimary.client().command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})") }
        // The old primary rejoins as its replica.
        let old = try GraphdProcess(dataDirectory: directory.path + "/p",
                                    extraArguments: ["--replica-of", "127.0.0.1:\(newPrimary.port)"], port: oldPort)
        #expect(eventually { info(old, "master_link_status") == "up" }, "\(old.output)")
        #expect(info(old, "graphd_diverged_records") == "3", "\(old.output)")
        #expect(try ids(old) == ids(newPrimary))
        #expect(try ids(old) == Set((1...10).map(Int64.init) + [21, 22]))
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/p/diverged")) ?? []
        #expect(kept.count == 1 && kept[0].hasPrefix("g-"), "the cut tail is kept in the data directory: \(kept)")
    }

    @Test("A replica pointed at itself, at a Redis, or with a wrong password says why and keeps its data")
    func badPrimaries() throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/s", extraArguments: ["--requirepass", "secret"])
        let client = try server.client()
        _ = try client.command("AUTH", "secret")
        _ = try client.command("GRAPH.QUERY", "g", "CREATE (:User {id: 1})")
        #expect(try client.command("REPLICAOF", "127.0.0.1", String(server.port)) == .simple("OK"))
        #expect(eventually { info(server, "graphd_master_link_error")?.contains("this server itself") == true || server.output.contains("this server itself") })
        // A password the primary does not take.
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p", extraArguments: ["--requirepass", "other"])
        #expect(try client.command("REPLICAOF", "127.0.0.1", String(primary.port)) == .simple("OK"))
        #expect(eventually { server.output.contains("the primary refused the password") })
        // Something that is not a graphd.
        if let redis = try? RedisServerProcess(directory: directory.path) {
            #expect(try client.command("REPLICAOF", "127.0.0.1", String(redis.port)) == .simple("OK"))
            #expect(eventually { server.output.contains("is not a graphd") }, "\(server.output)")
        }
        #expect(try client.command("GRAPH.RO_QUERY", "g", "MATCH (u:User) RETURN count(u)").rows == [[.integer(1)]])
        #expect(try client.command("REPLICAOF", "NO", "ONE") == .simple("OK"))
    }

    @Test("A replica away for 10,000 writes catches up from the primary's log, without a copy")
    func catchUpFromLog() throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p")
        let writer = try primary.client()
        _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: 0})")
        var replica: GraphdProcess? = try GraphdProcess(dataDirectory: directory.path + "/r",
                                                        extraArguments: ["--replica-of", "127.0.0.1:\(primary.port)"])
        #expect(eventually { info(replica!, "master_link_status") == "up" })
        let port = replica!.port
        #expect(replica!.terminate() == 0)
        replica = nil
        // 10,000 writes, pipelined in batches (they share group-commit fsyncs).
        var batch: [UInt8] = []
        for id in 1...10_000 {
            batch += RESPTestClient.encode(["GRAPH.QUERY", "g", "CYPHER id=\(id) CREATE (:User {id: $id})"])
            if id % 500 == 0 {
                try writer.send(batch)
                for _ in 0..<500 { _ = try writer.readReply() }
                batch = []
            }
        }
        let started = ContinuousClock.now
        let back = try GraphdProcess(dataDirectory: directory.path + "/r",
                                     extraArguments: ["--replica-of", "127.0.0.1:\(primary.port)"], port: port)
        #expect(eventually(within: .seconds(60)) { info(back, "master_link_status") == "up" }, "\(back.output)")
        print("a replica 10,000 writes behind caught up from the log in \(ContinuousClock.now - started) (start included)")
        #expect(try count(back) == 10_001)
        #expect(!back.output.contains("copied in full"), "caught up from the log: \(back.output)")
    }

    @Test("Under --fsync everysec and no, replicas follow too (records go out once durable, or once written under no)",
          arguments: ["everysec", "no"])
    func otherFsyncPolicies(policy: String) throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p", extraArguments: ["--fsync", policy])
        let replica = try GraphdProcess(dataDirectory: directory.path + "/r",
                                        extraArguments: ["--replica-of", "127.0.0.1:\(primary.port)", "--fsync", policy])
        let writer = try primary.client()
        for id in 1...3 { _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})") }
        #expect(try writer.command("WAIT", "1", "5000") == .integer(1))
        #expect(try count(replica) == 3)
    }

    @Test("A graph whose copy exceeds the primary's --client-output-limit goes in parts; the replica installs it and follows on")
    func copyInParts() throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p", extraArguments: ["--client-output-limit", "65536"])
        let writer = try primary.client()
        _ = try writer.command("GRAPH.QUERY", "g", "UNWIND range(1, 3000) AS i CREATE (:User {id: i, name: 'user number ' + toString(i)})")
        _ = try writer.command("GRAPH.QUERY", "small", "CREATE (:User {id: 1})")
        let replica = try GraphdProcess(dataDirectory: directory.path + "/r",
                                        extraArguments: ["--replica-of", "127.0.0.1:\(primary.port)"])
        #expect(eventually { info(replica, "master_link_status") == "up" }, "\(replica.output)")
        let parts = primary.output.components(separatedBy: "\n").first { $0.contains("graph 'g' is") && $0.contains("parts") }
        #expect(parts != nil, "the copy went in parts (one reply carries 32 KiB here): \(primary.output)")
        #expect(try count(replica) == 3000 && count(replica, "small") == 1)
        #expect(replica.output.contains("graph 'g' copied in full"))
        _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: 3001})")
        #expect(try writer.command("WAIT", "1", "5000") == .integer(1))
        #expect(try count(replica) == 3001)
    }

    @Test("Replication lag: from a write's acknowledgement to WAIT 1 seeing a replica apply it (p50, p99 printed)")
    func lag() throws {
        let directory = try TemporaryDirectory("graphd-repl")
        defer { directory.remove() }
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p")
        let replica = try GraphdProcess(dataDirectory: directory.path + "/r",
                                        extraArguments: ["--replica-of", "127.0.0.1:\(primary.port)"])
        let writer = try primary.client()
        _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: 0})")
        #expect(eventually(within: .seconds(60)) { info(replica, "master_link_status") == "up" }, "\(replica.output)")
        var lags: [Duration] = []
        for id in 1...300 {
            _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})")
            let acknowledged = ContinuousClock.now
            #expect(try writer.command("WAIT", "1", "5000") == .integer(1))
            lags.append(ContinuousClock.now - acknowledged)
        }
        lags.sort()
        let p50 = lags[lags.count / 2], p99 = lags[lags.count * 99 / 100]
        print("replication lag (write acknowledged → WAIT 1 returns), \(lags.count) writes: p50 \(p50), p99 \(p99)")
        #expect(p99 < .seconds(1))
        #expect(try count(replica) == 301)
    }
}

/// A real redis-server on a free loopback port (nil-throwing when the binary is absent).
final class RedisServerProcess {
    let port: Int
    let process: ChildProcess

    init(directory: String) throws {
        let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let binary else { throw TestClientError(description: "redis-server is not installed") }
        port = try GraphdProcess.freePort()
        process = try ChildProcess(executable: binary, arguments: ["--port", String(port), "--bind", "127.0.0.1", "--save", "",
                                                                   "--appendonly", "no", "--dir", directory],
                                   outputPath: directory + "/redis-\(port).out")
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end {
            if (try? RESPTestClient(port: port)) != nil { return }
            usleep(10_000)
        }
        throw TestClientError(description: "redis-server did not start")
    }

    deinit {
        process.send(SIGKILL)
        process.wait()
    }
}
