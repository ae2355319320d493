// AppendLog.swift — the append-only log of one graph: file format, appending, and recovery.
// Every committed transaction is one record; at open the records are replayed into a Graph.
//
// FILES. A graph's directory `<data>/graphs/<name>/` holds log segments named
// `log-<8-digit segment number>.glog`, numbered from 00000001. This slice writes one segment;
// snapshots (issue 4) will sit beside it and start a new segment, and replay reads the segments
// in number order (a damaged record is only ever forgiven at the end of the last one).
//
// SEGMENT HEADER, 32 bytes, integers little-endian:
//   0  8  magic "GRAPHDLG"
//   8  4  format version (1); a file with another version is refused, never guessed at
//  12  4  header length (32); records start here
//  16  8  segment number (matches the file name)
//  24  4  reserved, 0
//  28  4  CRC-32C of bytes 0..<28
// The header is written to `<file>.tmp`, fsync'ed, renamed into place and the directory
// fsync'ed, so a segment file is never seen with a partial header.
//
// RECORD, one per committed transaction, immediately after the previous one:
//   0  4  payload length N, 1 ≤ N ≤ 1 GiB
//   4  4  CRC-32C of the 4 length bytes followed by the N payload bytes
//   8  N  payload (MutationCodec.swift): varint sequence number (1, 2, 3, … across segments),
//         varint mutation count, the mutations.
// A record is valid when it lies wholly inside the file, its checksum matches and its payload
// decodes. Appends write the whole record with pwrite, then fdatasync, before the writer is
// answered; a failed append truncates the file back to the end of the last good record.
//
// RECOVERY. Records are replayed from the header on. At the first invalid record at offset X:
//   - if some valid record starts anywhere after X, the damage is in the middle of the log:
//     opening fails (StoreError.corruptLog naming file and X), nothing is cut;
//   - otherwise it is a torn tail (a crash mid-append): the file is truncated to X and a
//     message names the file, X and the number of bytes dropped.

/// The open log of one graph; appends records for committed transactions.
/// Used under the GraphStore's write lock only, hence @unchecked Sendable.
final class AppendLog: TransactionSink, @unchecked Sendable {
    static let magic: [UInt8] = Array("GRAPHDLG".utf8)
    static let formatVersion: UInt32 = 1
    static let headerLength = 32
    static let recordHeaderLength = 8
    static let maximumPayload = 1 << 30

    let file: LogFile
    /// Offset just past the last good record: where the next record goes.
    private(set) var end: Int
    private var nextSequence: UInt64
    /// Set when a failed append could not be cut off; the next append cuts it first.
    private var needsTruncation = false

    init(file: LogFile, end: Int, nextSequence: UInt64) {
        self.file = file
        self.end = end
        self.nextSequence = nextSequence
    }

    static func segmentFileName(_ number: UInt64) -> String {
        let digits = String(number)
        return "log-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".glog"
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

    func append(_ mutations: [Mutation]) throws(StoreError) {
        if needsTruncation {
            try file.truncate(to: end)
            try file.sync()
            needsTruncation = false
        }
        let record = Self.frame(MutationCodec.encode(sequence: nextSequence, mutations))
        guard record.count - Self.recordHeaderLength <= Self.maximumPayload else {
            throw StoreError(.io, "transaction too large for one log record (\(record.count) bytes)", path: file.path)
        }
        do {
            try file.write(record, at: end)
            try file.sync()
        } catch {
            // Part of the record may be on disk: cut it so the file ends with a good record.
            do {
                try file.truncate(to: end)
                try file.sync()
            } catch {
                needsTruncation = true
            }
            throw error
        }
        end += record.count
        nextSequence += 1
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
