// MutationCodec.swift — the compact binary encoding of one transaction's mutations: the payload
// of a log record (AppendLog.swift frames it). Kinds and value tags have explicit, stable raw
// values with 0 reserved as invalid, so a zeroed or foreign byte is never mistaken for data.
//
// payload     := varint sequence, varint commit time, varint count, mutation{count}
//                (segment format version 1 has no commit time: varint sequence, varint count, …)
//                The commit time is milliseconds since 1970-01-01 UTC, non-decreasing along the log.
// mutation    := u8 kind, fields (all ids and counts are unsigned LEB128 varints):
//   1 defineLabel            id, string
//   2 defineRelationshipType id, string
//   3 definePropertyKey      id, string
//   4 createNode             id, count, label{count}, properties
//   5 createRelationship     id, type, start, end, properties
//   6 setNodeProperty        node, key, value          (value null: remove)
//   7 setRelationshipPropertyByID relationship, key, value (read only: older logs hold it)
//   8 addLabel               node, label
//   9 removeLabel            node, label
//  10 deleteRelationshipByID relationship              (read only: older logs may hold it)
//  11 deleteNode             node
//  12 createIndex            label, key, u8 unique (0 or 1)
//  13 dropIndex              label, key
//  14 deleteRelationship     relationship, type, start, end
//  15 setRelationshipProperty relationship, type, start, end, key, value  (value null: remove)
//  40 createFullTextIndex    u8 entity (1 node, 2 relationship), label or type id, count, key{count},
//                            string name, string language, count, string{count} stop words
//  41 dropFullTextIndex      u8 entity, label or type id
//     (40 and 41 leave a gap after 15 for other kinds; a log without them reads as before)
// properties  := count, (key, value){count}
// string      := varint byte length, UTF-8 bytes
// value       := u8 tag, then: 1 null | 2 false | 3 true | 4 integer: zigzag varint |
//                5 double: 8 bytes IEEE-754 little-endian | 6 string | 7 list: count, value{count} |
//                8 map: count, (string, value){count} | 9–14 temporal (Temporal/TemporalCodec.swift):
//                9 date: zigzag day | 10 localtime: nanosecond of day | 11 time: nanosecond of day, zigzag
//                offset seconds | 12 localdatetime: zigzag day, nanosecond of day | 13 datetime: zigzag day,
//                nanosecond of day (wall clock), zigzag offset seconds, string zone name ("" for an offset) |
//                14 duration: zigzag months, zigzag days, zigzag seconds, nanoseconds

/// Stable on-disk kind numbers of mutations.
enum MutationKind: UInt8 {
    case defineLabel = 1, defineRelationshipType, definePropertyKey, createNode, createRelationship,
         setNodeProperty, setRelationshipPropertyByID, addLabel, removeLabel, deleteRelationshipByID, deleteNode,
         createIndex, dropIndex, deleteRelationship, setRelationshipProperty
    case createFullTextIndex = 40, dropFullTextIndex = 41
}

/// Stable on-disk type tags of values.
enum ValueTag: UInt8 {
    case null = 1, `false`, `true`, integer, double, string, list, map
    case date = 9, localTime, time, localDateTime, dateTime, duration
}

/// Why a payload could not be decoded (reported by the log as corruption at the record).
struct CodecError: Error, Sendable {
    var message: String
}

/// One committed transaction as the log holds it.
public struct LogRecord: Sendable, Equatable {
    /// Its place in the log: 1, 2, 3, … with no gaps.
    public var sequence: UInt64
    /// When it committed, in milliseconds since 1970-01-01 UTC; 0 when unknown (older logs).
    public var commitTime: UInt64
    public var mutations: [Mutation]

    public init(sequence: UInt64, commitTime: UInt64, mutations: [Mutation]) {
        self.sequence = sequence
        self.commitTime = commitTime
        self.mutations = mutations
    }
}

