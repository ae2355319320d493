// SnapshotTests.swift — compaction and snapshots: a restart loads the newest snapshot and
// replays only the log after it; writers keep going during compaction; a crash (or failure)
// at any step of it loses nothing; damaged or foreign snapshots refuse to open, with --repair.

import Foundation
import Synchronization
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct SnapshotTests {
    /// A graph with every kind of value, deleted ids (holes), indexes, relationship properties
    /// and a self loop, written through the log.
    func writeRichGraph(_ store: GraphStore) throws {
        try store.write { g in
            let user = g.internLabel("User"), admin = g.internLabel("Admin"), friend = g.internRelationshipType("FRIEND")
            let id = g.internPropertyKey("id"), misc = g.internPropertyKey("misc")
            try g.createIndex(label: user, key: id, unique: true)
            var nodes: [NodeID] = []
            for n in 0..<20 {
                nodes.append(try g.createNode(labels: n % 3 == 0 ? [user, admin] : [user], properties: [(id, .integer(Int64(n)))]))
            }
            _ = try g.createNode(labels: [], properties: [
                (misc, .list([.null, .bool(true), .double(-0.5), .string("é\u{0}x"), .map(ValueMap([("k", Value.integer(-7))]))])),
            ])
            for n in 0..<19 {
                _ = try g.createRelationship(type: friend, from: nodes[n], to: nodes[n + 1],
                                             properties: n % 4 == 0 ? [(g.internPropertyKey("since"), .integer(2000 + Int64(n)))] : [])
            }
            _ = try g.createRelationship(type: g.internRelationshipType("SELF"), from: nodes[5], to: nodes[5], properties: [])
        }
        try store.write { g in
            try g.deleteNode(NodeID(3), detach: true)
            try g.deleteNode(NodeID(19), detach: true)
            try g.createIndex(label: g.labelID(named: "Admin")!, key: g.propertyKeyID(named: "id")!, unique: false)
        }
    }

    @Test func aSnapshotRestoresTheGraphWithItsIdsAndTheLogAfterItReplays() throws {
        try withTemporaryDirectory { data in
            let expected: String = try {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try writeRichGraph(store)
                try store.compact()
                try addUsers(store, 100..<103)  // after the snapshot: in log segment 2
                return store.read { $0.logicalDump() }
            }()
            #expect(try graphFiles(data, "g") == ["history", "log-00000002.glog", "snapshot-00000002.gsnap"])
            let after: String = try {
                let directory = try openData(data)
                let store = try #require(try directory.graph(named: "g"))
                #expect(store.read { $0.logicalDump() } == expected)
                #expect(directory.recoveryMessages.isEmpty)
                // New writes go on in segment 2, and a second compaction replaces the first snapshot.
                try addUsers(store, [200])
                try store.compact()
                #expect(try graphFiles(data, "g") == ["history", "log-00000003.glog", "snapshot-00000003.gsnap"])
                return store.read { $0.logicalDump() }
            }()
            #expect(try openData(data).graph(named: "g")?.read { $0.logicalDump() } == after)
        }
    }

    @Test func writersAndReadersKeepGoingDuringCompaction() throws {
        try withTemporaryDirectory { data in
            let acknowledged = Mutex<[Int64]>([])
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<200)
                acknowledged.withLock { $0 = Array(0..<200) }
                let writer = Thread {
                    for n in 1000..<1300 {
                        do {
                            try addUsers(store, [n])
                            acknowledged.withLock { $0.append(Int64(n)) }
                        } catch { Issue.record("write \(n) failed during compaction: \(error)") }
                    }
                }
                writer.start()
                for _ in 0..<5 {
                    try store.compact()
                    #expect(store.read { $0.nodeCount } >= 200)  // readers are not blocked out
                }
                while !writer.isFinished { usleep(1000) }  // wait for the writer thread to end
                store.close()
            }
            let store = try #require(try openData(data).graph(named: "g"))
            #expect(userIDs(store) == acknowledged.withLock { $0 }.sorted())
        }
    }

    /// A compaction that fails at `fault` (standing in for a crash at that step) loses nothing:
    /// the store keeps working, and a restart has every write.
    @Test(arguments: [
        (FaultyFileSystem.Fault.renameFails, ".gsnap"),         // snapshot written, never renamed into place
        (.syncFails, ".gsnap.tmp"),                             // snapshot fsync fails
        (.shortWriteThenNoSpace, ".gsnap.tmp"),                 // disk full while writing the snapshot
        (.noSpace, ".gsnap.tmp"),
        (.renameFails, ".glog"),                                // the new segment cannot be created
        (.removeFails, ".glog"),                                // old segments cannot be removed
        (.directorySyncFails, "/graphs/g"),                     // directory fsync after the rename fails
    ])
    func aFailedCompactionLosesNothing(fault: FaultyFileSystem.Fault, path: String) throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let expected: [Int64] = try {
                let directory = try openData(data, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<10)
                try store.compact()
                try addUsers(store, 10..<20)
                faults.inject(fault, where: path)
                do { try store.compact() } catch let error as StoreError {
                    #expect(error.path != nil, "the error names a file: \(error)")
                }
                faults.heal()
                try addUsers(store, 20..<25)
                #expect(userIDs(store) == Array(0..<25))
                return userIDs(store)
            }()
            #expect(try graphFiles(data, "g").allSatisfy { !$0.hasSuffix(".tmp") }, "no temporary file is left")
            let reopened = try openData(data)
            #expect(userIDs(try #require(try reopened.graph(named: "g"))) == expected)
            #expect(try graphFiles(data, "g").filter { $0.hasPrefix("snapshot-") }.count == 1)
        }
    }

    @Test func leftoversOfACrashedCompactionAreIgnoredAndRemoved() throws {
        try withTemporaryDirectory { data in
            let expected: String = try {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try writeRichGraph(store)
                try store.compact()
                try addUsers(store, 100..<103)
                return store.read { $0.logicalDump() }
            }()
            let dir = data + "/graphs/g/"
            // A half-written snapshot of a compaction that crashed before its rename, and an
            // old segment a crash kept from being removed.
            try writeFileBytes(dir + "snapshot-00000003.gsnap.tmp", Array("GRAPHDSN half".utf8))
            try writeFileBytes(dir + "log-00000001.glog", AppendLog.header(segment: 1))
            let directory = try openData(data)
            #expect(try directory.graph(named: "g")?.read { $0.logicalDump() } == expected)
            #expect(try graphFiles(data, "g") == ["history", "log-00000002.glog", "snapshot-00000002.gsnap"])
        }
    }

    @Test func automaticCompactionRunsWhenTheLogOutgrowsTheSnapshot() throws {
        try withTemporaryDirectory { data in
            let options = DataDirectory.Options(compactionRatio: 1, compactionMinimumBytes: 2048)
            do {
            let directory = try openData(data, options)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, 0..<200)   // about 6 KiB of log: past the minimum at least once
            // The compaction runs on a background queue: wait for it (bounded).
            let deadline = Date().addingTimeInterval(20)
            func hasSnapshot() throws -> Bool { try graphFiles(data, "g").contains { $0.hasPrefix("snapshot-") } }
            while try (store.compactionScheduled.load(ordering: .acquiring) || !hasSnapshot()) && Date() < deadline {
                usleep(2000)
            }
            #expect(try graphFiles(data, "g").contains { $0.hasPrefix("snapshot-") })
            let logBytes = store.read { $0.nodeCount } == 200 ? store.lock.withReadLock { store.log!.bytesSinceSnapshot } : -1
            #expect(logBytes < 2048 + 200, "the log after the snapshot was cut down (\(logBytes) bytes)")
            }
            #expect(userIDs(try #require(try openData(data).graph(named: "g"))) == Array(0..<200))
        }
    }

    @Test func aDamagedSnapshotRefusesToOpenAndRepairFallsBackToTheLog() throws {
        try withTemporaryDirectory { data in
            // Segment 1 is kept (its removal fails), so the log the snapshot replaced survives.
            let faults = FaultyFileSystem()
            let expected: [Int64] = try {
                let directory = try openData(data, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<5)
                faults.inject(.removeFails, where: "log-00000001")
                try store.compact()
                faults.heal()
                try addUsers(store, 5..<8)
                return userIDs(store)
            }()
            let snapshot = data + "/graphs/g/snapshot-00000002.gsnap"
            var bytes = try fileBytes(snapshot)
            bytes[bytes.count - 3] ^= 0xFF  // inside the end section
            try writeFileBytes(snapshot, bytes)
            let error = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(error?.kind == .corruptSnapshot)
            #expect(error?.path == snapshot)
            #expect(error?.message.contains("snapshot \(snapshot) is damaged at offset") == true, "\(String(describing: error))")
            #expect(error?.message.contains("--repair") == true)
            let repaired = try openData(data, .init(repair: true))
            #expect(userIDs(try #require(try repaired.graph(named: "g"))) == expected)
            #expect(repaired.recoveryMessages.first?.contains("set the damaged snapshot") == true)
            #expect(FileManager.default.fileExists(atPath: snapshot + ".damaged"))
        }
    }

    @Test func aDamagedSnapshotWithoutTheLogItReplacedRefusesEvenWithRepair() throws {
        try withTemporaryDirectory { data in
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<5)
                try store.compact()
            }
            let snapshot = data + "/graphs/g/snapshot-00000002.gsnap"
            var bytes = try fileBytes(snapshot)
            bytes[SnapshotFormat.headerLength + 20] ^= 0x01
            try writeFileBytes(snapshot, bytes)
            for repair in [false, true] {
                let error = expectStoreError { _ = try openData(data, .init(repair: repair)).graph(named: "g") }
                #expect(error?.kind == .corruptSnapshot)
                #expect(error?.offset == SnapshotFormat.headerLength, "the offset of the damaged section")
                #expect(error?.message.contains("restore the graph directory from a backup") == true, "\(String(describing: error))")
            }
        }
    }

    /// A snapshot file made by hand: the given sections, framed and checksummed, under a header.
    static func handMadeSnapshot(number: UInt64, _ sections: [(SnapshotFormat.SectionKind, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (kind, payload) in sections {
            body += [kind.rawValue, 0, 0, 0]
            body.appendLittleEndian(CRC32C.checksum(payload))
            body.appendLittleEndian(UInt64(payload.count))
            body += payload
        }
        return SnapshotFormat.header(number: number, lastSequence: 0, fileLength: SnapshotFormat.headerLength + body.count) + body
    }

    @Test func aSnapshotNamingAnIDNearTwoToThe32IsRefusedNotAllocated() throws {
        // Found by fuzzing: one node with id 4,000,000,000 would make the loader create four
        // billion empty slots. The id is refused as damage, naming the file and the section.
        try withTemporaryDirectory { data in
            do { _ = try openData(data).createGraph(named: "g") }
            var nodes = ByteWriter()
            for field: UInt64 in [1, 4_000_000_000, 0, 0] { nodes.varint(field) }   // one node: id, no labels, no properties
            let snapshot = data + "/graphs/g/" + SnapshotFormat.fileName(1)
            try writeFileBytes(snapshot, Self.handMadeSnapshot(number: 1, [(.names, [0, 0, 0]), (.nodes, nodes.bytes), (.end, [1, 0])]))
            let error = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(error?.kind == .corruptSnapshot)
            #expect(error?.path == snapshot)
            #expect(error?.offset == SnapshotFormat.headerLength + SnapshotFormat.sectionHeaderLength + 3, "the nodes section")
            #expect(error?.message.contains("node id 4000000000 is beyond the ids this machine can hold") == true, "\(String(describing: error))")
        }
    }

    @Test(arguments: [UInt64.max, UInt64(Int64.max)])
    func anIDGapPastInt64IsDamageNotATrap(gap: UInt64) throws {
        // Found by fuzzing: a node id gap over Int64.max trapped converting or adding it.
        try withTemporaryDirectory { data in
            do { _ = try openData(data).createGraph(named: "g") }
            var nodes = ByteWriter()
            for field: UInt64 in [2, 0, 0, 0, gap, 0, 0] { nodes.varint(field) }   // node 0, then node 0 + 1 + gap
            let snapshot = data + "/graphs/g/" + SnapshotFormat.fileName(1)
            try writeFileBytes(snapshot, Self.handMadeSnapshot(number: 1, [(.names, [0, 0, 0]), (.nodes, nodes.bytes), (.end, [2, 0])]))
            let error = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(error?.kind == .corruptSnapshot)
            #expect(error?.message.contains("an id gap of \(gap) is out of range") == true, "\(String(describing: error))")
        }
    }

    @Test func aNodeIDOfInt64MaxIsRefusedNotATrap() throws {
        // Found by fuzzing: a gap that lands exactly on Int64.max passes the gap check, and the
        // refusal's message must not trap computing the slots id + 1 would need.
        try withTemporaryDirectory { data in
            do { _ = try openData(data).createGraph(named: "g") }
            var nodes = ByteWriter()
            for field: UInt64 in [2, 0, 0, 0, UInt64(Int64.max - 1), 0, 0] { nodes.varint(field) }   // node 0, then node Int64.max
            let snapshot = data + "/graphs/g/" + SnapshotFormat.fileName(1)
            try writeFileBytes(snapshot, Self.handMadeSnapshot(number: 1, [(.names, [0, 0, 0]), (.nodes, nodes.bytes), (.end, [2, 0])]))
            let error = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(error?.kind == .corruptSnapshot)
            #expect(error?.message.contains("node id \(Int64.max) is beyond the ids this machine can hold") == true, "\(String(describing: error))")
        }
        #expect(IDSlotLimit.refusal(entity: "relationship", id: .max, limit: 10, bytesPerSlot: 16).contains("GiB"))
    }

    @Test func idsBeyondTheSlotMemoryLimitAreRefusedInSnapshotsAndInTheLog() throws {
        try withTemporaryDirectory { data in
            do {
                let directory = try openData(data)
                try addUsers(try directory.createGraph(named: "g"), 0..<6)   // node ids 0...5, one log record each
            }
            // Room for 4 node slots: replaying the record that creates node 4 is refused.
            let tight = DataDirectory.Options(slotMemoryLimit: 4 * IDSlotLimit.nodeSlotBytes)
            let replayed = expectStoreError { _ = try openData(data, tight).graph(named: "g") }
            #expect(replayed?.kind == .corruptLog)
            #expect(replayed?.message.contains("node id 4 is beyond the ids this machine can hold (below 4)") == true, "\(String(describing: replayed))")
            // The same graph from a snapshot: the nodes section is refused.
            do {
                let directory = try openData(data)
                try #require(try directory.graph(named: "g")).compact()
            }
            let fromSnapshot = expectStoreError { _ = try openData(data, tight).graph(named: "g") }
            #expect(fromSnapshot?.kind == .corruptSnapshot)
            #expect(fromSnapshot?.message.contains("node id 4 is beyond") == true, "\(String(describing: fromSnapshot))")
            // With the default limit (this machine's memory) it opens with every user.
            let directory = try openData(data)
            #expect(userIDs(try #require(try directory.graph(named: "g"))) == Array(0..<6))
        }
    }

    @Test func aSnapshotOfAnotherVersionIsRefused() throws {
        try withTemporaryDirectory { data in
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<2)
                try store.compact()
            }
            let snapshot = data + "/graphs/g/snapshot-00000002.gsnap"
            var bytes = try fileBytes(snapshot)
            bytes[8] = 9
            try writeFileBytes(snapshot, bytes)
            let error = expectStoreError { _ = try openData(data, .init(repair: true)).graph(named: "g") }
            #expect(error == StoreError(.unsupportedVersion,
                "\(snapshot) has snapshot format version 9 (at offset 8), this graphd reads versions 1 to 2; use a graphd release that reads version 9",
                path: snapshot, offset: 8))
        }
    }

    @Test func aMissingSegmentRefusesToOpen() throws {
        try withTemporaryDirectory { data in
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, 0..<2)
                try store.compact()
                try addUsers(store, 2..<4)
                try store.compact()
                try addUsers(store, 4..<6)
            }
            // Without snapshot 3, replay would have to start at segment 1, which compaction removed.
            try FileManager.default.removeItem(atPath: data + "/graphs/g/snapshot-00000003.gsnap")
            let error = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(error?.kind == .corruptLog)
            #expect(error?.message.contains("log-00000001.glog is missing") == true, "\(String(describing: error))")
        }
    }
}
