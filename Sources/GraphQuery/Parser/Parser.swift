// Parser.swift — recursive-descent parser from tokens to the AST (AST.swift). This file holds
// the token cursor, error reporting and the clauses; patterns and expressions live in
// Parser+Pattern.swift and Parser+Expression.swift. Second phase of the pipeline.

/// Parses one query body (without the `CYPHER` parameter header).
package struct Parser {
    let source: [UInt8]
    let tokens: [Token]
    var index = 0
    var parameterNames: Set<String> = []
    /// Operands being parsed inside one another; bounded so that hostile nesting such as
    /// ten thousand `(` is a syntax error, not a stack overflow in the parser or evaluator.
    var nesting = 0
    static let maximumNesting = 200
    /// Token indexes where a pattern predicate or a pattern comprehension was tried and did not
    /// parse. An attempt parses everything nested in it (a property map's values hold more
    /// attempts) before it can fail, then the text is parsed again as an expression: without
    /// remembering the failures, `[({k: [({k: …` costs twice as much at every level.
    var failedPatternAttempts: Set<Int> = []
    var failedComprehensionAttempts: Set<Int> = []

    init(_ text: String) throws(QueryError) {
        source = Array(text.utf8)
        tokens = try Lexer.tokenize(text)
    }

    /// Parses `text` into a query, or throws a located `.syntax` error.
    package static func parse(_ text: String) throws(QueryError) -> Query {
        var parser = try Parser(text)
        return try parser.parseQuery()
    }

    // MARK: cursor

    var current: Token { tokens[index] }
    /// The token after the current one (the last token is end of input, so this never overruns).
    var next: Token { tokens[min(index + 1, tokens.count - 1)] }
    /// The most recently consumed token.
    var previous: Token { tokens[max(index - 1, 0)] }

    @discardableResult
    mutating func advance() -> Token {
        let token = tokens[index]
        if token.kind != .endOfInput { index += 1 }
        return token
    }

    mutating func accept(_ symbol: Symbol) -> Bool {
        guard current.isSymbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func acceptKeyword(_ keyword: String) -> Bool {
        guard current.isKeyword(keyword) else { return false }
        advance()
        return true
    }

    mutating func expect(_ symbol: Symbol, _ expected: String? = nil) throws(QueryError) {
        guard accept(symbol) else { throw unexpected(expected ?? "'\(symbol.rawValue)'") }
    }

    mutating func expectKeyword(_ keyword: String) throws(QueryError) {
        guard acceptKeyword(keyword) else { throw unexpected("'\(keyword)'") }
    }

    /// The source text between two byte offsets, e.g. a return item as written.
    func sourceText(from start: Int, to end: Int) -> String {
        String(decoding: source[start..<max(start, end)], as: UTF8.self)
    }

    /// `Invalid input 'R': expected …` at the current token, as FalkorDB words it (it quotes
    /// the first character of the offending input), or `Unexpected end of input: expected …`.
    func unexpected(_ expected: String) -> QueryError {
        let token = current
        let message: String
        if token.kind == .endOfInput {
            message = "Unexpected end of input: expected \(expected)"
        } else {
            let first = String(decoding: source[token.location.offset...].prefix(4), as: UTF8.self).first.map(String.init) ?? ""
            message = "Invalid input '\(first)': expected \(expected)"
        }
        return error(message, at: token.location)
    }

    func error(_ message: String, at location: SourceLocation) -> QueryError {
        QueryError(.syntax, message, location: location, contextLine: Lexer.lineText(source, containing: location.offset))
    }

    /// A variable, label, type or key name: an identifier or a back-ticked name.
    mutating func parseName(_ expected: String) throws(QueryError) -> String {
        switch current.kind {
        case .identifier, .escapedIdentifier: return advance().text
        default: throw unexpected(expected)
        }
    }

    // MARK: clauses

    static let clauseKeywords = "MATCH, OPTIONAL MATCH, CREATE, MERGE, SET, REMOVE, DELETE, UNWIND, CALL, WITH or RETURN"
    /// Clauses of the full language that this engine recognises only to say so.
    static let laterClauses = ["FOREACH"]

    mutating func parseQuery() throws(QueryError) -> Query {
        var query = try parseSingleQuery()
        query.parameterNames = parameterNames
        return query
    }

    /// One query up to its end or to a UNION after its RETURN.
    mutating func parseSingleQuery() throws(QueryError) -> Query {
        var clauses: [Clause] = []
        while true {
            if current.kind == .endOfInput || current.isSymbol(.semicolon) {
                if clauses.isEmpty { throw unexpected(Parser.clauseKeywords) }
                _ = accept(.semicolon)
                guard current.kind == .endOfInput else { throw unexpected("end of input") }
                break
            }
            let clause = try parseClause()
            clauses.append(clause)
            if case .schema = clause {
                guard clauses.count == 1 else { throw error("Schema commands cannot be combined with other clauses", at: current.location) }
                _ = accept(.semicolon)
                guard current.kind == .endOfInput else { throw unexpected("end of input") }
                break
            }
            if case .return = clause, current.isKeyword("UNION") {
                var unions: [(all: Bool, query: Query)] = []
                while acceptKeyword("UNION") {
                    let all = acceptKeyword("ALL")
                    // The part parses the UNIONs after it too: flatten them into one list.
                    let part = try parseSingleQuery()
                    var head = part
                    head.unions = []
                    unions.append((all, head))
                    unions += part.unions
                }
                return Query(clauses: clauses, parameterNames: parameterNames, unions: unions)
            }
            if case .return = clause {
                _ = accept(.semicolon)
                guard current.kind == .endOfInput else { throw unexpected("end of input") }
                break
            }
        }
        return Query(clauses: clauses, parameterNames: parameterNames)
    }

    mutating func parseClause() throws(QueryError) -> Clause {
        let start = current.location
        if acceptKeyword("MATCH") { return .match(try parseMatch(optional: false)) }
        if acceptKeyword("OPTIONAL") {
            try expectKeyword("MATCH")
            return .match(try parseMatch(optional: true))
        }
        if acceptKeyword("CREATE") {
            if current.isKeyword("INDEX") || current.isKeyword("CONSTRAINT") || current.isKeyword("FULLTEXT") {
                return .schema(try parseSchema(.create))
            }
            return .create(CreateClause(patterns: try parsePatternList()))
        }
        if acceptKeyword("DROP") { return .schema(try parseSchema(.drop)) }
        if acceptKeyword("MERGE") { return .merge(try parseMerge()) }
        if acceptKeyword("SET") { return .set(try parseSetItems()) }
        if acceptKeyword("REMOVE") { return .remove(try parseRemoveItems()) }
        if acceptKeyword("DELETE") { return .delete(DeleteClause(detach: false, targets: try parseExpressionList())) }
        if acceptKeyword("DETACH") {
            try expectKeyword("DELETE")
            return .delete(DeleteClause(detach: true, targets: try parseExpressionList()))
        }
        if acceptKeyword("CALL") { return .call(try parseCall(start: start)) }
        if acceptKeyword("LOAD") {
            try expectKeyword("CSV")
            var withHeaders = false
            if acceptKeyword("WITH") { try expectKeyword("HEADERS"); withHeaders = true }
            try expectKeyword("FROM")
            let url = try parseExpression()
            try expectKeyword("AS")
            let variable = try parseName("a variable name")
            var terminator = UInt8(ascii: ",")
            if acceptKeyword("FIELDTERMINATOR") {
                let token = current
                guard token.kind == .string, token.text.utf8.count == 1 else {
                    throw unexpected("a one-character string")
                }
                advance()
                terminator = token.text.utf8.first!  // checked: exactly one byte
            }
            return .loadCSV(LoadCSVClause(withHeaders: withHeaders, url: url, variable: variable, terminator: terminator))
        }
        if acceptKeyword("UNWIND") {
            let list = try parseExpression()
            try expectKeyword("AS")
            let location = current.location
            let variable = try parseName("a variable name")
            return .unwind(UnwindClause(list: list, variable: variable, location: location))
        }
        if acceptKeyword("WITH") { return .with(try parseProjection(isWith: true, start: start)) }
        if acceptKeyword("RETURN") { return .return(try parseProjection(isWith: false, start: start)) }
        if let keyword = Parser.laterClauses.first(where: { current.isKeyword($0) }) {
            throw error("\(keyword) is not supported yet", at: start)
        }
        throw unexpected(Parser.clauseKeywords)
    }

    mutating func parseMatch(optional: Bool) throws(QueryError) -> MatchClause {
        let patterns = try parsePatternList()
        var predicate: Expression?
        if acceptKeyword("WHERE") { predicate = try parseExpression() }
        return MatchClause(isOptional: optional, patterns: patterns, predicate: predicate)
    }

    mutating func parseProjection(isWith: Bool, start: SourceLocation) throws(QueryError) -> Projection {
        let isDistinct = acceptKeyword("DISTINCT")
        var includesAll = false
        var items: [ProjectionItem] = []
        if accept(.star) {
            includesAll = true
            if accept(.comma) { items = try parseProjectionItems() }
        } else {
            items = try parseProjectionItems()
        }
        var orderBy: [SortItem] = []
        if acceptKeyword("ORDER") {
            try expectKeyword("BY")
            repeat {
                let from = current.location.offset
                let expression = try parseExpression()
                let text = sourceText(from: from, to: previous.endOffset)
                var ascending = true
                if acceptKeyword("DESC") || acceptKeyword("DESCENDING") { ascending = false }
                else { _ = acceptKeyword("ASC") || acceptKeyword("ASCENDING") }
                orderBy.append(SortItem(expression: expression, ascending: ascending, sourceText: text))
            } while accept(.comma)
        }
        var skip: Expression?, limit: Expression?, predicate: Expression?
        if acceptKeyword("SKIP") { skip = try parseExpression() }
        if acceptKeyword("LIMIT") { limit = try parseExpression() }
        if isWith, acceptKeyword("WHERE") { predicate = try parseExpression() }
        return Projection(isDistinct: isDistinct, includesAll: includesAll, items: items, orderBy: orderBy,
                          skip: skip, limit: limit, predicate: predicate, location: start)
    }

    mutating func parseProjectionItems() throws(QueryError) -> [ProjectionItem] {
        var items: [ProjectionItem] = []
        repeat {
            let from = current.location.offset
            let expression = try parseExpression()
            let text = sourceText(from: from, to: previous.endOffset)
            var alias: String?
            if acceptKeyword("AS") { alias = try parseName("an alias name") }
            items.append(ProjectionItem(expression: expression, alias: alias, sourceText: text))
        } while accept(.comma)
        return items
    }
}