/// Encodes and decodes record payloads.
enum MutationCodec {
    /// The payload of `record` in the current segment format (AppendLog.formatVersion).
    static func encode(_ record: LogRecord) -> [UInt8] {
        var w = ByteWriter()
        w.varint(record.sequence)
        w.varint(record.commitTime)
        w.varint(UInt64(record.mutations.count))
        for m in record.mutations { w.mutation(m) }
        return w.bytes
    }

    /// `encode` of a record made of these parts.
    static func encode(sequence: UInt64, commitTime: UInt64 = 0, _ mutations: [Mutation]) -> [UInt8] {
        encode(LogRecord(sequence: sequence, commitTime: commitTime, mutations: mutations))
    }

    /// Decodes a payload written in segment format `version` (1: no commit time).
    static func decode(_ bytes: ArraySlice<UInt8>, version: UInt32 = AppendLog.formatVersion) throws(CodecError) -> LogRecord {
        var r = ByteReader(bytes: bytes)
        let sequence = try r.varint()
        let commitTime = version >= 2 ? try r.varint() : 0
        let count = try r.varint()
        guard count <= UInt64(bytes.count) else { throw CodecError(message: "mutation count \(count) exceeds the record") }
        var mutations: [Mutation] = []
        mutations.reserveCapacity(Int(count))
        for _ in 0..<count { mutations.append(try r.mutation()) }
        guard r.isAtEnd else { throw CodecError(message: "\(r.remaining) stray bytes after the last mutation") }
        return LogRecord(sequence: sequence, commitTime: commitTime, mutations: mutations)
    }
}

struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 { bytes.append(UInt8(truncatingIfNeeded: v) | 0x80); v >>= 7 }
        bytes.append(UInt8(v))
    }
    mutating func id(_ raw: UInt32) { varint(UInt64(raw)) }
    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func string(_ s: String) {
        let utf8 = s.utf8
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func value(_ value: Value) {
        switch value {
        case .null: u8(ValueTag.null.rawValue)
        case .bool(let b): u8((b ? ValueTag.true : ValueTag.false).rawValue)
        case .integer(let i):
            u8(ValueTag.integer.rawValue)
            varint(UInt64(bitPattern: (i << 1) ^ (i >> 63)))  // zigzag: small negatives stay short
        case .double(let d):
            u8(ValueTag.double.rawValue)
            let bits = d.bitPattern
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        case .string(let s): u8(ValueTag.string.rawValue); string(s)
        case .list(let items):
            u8(ValueTag.list.rawValue)
            varint(UInt64(items.count))
            for item in items { self.value(item) }
        case .map(let map):
            u8(ValueTag.map.rawValue)
            varint(UInt64(map.count))
            for (k, v) in map { string(k); self.value(v) }
        case .temporal(let t): temporal(t)
        }
    }

    mutating func properties(_ entries: [PropertyEntry]) {
        varint(UInt64(entries.count))
        for e in entries { id(e.key.rawValue); value(e.value) }
    }

    mutating func mutation(_ m: Mutation) {
        switch m {
        case .defineLabel(let id, let name): u8(MutationKind.defineLabel.rawValue); self.id(id.rawValue); string(name)
        case .defineRelationshipType(let id, let name):
            u8(MutationKind.defineRelationshipType.rawValue); self.id(id.rawValue); string(name)
        case .definePropertyKey(let id, let name): u8(MutationKind.definePropertyKey.rawValue); self.id(id.rawValue); string(name)
        case .createNode(let id, let labels, let properties):
            u8(MutationKind.createNode.rawValue); self.id(id.rawValue)
            varint(UInt64(labels.count))
            for l in labels { self.id(l.rawValue) }
            self.properties(properties)
        case .createRelationship(let id, let type, let start, let end, let properties):
            u8(MutationKind.createRelationship.rawValue)
            self.id(id.rawValue); self.id(type.rawValue); self.id(start.rawValue); self.id(end.rawValue)
            self.properties(properties)
        case .setNodeProperty(let node, let key, let value):
            u8(MutationKind.setNodeProperty.rawValue); id(node.rawValue); id(key.rawValue); self.value(value)
        case .setRelationshipProperty(let r, let key, let value):
            u8(MutationKind.setRelationshipProperty.rawValue)
            id(r.id.rawValue); id(r.type.rawValue); id(r.start.rawValue); id(r.end.rawValue); id(key.rawValue); self.value(value)
        case .setRelationshipPropertyByID(let rel, let key, let value):
            u8(MutationKind.setRelationshipPropertyByID.rawValue); id(rel.rawValue); id(key.rawValue); self.value(value)
        case .addLabel(let node, let label): u8(MutationKind.addLabel.rawValue); id(node.rawValue); id(label.rawValue)
        case .removeLabel(let node, let label): u8(MutationKind.removeLabel.rawValue); id(node.rawValue); id(label.rawValue)
        case .deleteRelationship(let r):
            u8(MutationKind.deleteRelationship.rawValue)
            id(r.id.rawValue); id(r.type.rawValue); id(r.start.rawValue); id(r.end.rawValue)
        case .deleteRelationshipByID(let rel): u8(MutationKind.deleteRelationshipByID.rawValue); id(rel.rawValue)
        case .deleteNode(let node): u8(MutationKind.deleteNode.rawValue); id(node.rawValue)
        case .createIndex(let d):
            u8(MutationKind.createIndex.rawValue); id(d.label.rawValue); id(d.key.rawValue); u8(d.isUnique ? 1 : 0)
        case .dropIndex(let label, let key): u8(MutationKind.dropIndex.rawValue); id(label.rawValue); id(key.rawValue)
        case .createFullTextIndex(let d): u8(MutationKind.createFullTextIndex.rawValue); fullTextDescriptor(d)
        case .dropFullTextIndex(let entity, let schemaID):
            u8(MutationKind.dropFullTextIndex.rawValue); u8(entity.rawValue); id(schemaID)
        }
    }
}

