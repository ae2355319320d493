// Lexer.swift — splits a query body into tokens. Works on UTF-8 bytes through a 256-entry
// byte-class table (as SQLite's tokenizer does), tracking line, column and byte offset so
// that the parser's errors can point at the exact place. First phase of the pipeline.

/// The class of a byte, looked up in `Lexer.byteClass`.
enum ByteClass: UInt8 {
    case other, space, newline, letter, digit, quote, backtick, dollar, symbol, slash, dot
}

/// Turns query text into tokens. Strings are decoded here; numbers are kept as written.
package struct Lexer {
    /// One class per byte value. Bytes ≥ 0x80 are letters so that UTF-8 identifiers lex whole.
    static let byteClass: [ByteClass] = {
        var table = [ByteClass](repeating: .other, count: 256)
        for b in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(b)] = .letter }
        for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(b)] = .letter }
        for b in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(b)] = .digit }
        for b in 0x80...0xFF { table[b] = .letter }
        table[Int(UInt8(ascii: "_"))] = .letter
        for b in [0x20, 0x09, 0x0B, 0x0C, 0x0D] { table[b] = .space }
        table[0x0A] = .newline
        table[Int(UInt8(ascii: "'"))] = .quote
        table[Int(UInt8(ascii: "\""))] = .quote
        table[Int(UInt8(ascii: "`"))] = .backtick
        table[Int(UInt8(ascii: "$"))] = .dollar
        table[Int(UInt8(ascii: "/"))] = .slash
        table[Int(UInt8(ascii: "."))] = .dot
        for c in "()[]{},:;|+-*%^=<>" { table[Int(c.asciiValue!)] = .symbol }  // ASCII literals: never nil
        return table
    }()

    /// Whether `byte` is white space or a line break to the lexer.
    @inline(__always) static func isBlank(_ byte: UInt8) -> Bool {
        let c = byteClass[Int(byte)]
        return c == .space || c == .newline
    }

    /// The offset just past `word` (ASCII letters, any case) when it starts `bytes` after
    /// blanks; nil otherwise. What follows it is the caller's to check. For the tests every
    /// query text passes before it is lexed (EXPLAIN/PROFILE, a CYPHER header), on bytes.
    static func endOfLeadingWord(_ word: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        while i < bytes.count, isBlank(bytes[i]) { i += 1 }
        for k in 0..<word.utf8CodeUnitCount {
            guard i < bytes.count, bytes[i] & 0xDF == word.utf8Start[k] else { return nil }
            i += 1
        }
        return i
    }

    let bytes: [UInt8]
    var position = 0
    var line = 1
    var lineStart = 0

    package init(_ text: String) { bytes = Array(text.utf8) }

    /// Lexes the whole input; the last token is always `.endOfInput`.
    package static func tokenize(_ text: String) throws(QueryError) -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .endOfInput { return tokens }
        }
    }

    var location: SourceLocation { SourceLocation(line: line, column: position - lineStart + 1, offset: position) }

    func peek(_ ahead: Int = 0) -> UInt8? {
        position + ahead < bytes.count ? bytes[position + ahead] : nil
    }

    func classOf(_ ahead: Int = 0) -> ByteClass? { peek(ahead).map { Lexer.byteClass[Int($0)] } }

    func error(_ message: String, at location: SourceLocation) -> QueryError {
        QueryError(.syntax, message, location: location, contextLine: Lexer.lineText(bytes, containing: location.offset))
    }

    /// The text of the line holding byte `offset`, without its newline.
    static func lineText(_ bytes: [UInt8], containing offset: Int) -> String {
        var start = min(offset, bytes.count)
        while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
        var end = start
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Skips blanks, newlines and `//` / `/* */` comments.
    mutating func skipTrivia() throws(QueryError) {
        while let cls = classOf() {
            switch cls {
            case .space: position += 1
            case .newline: position += 1; line += 1; lineStart = position
            case .slash where peek(1) == UInt8(ascii: "/"):
                while let b = peek(), b != 0x0A { position += 1 }
            case .slash where peek(1) == UInt8(ascii: "*"):
                let start = location
                position += 2
                while true {
                    guard let b = peek() else { throw error("Unterminated comment", at: start) }
                    if b == UInt8(ascii: "*") && peek(1) == UInt8(ascii: "/") { position += 2; break }
                    position += 1
                    if b == 0x0A { line += 1; lineStart = position }
                }
            default: return
            }
        }
    }

    func text(from start: Int) -> String { String(decoding: bytes[start..<position], as: UTF8.self) }

    /// The next token.
    package mutating func next() throws(QueryError) -> Token {
        try skipTrivia()
        let start = location
        guard let cls = classOf() else { return Token(kind: .endOfInput, text: "", location: start, endOffset: position) }
        func make(_ kind: TokenKind, _ text: String) -> Token {
            Token(kind: kind, text: text, location: start, endOffset: position)
        }
        switch cls {
        case .letter:
            while let c = classOf(), c == .letter || c == .digit { position += 1 }
            return make(.identifier, text(from: start.offset))
        case .digit:
            return try number(start)
        case .dot:
            if classOf(1) == .digit { return try number(start) }
            if peek(1) == UInt8(ascii: ".") { position += 2; return make(.symbol(.dotDot), "..") }
            position += 1
            return make(.symbol(.dot), ".")
        case .quote:
            let value = try quoted(terminator: bytes[position], start: start, what: "string")
            return make(.string, value)
        case .backtick:
            let value = try quoted(terminator: UInt8(ascii: "`"), start: start, what: "identifier")
            return make(.escapedIdentifier, value)
        case .dollar:
            position += 1
            if classOf() == .backtick {
                let name = try quoted(terminator: UInt8(ascii: "`"), start: location, what: "identifier")
                return make(.parameter, name)
            }
            let nameStart = position
            while let c = classOf(), c == .letter || c == .digit { position += 1 }
            guard position > nameStart else { throw error("Invalid input '$': expected a parameter name", at: start) }
            return make(.parameter, text(from: nameStart))
        case .symbol, .slash:
            let b = bytes[position]
            position += 1
            let next = peek()
            let symbol: Symbol
            switch (b, next) {
            case (UInt8(ascii: "<"), UInt8(ascii: ">")): position += 1; symbol = .notEqual
            case (UInt8(ascii: "<"), UInt8(ascii: "=")): position += 1; symbol = .lessEqual
            case (UInt8(ascii: ">"), UInt8(ascii: "=")): position += 1; symbol = .greaterEqual
            case (UInt8(ascii: "+"), UInt8(ascii: "=")): position += 1; symbol = .plusEqual
            case (UInt8(ascii: "="), UInt8(ascii: "~")): position += 1; symbol = .regexMatch
            default:
                // Every byte of class .symbol/.slash spells exactly one Symbol case.
                symbol = Symbol(rawValue: String(UnicodeScalar(b)))!
            }
            return make(.symbol(symbol), symbol.rawValue)
        case .space, .newline, .other:
            let scalar = String(decoding: bytes[position..<min(bytes.count, position + 1)], as: UTF8.self)
            throw error("Invalid input '\(scalar)': unexpected character", at: start)
        }
    }

    /// Lexes digits, an optional fraction and exponent. `1..3` stays integer + `..` + integer.
    mutating func number(_ start: SourceLocation) throws(QueryError) -> Token {
        var isFloat = false
        // `0x1F` and `0o17`: the digits (letters too, for hexadecimal) are checked by the parser.
        if peek() == UInt8(ascii: "0"), let marker = peek(1),
           [UInt8(ascii: "x"), UInt8(ascii: "X"), UInt8(ascii: "o"), UInt8(ascii: "O")].contains(marker),
           let c = classOf(2), c == .letter || c == .digit {
            position += 2
            while let c = classOf(), c == .letter || c == .digit { position += 1 }
            return Token(kind: .integer, text: text(from: start.offset), location: start, endOffset: position)
        }
        while classOf() == .digit { position += 1 }
        if peek() == UInt8(ascii: "."), classOf(1) == .digit {
            isFloat = true
            position += 1
            while classOf() == .digit { position += 1 }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var ahead = 1
            if let s = peek(1), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { ahead = 2 }
            if classOf(ahead) == .digit {
                isFloat = true
                position += ahead
                while classOf() == .digit { position += 1 }
            }
        }
        if classOf() == .letter {
            while let c = classOf(), c == .letter || c == .digit { position += 1 }
            throw error("Invalid numeric value '\(text(from: start.offset))'", at: start)
        }
        return Token(kind: isFloat ? .float : .integer, text: text(from: start.offset), location: start, endOffset: position)
    }

    /// Reads a quoted string or name starting at the opening quote, applying backslash escapes
    /// (strings only; a doubled backtick is a literal backtick in names).
    mutating func quoted(terminator: UInt8, start: SourceLocation, what: String) throws(QueryError) -> String {
        position += 1
        var out: [UInt8] = []
        while true {
            guard let b = peek() else { throw error("Unterminated \(what) literal", at: start) }
            position += 1
            if b == terminator {
                if terminator == UInt8(ascii: "`"), peek() == terminator { position += 1; out.append(b); continue }
                break
            }
            if b == 0x0A { line += 1; lineStart = position }
            if b == UInt8(ascii: "\\"), terminator != UInt8(ascii: "`") {
                guard let e = peek() else { throw error("Unterminated \(what) literal", at: start) }
                position += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "0"): out.append(0x00)
                case UInt8(ascii: "u"):
                    guard position + 4 <= bytes.count,
                          let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(code) else {
                        throw error("Invalid unicode escape in \(what) literal", at: start)
                    }
                    position += 4
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: out.append(e)  // \\, \', \", and any other escaped byte stand for themselves
                }
                continue
            }
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
