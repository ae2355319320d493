// SnapshotFormat.swift — the snapshot file: a whole graph as of one log position, version 2.
// SnapshotWriter.swift writes it, SnapshotReader.swift reads it; docs/log-format.md has the
// same description. Integers are little-endian; *varint* is unsigned LEB128 as in the log.
//
// FILE `<data>/graphs/<name>/snapshot-<N>.gsnap`, N zero padded to 8+ digits like segments.
// Snapshot N holds every record of log segments 1..<N; replay continues with segment N.
// It is written as `snapshot-<N>.gsnap.tmp`, fsync'ed, renamed into place, and the directory
// fsync'ed; only then are segments below N and older snapshots removed.
//
// HEADER, 48 bytes:
//   0  8  magic "GRAPHDSN"
//   8  4  format version (2; version 1, which has no change sections, is still read); another
//         version is refused, never guessed at
//  12  4  header length (48); the first section starts here
//  16  8  snapshot number N (matches the file name)
//  24  8  sequence number of the last log record included (0: none)
//  32  8  file length in bytes (header and every section), so a short file is detected
//  40  4  reserved, 0
//  44  4  CRC-32C of bytes 0..<44
//
// SECTIONS follow, back to back. Each has a 16-byte header and a payload:
//   0  1  kind: 1 names, 2 nodes, 3 relationships, 4 indexes, 9 full-text indexes,
//           10 change clock, 11 change versions, 5 end (0 is invalid; 6-8 are left free)
//   1  3  reserved, 0
//   4  4  CRC-32C of the payload
//   8  8  payload length L
//  16  L  payload
// Order: one names section, node sections (ascending ids), relationship sections (ascending
// ids), one indexes section, a full-text indexes section only when the graph has such indexes
// (so a snapshot without them is as before), one change clock section and the change versions
// sections (version 2), one end section, which must be the last bytes of the file.
// Payloads (ids and counts are varints, `string` is a varint byte length then UTF-8,
// `properties` is a count then (key id, value) pairs, `value` as in MutationCodec.swift):
//   names          3 lists, each a count then strings: labels, relationship types, property
//                  keys; the position in a list is the id
//   nodes          count, then per node: id gap (id − previous id − 1; the first node's
//                  "previous" is −1), label count, label ids, properties
//   relationships  count, then per relationship: id gap, type id, start node id, end node id,
//                  properties
//   indexes        count, then per index: label id, key id, 1 byte unique (0 or 1)
//   full-text      count, then per index its definition as in the log's kind 40
//                  (FullTextCodec.swift); the dictionaries are rebuilt at load
//   change clock   version floor, commit time of the last record included (ms since 1970 UTC, 0:
//                  unknown) (ChangeVersions.swift, CommitTimeIndex.swift)
//   change versions column (0: the nodes' own versions; 2t + 1: outgoing relationships of type t;
//                  2t + 2: incoming relationships of type t), first
//                  node id, count, version{count}; a column may span several sections, and a
//                  node id not covered has version 0
//   end            total node count, total relationship count (a cross-check)
// A version 1 snapshot has no change sections: every version counts as its last sequence (all
// changed as of the snapshot), which is never wrongly "unchanged".
// A section holds at most `SnapshotFormat.entitiesPerSection` entities, so no single buffer is
// larger than a few tens of megabytes.
//
// VALIDITY. A snapshot is used only if the header checksum matches, the version is 1 or 2, every
// section's checksum matches and its payload decodes, and the end section closes the file.
// Anything else refuses to open the graph (StoreError.corruptSnapshot, naming the file and the
// offset of the bad section): `--repair` then falls back to an older snapshot or to the log.

/// Constants of the snapshot file format (version 2).
enum SnapshotFormat {
    static let magic: [UInt8] = Array("GRAPHDSN".utf8)
    static let formatVersion: UInt32 = 2
    /// The versions this graphd reads.
    static let readableVersions: ClosedRange<UInt32> = 1...2
    static let headerLength = 48
    static let sectionHeaderLength = 16
    static let entitiesPerSection = 1 << 20

    /// Stable on-disk section kinds; 0 is reserved as invalid.
    enum SectionKind: UInt8 {
        case names = 1, nodes, relationships, indexes, end
        case fullTextIndexes = 9, changeClock, changeVersions
    }

    static func fileName(_ number: UInt64) -> String { "snapshot-" + AppendLog.paddedNumber(number) + ".gsnap" }

    /// The snapshot number in a file name, or nil for any other file.
    static func number(inFileName name: String) -> UInt64? {
        guard name.hasPrefix("snapshot-"), name.hasSuffix(".gsnap") else { return nil }
        return UInt64(name.dropFirst(9).dropLast(6))
    }

    static func header(number: UInt64, lastSequence: UInt64, fileLength: Int) -> [UInt8] {
        var bytes = magic
        bytes.appendLittleEndian(formatVersion)
        bytes.appendLittleEndian(UInt32(headerLength))
        bytes.appendLittleEndian(number)
        bytes.appendLittleEndian(lastSequence)
        bytes.appendLittleEndian(UInt64(fileLength))
        bytes.appendLittleEndian(UInt32(0))
        bytes.appendLittleEndian(CRC32C.checksum(bytes))
        return bytes
    }
}
