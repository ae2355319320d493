// AppendLog.swift — the append-only log of one graph: segment files, record framing, appending.
// Every committed transaction is one record. Recovery (LogRecovery.swift) replays the records
// after the newest snapshot (SnapshotFormat.swift); docs/log-format.md says the same in prose.
//
// FILES. A graph's directory `<data>/graphs/<name>/` holds log segments named
// `log-<segment number, 8+ decimal digits zero padded>.glog`, numbered from 00000001, and
// snapshots `snapshot-<number>.gsnap`. Snapshot N holds the graph as of the end of segment N-1:
// replay loads the newest snapshot N and then reads segments N, N+1, … in number order.
// Segments below N are left over from an interrupted compaction and are deleted at open.
// `*.tmp` files are incomplete by construction (written before their rename) and deleted too.
//
// SEGMENT HEADER, 32 bytes, integers little-endian:
//   0  8  magic "GRAPHDLG"
//   8  4  format version (2; version 1 is still read); another version is refused, never guessed at
//  12  4  header length (32); records start here
//  16  8  segment number (matches the file name)
//  24  4  reserved, 0
//  28  4  CRC-32C of bytes 0..<28
// A segment is written as `<file>.tmp`, fsync'ed, renamed into place and the directory
// fsync'ed, so a segment file is never seen with a partial header.
//
// RECORD, one per committed transaction, immediately after the previous one:
//   0  4  payload length N, 1 ≤ N ≤ 1 GiB
//   4  4  CRC-32C of the 4 length bytes followed by the N payload bytes
//   8  N  payload (MutationCodec.swift): varint sequence number (1, 2, 3, … with no gaps across
//         segments and snapshots), varint commit time (version 2: milliseconds since 1970 UTC,
//         never less than the record before), varint mutation count, the mutations.
// A version 1 segment is read as before (its records have no commit time); appends always go
// to a version 2 segment, so a graph whose newest segment is version 1 starts a new one at open.
// A record is valid when it lies wholly inside the file, its checksum matches and its payload
// decodes. `append` writes the whole record with pwrite (looping over short writes); a failed
// write is cut off again so the file always ends with a good record. Making it durable is
// GroupCommit's job (one fdatasync shared by every writer waiting at that moment).
//
// PREALLOCATION. Past its last record a segment may hold zero bytes: the log writes zeros ahead
// of its records (`preallocationChunk` at a time), so that appending overwrites blocks the file
// already has and fdatasync writes data alone, not the file's new size as well (PostgreSQL
// zero-fills its WAL segments for the same reason: on this project's disk an fdatasync after a
// small append takes 86 µs into a zero-filled file against 137 µs into a growing one). A record
// never starts with a zero length, so zeros from some offset to the end of the file are the end
// of the log, not a torn record.
//
// BLOCK WRITES. Under `--fsync always` records go to the segment's LogTail (LogTail.swift) in
// memory, and the group-commit leader writes them in whole blocks before its fdatasync; a
// record is in the file only once a sync has begun for it, and acknowledged only once that sync
// returned. Only while the segment has preallocated room: when the disk is full the tail is
// drained and the segment goes on with a pwrite a record, so that ENOSPC refuses that write.

#if canImport(Glibc)
import Glibc
#endif

/// The open log of one graph: where the next record goes, in which segment.
/// Used under the GraphStore's write lock only, hence @unchecked Sendable.
final class AppendLog: @unchecked Sendable {
    static let magic: [UInt8] = Array("GRAPHDLG".utf8)
    static let formatVersion: UInt32 = 2
    /// The segment versions this graphd reads.
    static let readableVersions: ClosedRange<UInt32> = 1...2
    static let headerLength = 32
    static let recordHeaderLength = 8
    static let maximumPayload = 1 << 30
    /// Zeros written ahead of the records at a time (see PREALLOCATION): one extension every
    /// few tens of thousands of small records, each a few milliseconds of one write's time.
    static let preallocationChunk = 1 << 20
    /// What `preallocate` writes, a piece at a time.
    private static let zeros = [UInt8](repeating: 0, count: 64 * 1024)

