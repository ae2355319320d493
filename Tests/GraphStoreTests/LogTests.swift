// LogTests.swift — the append-only log: round trip, torn tails, corruption, versions and
// failed appends.

import Testing
import Foundation
@testable import GraphStore
import GraphTestSupport

@Suite struct LogTests {
    /// Writes a few transactions through a DataDirectory; returns the log path and the dump.
    func writeSampleGraph(in data: String) throws -> (log: String, dump: String) {
        let directory = try DataDirectory(path: data)
        let store = try directory.createGraph(named: "social")
        try store.write { g in
            let user = g.internLabel("User"), friend = g.internRelationshipType("FRIEND")
            let id = g.internPropertyKey("id"), name = g.internPropertyKey("name")
            try g.createIndex(label: user, key: id, unique: true)
            let ann = try g.createNode(labels: [user], properties: [(id, .integer(1)), (name, .string("Ann"))])
            let bo = try g.createNode(labels: [user], properties: [(id, .integer(2)), (name, .string("Bo"))])
            _ = try g.createRelationship(type: friend, from: ann, to: bo, properties: [(g.internPropertyKey("since"), .integer(2020))])
        }
        try store.write { g in
            let user = g.labelID(named: "User")!, id = g.propertyKeyID(named: "id")!
            let cy = try g.createNode(labels: [user], properties: [(id, .double(3.5))])
            _ = try g.createRelationship(type: g.relationshipTypeID(named: "FRIEND")!, from: cy, to: NodeID(0), properties: [])
        }
        try store.write { g in try g.deleteNode(NodeID(1), detach: true) }
        // A failed write (rolled back, never logged) in between must not shift later ids.
        _ = try? store.write { g in
            _ = try g.createNode(labels: [g.internLabel("Ghost")], properties: [])
            try g.deleteNode(NodeID(999), detach: false)
        }
        try store.write { g in _ = try g.createNode(labels: [], properties: [(g.propertyKeyID(named: "name")!, .string("reuse"))]) }
        try store.write { _ in }  // changes nothing: writes no record
        return (data + "/graphs/social/log-00000001.glog", store.read { $0.dump() })
    }

    /// A log file's bytes without the zeros preallocated after its records (AppendLog.swift):
    /// the header and the records, as a log written without preallocation would hold them.
    func logRecordBytes(_ path: String) throws -> [UInt8] {
        let bytes = try fileBytes(path)
        var offset = AppendLog.headerLength
        while offset + AppendLog.recordHeaderLength <= bytes.count {
            let length = Int(bytes.littleEndian(UInt32.self, at: offset))
            guard length > 0, offset + AppendLog.recordHeaderLength + length <= bytes.count else { break }
            offset += AppendLog.recordHeaderLength + length
        }
        return Array(bytes[0..<min(offset, bytes.count)])
    }

    /// The dump of the graph a log holds when it ends at `offset`: the graph as it was before
    /// the record there.
    func graphBefore(_ offset: Int, of log: [UInt8]) throws -> String {
        try withTemporaryDirectory { other in
            try FileManager.default.createDirectory(atPath: other + "/graphs/social", withIntermediateDirectories: true)
            try writeFileBytes(other + "/graphs/social/log-00000001.glog", Array(log[0..<offset]))
            return try #require(try DataDirectory(path: other).graph(named: "social")).read { $0.dump() }
        }
    }

