// RESPDecoderTests.swift — the request decoder: every request at every chunk size down to
// one byte at a time, many requests in one buffer, and each protocol error with Redis's
// exact wording (swift-nio's ByteToMessageDecoderVerifier style).

import Foundation
import GraphTestSupport
import Testing
@testable import graphd

/// Feeds `bytes` in chunks of `chunkSize`, as a connection would, collecting requests.
private func decodeAll(_ bytes: [UInt8], chunkSize: Int,
                       limits: ProtocolLimits = ProtocolLimits()) -> (requests: [[[UInt8]]], error: RESPProtocolError?) {
    var decoder = RESPDecoder(limits: limits)
    var buffer: [UInt8] = []
    var index = 0
    var requests: [[[UInt8]]] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunkSize)
        buffer.append(contentsOf: bytes[offset..<end])
        offset = end
        do {
            while let request = try decoder.decodeNext(buffer, index: &index) { requests.append(request) }
        } catch {
            return (requests, error)
        }
    }
    return (requests, nil)
}

private func args(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }
private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Requests and what they decode to.
private let wellFormed: [(wire: String, expected: [[[UInt8]]])] = [
    ("*1\r\n$4\r\nPING\r\n", [args("PING")]),
    ("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", [args("ECHO", "")]),
    ("*3\r\n$11\r\nGRAPH.QUERY\r\n$6\r\nsocial\r\n$18\r\nRETURN 'a\r\nb', 1.5\r\n",
     [args("GRAPH.QUERY", "social", "RETURN 'a\r\nb', 1.5")]),
    ("PING\r\n", [args("PING")]),
    ("PING\n", [args("PING")]),
    ("\r\n\n   \r\nPING\r\n", [args("PING")]),
    ("GRAPH.QUERY social \"CREATE (:U {name: 'Ann'})\"\r\n", [args("GRAPH.QUERY", "social", "CREATE (:U {name: 'Ann'})")]),
    ("*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n", [args("PING")]),
    ("*1\r\n$4\r\nPINGxx", [args("PING")]),   // Redis skips the two bytes after a payload unchecked
]

@Suite("RESP decoder")
struct RESPDecoderTests {
    @Test("Each request decodes the same at every chunk size", arguments: wellFormed.indices)
    func everyChunkSize(_ i: Int) {
        let (wire, expected) = wellFormed[i]
        let data = bytes(wire)
        for chunkSize in 1...data.count {
            let result = decodeAll(data, chunkSize: chunkSize)
            #expect(result.error == nil)
            #expect(result.requests == expected, "chunk size \(chunkSize)")
        }
    }

    @Test("Many requests in one buffer, multibulk and inline mixed, come out in order")
    func manyInOneBuffer() {
        var wire: [UInt8] = []
        var expected: [[[UInt8]]] = []
        for i in 0..<200 {
            if i % 3 == 0 {
                wire += bytes("ECHO \(i)\r\n")
            } else {
                let text = "value-\(i)"
                wire += bytes("*2\r\n$4\r\nECHO\r\n$\(text.utf8.count)\r\n\(text)\r\n")
            }
            expected.append(args("ECHO", i % 3 == 0 ? "\(i)" : "value-\(i)"))
        }
        for chunkSize in [1, 2, 3, 7, 64, 1000, wire.count] {
            let result = decodeAll(wire, chunkSize: chunkSize)
            #expect(result.error == nil)
            #expect(result.requests == expected, "chunk size \(chunkSize)")
        }
    }

    @Test("An incomplete frame consumes nothing")
    func incompleteFrameConsumesNothing() throws {
        var decoder = RESPDecoder()
        let partial = bytes("*2\r\n$4\r\nECHO\r\n$5\r\nhel")
        var index = 0
        #expect(try decoder.decodeNext(partial, index: &index) == nil)
        #expect(index == 0)
        let complete = partial + bytes("lo\r\n")
        #expect(try decoder.decodeNext(complete, index: &index) == args("ECHO", "hello"))
        #expect(index == complete.count)
    }

    @Test("A large bulk argument arrives whole")
    func largeBulk() {
        let payload = String(repeating: "x", count: 200_000)
        let wire = bytes("*2\r\n$4\r\nECHO\r\n$\(payload.utf8.count)\r\n\(payload)\r\n")
        let result = decodeAll(wire, chunkSize: 4096)
        #expect(result.requests == [args("ECHO", payload)])
    }

    static let errors: [(wire: String, error: RESPProtocolError, message: String)] = [
        ("*abc\r\n", .invalidMultibulkLength, "ERR Protocol error: invalid multibulk length"),
        ("*3000000000\r\n", .invalidMultibulkLength, "ERR Protocol error: invalid multibulk length"),
        ("*1\r\nPING\r\n", .expectedDollar(got: UInt8(ascii: "P")), "ERR Protocol error: expected '$', got 'P'"),
        ("*1\r\n$-3\r\n", .invalidBulkLength, "ERR Protocol error: invalid bulk length"),
        ("*1\r\n$x\r\n", .invalidBulkLength, "ERR Protocol error: invalid bulk length"),
        ("*1\r\n$600000000\r\n", .invalidBulkLength, "ERR Protocol error: invalid bulk length"),
        ("GRAPH.QUERY g \"MATCH (n) RETURN n\r\n", .unbalancedQuotes, "ERR Protocol error: unbalanced quotes in request"),
        ("SET 'a'b\r\n", .unbalancedQuotes, "ERR Protocol error: unbalanced quotes in request"),
    ]

