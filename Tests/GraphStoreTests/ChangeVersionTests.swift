// ChangeVersionTests.swift — change versions, tokens, histories and commit times: what moves a
// version, that versions and histories survive replay, snapshots and restarts, when a history
// forks, and that a time is never placed after a commit it may precede.

import Foundation
import Testing
import GraphTestSupport
@testable import GraphStore

@Suite struct ChangeVersionTests {
    /// Every version of every node id below `bound`, for each type id below `types`: what two
    /// graphs must agree on (their columns may be laid out differently).
    static func allVersions(_ g: Graph, bound: Int = 64, types: Int = 4) -> [UInt64] {
        let v = g.changeVersions
        var all: [UInt64] = []
        for i in 0..<bound {
            let node = NodeID(rawValue: UInt32(i))
            all.append(v.version(of: node))
            for t in 0..<types {
                for d in [Direction.outgoing, .incoming] { all.append(v.version(of: node, RelationshipTypeID(rawValue: UInt32(t)), d)) }
            }
        }
        return all
    }

    @Test func aCommitMovesTheVersionsOfWhatItTouchesAndNothingElse() throws {
        let store = GraphStore.inMemory()
        let (a, b, c) = try store.write { g in
            (try g.createNode(labels: [], properties: []), try g.createNode(labels: [], properties: []),
             try g.createNode(labels: [], properties: []))
        }
        let before = store.token()
        #expect(before.sequence == 1)
        let friend = try store.write { g in
            try g.createRelationship(type: g.internRelationshipType("FRIEND"), from: a, to: b, properties: [])
        }
        let afterCreate = store.token()
        #expect(afterCreate.sequence == 2 && afterCreate.history == before.history)
        store.read { g in
            let v = g.changeVersions, s = afterCreate.sequence
            #expect(v.version(of: a, friend.type, .outgoing) == s && v.version(of: a, friend.type, .incoming) == 1 - 1)
            #expect(v.version(of: b, friend.type, .incoming) == s && v.version(of: b, friend.type) == s)
            #expect(v.version(of: a) == 1 && v.version(of: c, friend.type) == 0)
        }
        // A relationship property moves both ends; a node property only the node.
        try store.write { g in try g.setProperty(g.internPropertyKey("since"), to: .integer(3), of: friend) }
        try store.write { g in try g.setProperty(g.internPropertyKey("name"), to: .string("C"), of: c) }
        store.read { g in
            let v = g.changeVersions
            #expect(v.version(of: a, friend.type) == 3 && v.version(of: b, friend.type) == 3)
            #expect(v.version(of: c) == 4 && v.version(of: a) == 1)
            #expect(v.changed(a, friend.type, after: .sequence(2)) && !v.changed(a, after: .sequence(2)))
        }
        // A deletion leaves no newer timestamp behind, but it moves both ends' versions.
        try store.write { g in try g.deleteRelationship(friend) }
        store.read { g in
            #expect(g.changeVersions.version(of: a, friend.type, .outgoing) == 5)
            #expect(g.changeVersions.version(of: b, friend.type, .incoming) == 5)
        }
        // A transaction that changes nothing is no commit.
        try store.write { _ in }
        #expect(store.token().sequence == 5)
    }

