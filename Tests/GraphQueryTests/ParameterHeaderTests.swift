// ParameterHeaderTests.swift — the byte-level reader of `CYPHER name=integer …` headers must
// agree with the lexer-based reader on every text it accepts, and decline the rest.

import GraphTestSupport
import Testing
@testable import GraphQuery
import GraphStore

@Suite("CYPHER parameter header")
struct ParameterHeaderTests {
    /// Texts built from pieces that are valid, edge-case or foreign to the fast reader.
    static func texts(count: Int, seed: UInt64) -> [String] {
        var rng = SeededGenerator(seed: seed)
        let prefixes = ["CYPHER", "cypher", "  CyPhEr", "\nCYPHER", "CYPHERx", "/* c */ CYPHER", "/*abc CYPHER"]
        let names = ["id", "a", "_x1", "user_id", "ü", "`id`", "9x", "limit"]
        let values = ["1", "0", "-7", "089", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                      "- 3", "1.5", "'x'", "true", "null", "[1,2]", "{a: 1}", "5)", "0x10", "12abc"]
        let separators = ["=", " = ", "=  ", " ="]
        let bodies = ["MATCH (u:User {id: $id}) RETURN u", "RETURN $a", "", "RETURN 1 AS x", "/* body */ RETURN 1"]
        var result: [String] = []
        for _ in 0..<count {
            var text = prefixes[rng.next(prefixes.count)]
            for _ in 0..<rng.next(4) {
                text += [" ", "  ", "\t", "\n"][rng.next(4)] + names[rng.next(names.count)]
                    + separators[rng.next(separators.count)] + values[rng.next(values.count)]
            }
            text += [" ", "\n", "  "][rng.next(3)] + bodies[rng.next(bodies.count)]
            result.append(text)
        }
        return result
    }

    @Test("the integer fast path agrees with the lexer's reading", arguments: [1, 2, 3] as [UInt64])
    func fastPathAgrees(seed: UInt64) throws {
        var accepted = 0
        for text in Self.texts(count: 600, seed: seed) {
            guard let fast = ParameterHeader.splitIntegers(text) else { continue }
            accepted += 1
            let general = try ParameterHeader.splitWithLexer(text)
            #expect(fast.body == general.body, "\(text)")
            #expect(Self.stored(fast.parameters) == Self.stored(general.parameters), "\(text)")
        }
        #expect(accepted > 50, "the generator must reach the fast path")
    }

    @Test("what the fast path declines still parses: overflow clamps, other literals, comments")
    func declinedTextsParse() throws {
        #expect(ParameterHeader.splitIntegers("CYPHER a=9223372036854775808 RETURN $a") == nil)
        #expect(try ParameterHeader.split("CYPHER a=9223372036854775808 RETURN $a").parameters == ["a": .integer(.max)])
        #expect(ParameterHeader.splitIntegers("CYPHER a='x' RETURN $a") == nil)
        #expect(try ParameterHeader.split("CYPHER a='x' RETURN $a").parameters == ["a": .string("x")])
        #expect(ParameterHeader.splitIntegers("/*abc CYPHER a=1 */ RETURN 1") == nil)
        let fast = try #require(ParameterHeader.splitIntegers("CYPHER id=42 limit = -3\tMATCH (n) RETURN n"))
        #expect(fast.parameters == ["id": .integer(42), "limit": .integer(-3)])
        #expect(fast.body == "MATCH (n) RETURN n")
    }

    /// The parameters as stored values, whose equality is exact (RuntimeValue's is Cypher's
    /// equivalence, under which the integer 1 equals the float 1.0).
    static func stored(_ parameters: [String: RuntimeValue]) -> [String: Value?] {
        parameters.mapValues(\.storable)
    }
}

