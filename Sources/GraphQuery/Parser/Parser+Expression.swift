// Parser+Expression.swift — expressions by precedence climbing. Loosest to tightest:
// OR, XOR, AND, NOT, comparisons, IN / STARTS WITH / ENDS WITH / CONTAINS / IS [NOT] NULL,
// + -, * / %, ^, unary + -, then postfix `.key`, `[index]`, `:Label` on an atom (openCypher's order).

extension Parser {
    /// Precedence levels; a higher level binds tighter.
    enum Level {
        static let or = 1, xor = 2, and = 3, not = 4, comparison = 5, predicate = 6
        static let additive = 7, multiplicative = 8, power = 9, unary = 10
    }

    mutating func parseExpression() throws(QueryError) -> Expression {
        try parseBinary(minimum: Level.or)
    }

    /// The binary operator at the cursor with its level and token count, if any.
    func binaryOperator() -> (op: BinaryOperator, level: Int, tokens: Int)? {
        let token = current
        switch token.kind {
        case .symbol(let symbol):
            switch symbol {
            case .equal: return (.equal, Level.comparison, 1)
            case .notEqual: return (.notEqual, Level.comparison, 1)
            case .less: return (.less, Level.comparison, 1)
            case .lessEqual: return (.lessEqual, Level.comparison, 1)
            case .greater: return (.greater, Level.comparison, 1)
            case .greaterEqual: return (.greaterEqual, Level.comparison, 1)
            case .regexMatch: return (.regexMatch, Level.predicate, 1)
            case .plus: return (.add, Level.additive, 1)
            case .minus: return (.subtract, Level.additive, 1)
            case .star: return (.multiply, Level.multiplicative, 1)
            case .slash: return (.divide, Level.multiplicative, 1)
            case .percent: return (.modulo, Level.multiplicative, 1)
            case .caret: return (.power, Level.power, 1)
            default: return nil
            }
        case .identifier:
            if token.isKeyword("OR") { return (.or, Level.or, 1) }
            if token.isKeyword("XOR") { return (.xor, Level.xor, 1) }
            if token.isKeyword("AND") { return (.and, Level.and, 1) }
            if token.isKeyword("IN") { return (.in, Level.predicate, 1) }
            if token.isKeyword("CONTAINS") { return (.contains, Level.predicate, 1) }
            if token.isKeyword("STARTS"), next.isKeyword("WITH") { return (.startsWith, Level.predicate, 2) }
            if token.isKeyword("ENDS"), next.isKeyword("WITH") { return (.endsWith, Level.predicate, 2) }
            return nil
        default: return nil
        }
    }

    mutating func parseBinary(minimum: Int) throws(QueryError) -> Expression {
        var lhs = try parsePrefix(minimum: minimum)
        // The right operand of a comparison just parsed at this level: a comparison after it
        // chains (openCypher: `a < b <= c` is `a < b AND b <= c`), never compares a boolean.
        var comparedRight: Expression? = nil
        while true {
            if current.isKeyword("IS"), Level.predicate >= minimum {
                advance()
                let negated = acceptKeyword("NOT")
                try expectKeyword("NULL")
                lhs = .isNull(lhs, negated: negated)
                comparedRight = nil
                continue
            }
            guard let (op, level, count) = binaryOperator(), level >= minimum else { return lhs }
            for _ in 0..<count { advance() }
            // All binary operators are left-associative: the right side binds one level tighter.
            let rhs = try parseBinary(minimum: level + 1)
            if level == Level.comparison, let middle = comparedRight {
                lhs = .binary(.and, lhs, .binary(op, middle, rhs))
            } else {
                lhs = .binary(op, lhs, rhs)
            }
            comparedRight = level == Level.comparison ? rhs : nil
        }
    }

