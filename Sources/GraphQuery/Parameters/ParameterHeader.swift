// ParameterHeader.swift — FalkorDB's parameters inside the query text: `CYPHER a=1 b='x' <query>`.
// Splits the header from the body and parses each value as a Cypher literal, before the lexer
// sees the body (so the body's error offsets count from the body's own start).

import GraphStore

/// The parameters of a `CYPHER …` header and the query body that follows it.
struct ParameterHeader {
    /// The query text after the header (the whole text when there is none).
    var body: String
    /// Already in the executor's form: a point lookup's run then binds them without a second
    /// dictionary.
    var parameters: [String: RuntimeValue]

    /// Splits `text`. Header values differ from body literals in two ways, as in FalkorDB:
    /// integers are always decimal (`089` is 89) and clamp to Int64.max instead of failing,
    /// and Python's `True`/`False` are accepted (true/false are case-insensitive anyway).
    static func split(_ text: String) throws(QueryError) -> ParameterHeader {
        // Most texts have no header: say so from the first bytes, before copying the text for the lexer.
        guard startsWithCypherKeyword(text) else { return ParameterHeader(body: text, parameters: [:]) }
        // Most headers are ids: `CYPHER id=42 …`, read on bytes; anything else takes the lexer.
        if let simple = splitIntegers(text) { return simple }
        return try splitWithLexer(text)
    }

    /// `split` for any header, through the lexer and a literal parser.
    static func splitWithLexer(_ text: String) throws(QueryError) -> ParameterHeader {
        var lexer = Lexer(text)
        guard let first = try? lexer.next(), first.isKeyword("CYPHER") else {
            return ParameterHeader(body: text, parameters: [:])
        }
        var parser = HeaderValueParser(lexer: lexer)
        var parameters: [String: RuntimeValue] = [:]
        while true {
            let name = try? parser.peekToken()
            let equals = try? parser.peekToken(1)
            // A name may be all digits, as `$1` in the body may be.
            guard let name, name.kind == .identifier || name.kind == .escapedIdentifier || name.kind == .integer,
                  let equals, equals.isSymbol(.equal) else {
                let bodyStart = parser.buffered.first?.location.offset ?? parser.lexer.position
                let bytes = parser.lexer.bytes
                var start = bodyStart
                while start < bytes.count, Lexer.byteClass[Int(bytes[start])] == .space
                        || Lexer.byteClass[Int(bytes[start])] == .newline { start += 1 }
                return ParameterHeader(body: String(decoding: bytes[start...], as: UTF8.self), parameters: parameters)
            }
            parser.consume(2)
            guard let value = parser.parseValue() else {
                // FalkorDB's reply is a plain error, not a located syntax error.
                throw QueryError(.semantic, "Failed to parse query parameter '\(name.text)' value")
            }
            parameters[name.text] = RuntimeValue(value)
        }
    }
}

extension ParameterHeader {
    /// The header when it is only `name=integer` pairs (decimal digits with an optional `-`
    /// right before them, each value followed by a blank): what every point lookup over the
    /// wire sends. nil for anything else (other literals, backticks, comments, an integer that
    /// overflows), which the lexer-based path then reads, with the same results for these.
    static func splitIntegers(_ text: String) -> ParameterHeader? {
        var text = text
        return text.withUTF8 { bytes -> ParameterHeader? in
            let n = bytes.count
            // Not CYPHER first (a comment, say): the lexer's path decides.
            guard var i = Lexer.endOfLeadingWord("CYPHER", in: bytes), i < n, Lexer.isBlank(bytes[i]) else { return nil }
            func skipBlanks() { while i < n, Lexer.isBlank(bytes[i]) { i += 1 } }
            var parameters: [String: RuntimeValue] = [:]
            while true {
                skipBlanks()
                let nameStart = i
                guard i < n, Lexer.byteClass[Int(bytes[i])] == .letter else { return nil }
                while i < n, Lexer.byteClass[Int(bytes[i])] == .letter || Lexer.byteClass[Int(bytes[i])] == .digit { i += 1 }
                let nameEnd = i
                skipBlanks()
                guard i < n, bytes[i] == UInt8(ascii: "=") else {
                    // Not `name =`: the body starts at that word.
                    return ParameterHeader(body: String(decoding: bytes[nameStart...], as: UTF8.self), parameters: parameters)
                }
                i += 1
                skipBlanks()
                let negative = i < n && bytes[i] == UInt8(ascii: "-")
                if negative { i += 1 }
                let digitsStart = i
                var magnitude: Int64 = 0
                while i < n, Lexer.byteClass[Int(bytes[i])] == .digit {
                    let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(Int64(bytes[i] - UInt8(ascii: "0")))
                    guard !o1, !o2 else { return nil }
                    magnitude = sum
                    i += 1
                }
                guard i > digitsStart, i == n || Lexer.isBlank(bytes[i]) else { return nil }
                parameters[String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)] = .integer(negative ? -magnitude : magnitude)
            }
        }
    }
}

