// RepairTests.swift — damage that is not a torn tail refuses to open, naming file and offset;
// --repair truncates at the last good record, keeps a copy of every byte it cut and moves later
// segments aside, and the graph opens with every record before the damage.

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct RepairTests {
    /// Start offsets of the records in a log segment.
    func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = AppendLog.headerLength
        while offset + AppendLog.recordHeaderLength <= bytes.count {
            offsets.append(offset)
            offset += AppendLog.recordHeaderLength + Int(bytes.littleEndian(UInt32.self, at: offset))
        }
        return offsets
    }

    /// Users 0..<5 in segment 1 (kept: the compaction's removal fails), 5..<8 in segment 2.
    func twoSegments(_ data: String) throws {
        let faults = FaultyFileSystem()
        let directory = try openData(data, .init(compactionRatio: 0), fileSystem: faults)
        let store = try directory.createGraph(named: "g")
        try addUsers(store, 0..<5)
        faults.inject(.removeFails, where: "log-00000001")
        try store.compact()
        try addUsers(store, 5..<8)
        // Leave segment 1 and no snapshot: as if the graph had been written as two segments.
        try FileManager.default.removeItem(atPath: data + "/graphs/g/snapshot-00000002.gsnap")
    }

    @Test func aCorruptMiddleRecordRefusesThenRepairCutsAtTheLastGoodRecord() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data)
            let store = try directory.createGraph(named: "g")
            try addUsers(store, 0..<6)
            store.close()
            _ = consume directory
            let log = data + "/graphs/g/log-00000001.glog"
            var bytes = try LogTests().logRecordBytes(log)
            let offsets = recordOffsets(bytes)
            bytes[offsets[3] + 10] ^= 0x20  // record 4 of 6 (user 3)
            try writeFileBytes(log, bytes)

            let refused = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(refused?.kind == .corruptLog)
            #expect(refused?.path == log && refused?.offset == offsets[3])
            #expect(refused?.message.contains("corrupt record at offset \(offsets[3]) of \(log) (a valid record follows at offset \(offsets[4]))") == true,
                    "\(String(describing: refused))")
            #expect(refused?.message.contains("--repair") == true)
            #expect(try LogTests().logRecordBytes(log) == bytes, "nothing is cut without --repair")

            let repaired = try openData(data, .init(repair: true))
            #expect(userIDs(try #require(try repaired.graph(named: "g"))) == [0, 1, 2])
            #expect(try LogTests().logRecordBytes(log) == Array(bytes[0..<offsets[3]]))
            let kept = try graphFiles(data, "g").filter { $0.hasPrefix("log-00000001.glog.cut-") }
            #expect(kept.count == 1)
            #expect(try fileBytes(data + "/graphs/g/" + kept[0]) == Array(bytes[offsets[3]...]), "every cut byte is kept")
            #expect(repaired.recoveryMessages.count == 1)
            #expect(repaired.recoveryMessages.first?.contains("--repair cut \(log) at offset \(offsets[3])") == true)
            // The repaired graph takes writes again.
            try addUsers(try #require(try repaired.graph(named: "g")), [9])
        }
    }

    @Test func damageInAnOlderSegmentMovesTheLaterSegmentsAside() throws {
        try withTemporaryDirectory { data in
            try twoSegments(data)
            let first = data + "/graphs/g/log-00000001.glog"
            var bytes = try LogTests().logRecordBytes(first)
            let offsets = recordOffsets(bytes)
            bytes.removeLast(3)  // a torn end of an OLDER segment is damage, not a crash's tail
            try writeFileBytes(first, bytes)
            let refused = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(refused?.offset == offsets[4])
            #expect(refused?.message.contains("log-00000002.glog") == true, "the later segment is named: \(String(describing: refused))")

            let repaired = try openData(data, .init(repair: true))
            #expect(userIDs(try #require(try repaired.graph(named: "g"))) == [0, 1, 2, 3])
            let files = try graphFiles(data, "g")
            #expect(files.contains { $0.hasPrefix("log-00000002.glog.cut-") })
            #expect(!files.contains("log-00000002.glog"))
        }
    }

    @Test func aSequenceGapIsDamage() throws {
        try withTemporaryDirectory { data in
            try twoSegments(data)
            // Drop segment 1's last record: segment 2 then starts with a gap in the sequence.
            let first = data + "/graphs/g/log-00000001.glog"
            let bytes = try LogTests().logRecordBytes(first)
            try writeFileBytes(first, Array(bytes[0..<recordOffsets(bytes)[4]]))
            let refused = expectStoreError { _ = try openData(data).graph(named: "g") }
            #expect(refused?.path == data + "/graphs/g/log-00000002.glog")
            #expect(refused?.offset == AppendLog.headerLength)
            #expect(refused?.message.contains("sequence number 6") == true, "\(String(describing: refused))")
        }
    }

    @Test func anUnknownLogVersionRefusesEvenWithRepair() throws {
        try withTemporaryDirectory { data in
            do {
                let directory = try openData(data)
                try addUsers(try directory.createGraph(named: "g"), [1])
            }
            let log = data + "/graphs/g/log-00000001.glog"
            var bytes = try LogTests().logRecordBytes(log)
            bytes[8] = 7
            try writeFileBytes(log, bytes)
            let error = expectStoreError { _ = try openData(data, .init(repair: true)).graph(named: "g") }
            #expect(error?.kind == .unsupportedVersion)
            #expect(error?.message.contains("use a graphd release that reads version 7") == true)
        }
    }
}