    /// Start offsets of the records in a log file.
    func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = AppendLog.headerLength
        while offset < bytes.count {
            offsets.append(offset)
            offset += AppendLog.recordHeaderLength + Int(bytes.littleEndian(UInt32.self, at: offset))
        }
        return offsets
    }

    @Test func reopenedGraphIsIdenticalIncludingIds() throws {
        try withTemporaryDirectory { data in
            let (log, dump) = try writeSampleGraph(in: data)
            #expect(recordOffsets(try logRecordBytes(log)).count == 4)
            let after: String = try {
                let reopened = try DataDirectory(path: data)
                let store = try #require(try reopened.graph(named: "social"))
                #expect(store.read { $0.dump() } == dump)
                #expect(reopened.recoveryMessages.isEmpty)
                // New writes continue the log after the replayed records.
                try store.write { g in _ = try g.createNode(labels: [], properties: []) }
                return store.read { $0.dump() }
            }()
            let again = try DataDirectory(path: data)
            #expect(try again.graph(named: "social")?.read { $0.dump() } == after)
            #expect(recordOffsets(try logRecordBytes(log)).count == 5)
        }
    }

    @Test func tornLastRecordIsCutOffAtEveryOffset() throws {
        try withTemporaryDirectory { data in
            let (log, _) = try writeSampleGraph(in: data)
            let full = try logRecordBytes(log)
            let last = recordOffsets(full).last!
            let expected = try graphBefore(last, of: full)
            for cut in last + 1..<full.count {
                try writeFileBytes(log, Array(full[0..<cut]))
                let directory = try DataDirectory(path: data)
                let store = try #require(try directory.graph(named: "social"))
                #expect(store.read { $0.dump() } == expected)
                #expect(directory.recoveryMessages == [
                    "graphd: social: torn record at offset \(last) of \(log) cut off (\(cut - last) bytes dropped)"])
                #expect(try fileBytes(log) == Array(full[0..<last]))
            }
        }
    }

    @Test func checksumFailingLastRecordIsCutOff() throws {
        try withTemporaryDirectory { data in
            let (log, _) = try writeSampleGraph(in: data)
            var bytes = try logRecordBytes(log)
            let last = recordOffsets(bytes).last!
            bytes[bytes.count - 1] ^= 0x01
            try writeFileBytes(log, bytes)
            let directory = try DataDirectory(path: data)
            #expect(try directory.graph(named: "social")?.read { $0.nodeCount } == 2)  // the last record added a node
            #expect(directory.recoveryMessages == [
                "graphd: social: torn record at offset \(last) of \(log) cut off (\(bytes.count - last) bytes dropped)"])
            #expect(try fileBytes(log).count == last)
        }
    }

    @Test func aZeroFilledTailIsThePreallocatedEndOfTheLog() throws {
        try withTemporaryDirectory { data in
            let (log, dump) = try writeSampleGraph(in: data)
            // As written: the records, then the zeros the log wrote ahead of them.
            let written = try fileBytes(log)
            let records = try logRecordBytes(log)
            #expect(written.count % AppendLog.preallocationChunk == 0 && written.count > records.count)
            #expect(written[records.count...].allSatisfy { $0 == 0 })
            // Zeros after the records, however many: the end of the log, kept, nothing reported.
            for zeros in [written.count - records.count, 1, 100] {
                try writeFileBytes(log, records + [UInt8](repeating: 0, count: zeros))
                let directory = try DataDirectory(path: data)
                let store = try #require(try directory.graph(named: "social"))
                #expect(store.read { $0.dump() } == dump)
                #expect(directory.recoveryMessages.isEmpty)
                #expect(try fileBytes(log) == records + [UInt8](repeating: 0, count: zeros))
            }
            // The next record goes right after the last one, over the zeros.
            let nodes = try {
                let directory = try DataDirectory(path: data)
                let store = try #require(try directory.graph(named: "social"))
                try store.write { g in _ = try g.createNode(labels: [g.internLabel("Late")], properties: []) }
                return store.read { $0.nodeCount }
            }()
            let after = try logRecordBytes(log)
            #expect(Array(after[0..<records.count]) == records && recordOffsets(after).count == recordOffsets(records).count + 1)
            #expect(try DataDirectory(path: data).graph(named: "social")?.read { $0.nodeCount } == nodes)
        }
    }

    /// A crash mid-append into a preallocated segment leaves part of the record followed by
    /// zeros: at every offset of the last record, that is a torn tail, cut, with every earlier
    /// write kept; a record of which nothing reached the disk leaves only zeros, the log's end.
    @Test func aTornRecordBeforeTheZerosIsCutAtEveryOffset() throws {
        try withTemporaryDirectory { data in
            let (log, _) = try writeSampleGraph(in: data)
            let full = try logRecordBytes(log)
            let last = recordOffsets(full).last!
            let expected = try graphBefore(last, of: full)
            let padding = [UInt8](repeating: 0, count: 4096)
            for cut in last..<full.count {
                try writeFileBytes(log, Array(full[0..<cut]) + padding)
                let directory = try DataDirectory(path: data)
                let store = try #require(try directory.graph(named: "social"))
                #expect(store.read { $0.dump() } == expected)
                let written = full[last..<cut]
                if written.allSatisfy({ $0 == 0 }) {
                    #expect(directory.recoveryMessages.isEmpty, "cut \(cut)")
                } else {
                    #expect(directory.recoveryMessages == [
                        "graphd: social: torn record at offset \(last) of \(log) cut off (\(cut - last + padding.count) bytes dropped)"])
                    #expect(try fileBytes(log) == Array(full[0..<last]))
                }
            }
        }
    }

    @Test func flippedByteInAMiddleRecordRefusesToOpen() throws {
        try withTemporaryDirectory { data in
            let (log, _) = try writeSampleGraph(in: data)
            let bytes = try logRecordBytes(log)
            let offsets = recordOffsets(bytes)
            for victim in [offsets[1] + 2, offsets[1] + 5, offsets[1] + 12] {  // length, checksum, payload
                var damaged = bytes
                damaged[victim] ^= 0x40
                try writeFileBytes(log, damaged)
                let directory = try DataDirectory(path: data)
                do throws(StoreError) {
                    _ = try directory.graph(named: "social")
                    Issue.record("opened a log with a corrupt middle record")
                } catch {
                    #expect(error.kind == .corruptLog)
                    #expect(error.path == log && error.offset == offsets[1])
                    #expect(error.message.contains("corrupt record at offset \(offsets[1]) of \(log)"))
                    #expect(error.message.contains("truncate"))
                }
                #expect(try fileBytes(log) == damaged)  // nothing was cut
            }
        }
    }

    /// The log-replay side of the snapshot fuzz finding: a record (hand-made here, as a damaged
    /// or hostile file would hold it) creating a node or relationship with an id near 2^32 would
    /// make replay allocate billions of empty id slots. It is refused as damage instead, naming
    /// the file, the record's offset and the id, and nothing is allocated for it.
    @Test(arguments: ["node", "relationship"])
    func aLogRecordNamingAnIDNearTwoToThe32IsRefusedNotAllocated(entity: String) throws {
        try withTemporaryDirectory { data in
            do { _ = try openData(data).createGraph(named: "g") }
            let log = data + "/graphs/g/" + AppendLog.segmentFileName(1)
            let huge: UInt32 = 4_000_000_000
            let mutations: [Mutation] = entity == "node"
                ? [.createNode(NodeID(rawValue: huge), labels: [], properties: [])]
                : [.defineRelationshipType(RelationshipTypeID(0), "R"),
                   .createNode(NodeID(0), labels: [], properties: []), .createNode(NodeID(1), labels: [], properties: []),
                   .createRelationship(RelationshipID(rawValue: huge), type: RelationshipTypeID(0), from: NodeID(0), to: NodeID(1),
                                       properties: [])]
            let bytes = try logRecordBytes(log)
            #expect(bytes.count == AppendLog.headerLength, "a new graph's segment holds only its header")
            try writeFileBytes(log, bytes + AppendLog.frame(MutationCodec.encode(sequence: 1, mutations)))
            // A 64 MiB budget, as the fuzz target uses: the same refusal on any machine (the
            // default budget, this machine's memory, holds fewer than 2^32 slots of either kind).
            let error = expectStoreError { _ = try openData(data, .init(slotMemoryLimit: 64 << 20)).graph(named: "g") }
            #expect(error?.kind == .corruptLog)
            #expect(error?.path == log && error?.offset == AppendLog.headerLength, "\(String(describing: error))")
            #expect(error?.message.contains("\(entity) id \(huge) is beyond the ids this machine can hold") == true,
                    "\(String(describing: error))")
            #expect(error?.message.contains(log) == true, "\(String(describing: error))")
            // --repair cuts the record off, whole: none of its transaction is applied.
            let repaired = try #require(try openData(data, .init(repair: true, slotMemoryLimit: 64 << 20)).graph(named: "g"))
            #expect(repaired.read { $0.nodeCount == 0 && $0.relationshipCount == 0 })
        }
    }

    @Test func unknownFormatVersionIsRefused() throws {
        try withTemporaryDirectory { data in
            let (log, _) = try writeSampleGraph(in: data)
            var bytes = try logRecordBytes(log)
            bytes[8] = 9
            try writeFileBytes(log, bytes)
            let directory = try DataDirectory(path: data)
            #expect(throws: StoreError(.unsupportedVersion,
                "\(log) has log format version 9 (at offset 8), this graphd reads versions 1 to 2; use a graphd release that reads version 9",
                path: log, offset: 8)) {
                _ = try directory.graph(named: "social")
            }
        }
    }

    @Test func failedAppendRollsBackAndLeavesTheLogValid() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let path = data + "/graphs/g/" + AppendLog.segmentFileName(1)
            let dump: String = try {
                let directory = try DataDirectory(path: data, options: .init(), events: nil, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                try store.write { g in _ = try g.createNode(labels: [g.internLabel("A")], properties: []) }
                let before = store.read { $0.dump() }
                for fault in [FaultyFileSystem.Fault.shortWriteThenNoSpace, .writeIOError, .syncFails] {
                    faults.inject(fault, where: ".glog")
                    #expect(throws: StoreError.self) {
                        try store.write { g in _ = try g.createNode(labels: [g.internLabel("B")], properties: []) }
                    }
                    #expect(store.read { $0.dump() } == before)
                    faults.heal()
                }
                try store.write { g in _ = try g.createNode(labels: [g.internLabel("C")], properties: []) }
                return store.read { $0.dump() }
            }()
            // The file holds exactly the two good records and replays to the same graph.
            var graph = Graph(), sequence: UInt64 = 0, times = CommitTimeIndex()
            let reader = try PosixFile(openExisting: path)
            let (outcome, _) = try LogRecovery.replay(reader, segment: 1, graphName: "g", into: &graph, sequence: &sequence,
                                                      times: &times)
            guard case .clean = outcome else { Issue.record("log not clean: \(outcome)"); return }
            #expect(sequence == 2)
            #expect(graph.dump() == dump)
        }
    }
}