    @Test func versionsHistoriesAndTimesSurviveReplaySnapshotsAndRestarts() throws {
        try withTemporaryDirectory { data in
            var live: [UInt64] = [], token: ChangeToken
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<6)
                try store.write { g in
                    _ = try g.createRelationship(type: g.internRelationshipType("FRIEND"), from: NodeID(rawValue: 1),
                                                 to: NodeID(rawValue: 2), properties: [])
                }
                try store.compact()  // versions so far go into the snapshot, the rest into the log
                try store.write { g in try g.setProperty(g.internPropertyKey("id"), to: .integer(60), of: NodeID(rawValue: 5)) }
                try store.write { g in
                    _ = try g.createRelationship(type: g.internRelationshipType("BLOCKED"), from: NodeID(rawValue: 3),
                                                 to: NodeID(rawValue: 1), properties: [])
                }
                live = store.read { Self.allVersions($0) }
                token = store.token()
            }
            // The snapshot keeps the time of its last commit: times after it still place.
            let snapshot = try SnapshotReader(fileSystem: PosixFileSystem()).read(path: data + "/graphs/g/snapshot-00000002.gsnap", number: 2)
            #expect(snapshot.lastSequence == 7 && snapshot.lastCommitTime > 0)
            #expect(snapshot.graph.changeVersions.version(of: NodeID(rawValue: 2), RelationshipTypeID(rawValue: 0), .incoming) == 7)
            let directory = try openData(data)
            let store = try #require(try directory.graph(named: "g"))
            #expect(store.read { Self.allVersions($0) } == live)
            #expect(store.token() == token, "a clean restart keeps the history")
            #expect(store.baseline(for: token) == .sequence(token.sequence))
            #expect(store.baseline(for: ChangeToken(history: token.history, sequence: token.sequence + 1)) == .unknown,
                    "a token from the future cannot be placed")
            #expect(store.baseline(for: ChangeToken(history: "00000000000000ff", sequence: 1)) == .unknown,
                    "nor one from another history")
        }
    }

    @Test func aStopThatMayHaveLostPublishedCommitsStartsANewHistory() throws {
        try withTemporaryDirectory { data in
            let first: ChangeToken
            do {
                let directory = try openData(data, .init(fsync: .everysec))
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<3)
                first = store.token()
            }
            // As if the process had been killed under everysec: the file still says "open".
            let history = data + "/graphs/g/history"
            let text = String(decoding: try fileBytes(history), as: UTF8.self)
            #expect(text.contains("state closed"))
            try writeFileBytes(history, Array(text.replacingOccurrences(of: "state closed", with: "state open everysec").utf8))
            let directory = try openData(data, .init(fsync: .everysec))
            let store = try #require(try directory.graph(named: "g"))
            let second = store.token()
            #expect(second.history != first.history && second.sequence == first.sequence)
            // Tokens of the old history stay good up to where the two histories part.
            #expect(store.baseline(for: first) == .sequence(first.sequence))
            try addUsers(store, 3..<4)
            #expect(store.baseline(for: ChangeToken(history: first.history, sequence: first.sequence + 1)) == .unknown)
            #expect(store.baseline(for: store.token()) == .sequence(first.sequence + 1))
        }
        // Under `always` nothing is published before it is durable: the history carries on.
        try withTemporaryDirectory { data in
            let first: ChangeToken
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<3)
                first = store.token()
            }
            let history = data + "/graphs/g/history"
            let text = String(decoding: try fileBytes(history), as: UTF8.self)
            try writeFileBytes(history, Array(text.replacingOccurrences(of: "state closed", with: "state open always").utf8))
            do {
                let directory = try openData(data)
                #expect(try directory.graph(named: "g")?.token() == first)
            }
            // An unreadable history file starts a new one rather than guess.
            try writeFileBytes(history, Array("graphd-history 1\nid zz\n".utf8))
            let directory = try openData(data)
            let store = try #require(try directory.graph(named: "g"))
            #expect(store.token().history != first.history && store.baseline(for: first) == .unknown)
        }
    }

    @Test func anInstalledGraphStartsAFreshHistory() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data)
            let old = try directory.createGraph(named: "g")
            try addUsers(old, 0..<3)
            let oldToken = old.token()
            let installed = try directory.installGraph(named: "g", graph: Graph(), replacing: true)
            #expect(installed.token().history != oldToken.history && installed.token().sequence == 0)
            #expect(installed.baseline(for: oldToken) == .unknown)
        }
    }

    @Test func aVersionOneLogReplaysAndIsContinuedInANewSegment() throws {
        try withTemporaryDirectory { data in
            let dir = data + "/graphs/g"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            // A version 1 segment: header with version 1, payloads without a commit time.
            var header = AppendLog.header(segment: 1)
            header[8] = 1
            header.replaceSubrange(28..<32, with: withUnsafeBytes(of: CRC32C.checksum(header[0..<28]).littleEndian, Array.init))
            func v1(_ sequence: UInt64, _ mutations: [Mutation]) -> [UInt8] {
                var payload = MutationCodec.encode(sequence: sequence, commitTime: 0, mutations)
                payload.remove(at: 1)  // the commit time's one zero byte, after a one-byte sequence
                return AppendLog.frame(payload)
            }
            let friend = RelationshipTypeID(rawValue: 0)
            let bytes = header
                + v1(1, [.defineRelationshipType(friend, "FRIEND"), .definePropertyKey(PropertyKeyID(rawValue: 0), "w"),
                         .createNode(NodeID(rawValue: 0), labels: [], properties: []),
                         .createNode(NodeID(rawValue: 1), labels: [], properties: []),
                         .createRelationship(RelationshipID(rawValue: 0), type: friend, from: NodeID(rawValue: 0), to: NodeID(rawValue: 1), properties: [])])
                + v1(2, [.setRelationshipPropertyByID(RelationshipID(rawValue: 0), PropertyKeyID(rawValue: 0), .integer(1))])
            try writeFileBytes(dir + "/log-00000001.glog", bytes)
            let directory = try openData(data)
            let store = try #require(try directory.graph(named: "g"))
            #expect(store.read { $0.relationshipCount } == 1)
            // Record 2 did not say which nodes it touched: nothing before it can be told apart.
            store.read { g in
                #expect(g.changeVersions.floor == 2)
                #expect(g.changeVersions.changed(NodeID(rawValue: 0), after: .sequence(1)))
            }
            try addUsers(store, 0..<1)
            #expect(try graphFiles(data, "g").contains("log-00000002.glog"), "appends go to a version 2 segment")
            let segment = try fileBytes(dir + "/log-00000002.glog")
            #expect(segment[8] == 2)
        }
    }

    /// The index's promise: the sequence it gives for a time is never above the last commit
    /// made strictly before that time, however its points were thinned.
    @Test func aTimeIsNeverPlacedAfterACommitItMayPrecede() {
        var random = SystemRandomNumberGenerator()
        for capacity in [4, 16, 1 << 16] {
            var index = CommitTimeIndex(capacity: capacity)
            var commits: [(sequence: UInt64, time: UInt64)] = []
            var time: UInt64 = 1_000_000
            for sequence in 1...UInt64(2000) {
                time += UInt64.random(in: 0...3, using: &random)
                commits.append((sequence, time))
                index.note(sequence: sequence, time: time)
            }
            let now = time + 10
            var placed = 0
            for probe in stride(from: UInt64(999_990), through: now + 20, by: 1) {
                let truth = commits.last { $0.time < probe }?.sequence ?? 0
                guard let answer = index.sequence(before: probe, now: now) else { continue }
                placed += 1
                #expect(answer <= truth, "time \(probe): placed after commit \(truth) (answer \(answer))")
            }
            #expect(placed > 0)
            #expect(index.sequence(before: now + 1, now: now) == nil, "the future cannot be placed")
            #expect(index.sequence(before: time + 1, now: now) == 2000)
            if capacity == 1 << 16 {
                // Unthinned, the answer is exact wherever a point exists.
                #expect(index.sequence(before: commits[1000].time + 1, now: now)
                        == commits.last { $0.time <= commits[1000].time }?.sequence)
            }
        }
    }

    @Test func tokensParseAndPrint() {
        let token = ChangeToken(history: "00ff00ff00ff00ff", sequence: 42)
        #expect(token.description == "00ff00ff00ff00ff-42")
        #expect(ChangeToken("00ff00ff00ff00ff-42") == token)
        for bad in ["", "-1", "00ff-", "00ff-x", "XYZ-1", "00ff00ff00ff00ff-99999999999999999999999", "2026-04-01T10:00:00Z"] {
            #expect(ChangeToken(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct OlderSnapshotTests {
    /// `bytes` (a version 2 snapshot) as version 1 wrote it: the change sections left out.
    static func versionOne(_ bytes: [UInt8]) -> [UInt8] {
        var sections: [UInt8] = []
        var offset = SnapshotFormat.headerLength
        while offset < bytes.count {
            let length = Int(bytes.littleEndian(UInt64.self, at: offset + 8))
            let end = offset + SnapshotFormat.sectionHeaderLength + length
            if bytes[offset] != SnapshotFormat.SectionKind.changeClock.rawValue,
               bytes[offset] != SnapshotFormat.SectionKind.changeVersions.rawValue {
                sections += bytes[offset..<end]
            }
            offset = end
        }
        var header = SnapshotFormat.header(number: bytes.littleEndian(UInt64.self, at: 16),
                                           lastSequence: bytes.littleEndian(UInt64.self, at: 24),
                                           fileLength: SnapshotFormat.headerLength + sections.count)
        header[8] = 1
        header.replaceSubrange(44..<48, with: withUnsafeBytes(of: CRC32C.checksum(header[0..<44]).littleEndian, Array.init))
        return header + sections
    }

    @Test func aVersionOneSnapshotLoadsWithEveryVersionAtItsLastSequence() throws {
        try withTemporaryDirectory { data in
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<4)
                try store.compact()
            }
            let path = data + "/graphs/g/snapshot-00000002.gsnap"
            try writeFileBytes(path, Self.versionOne(try fileBytes(path)))
            let directory = try openData(data)
            let store = try #require(try directory.graph(named: "g"))
            #expect(userIDs(store) == [0, 1, 2, 3])
            store.read { g in
                #expect(g.changeVersions.floor == 4)
                #expect(g.changeVersions.changed(NodeID(rawValue: 0), after: .sequence(3)))
                #expect(!g.changeVersions.changed(NodeID(rawValue: 0), after: .sequence(4)))
            }
        }
    }
}
