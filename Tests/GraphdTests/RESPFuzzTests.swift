// RESPFuzzTests.swift — random bytes (seeded, so failures reproduce) through the decoder and
// the connection state machine: nothing crashes, every run terminates, and feeding the same
// bytes in different chunk sizes always gives the same requests and the same error.

import GraphTestSupport
import Testing
@testable import graphd


/// Random input biased towards RESP's structure, so the parser's deeper states are reached.
private func randomInput(_ rng: inout SeededGenerator) -> [UInt8] {
    let pieces: [[UInt8]] = ["*", "$", "\r\n", "\n", "\r", "\"", "'", "\\", "\\x4", "1", "2", "-1", "0", " ",
                             "PING", "ECHO", "*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n", "x", "\0"].map { Array($0.utf8) }
    var out: [UInt8] = []
    for _ in 0..<Int.random(in: 1...60, using: &rng) {
        if Bool.random(using: &rng) {
            out += pieces.randomElement(using: &rng)!
        } else {
            out.append(UInt8.random(in: 0...255, using: &rng))
        }
    }
    return out
}

private func decode(_ bytes: [UInt8], chunkSize: Int) -> ([[[UInt8]]], RESPProtocolError?) {
    var decoder = RESPDecoder()
    var buffer: [UInt8] = []
    var index = 0
    var requests: [[[UInt8]]] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunkSize)
        buffer += bytes[offset..<end]
        offset = end
        do {
            while let request = try decoder.decodeNext(buffer, index: &index) { requests.append(request) }
        } catch {
            return (requests, error)
        }
    }
    return (requests, nil)
}

@Suite("RESP fuzz")
struct RESPFuzzTests {
    @Test("Random input decodes the same whole and byte by byte, without crashing", arguments: 0..<8)
    func decoderIsChunkIndependent(_ seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed))
        for round in 0..<500 {
            let input = randomInput(&rng)
            let whole = decode(input, chunkSize: input.count)
            let bytewise = decode(input, chunkSize: 1)
            let odd = decode(input, chunkSize: 3)
            #expect(whole.0 == bytewise.0 && whole.1 == bytewise.1, "seed \(seed) round \(round): \(input)")
            #expect(whole.0 == odd.0 && whole.1 == odd.1, "seed \(seed) round \(round): \(input)")
        }
    }

    @Test("Random input through a connection always ends idle or closing", arguments: 0..<4)
    func connectionSurvives(_ seed: Int) {
        var rng = SeededGenerator(seed: UInt64(1000 + seed))
        for _ in 0..<300 {
            var connection = Connection()
            var actions = connection.received(randomInput(&rng))
            var steps = 0
            while let action = actions.first, steps < 10_000 {
                actions.removeFirst()
                steps += 1
                if case .execute = action {
                    actions += connection.completed(Array("+OK\r\n".utf8), outcome: .keepOpen)
                }
            }
            #expect(!connection.isExecuting)
            _ = connection.wrote(connection.pendingOutput.count)
            #expect(!connection.hasPendingOutput)
        }
    }
}