    let directory: String
    let fileSystem: FileSystem
    /// The newest segment, which takes the appends.
    private(set) var file: LogFile
    private(set) var segment: UInt64
    /// Offset just past the last good record of `file`: where the next record goes.
    private(set) var end: Int
    /// The size of `file`: zeros from `end` up to it.
    private var allocated: Int
    /// The sequence number of the last record written (0: none yet, or all in a snapshot).
    private(set) var lastSequence: UInt64
    /// The commit time of the last record written (ms since 1970 UTC; 0: unknown): the next
    /// record's time is never less, whatever the wall clock does.
    private(set) var lastCommitTime: UInt64
    /// Sizes of the finished segments that the newest snapshot does not cover.
    private var finishedSegmentBytes: [UInt64: Int]
    /// The first segment not covered by a snapshot (1 when there is none).
    private(set) var snapshotNumber: UInt64
    /// Set when a failed append could not be cut off; the next append cuts it first.
    private var needsTruncation = false
    /// Whether records go through a LogTail (`--fsync always`), for this and later segments.
    private(set) var usesBlockWrites = false
    /// The newest segment's tail while records go through one (see BLOCK WRITES): nil without
    /// block writes, or once a full disk drained it (until the next segment).
    private(set) var tail: LogTail?

    /// `allocated`: the file's size when zeros follow `end` (a recovered preallocated segment).
    init(directory: String, fileSystem: FileSystem, file: LogFile, segment: UInt64, end: Int, lastSequence: UInt64,
         lastCommitTime: UInt64 = 0, finishedSegmentBytes: [UInt64: Int] = [:], snapshotNumber: UInt64 = 1,
         allocated: Int? = nil) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.file = file
        self.segment = segment
        self.end = end
        self.allocated = max(end, allocated ?? end)
        self.lastSequence = lastSequence
        self.lastCommitTime = lastCommitTime
        self.finishedSegmentBytes = finishedSegmentBytes
        self.snapshotNumber = snapshotNumber
    }

    /// Log bytes a restart would replay after the newest snapshot (what compaction shrinks).
    var bytesSinceSnapshot: Int { finishedSegmentBytes.values.reduce(end, +) }

    static func segmentFileName(_ number: UInt64) -> String { "log-" + paddedNumber(number) + ".glog" }

    /// At least 8 decimal digits, zero padded, so names sort by number up to 99,999,999.
    static func paddedNumber(_ number: UInt64) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    static func header(segment: UInt64) -> [UInt8] {
        var bytes = magic
        bytes.appendLittleEndian(formatVersion)
        bytes.appendLittleEndian(UInt32(headerLength))
        bytes.appendLittleEndian(segment)
        bytes.appendLittleEndian(UInt32(0))
        bytes.appendLittleEndian(CRC32C.checksum(bytes))
        return bytes
    }

    static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(recordHeaderLength + payload.count)
        bytes.appendLittleEndian(UInt32(payload.count))
        var crc = CRC32C()
        crc.update(bytes)
        crc.update(payload)
        bytes.appendLittleEndian(crc.value)
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// Writes `mutations` as the next record (not yet durable) and returns it, with its sequence
    /// number and commit time. On failure nothing of the record is left in the file, and
    /// nothing changed here.
    func append(_ mutations: [Mutation]) throws(StoreError) -> LogRecord {
        let logRecord = LogRecord(sequence: lastSequence + 1, commitTime: max(Self.wallClockMilliseconds(), lastCommitTime),
                                  mutations: mutations)
        let record = Self.frame(MutationCodec.encode(logRecord))
        guard record.count - Self.recordHeaderLength <= Self.maximumPayload else {
            throw StoreError(.io, "transaction too large for one log record (\(record.count) bytes, at most "
                             + "\(Self.maximumPayload)); split it into smaller ones", path: file.path)
        }
        try appendRecord(record, sequence: logRecord.sequence, commitTime: logRecord.commitTime)
        return logRecord
    }

    /// Sends records through a LogTail from now on (see BLOCK WRITES); GroupCommit must be given
    /// `tail` (and each next segment's) before the next record is synced.
    func useBlockWrites() throws(StoreError) {
        guard !usesBlockWrites else { return }
        try cutFailedAppend()
        tail = try LogTail(file: file, end: end)
        usesBlockWrites = true
    }

    /// Writes records with a pwrite each from now on (a replica's received records, which must
    /// be in the file once applied), after writing what the tail holds; GroupCommit must be
    /// told (`switchTail(nil)`).
    func stopBlockWrites() throws(StoreError) {
        if let tail {
            try tail.drain(into: file)
            self.tail = nil
        }
        usesBlockWrites = false
    }

    /// Writes `record`, already framed, as record `sequence` committed at `commitTime`: a
    /// write's own record, or one a replica received from its primary byte for byte. On failure
    /// nothing of it is left in the file, and nothing changed here.
    func appendRecord(_ record: [UInt8], sequence: UInt64, commitTime: UInt64) throws(StoreError) {
        if let tail {
            if end + record.count > allocated { preallocate(through: end + record.count) }
            if end + record.count <= allocated {
                tail.append(record)
                end += record.count
                lastSequence = sequence
                lastCommitTime = max(lastCommitTime, commitTime)
                return
            }
            // No room could be made (a full disk): write through the page cache from here on.
            try tail.drain(into: file)
            self.tail = nil
        }
        try cutFailedAppend()
        if end + record.count > allocated && record.count < Self.preallocationChunk { preallocate(through: end + record.count) }
        do {
            try file.write(record, at: end)
        } catch {
            // Part of the record may be in the file: cut it so the file ends with a good record.
            do { try file.truncate(to: end) } catch { needsTruncation = true }
            allocated = end
            throw error
        }
        end += record.count
        allocated = max(allocated, end)
        lastSequence = sequence
        lastCommitTime = max(lastCommitTime, commitTime)
    }

    /// Cuts what a failed append left past `end` that could not be cut then (`needsTruncation`).
    /// The next record's fdatasync also makes this shorter size durable.
    private func cutFailedAppend() throws(StoreError) {
        guard needsTruncation else { return }
        try file.truncate(to: end)
        needsTruncation = false
        allocated = end
    }

    /// Milliseconds since 1970-01-01 UTC by the wall clock.
    static func wallClockMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) * 1000 + UInt64(now.tv_nsec / 1_000_000)
    }

    /// Writes zeros from `allocated` to the next multiple of `preallocationChunk` past `offset`
    /// (see PREALLOCATION). Made durable by the next record's fdatasync. Failing (a full disk),
    /// it leaves what it wrote, zeros all, and the record is appended to the file as it is.
    private func preallocate(through offset: Int) {
        let target = (offset / Self.preallocationChunk + 1) * Self.preallocationChunk
        let zeros = Self.zeros
        var at = allocated
        while at < target {
            let count = min(zeros.count, target - at)
            do {
                try file.write(count == zeros.count ? zeros : Array(zeros[..<count]), at: at)
            } catch {
                return
            }
            at += count
            allocated = at
        }
    }

    /// Creates the next segment durably and appends to it from now on; returns the previous
    /// segment's file, which the caller must have made durable before any new record is.
    func startNextSegment() throws(StoreError) -> LogFile {
        let number = segment + 1
        let path = directory + "/" + Self.segmentFileName(number)
        try fileSystem.createDurably(path, contents: Self.header(segment: number))
        let newFile = try fileSystem.open(path)
        let newTail = usesBlockWrites ? try LogTail(file: newFile, end: Self.headerLength) : nil
        let previous = file
        finishedSegmentBytes[segment] = end
        file = newFile
        segment = number
        end = Self.headerLength
        allocated = end
        needsTruncation = false
        tail = newTail
        return previous
    }

    /// Records that snapshot `number` now covers every segment below it.
    func snapshotWritten(_ number: UInt64) {
        snapshotNumber = max(snapshotNumber, number)
        finishedSegmentBytes = finishedSegmentBytes.filter { $0.key >= snapshotNumber }
    }

    func close() { file.close() }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for i in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: value >> (i * 8))) }
    }

    func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        for i in 0..<(T.bitWidth / 8) { value |= T(self[offset + i]) << (i * 8) }
        return value
    }
}