struct ByteReader {
    let bytes: ArraySlice<UInt8>
    var position: Int

    init(bytes: ArraySlice<UInt8>) { self.bytes = bytes; position = bytes.startIndex }

    var isAtEnd: Bool { position == bytes.endIndex }
    var remaining: Int { bytes.endIndex - position }

    mutating func u8() throws(CodecError) -> UInt8 {
        guard position < bytes.endIndex else { throw CodecError(message: "record ends in the middle of a mutation") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws(CodecError) -> UInt64 {
        var result: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            let byte = try u8()
            result |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return result }
        }
        throw CodecError(message: "varint longer than 64 bits")
    }

    mutating func id() throws(CodecError) -> UInt32 {
        let v = try varint()
        guard let id = UInt32(exactly: v) else { throw CodecError(message: "id \(v) out of range") }
        return id
    }

    mutating func count() throws(CodecError) -> Int {
        let n = try varint()
        guard n <= UInt64(remaining) else { throw CodecError(message: "count \(n) exceeds the record") }
        return Int(n)
    }

    mutating func string() throws(CodecError) -> String {
        let n = try count()
        defer { position += n }
        return String(decoding: bytes[position..<position + n], as: UTF8.self)
    }

    mutating func value(depth: Int = 0) throws(CodecError) -> Value {
        guard depth < 256 else { throw CodecError(message: "value nested too deeply") }
        let tag = try u8()
        switch ValueTag(rawValue: tag) {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .integer:
            let z = try varint()
            return .integer(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
        case .double:
            var bits: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 8) { bits |= UInt64(try u8()) << UInt64(shift) }
            return .double(Double(bitPattern: bits))
        case .string: return .string(try string())
        case .list:
            let n = try count()
            var items: [Value] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try value(depth: depth + 1)) }
            return .list(items)
        case .map:
            let n = try count()
            var map = ValueMap()
            for _ in 0..<n { let k = try string(); map[k] = try value(depth: depth + 1) }
            return .map(map)
        case .date, .localTime, .time, .localDateTime, .dateTime, .duration:
            return .temporal(try temporal(tag: ValueTag(rawValue: tag)!))
        case nil: throw CodecError(message: "unknown value tag \(tag)")
        }
    }

    mutating func properties() throws(CodecError) -> [PropertyEntry] {
        let n = try count()
        var entries: [PropertyEntry] = []
        entries.reserveCapacity(n)
        for _ in 0..<n { entries.append(PropertyEntry(key: PropertyKeyID(rawValue: try id()), value: try value())) }
        return entries
    }

    mutating func mutation() throws(CodecError) -> Mutation {
        let kind = try u8()
        switch MutationKind(rawValue: kind) {
        case .defineLabel: return .defineLabel(LabelID(rawValue: try id()), try string())
        case .defineRelationshipType: return .defineRelationshipType(RelationshipTypeID(rawValue: try id()), try string())
        case .definePropertyKey: return .definePropertyKey(PropertyKeyID(rawValue: try id()), try string())
        case .createNode:
            let node = NodeID(rawValue: try id())
            let n = try count()
            var labels: [LabelID] = []
            for _ in 0..<n { labels.append(LabelID(rawValue: try id())) }
            return .createNode(node, labels: labels, properties: try properties())
        case .createRelationship:
            let rel = RelationshipID(rawValue: try id())
            let type = RelationshipTypeID(rawValue: try id())
            let start = NodeID(rawValue: try id()), end = NodeID(rawValue: try id())
            return .createRelationship(rel, type: type, from: start, to: end, properties: try properties())
        case .setNodeProperty:
            let node = NodeID(rawValue: try id()), key = PropertyKeyID(rawValue: try id())
            return .setNodeProperty(node, key, try value())
        case .setRelationshipPropertyByID:
            let rel = RelationshipID(rawValue: try id()), key = PropertyKeyID(rawValue: try id())
            return .setRelationshipPropertyByID(rel, key, try value())
        case .setRelationshipProperty:
            let rel = RelationshipID(rawValue: try id()), type = RelationshipTypeID(rawValue: try id())
            let start = NodeID(rawValue: try id()), end = NodeID(rawValue: try id())
            let key = PropertyKeyID(rawValue: try id())
            return .setRelationshipProperty(Relationship(id: rel, type: type, start: start, end: end), key, try value())
        case .addLabel: return .addLabel(NodeID(rawValue: try id()), LabelID(rawValue: try id()))
        case .removeLabel: return .removeLabel(NodeID(rawValue: try id()), LabelID(rawValue: try id()))
        case .deleteRelationshipByID: return .deleteRelationshipByID(RelationshipID(rawValue: try id()))
        case .deleteRelationship:
            let rel = RelationshipID(rawValue: try id()), type = RelationshipTypeID(rawValue: try id())
            let start = NodeID(rawValue: try id()), end = NodeID(rawValue: try id())
            return .deleteRelationship(Relationship(id: rel, type: type, start: start, end: end))
        case .deleteNode: return .deleteNode(NodeID(rawValue: try id()))
        case .createIndex:
            let label = LabelID(rawValue: try id()), key = PropertyKeyID(rawValue: try id())
            let unique = try u8()
            guard unique <= 1 else { throw CodecError(message: "bad unique flag \(unique)") }
            return .createIndex(IndexDescriptor(label: label, key: key, isUnique: unique == 1))
        case .dropIndex: return .dropIndex(LabelID(rawValue: try id()), PropertyKeyID(rawValue: try id()))
        case .createFullTextIndex: return .createFullTextIndex(try fullTextDescriptor())
        case .dropFullTextIndex:
            let entity = try fullTextEntity()
            return .dropFullTextIndex(entity, try id())
        case nil: throw CodecError(message: "unknown mutation kind \(kind)")
        }
    }
}