    /// NOT and unary signs, which bind looser than what follows them but may start any operand.
    mutating func parsePrefix(minimum: Int) throws(QueryError) -> Expression {
        nesting += 1
        defer { nesting -= 1 }
        if nesting > Parser.maximumNesting {
            throw error("Expression nested too deeply (more than \(Parser.maximumNesting) levels)", at: current.location)
        }
        if current.isKeyword("NOT") {
            advance()
            return .unary(.not, try parseBinary(minimum: Level.not))
        }
        if current.isSymbol(.minus) {
            advance()
            if current.kind == .integer {  // `-9223372036854775808` is a literal, not a negated overflow
                let token = advance()
                return try parsePostfix(.literal(.integer(integerValue(token, negative: true))))
            }
            return .unary(.negate, try parseBinary(minimum: Level.unary))
        }
        if current.isSymbol(.plus) {
            advance()
            return .unary(.plus, try parseBinary(minimum: Level.unary))
        }
        return try parsePostfix(try parseAtom())
    }

    mutating func parsePostfix(_ base: Expression) throws(QueryError) -> Expression {
        var expression = base
        while true {
            if accept(.dot) {
                expression = .property(expression, try parseName("a property key name"))
            } else if current.isSymbol(.colon) {
                var labels: [String] = []
                while accept(.colon) { labels.append(try parseName("a label name")) }
                expression = .hasLabels(expression, labels)
            } else if accept(.leftBracket) {
                if accept(.dotDot) {
                    let upper = current.isSymbol(.rightBracket) ? nil : try parseExpression()
                    try expect(.rightBracket, "']'")
                    expression = .slice(expression, nil, upper)
                    continue
                }
                let index = try parseExpression()
                if accept(.dotDot) {
                    let upper = current.isSymbol(.rightBracket) ? nil : try parseExpression()
                    try expect(.rightBracket, "']'")
                    expression = .slice(expression, index, upper)
                    continue
                }
                try expect(.rightBracket, "']'")
                expression = .subscriptIndex(expression, index)
            } else if current.isSymbol(.leftBrace), case .variable = expression {
                expression = .mapProjection(expression, try parseMapProjection())
            } else {
                return expression
            }
        }
    }

