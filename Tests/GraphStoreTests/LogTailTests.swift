// LogTailTests.swift — the in-memory end of a log segment under `--fsync always`: what a
// group-commit leader is handed to write (whole blocks from the partial one, zero padded), what
// a full disk's drain writes, and that a store's acknowledged records are in the file.

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct LogTailTests {
    let block = LogTail.blockSize

    /// A file holding `bytes`, and those bytes.
    func file(in directory: String, holding bytes: [UInt8]) throws -> PosixFile {
        let file = try PosixFile(creating: directory + "/segment")
        try file.write(bytes, at: 0)
        return file
    }

    func record(_ length: Int, _ fill: UInt8) -> [UInt8] { [UInt8](repeating: fill, count: length) }

    @Test func aLeaderIsHandedWholeBlocksFromThePartialOneZeroPadded() throws {
        try withTemporaryDirectory { directory in
            let header = record(32, 0xAA)
            let file = try file(in: directory, holding: header)
            let tail = try LogTail(file: file, end: 32)
            #expect(tail.beginWrite(through: 32) == nil, "nothing appended, nothing to write")

            tail.append(record(100, 1))
            let first = try #require(tail.beginWrite(through: 132))
            #expect(first.offset == 0)
            #expect(first.bytes.count == block)
            #expect(Array(first.bytes[0..<132]) == header + record(100, 1), "the partial block is written from its start")
            #expect(first.bytes[132...].allSatisfy { $0 == 0 }, "padded with zeros")
            tail.endWrite()
            #expect(tail.beginWrite(through: 132) == nil, "already handed")

            // Two records appended, the leader syncs only through the first: the second's bytes
            // are not written (they are not its to make durable), zeros stand in their place.
            tail.append(record(block, 2))
            tail.append(record(10, 3))
            let second = try #require(tail.beginWrite(through: 132 + block))
            #expect(second.offset == 0)
            #expect(second.bytes.count == 2 * block)
            #expect(Array(second.bytes[132..<(132 + block)]) == record(block, 2))
            #expect(second.bytes[(132 + block)...].allSatisfy { $0 == 0 })
            tail.endWrite()

            // The first block is whole and written: the next write starts at the second.
            let third = try #require(tail.beginWrite(through: 142 + block))
            #expect(third.offset == block)
            #expect(third.bytes.count == block)
            #expect(Array(third.bytes[0..<142]) == Array((record(block, 2) + record(10, 3))[(block - 132)...]))
            tail.endWrite()
            #expect(tail.end == 142 + block)
        }
    }

    @Test func aTailOverARecoveredSegmentStartsWithTheBytesOfItsPartialBlock() throws {
        try withTemporaryDirectory { directory in
            let existing = record(block + 50, 7)
            let file = try file(in: directory, holding: existing)
            let tail = try LogTail(file: file, end: block + 50)
            tail.append(record(5, 8))
            let blocks = try #require(tail.beginWrite(through: block + 55))
            #expect(blocks.offset == block)
            #expect(Array(blocks.bytes[0..<55]) == record(50, 7) + record(5, 8))
            tail.endWrite()
        }
    }

    @Test func drainingWritesWhatNoLeaderWasHandedAndStopsTheTail() throws {
        try withTemporaryDirectory { directory in
            let file = try file(in: directory, holding: record(32, 0xAA))
            let tail = try LogTail(file: file, end: 32)
            tail.append(record(40, 1))
            let blocks = try #require(tail.beginWrite(through: 72))
            try file.writeBlocks(blocks.bytes, at: blocks.offset)
            tail.endWrite()
            tail.append(record(30, 2))  // appended, never handed to a leader
            try tail.drain(into: file)
            #expect(tail.isDrained)
            #expect(try file.read(at: 0, count: 102) == record(32, 0xAA) + record(40, 1) + record(30, 2))
            tail.append(record(1, 9))
            #expect(tail.beginWrite(through: 103) == nil, "a drained tail hands nothing to leaders")
        }
    }

    /// Through a whole store: every acknowledged write's record is in the file, written by block
    /// writes (one per lone write, not a pwrite per record besides), and a restart replays them.
    @Test func acknowledgedWritesAreInTheFileAndReplay() throws {
        try withTemporaryDirectory { data in
            let counting = FaultyFileSystem()
            let log = data + "/graphs/g/log-00000001.glog"
            do {
                let directory = try openData(data, fileSystem: counting)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, [1])  // preallocates the segment
                var records = try LogTests().logRecordBytes(log).count
                for id in 2...40 {
                    let writes = counting.writeCount
                    try addUsers(store, [id])
                    #expect(counting.writeCount == writes + 1, "one block write for a lone write")
                    let now = try LogTests().logRecordBytes(log).count
                    #expect(now > records, "the acknowledged record is in the file")
                    records = now
                }
            }
            let reopened = try openData(data)
            #expect(userIDs(try #require(try reopened.graph(named: "g"))) == Array(1...40))
        }
    }
}

extension LogTailTests {
    /// Readers of the log (the change feed's refill, replicas) read the file through the page
    /// cache while the leader writes past it: every acknowledged record reads back at once.
    @Test func acknowledgedRecordsReadBackFromTheFileAtOnce() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data)
            let store = try directory.createGraph(named: "g")
            for id in 1...300 {
                try addUsers(store, [id])
                guard case .records(let records) = try store.committedRecords(after: UInt64(id - 1), limit: 10) else {
                    Issue.record("record \(id) is not in the log"); return
                }
                #expect(records.map(\.sequence) == [UInt64(id)])
            }
        }
    }
}
