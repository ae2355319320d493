// Token.swift — the unit the lexer hands the parser: a kind, its text, and where it sits
// in the query body (line, column, byte offset), so every later error can point at it.

/// Punctuation and operators. Multi-byte operators (`<>`, `<=`, `>=`, `..`) are single
/// symbols; arrows are not, because `<-` in a pattern and `a < -1` in an expression lex
/// the same way: the parser decides from context.
package enum Symbol: String, Sendable, Hashable {
    case leftParen = "(", rightParen = ")", leftBracket = "[", rightBracket = "]"
    case leftBrace = "{", rightBrace = "}", comma = ",", colon = ":", semicolon = ";"
    case dot = ".", dotDot = "..", pipe = "|"
    case plus = "+", minus = "-", star = "*", slash = "/", percent = "%", caret = "^"
    case equal = "=", notEqual = "<>", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case plusEqual = "+=", regexMatch = "=~"
}

/// What a token is. Keywords are lexed as identifiers and recognised by the parser,
/// case-insensitively, so that `count` or `type` stay usable as names where Cypher allows.
package enum TokenKind: Sendable, Hashable {
    case identifier
    /// A `` `back-ticked` `` name; `text` holds the name without the ticks.
    case escapedIdentifier
    /// `text` holds the digits as written (the parser applies the octal rule).
    case integer
    case float
    /// `text` holds the decoded string (escapes applied).
    case string
    /// `$name`; `text` holds the name.
    case parameter
    case symbol(Symbol)
    case endOfInput
}

/// One lexed token.
package struct Token: Sendable, Hashable {
    package var kind: TokenKind
    /// Identifier name, decoded string, digits, or the symbol's spelling.
    package var text: String
    /// Where the token starts.
    package var location: SourceLocation
    /// Byte offset just past the token's last byte, for taking source substrings.
    package var endOffset: Int

    package init(kind: TokenKind, text: String, location: SourceLocation, endOffset: Int) {
        self.kind = kind; self.text = text; self.location = location; self.endOffset = endOffset
    }

    /// True for an unescaped identifier spelling `keyword` in any case.
    @inlinable package func isKeyword(_ keyword: String) -> Bool {
        kind == .identifier && text.count == keyword.count && text.uppercased() == keyword
    }

    /// True when the token is `symbol`.
    @inlinable package func isSymbol(_ symbol: Symbol) -> Bool { kind == .symbol(symbol) }
}
