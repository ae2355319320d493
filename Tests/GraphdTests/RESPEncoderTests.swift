// RESPEncoderTests.swift — RESP2 reply bytes for each value kind.

import Testing
@testable import graphd

@Suite("RESP encoder")
struct RESPEncoderTests {
    static let cases: [(value: RESPValue, wire: String)] = [
        (.simpleString("PONG"), "+PONG\r\n"),
        (.error("ERR unknown command"), "-ERR unknown command\r\n"),
        (.error("line\r\nbreak"), "-line  break\r\n"),
        (.integer(0), ":0\r\n"),
        (.integer(-42), ":-42\r\n"),
        (.integer(10), ":10\r\n"),
        (.integer(4_202_000_009), ":4202000009\r\n"),
        (.integer(Int64.min), ":-9223372036854775808\r\n"),
        (.integer(Int64.max), ":9223372036854775807\r\n"),
        (.bulk("hello"), "$5\r\nhello\r\n"),
        (.bulk(""), "$0\r\n\r\n"),
        (.bulk("é"), "$2\r\né\r\n"),
        (.null, "$-1\r\n"),
        (.array([]), "*0\r\n"),
        (.array([.integer(1), .array([.bulk("a"), .null])]), "*2\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n"),
    ]

    @Test("Each value encodes to RESP2 bytes", arguments: cases.indices)
    func encode(_ i: Int) {
        let (value, wire) = Self.cases[i]
        #expect(value.encoded == Array(wire.utf8))
    }

    @Test("Doubles format as C's %.15g and %f")
    func doubles() {
        #expect(NumberFormatting.shortest(3.14) == "3.14")
        #expect(NumberFormatting.shortest(3.0) == "3")
        #expect(NumberFormatting.shortest(1.0 / 3.0) == "0.333333333333333")
        #expect(NumberFormatting.shortest(1e-7) == "1e-07")
        #expect(NumberFormatting.shortest(1e16) == "1e+16")
        #expect(NumberFormatting.shortest(.infinity) == "inf")
        #expect(NumberFormatting.shortest(-.infinity) == "-inf")
        #expect(NumberFormatting.fixed(3.0) == "3.000000")
        #expect(NumberFormatting.milliseconds(0.20844) == "0.208440")
    }

    @Test("The execution time's integer formatting agrees with printf's %.6f")
    func milliseconds() {
        var rng = SystemRandomNumberGenerator()
        var samples: [Double] = [0, 0.0000004, 0.0000005, 0.0000015, 1, 999.9999995, 12_345.678901, 86_399_999.999999, 86_400_000, 1e12, -0.5]
        for _ in 0..<2_000 { samples.append(Double.random(in: 0..<5, using: &rng)) }
        for _ in 0..<200 { samples.append(Double.random(in: 0..<100_000_000, using: &rng)) }
        for value in samples {
            #expect(NumberFormatting.milliseconds(value) == NumberFormatting.format("%.6f", value), "\(value)")
            // The reply's line, assembled on the stack, is the bulk string of the same text.
            var direct = RESPEncoder(), viaString = RESPEncoder()
            ResultSetReply.writeTimeLine(value, into: &direct)
            viaString.bulkString("Query internal execution time: \(NumberFormatting.format("%.6f", value)) milliseconds")
            #expect(direct.bytes == viaString.bytes, "\(value)")
        }
    }
}