    @Test("Each protocol error has Redis's wording", arguments: errors.indices)
    func protocolErrors(_ i: Int) {
        let (wire, error, message) = Self.errors[i]
        for chunkSize in [1, 3, wire.utf8.count] {
            let result = decodeAll(bytes(wire), chunkSize: chunkSize)
            #expect(result.error == error, "chunk size \(chunkSize)")
        }
        #expect(error.message == message)
    }

    @Test("Requests before a bad frame still decode")
    func requestsBeforeError() {
        let result = decodeAll(bytes("PING\r\n*1\r\n$4\r\nPING\r\n*x\r\n"), chunkSize: 5)
        #expect(result.requests == [args("PING"), args("PING")])
        #expect(result.error == .invalidMultibulkLength)
    }

    @Test("An inline line longer than 64 KiB without a newline is too big")
    func oversizedInline() {
        let line = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024 + 1)
        let result = decodeAll(line, chunkSize: 4096)
        #expect(result.error == .tooBigInlineRequest)
        #expect(RESPProtocolError.tooBigInlineRequest.message == "ERR Protocol error: too big inline request")
        // A 60 KiB line with its newline is fine.
        let fine = [UInt8](repeating: UInt8(ascii: "a"), count: 60 * 1024) + [0x0a]
        #expect(decodeAll(fine, chunkSize: 8192).requests.count == 1)
    }

    @Test("Count and length lines without CR past 64 KiB are too big")
    func oversizedCountLines() {
        let digits = [UInt8](repeating: UInt8(ascii: "1"), count: 64 * 1024 + 1)
        #expect(decodeAll([UInt8(ascii: "*")] + digits, chunkSize: 8192).error == .tooBigMultibulkCountString)
        #expect(decodeAll(bytes("*1\r\n$") + digits, chunkSize: 8192).error == .tooBigBulkCountString)
    }

    @Test("Limits are enforced from the configuration")
    func configuredLimits() {
        var limits = ProtocolLimits()
        limits.maxArgumentCount = 2
        limits.maxBulkLength = 4
        #expect(decodeAll(bytes("*3\r\n"), chunkSize: 10, limits: limits).error == .invalidMultibulkLength)
        #expect(decodeAll(bytes("*1\r\n$5\r\n"), chunkSize: 10, limits: limits).error == .invalidBulkLength)
        limits.maxInlineLength = 8
        #expect(decodeAll(bytes("PING PING PING"), chunkSize: 20, limits: limits).error == .tooBigInlineRequest)
    }

    // Regression for the fuzzer's first find (Fuzz/corpus/resp-decoder/regression-inline-argument-count):
    // inline requests escaped the argument cap, and a long line passed or failed depending
    // on whether its newline arrived in the same read.
    @Test("Inline requests obey the argument cap and the line cap however the bytes are split",
          arguments: [1, 3, 7, 64, 4096])
    func inlineCapsAreSplitIndependent(chunkSize: Int) {
        var limits = ProtocolLimits()
        limits.maxArgumentCount = 3
        limits.maxInlineLength = 16
        #expect(decodeAll(bytes("a b c\r\n"), chunkSize: chunkSize, limits: limits).requests == [args("a", "b", "c")])
        #expect(decodeAll(bytes("a b c d\r\n"), chunkSize: chunkSize, limits: limits).error == .tooManyInlineArguments)
        #expect(decodeAll(bytes("ECHO 0123456789abcdef\r\n"), chunkSize: chunkSize, limits: limits).error
                == .tooBigInlineRequest)
        #expect(decodeAll(bytes("a b c d\r\n"), chunkSize: chunkSize, limits: .unauthenticated).requests.count == 1)
        #expect(decodeAll(bytes(String(repeating: "x ", count: 11) + "\r\n"), chunkSize: chunkSize,
                          limits: .unauthenticated).error == .unauthenticatedMultibulkLength)
    }

    @Test("The fuzzer's crash input decodes the same whole and split, within the limits")
    func fuzzRegression() throws {
        let input = try fileBytes(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/resp-decoder/regression-inline-argument-count").path)
        var limits = ProtocolLimits()
        limits.maxBulkLength = 4096
        limits.maxArgumentCount = 64
        limits.maxInlineLength = 1024
        let whole = decodeAll(input, chunkSize: input.count, limits: limits)
        for chunkSize in [1, 34, 1000] {
            let split = decodeAll(input, chunkSize: chunkSize, limits: limits)
            #expect(split.requests == whole.requests && split.error == whole.error, "chunk size \(chunkSize)")
        }
        for request in whole.requests { #expect(request.count <= 64) }
    }
}