    /// Integer literals: decimal, `0x` hexadecimal and `0o` octal (openCypher), and FalkorDB's
    /// rule that a leading 0 means octal too (`010` is 8, `08` is an error).
    func integerValue(_ token: Token, negative: Bool) throws(QueryError) -> Int64 {
        var digits = Substring(token.text)
        var radix: Int64 = digits.count > 1 && digits.hasPrefix("0") ? 8 : 10
        if digits.count > 2, let marker = digits.dropFirst().first, "xXoO".contains(marker) {
            radix = "xX".contains(marker) ? 16 : 8
            digits = digits.dropFirst(2)
        }
        var value: Int64 = 0
        for byte in digits.utf8 {
            let digit: Int64 = switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): Int64(byte) - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): Int64(byte) - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): Int64(byte) - 55
            default: 99
            }
            guard digit < radix else { throw literalError("Invalid numeric value '\(token.text)'", token) }
            let (shifted, o1) = value.multipliedReportingOverflow(by: radix)
            // Accumulate negatively so that Int64.min is reachable.
            let (next, o2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !o1 && !o2 else {
                throw literalError("Integer overflow '\(negative ? "-" : "")\(token.text)'", token)
            }
            value = next
        }
        return value
    }

    /// A well-formed literal whose value is not acceptable. FalkorDB answers these with a plain
    /// error (no errMsg/line/column wrapping), so the kind is not `.syntax`; the location is kept
    /// for callers that point at the text.
    func literalError(_ message: String, _ token: Token) -> QueryError {
        QueryError(.semantic, message, location: token.location,
                   contextLine: Lexer.lineText(source, containing: token.location.offset))
    }

    mutating func parseAtom() throws(QueryError) -> Expression {
        let token = current
        switch token.kind {
        case .integer:
            advance()
            return .literal(.integer(try integerValue(token, negative: false)))
        case .float:
            advance()
            guard let value = Double(token.text) else { throw error("Invalid numeric value '\(token.text)'", at: token.location) }
            guard value.isFinite else { throw error("Floating point number is too large: '\(token.text)'", at: token.location) }
            return .literal(.double(value))
        case .string:
            advance()
            return .literal(.string(token.text))
        case .parameter:
            advance()
            parameterNames.insert(token.text)
            return .parameter(token.text)
        case .symbol(.leftParen):
            if let pattern = try attemptPatternPredicate() { return pattern }
            advance()
            let inner = try parseExpression()
            try expect(.rightParen, "')'")
            return inner
        case .symbol(.leftBracket):
            // `[(a)-->(b) | …]`, or one that names its path: `[p = (a)-->(b) | p]`.
            let namesPath = (next.kind == .identifier || next.kind == .escapedIdentifier)
                && tokens[min(index + 2, tokens.count - 1)].isSymbol(.equal) && tokens[min(index + 3, tokens.count - 1)].isSymbol(.leftParen)
            if next.isSymbol(.leftParen) || namesPath, let comprehension = try attemptPatternComprehension() { return comprehension }
            if next.kind == .identifier || next.kind == .escapedIdentifier, tokens[min(index + 2, tokens.count - 1)].isKeyword("IN") {
                return try parseListComprehension()
            }
            advance()
            var elements: [Expression] = []
            if !accept(.rightBracket) {
                repeat { elements.append(try parseExpression()) } while accept(.comma)
                guard accept(.rightBracket) else { throw unexpected("',' or ']'") }
            }
            return .list(elements)
        case .symbol(.leftBrace):
            return .map(try parseMapEntries())
        case .identifier, .escapedIdentifier:
            if token.kind == .identifier {
                if token.isKeyword("TRUE") { advance(); return .literal(.bool(true)) }
                if token.isKeyword("FALSE") { advance(); return .literal(.bool(false)) }
                if token.isKeyword("NULL") { advance(); return .literal(.null) }
                if token.isKeyword("CASE") { advance(); return try parseCase() }
                if token.isKeyword("EXISTS"), next.isSymbol(.leftBrace) { advance(); return try parseExistsSubquery(token.location) }
                if token.isKeyword("COUNT"), next.isSymbol(.leftBrace) { advance(); return try parseCountSubquery(token.location) }
                if shortestPathKind(token) != nil, next.isSymbol(.leftParen) { return try parseShortestPathExpression() }
                if token.text.lowercased() == "reduce", next.isSymbol(.leftParen),
                   tokens[min(index + 3, tokens.count - 1)].isSymbol(.equal) {
                    return try parseReduce()
                }
                if let quantifier = Quantifier(rawValue: token.text.lowercased()), next.isSymbol(.leftParen),
                   tokens[min(index + 3, tokens.count - 1)].isKeyword("IN") {
                    advance(); advance()
                    let variableToken = current
                    let variable = Expression.variable(try parseName("a variable name"), variableToken.location)
                    try expectKeyword("IN")
                    let list = try parseExpression()
                    try expectKeyword("WHERE")
                    let predicate = try parseExpression()
                    try expect(.rightParen, "')'")
                    return .quantifier(quantifier, variable: variable, list: list, predicate: predicate)
                }
            }
            advance()
            if current.isSymbol(.leftParen) || (current.isSymbol(.dot) && isNamespacedCall()) {
                return try parseFunctionCall(token)
            }
            return .variable(token.text, token.location)
        default:
            throw unexpected("an expression")
        }
    }

    /// `db.labels(` style names: identifiers joined by dots and followed by '('.
    func isNamespacedCall() -> Bool {
        var i = index
        while tokens[i].isSymbol(.dot), tokens[i + 1].kind == .identifier { i += 2 }
        return i > index && tokens[i].isSymbol(.leftParen)
    }

    mutating func parseFunctionCall(_ first: Token) throws(QueryError) -> Expression {
        var name = first.text
        while accept(.dot) { name += "." + advance().text }
        try expect(.leftParen)
        if current.isSymbol(.star) {
            advance()
            try expect(.rightParen, "')'")
            return .function(FunctionCall(name: name, isDistinct: false, isStar: true, arguments: [], location: first.location))
        }
        let isDistinct = acceptKeyword("DISTINCT")
        var arguments: [Expression] = []
        if !accept(.rightParen) {
            repeat { arguments.append(try parseExpression()) } while accept(.comma)
            guard accept(.rightParen) else { throw unexpected("',' or ')'") }
        }
        // `exists((a)-[:T]-(b))` asks whether the pattern matches, exactly as the bare pattern
        // predicate does; as a function of a value it would only test the predicate's boolean
        // for null and so be true for every row.
        if name.lowercased() == "exists", !isDistinct, arguments.count == 1,
           case .patternPredicate(var pattern) = arguments[0] {
            pattern.isExistsCall = true
            return .patternPredicate(pattern)
        }
        return .function(FunctionCall(name: name, isDistinct: isDistinct, isStar: false, arguments: arguments,
                                      location: first.location))
    }
}

