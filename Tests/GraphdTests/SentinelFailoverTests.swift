// SentinelFailoverTests.swift — failover by real Redis Sentinels (Debian's redis-sentinel) of
// real graphd processes on loopback: one primary, two replicas, three Sentinels (quorum 2,
// down-after 2 s). The Sentinels find the replicas in INFO and each other through the
// servers' Pub/Sub; kill -9 of the primary makes them promote a replica, repoint the other,
// and a restarted old primary started with --sentinel follows the new one. Skipped, saying
// so, when redis-sentinel is not installed (.ci/run installs it).

import Foundation
import Glibc
import Testing
import GraphTestSupport

/// A redis-sentinel process monitoring `name` at a primary.
final class SentinelProcess {
    let port: Int
    let process: ChildProcess
    let logPath: String

    static var binary: String? {
        ["/usr/bin/redis-sentinel", "/usr/local/bin/redis-sentinel"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(directory: String, name: String, primaryPort: Int) throws {
        guard let binary = Self.binary else { throw TestClientError(description: "redis-sentinel is not installed") }
        port = try GraphdProcess.freePort()
        let configPath = directory + "/sentinel-\(port).conf"
        logPath = directory + "/sentinel-\(port).log"
        let config = """
            port \(port)
            bind 127.0.0.1
            daemonize no
            dir \(directory)
            sentinel monitor \(name) 127.0.0.1 \(primaryPort) 2
            sentinel down-after-milliseconds \(name) 2000
            sentinel failover-timeout \(name) 10000
            sentinel parallel-syncs \(name) 1

            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        process = try ChildProcess(executable: binary, arguments: [configPath], outputPath: logPath)
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end {
            if (try? RESPTestClient(port: port)) != nil { return }
            usleep(10_000)
        }
        throw TestClientError(description: "redis-sentinel did not start")
    }

    func client() throws -> RESPTestClient { try RESPTestClient(port: port) }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit {
        process.send(SIGKILL)
        process.wait()
    }
}

@Suite("Failover by Redis Sentinel", .serialized)
struct SentinelFailoverTests {
    func info(_ server: GraphdProcess, _ name: String) -> String? {
        guard let client = try? server.client(), case .bulk(let text)? = try? client.command("INFO", "replication") else { return nil }
        return text.components(separatedBy: "\r\n").first { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)) }
    }

    func primaryPort(_ sentinel: SentinelProcess) -> Int? {
        guard let reply = try? sentinel.client().command("SENTINEL", "get-master-addr-by-name", "g"),
              case .bulk(let port)? = reply.items.last else { return nil }
        return Int(port)
    }

    @Test("kill -9 of the primary: Sentinel promotes a replica, repoints the other; the old primary restarted with --sentinel follows the new one")
    func failover() throws {
        guard SentinelProcess.binary != nil else {
            print("SKIPPED: redis-sentinel is not installed (apt-get install redis-sentinel; .ci/run does)")
            return
        }
        let directory = try TemporaryDirectory("graphd-sentinel")
        defer { directory.remove() }
        var primary: GraphdProcess? = try GraphdProcess(dataDirectory: directory.path + "/p")
        let oldPort = primary!.port
        let replicas = try (1...2).map { i in
            try GraphdProcess(dataDirectory: directory.path + "/r\(i)", extraArguments: ["--replica-of", "127.0.0.1:\(oldPort)"])
        }
        let writer = try primary!.client()
        for id in 1...10 { _ = try writer.command("GRAPH.QUERY", "g", "CREATE (:User {id: \(id)})") }
        #expect(try writer.command("WAIT", "2", "5000") == .integer(2))
        let sentinels = try (0..<3).map { _ in try SentinelProcess(directory: directory.path, name: "g", primaryPort: oldPort) }
        // Discovery: replicas from INFO, the other Sentinels from hellos on the servers' Pub/Sub.
        #expect(eventually {
            sentinels.allSatisfy { s in
                (try? s.client().command("SENTINEL", "SENTINELS", "g").items.count) == 2
                    && (try? s.client().command("SENTINEL", "REPLICAS", "g").items.count) == 2
            }
        }, "\(sentinels[0].log)")

        let killed = ContinuousClock.now
        primary!.kill9()
        primary = nil
        #expect(eventually { primaryPort(sentinels[0]).map { $0 != oldPort } ?? false }, "\(sentinels[0].log)")
        let switched = ContinuousClock.now - killed
        let newPort = try #require(primaryPort(sentinels[0]))
        let promoted = try #require(replicas.first { $0.port == newPort })
        let other = try #require(replicas.first { $0.port != newPort })
        #expect(info(promoted, "role") == "master")
        #expect(eventually { info(other, "master_port") == String(newPort) && info(other, "master_link_status") == "up" })
        // WAIT waits for this connection's last write: the same connection.
        let newWriter = try promoted.client()
        _ = try newWriter.command("GRAPH.QUERY", "g", "CREATE (:User {id: 11})")
        #expect(try newWriter.command("WAIT", "1", "5000") == .integer(1))
        #expect(try other.client().command("GRAPH.RO_QUERY", "g", "MATCH (u:User) RETURN count(u)").rows == [[.integer(11)]])
        #expect(eventually { sentinels[0].log.contains("+switch-master") })

        // The old primary comes back, asks the Sentinels, and follows the new primary.
        let addresses = sentinels.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        let old = try GraphdProcess(dataDirectory: directory.path + "/p",
                                    extraArguments: ["--sentinel", addresses, "--sentinel-name", "g"], port: oldPort)
        #expect(info(old, "role") == "slave", "\(old.output)")
        #expect(eventually { info(old, "master_link_status") == "up" })
        #expect(try old.client().command("GRAPH.RO_QUERY", "g", "MATCH (u:User) RETURN count(u)").rows == [[.integer(11)]])
        #expect(try old.client().command("GRAPH.QUERY", "g", "CREATE (:User {id: 12})")
                == .error("READONLY You can't write against a read only replica."))
        #expect(!sentinels.contains { $0.log.contains("+tilt") }, "a Sentinel stalled (TILT): timings above mean little")
        print("Sentinel failover: kill -9 to get-master-addr-by-name naming the new primary: \(switched)")
    }

    @Test("falkordb-py through Sentinel writes across a kill -9 of the primary: none lost with WAIT 1, the old primary rejoins with its tail counted",
          .enabled(if: PythonClients.enabled, "\(PythonClients.missingMessage)"), arguments: ["wait", "nowait"])
    func pythonClientAcrossFailover(mode: String) throws {
        guard SentinelProcess.binary != nil else {
            print("SKIPPED: redis-sentinel is not installed (apt-get install redis-sentinel; .ci/run does)")
            return
        }
        let directory = try TemporaryDirectory("graphd-sentinel")
        defer { directory.remove() }
        let primary = try GraphdProcess(dataDirectory: directory.path + "/p")
        let oldPort = primary.port
        let replicas = try (1...2).map { i in
            try GraphdProcess(dataDirectory: directory.path + "/r\(i)", extraArguments: ["--replica-of", "127.0.0.1:\(oldPort)"])
        }
        #expect(replicas.allSatisfy { r in eventually { info(r, "master_link_status") == "up" } })
        let sentinels = try (0..<3).map { _ in try SentinelProcess(directory: directory.path, name: "g", primaryPort: oldPort) }
        #expect(eventually {
            sentinels.allSatisfy { s in (try? s.client().command("SENTINEL", "SENTINELS", "g").items.count) == 2 }
        })
        let ports = sentinels.map { String($0.port) }.joined(separator: ",")
        let (status, output) = try PythonClients.run("sentinel_failover.py", [ports, String(primary.process.pid), "g", mode])
        primary.kill9()   // reaps it (the script killed it)
        #expect(status == 0, "\(output)")
        print("falkordb-py through Sentinel (\(mode)): \(output.trimmingCharacters(in: .whitespacesAndNewlines))")
        let newPort = try #require(primaryPort(sentinels[0]))
        let newPrimary = try #require(replicas.first { $0.port == newPort })
        // The old primary comes back through Sentinel and ends equal to the new primary.
        let addresses = sentinels.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        let old = try GraphdProcess(dataDirectory: directory.path + "/p",
                                    extraArguments: ["--sentinel", addresses, "--sentinel-name", "g"], port: oldPort)
        #expect(eventually { info(old, "master_link_status") == "up" }, "\(old.output)")
        let query = ["GRAPH.RO_QUERY", "ids", "MATCH (i:Item) RETURN i.id ORDER BY i.id"]
        let rows = { (server: GraphdProcess) in (try? server.client().command(query[0], query[1], query[2]))?.rows }
        #expect(eventually { rows(old) != nil && rows(old) == rows(newPrimary) })
        print("old primary rejoined: graphd_diverged_records=\(info(old, "graphd_diverged_records") ?? "?")")
        #expect(!sentinels.contains { $0.log.contains("+tilt") })
    }
}