/// Whether the text, after blanks, may start with the word CYPHER (any case): false only when
/// it cannot. The lexer decides the rest (`CYPHERx` is no header; a comment may precede one).
private func startsWithCypherKeyword(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
        if Lexer.endOfLeadingWord("CYPHER", in: bytes) != nil { return true }
        guard let first = bytes.firstIndex(where: { !Lexer.isBlank($0) }) else { return false }
        return bytes[first] == UInt8(ascii: "/")
    }
}

/// A small recursive-descent reader of literal values over the lexer, with a two-token lookahead.
struct HeaderValueParser {
    var lexer: Lexer
    var buffered: [Token] = []

    init(lexer: Lexer) { self.lexer = lexer }

    mutating func peekToken(_ ahead: Int = 0) throws(QueryError) -> Token {
        while buffered.count <= ahead { buffered.append(try lexer.next()) }
        return buffered[ahead]
    }

    mutating func consume(_ count: Int = 1) {
        buffered.removeFirst(min(count, buffered.count))
    }

    mutating func nextToken() -> Token? {
        guard let token = try? peekToken() else { return nil }
        consume()
        return token
    }

    /// One literal, or nil when the text is not a literal this header accepts.
    mutating func parseValue() -> Value? {
        guard let token = nextToken() else { return nil }
        switch token.kind {
        case .integer:
            return .integer(Int64(token.text) ?? Int64.max)
        case .float:
            guard let d = Double(token.text), d.isFinite else { return nil }
            return .double(d)
        case .string:
            return .string(token.text)
        case .symbol(.minus):
            guard let number = nextToken() else { return nil }
            if number.kind == .integer { return .integer(Int64("-" + number.text) ?? Int64.min) }
            if number.kind == .float, let d = Double(number.text), d.isFinite { return .double(-d) }
            return nil
        case .identifier:
            switch token.text.uppercased() {
            case "TRUE": return .bool(true)
            case "FALSE": return .bool(false)
            case "NULL", "NONE": return .null
            default:
                // `date('2024-01-02')`, `datetime({epochMillis: 0})`: ParameterHeader+Temporal.swift.
                return parseTemporalCall(token.text)
            }
        case .symbol(.leftBracket):
            var elements: [Value] = []
            if (try? peekToken())?.isSymbol(.rightBracket) == true { consume(); return .list(elements) }
            while true {
                guard let element = parseValue() else { return nil }
                elements.append(element)
                guard let separator = nextToken() else { return nil }
                if separator.isSymbol(.rightBracket) { return .list(elements) }
                guard separator.isSymbol(.comma) else { return nil }
            }
        case .symbol(.leftBrace):
            var map = ValueMap()
            if (try? peekToken())?.isSymbol(.rightBrace) == true { consume(); return .map(map) }
            while true {
                guard let key = nextToken(), key.kind == .identifier || key.kind == .escapedIdentifier || key.kind == .string,
                      nextToken()?.isSymbol(.colon) == true, let value = parseValue() else { return nil }
                map[key.text] = value
                guard let separator = nextToken() else { return nil }
                if separator.isSymbol(.rightBrace) { return .map(map) }
                guard separator.isSymbol(.comma) else { return nil }
            }
        default:
            return nil
        }
    }
}