extension Parser {
    /// `CASE [subject] WHEN a THEN b … [ELSE c] END`, after `CASE`.
    mutating func parseCase() throws(QueryError) -> Expression {
        let subject = current.isKeyword("WHEN") ? nil : try parseExpression()
        var branches: [(when: Expression, then: Expression)] = []
        while acceptKeyword("WHEN") {
            let when = try parseExpression()
            try expectKeyword("THEN")
            branches.append((when, try parseExpression()))
        }
        if branches.isEmpty { throw unexpected("'WHEN'") }
        let otherwise = acceptKeyword("ELSE") ? try parseExpression() : nil
        try expectKeyword("END")
        return .caseExpression(subject: subject, branches: branches, otherwise: otherwise)
    }

    /// `reduce(acc = initial, x IN list | expression)`, at `reduce`.
    mutating func parseReduce() throws(QueryError) -> Expression {
        advance()
        try expect(.leftParen)
        let accumulatorToken = current
        let accumulator = Expression.variable(try parseName("a variable name"), accumulatorToken.location)
        try expect(.equal, "'='")
        let initial = try parseExpression()
        try expect(.comma, "','")
        let variableToken = current
        let variable = Expression.variable(try parseName("a variable name"), variableToken.location)
        try expectKeyword("IN")
        let list = try parseExpression()
        try expect(.pipe, "'|'")
        let expression = try parseExpression()
        try expect(.rightParen, "')'")
        return .reduce(accumulator: accumulator, initial: initial, variable: variable, list: list, expression: expression)
    }

    /// `[x IN list WHERE predicate | projection]`, at `[`.
    mutating func parseListComprehension() throws(QueryError) -> Expression {
        try expect(.leftBracket)
        let location = current.location
        let variable = Expression.variable(try parseName("a variable name"), location)
        try expectKeyword("IN")
        let list = try parseExpression()
        let predicate = acceptKeyword("WHERE") ? try parseExpression() : nil
        let projection = accept(.pipe) ? try parseExpression() : nil
        try expect(.rightBracket, "']'")
        return .listComprehension(variable: variable, list: list, predicate: predicate, projection: projection)
    }

    /// `{.key, key: expr, variable, .*}` after a variable.
    mutating func parseMapProjection() throws(QueryError) -> [MapProjectionItem] {
        try expect(.leftBrace)
        var items: [MapProjectionItem] = []
        if accept(.rightBrace) { return items }
        repeat {
            if accept(.dot) {
                if accept(.star) { items.append(.allProperties) } else {
                    items.append(.property(try parseName("a property key name")))
                }
            } else {
                let location = current.location
                let name = try parseName("a property key name")
                if accept(.colon) {
                    items.append(.literal(name, try parseExpression()))
                } else {
                    items.append(.variable(name, .variable(name, location)))
                }
            }
        } while accept(.comma)
        try expect(.rightBrace, "',' or '}'")
        return items
    }

    /// A relationship pattern in expression position, e.g. `NOT (a)-[:FRIEND]-(b)`: tried first
    /// at `(`, and abandoned (cursor restored) unless it parses as a chain with a relationship.
    mutating func attemptPatternPredicate() throws(QueryError) -> Expression? {
        let saved = index, savedNames = parameterNames
        guard !failedPatternAttempts.contains(saved) else { return nil }
        let location = current.location
        if let part = try? parsePatternPart(), !part.relationships.isEmpty, part.pathVariable == nil {
            return .patternPredicate(PatternPredicate(patterns: [part], predicate: nil, location: location))
        }
        index = saved
        parameterNames = savedNames
        failedPatternAttempts.insert(saved)
        return nil
    }

