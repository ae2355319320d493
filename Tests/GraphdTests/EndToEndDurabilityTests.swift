// EndToEndDurabilityTests.swift — the real graphd binary, killed with SIGKILL: every
// acknowledged write is there after a restart, and a log cut at any byte inside its last
// record starts cleanly with every earlier write and without the torn one.

import Foundation
import Testing
import GraphTestSupport

/// Files under `directory` (recursively) with their sizes.
private func fileContents(_ directory: String) -> [String: [UInt8]] {
    var contents: [String: [UInt8]] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return contents }
    while let relative = enumerator.nextObject() as? String {
        let path = directory + "/" + relative
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let data = FileManager.default.contents(atPath: path) else { continue }
        contents[relative] = Array(data)
    }
    return contents
}

/// The integers in column 0 of a result set's rows.
private func integers(_ reply: RESPReply) -> [Int64] {
    reply.rows.compactMap { row in if case .integer(let n)? = row.first { return n } else { return nil } }
}

@Suite("End to end: durability", .serialized)
struct EndToEndDurabilityTests {
    @Test("Acknowledged writes survive kill -9 and a restart")
    func writesSurviveKill() throws {
        let directory = try TemporaryDirectory("graphd-e2e")
        defer { directory.remove() }
        let data = directory.path + "/data"

        let first = try GraphdProcess(dataDirectory: data)
        let client = try first.client()
        for id in 1...5 {
            let reply = try client.command("GRAPH.QUERY", "social", "CREATE (:User {id: \(id), name: 'U\(id)'})")
            #expect(reply.statistics.contains("Nodes created: 1"), "write \(id): \(reply)")
        }
        let friend = try client.command("GRAPH.QUERY", "social",
                                        "MATCH (a:User {id: 1}), (b:User {id: 2}) CREATE (a)-[:FRIEND {since: 2020}]->(b)")
        #expect(friend.statistics.contains("Relationships created: 1"), "\(friend)")
        first.kill9()

        let second = try GraphdProcess(dataDirectory: data)
        let reader = try second.client()
        let users = try reader.command("GRAPH.QUERY", "social", "MATCH (u:User) RETURN u.id ORDER BY u.id")
        #expect(integers(users) == [1, 2, 3, 4, 5], "\(users)")
        let friends = try reader.command("GRAPH.RO_QUERY", "social", "MATCH (:User {id: 1})-[:FRIEND]->(b:User) RETURN b.id")
        #expect(integers(friends) == [2], "\(friends)")
        #expect(try reader.command("GRAPH.LIST") == .array([.bulk("social")]))
        second.kill9()
    }

    @Test("Torn log: graphd starts with every earlier write when the last record is cut at any byte")
    func tornLastRecord() throws {
        let directory = try TemporaryDirectory("graphd-torn")
        defer { directory.remove() }
        let data = directory.path + "/data"

        let server = try GraphdProcess(dataDirectory: data)
        let client = try server.client()
        for n in 1...2 {
            let reply = try client.command("GRAPH.QUERY", "g", "CREATE (:T {n: \(n)})")
            #expect(reply.statistics.contains("Nodes created: 1"), "\(reply)")
        }
        let before = fileContents(data)
        let last = try client.command("GRAPH.QUERY", "g", "CREATE (:T {n: 3})")
        #expect(last.statistics.contains("Nodes created: 1"), "\(last)")
        let after = fileContents(data)
        server.kill9()

        // The log is the file the last write changed, and its record the bytes that changed
        // (the log may have written zeros ahead of its records: the file need not grow). The
        // format itself is not our business.
        let changed = after.filter { path, bytes in bytes != before[path] }
        #expect(changed.count == 1, "expected one log file to change, got \(changed.keys) (before: \(before.keys))")
        guard let (logPath, bytes) = changed.first else { return }
        let old = before[logPath] ?? []
        let startSize = (0..<bytes.count).first { $0 >= old.count || bytes[$0] != old[$0] } ?? bytes.count
        let endSize = ((0..<bytes.count).last { $0 >= old.count ? bytes[$0] != 0 : bytes[$0] != old[$0] } ?? startSize) + 1
        #expect(endSize - startSize < 4096, "the last record should be small")
        #expect(endSize - startSize > 8, "the last record should hold more than a header")

        // A crash mid-append leaves the record cut at any byte: the file ends there, or (in a
        // file the log had filled with zeros ahead) zeros follow.
        for (offset, zeroed) in ((startSize + 1)..<endSize).flatMap({ [($0, false), ($0, true)] }) {
            let copy = directory.path + "/cut-\(offset)-\(zeroed)"
            try FileManager.default.copyItem(atPath: data, toPath: copy)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            if zeroed {
                var torn = bytes
                for k in offset..<endSize { torn[k] = 0 }
                try Data(torn).write(to: URL(fileURLWithPath: copy + "/" + logPath))
            } else {
                #expect(truncate(copy + "/" + logPath, off_t(offset)) == 0)
            }

            let restarted = try GraphdProcess(dataDirectory: copy)
            let reader = try restarted.client()
            let rows = try reader.command("GRAPH.QUERY", "g", "MATCH (t:T) RETURN t.n ORDER BY t.n")
            #expect(integers(rows) == [1, 2], "cut at \(offset) of \(startSize)..<\(endSize), zeroed \(zeroed): \(rows)")
            // The graph takes writes again after the cut.
            let write = try reader.command("GRAPH.QUERY", "g", "CREATE (:T {n: 4})")
            #expect(write.statistics.contains("Nodes created: 1"), "cut at \(offset): \(write)")
            // The cut is reported at start, naming the log file.
            let logName = String(logPath.split(separator: "/").last ?? "")
            #expect(restarted.output.contains(logName), "cut at \(offset): no message naming \(logName) in \(restarted.output)")
            restarted.kill9()
        }
    }
}
