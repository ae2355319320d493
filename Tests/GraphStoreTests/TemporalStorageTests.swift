// TemporalStorageTests.swift — temporal property values survive the log record codec, a restart
// that replays the log, and a restart from a snapshot, field for field (zone names included).

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct TemporalStorageTests {
    static let values: [TemporalValue] = [
        .date(LocalDate(epochDay: 0)), .date(LocalDate(epochDay: -365_243_219_162)),
        .localTime(LocalTime(nanosecondOfDay: 45_296_645_876_123)),
        .time(OffsetTime(time: LocalTime(nanosecondOfDay: 1), offsetSeconds: -(2 * 3600 + 5 * 60 + 7))),
        .localDateTime(LocalDateTime(date: LocalDate(epochDay: 5_397), time: LocalTime(nanosecondOfDay: 86_399_999_999_999))),
        .dateTime(ZonedDateTime(local: LocalDateTime(date: LocalDate(epochDay: 17_386), time: LocalTime(nanosecondOfDay: 7)),
                                offsetSeconds: 7200, zoneName: "Europe/Stockholm")),
        .dateTime(ZonedDateTime(local: LocalDateTime(date: LocalDate(epochDay: -1), time: LocalTime(nanosecondOfDay: 0)),
                                offsetSeconds: -3600, zoneName: nil)),
        .duration(TemporalDuration(months: -149, days: 14, seconds: -58_390, nanoseconds: 1)),
        .duration(.zero),
    ]

    @Test func everyTemporalTypeRoundTripsThroughTheCodec() throws {
        let mutations: [Mutation] = Self.values.map { .setNodeProperty(NodeID(4), PropertyKeyID(1), .temporal($0)) }
            + [.setNodeProperty(NodeID(5), PropertyKeyID(2), .list(Self.values.map(Value.temporal)))]
        let decoded = try MutationCodec.decode(MutationCodec.encode(sequence: 9, mutations)[...])
        #expect(decoded.mutations == mutations)
    }

    @Test func aTruncatedOrOutOfRangeTemporalValueIsRejected() {
        var w = ByteWriter()
        w.value(.temporal(.time(OffsetTime(time: LocalTime(nanosecondOfDay: 5), offsetSeconds: 3600))))
        let bytes = w.bytes
        for cut in 1..<bytes.count {
            var r = ByteReader(bytes: bytes[0..<cut])
            #expect(throws: CodecError.self) { try r.value() }
        }
        var bad = ByteWriter()
        bad.u8(ValueTag.localTime.rawValue)
        bad.varint(UInt64(LocalTime.nanosecondsPerDay))
        var r = ByteReader(bytes: bad.bytes[...])
        #expect(throws: CodecError.self) { try r.value() }
    }

    func writeTemporalNode(_ store: GraphStore) throws {
        try store.write { g in
            let label = g.internLabel("Event")
            var properties: [(PropertyKeyID, Value)] = []
            for (i, v) in Self.values.enumerated() { properties.append((g.internPropertyKey("p\(i)"), .temporal(v))) }
            properties.append((g.internPropertyKey("all"), .list(Self.values.map(Value.temporal))))
            _ = try g.createNode(labels: [label], properties: properties)
        }
    }

    func storedValues(_ store: GraphStore) -> [Value] {
        store.read { g in g.properties(of: NodeID(0)).map(\.value) }
    }

    @Test func temporalPropertiesSurviveARestartFromTheLogAndFromASnapshot() throws {
        try withTemporaryDirectory { data in
            let expected = Self.values.map(Value.temporal) + [.list(Self.values.map(Value.temporal))]
            do {
                let directory = try openData(data)
                let store = try directory.createGraph(named: "g")
                try writeTemporalNode(store)
                #expect(storedValues(store) == expected)
            }
            do {
                let directory = try openData(data)
                let store = try #require(try directory.graph(named: "g"))
                #expect(storedValues(store) == expected, "replayed from the log")
                try store.compact()
            }
            #expect(try graphFiles(data, "g").contains { $0.hasPrefix("snapshot-") })
            let directory = try openData(data)
            let store = try #require(try directory.graph(named: "g"))
            #expect(storedValues(store) == expected, "loaded from the snapshot")
        }
    }
}