    /// `shortestPath((a)-[*]-(b))` as a value: the path, or null when none joins the ends;
    /// `allShortestPaths(…)`: the list of them. Planned as a pattern comprehension collecting
    /// the path (`[p = shortestPath(…) | p]`), whose head `shortestPath` takes.
    mutating func parseShortestPathExpression() throws(QueryError) -> Expression {
        let location = current.location
        var part = try parsePatternPart()
        let kind = part.shortest ?? .one
        part.pathVariable = ShortestPathKind.hiddenPathName
        let collected = Expression.patternComprehension(PatternPredicate(
            patterns: [part], predicate: nil, location: location,
            projection: .variable(ShortestPathKind.hiddenPathName, location)))
        guard kind == .one else { return collected }
        return .function(FunctionCall(name: "head", isDistinct: false, isStar: false, arguments: [collected], location: location))
    }

    /// `exists { MATCH pattern [WHERE …] }` or `exists { pattern [WHERE …] }`, after `exists`: a
    /// pattern check; any other body (`exists { MATCH … WITH … RETURN … }`) is a whole query.
    mutating func parseExistsSubquery(_ location: SourceLocation) throws(QueryError) -> Expression {
        try expect(.leftBrace)
        let saved = index, savedNames = parameterNames
        if let (patterns, predicate) = try? parseSimpleSubqueryBody() {
            var subquery = PatternPredicate(patterns: patterns, predicate: predicate, location: location)
            subquery.isSubquery = true
            return .patternPredicate(subquery)
        }
        index = saved
        parameterNames = savedNames
        return .subquery(Subquery(kind: .exists, query: try parseSubqueryBody(), location: location))
    }

    /// `count { pattern [WHERE …] }` or `count { query }`, after `count`: always a query (the
    /// bare pattern becomes its MATCH).
    mutating func parseCountSubquery(_ location: SourceLocation) throws(QueryError) -> Expression {
        try expect(.leftBrace)
        let saved = index, savedNames = parameterNames
        if current.isSymbol(.leftParen), let (patterns, predicate) = try? parseSimpleSubqueryBody() {
            let match = Clause.match(MatchClause(isOptional: false, patterns: patterns, predicate: predicate))
            return .subquery(Subquery(kind: .count, query: Query(clauses: [match], parameterNames: []), location: location))
        }
        index = saved
        parameterNames = savedNames
        return .subquery(Subquery(kind: .count, query: try parseSubqueryBody(), location: location))
    }

    /// `[MATCH] pattern, … [WHERE …] }`: the short form of a subquery body.
    mutating func parseSimpleSubqueryBody() throws(QueryError) -> (patterns: [PatternPart], predicate: Expression?) {
        _ = acceptKeyword("MATCH")
        let patterns = try parsePatternList()
        let predicate = acceptKeyword("WHERE") ? try parseExpression() : nil
        try expect(.rightBrace, "'}'")
        return (patterns, predicate)
    }

    /// Clauses up to the closing `}` of a subquery.
    mutating func parseSubqueryBody() throws(QueryError) -> Query {
        var clauses: [Clause] = []
        while !accept(.rightBrace) {
            if current.kind == .endOfInput { throw unexpected(clauses.isEmpty ? Parser.clauseKeywords : "'}'") }
            clauses.append(try parseClause())
        }
        if clauses.isEmpty { throw error("A subquery needs at least one clause", at: previous.location) }
        return Query(clauses: clauses, parameterNames: [])
    }
}

extension Parser {
    /// `[pattern [WHERE predicate] | projection]` at `[`; the cursor is restored and nil returned
    /// when what follows `[` is not a relationship pattern (a list of parenthesised expressions).
    mutating func attemptPatternComprehension() throws(QueryError) -> Expression? {
        let saved = index, savedNames = parameterNames
        guard !failedComprehensionAttempts.contains(saved) else { return nil }
        let location = current.location
        advance()
        guard let part = try? parsePatternPart(), !part.relationships.isEmpty,
              current.isKeyword("WHERE") || current.isSymbol(.pipe) else {
            index = saved
            parameterNames = savedNames
            failedComprehensionAttempts.insert(saved)
            return nil
        }
        let predicate = acceptKeyword("WHERE") ? try parseExpression() : nil
        try expect(.pipe, "'|'")
        let projection = try parseExpression()
        try expect(.rightBracket, "']'")
        return .patternComprehension(PatternPredicate(patterns: [part], predicate: predicate, location: location,
                                                      projection: projection))
    }
}
