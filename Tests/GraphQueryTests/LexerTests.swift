// LexerTests.swift — the lexer on its own: token kinds, decoded text, positions, and
// located errors for bad input.

import Testing
@testable import GraphQuery

@Suite("Lexer")
struct LexerTests {
    @Test("symbols, including two-byte ones, lex as single tokens", arguments: [
        ("<>", Symbol.notEqual), ("<=", .lessEqual), (">=", .greaterEqual), ("..", .dotDot), ("+=", .plusEqual),
        ("(", .leftParen), ("]", .rightBracket), ("|", .pipe), ("%", .percent), ("^", .caret), ("/", .slash),
    ])
    func symbols(text: String, symbol: Symbol) throws {
        let tokens = try Lexer.tokenize(text)
        #expect(tokens.map(\.kind) == [.symbol(symbol), .endOfInput])
    }

    @Test("literals keep their decoded text", arguments: [
        ("42", TokenKind.integer, "42"), ("010", .integer, "010"), ("1.5", .float, "1.5"), (".5", .float, ".5"),
        ("1e9", .float, "1e9"), ("'a\\'b'", .string, "a'b"), ("\"x\\ny\"", .string, "x\ny"),
        ("`odd name`", .escapedIdentifier, "odd name"), ("$p1", .parameter, "p1"), ("nàme", .identifier, "nàme"),
    ])
    func literals(text: String, kind: TokenKind, decoded: String) throws {
        let token = try #require(Lexer.tokenize(text).first)
        #expect(token.kind == kind)
        #expect(token.text == decoded)
        #expect(token.endOffset == text.utf8.count)
    }

    @Test("a range 1..3 is integer, dot-dot, integer")
    func range() throws {
        #expect(try Lexer.tokenize("1..3").map(\.kind) == [.integer, .symbol(.dotDot), .integer, .endOfInput])
    }

    @Test("tokens carry line, column and byte offset across lines and comments")
    func positions() throws {
        let tokens = try Lexer.tokenize("MATCH (n) // note\n  /* multi\nline */ RETURN é, n")
        let locations = tokens.map { ($0.text, $0.location.line, $0.location.column, $0.location.offset) }
        #expect(locations[0] == ("MATCH", 1, 1, 0))
        #expect(locations[1] == ("(", 1, 7, 6))
        #expect(locations[4] == ("RETURN", 3, 9, 37))
        #expect(locations[5] == ("é", 3, 16, 44))
        #expect(locations[6] == (",", 3, 18, 46))  // é is two bytes: columns count bytes
    }

    @Test("bad input is a located syntax error", arguments: [
        ("RETURN 'abc", "Unterminated string literal", 1, 8),
        ("RETURN\n  \"x", "Unterminated string literal", 2, 3),
        ("MATCH (`n) RETURN n", "Unterminated identifier literal", 1, 8),
        ("RETURN 1 ~ 2", "Invalid input '~': unexpected character", 1, 10),
        ("RETURN $", "Invalid input '$': expected a parameter name", 1, 8),
        ("/* never closed", "Unterminated comment", 1, 1),
    ])
    func errors(text: String, message: String, line: Int, column: Int) {
        #expect {
            _ = try Lexer.tokenize(text)
        } throws: { error in
            guard let error = error as? QueryError else { return false }
            return error.kind == .syntax && error.message == message
                && error.location?.line == line && error.location?.column == column && error.contextLine != nil
        }
    }
}
