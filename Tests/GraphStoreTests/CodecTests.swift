// CodecTests.swift — the checksum and the binary mutation encoding round-trip exactly.

import Testing
@testable import GraphStore

@Suite struct CodecTests {
    @Test func crc32cMatchesTheStandardCheckValues() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        var split = CRC32C()
        split.update(Array("1234".utf8))
        split.update(Array("56789".utf8))
        #expect(split.value == 0xE306_9283)
    }

    /// Slicing-by-8 (contiguous bytes) and the byte-at-a-time path (other collections) agree with
    /// a bit-by-bit reference at every length and every split point around the 8-byte stride.
    @Test func crc32cFastPathMatchesABitwiseReference() {
        func reference(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes: [UInt8] = (0..<67).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        for length in 0...bytes.count {
            let prefix = Array(bytes[0..<length])
            let expected = reference(prefix)
            #expect(CRC32C.checksum(prefix) == expected, "length \(length)")
            #expect(CRC32C.checksum(prefix.lazy.map { $0 }) == expected, "length \(length), not contiguous")
            for split in stride(from: 0, through: length, by: 3) {
                var crc = CRC32C()
                crc.update(prefix[0..<split])
                crc.update(prefix[split...])
                #expect(crc.value == expected, "length \(length) split at \(split)")
            }
        }
    }

    @Test func everyMutationKindAndValueRoundTrips() throws {
        let values: [Value] = [
            .null, .bool(true), .bool(false), .integer(0), .integer(-1), .integer(.max), .integer(.min),
            .double(1.5), .double(-0.0), .double(.infinity), .string(""), .string("Zoë ✓"),
            .list([.integer(1), .list([.string("x")])]), .map(ValueMap([("a", .integer(1)), ("b", .null)])),
        ]
        var mutations: [Mutation] = [
            .defineLabel(LabelID(0), "User"), .defineRelationshipType(RelationshipTypeID(3), "FRIEND"),
            .definePropertyKey(PropertyKeyID(200), "name"),
            .createNode(NodeID(70000), labels: [LabelID(0), LabelID(5)],
                        properties: values.enumerated().map { PropertyEntry(key: PropertyKeyID($0.offset), value: $0.element) }),
            .createRelationship(RelationshipID(rawValue: UInt32.max - 1), type: RelationshipTypeID(1), from: NodeID(1), to: NodeID(2), properties: []),
            .addLabel(NodeID(1), LabelID(2)), .removeLabel(NodeID(1), LabelID(2)),
            .deleteRelationship(Relationship(id: RelationshipID(9), type: RelationshipTypeID(2), start: NodeID(300), end: NodeID(1))),
            .deleteRelationshipByID(RelationshipID(9)), .deleteNode(NodeID(9)),
            .createIndex(IndexDescriptor(label: LabelID(1), key: PropertyKeyID(2), isUnique: true)),
            .createIndex(IndexDescriptor(label: LabelID(1), key: PropertyKeyID(3), isUnique: false)),
            .dropIndex(LabelID(1), PropertyKeyID(2)),
        ]
        for v in values {
            mutations.append(.setNodeProperty(NodeID(4), PropertyKeyID(1), v))
            mutations.append(.setRelationshipProperty(Relationship(id: RelationshipID(4), type: RelationshipTypeID(2),
                                                                   start: NodeID(7), end: NodeID(1)), PropertyKeyID(1), v))
            mutations.append(.setRelationshipPropertyByID(RelationshipID(4), PropertyKeyID(1), v))
        }
        let bytes = MutationCodec.encode(sequence: 123_456_789, commitTime: 1_764_000_000_123, mutations)
        let decoded = try MutationCodec.decode(bytes[...])
        #expect(decoded.sequence == 123_456_789)
        #expect(decoded.commitTime == 1_764_000_000_123)
        #expect(decoded.mutations == mutations)
    }

    @Test func truncatedOrUnknownPayloadsAreRejected() {
        let bytes = MutationCodec.encode(sequence: 1, [.defineLabel(LabelID(0), "User"), .deleteNode(NodeID(3))])
        for cut in 0..<bytes.count {
            #expect(throws: CodecError.self) { try MutationCodec.decode(bytes[0..<cut]) }
        }
        #expect(throws: CodecError.self) { try MutationCodec.decode([1, 1, 1, 0][...]) }    // kind 0 is invalid
        #expect(throws: CodecError.self) { try MutationCodec.decode([1, 1, 1, 200][...]) }  // unknown kind
        #expect(throws: CodecError.self) { try MutationCodec.decode([1, 1, 0][...], version: 1) }  // version 1: no time
        #expect(throws: CodecError.self) { try MutationCodec.decode((bytes + [0])[...]) }  // stray byte
    }
}
