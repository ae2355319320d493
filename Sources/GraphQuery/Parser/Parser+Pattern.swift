// Parser+Pattern.swift — parses graph patterns: `(a:L {k: v})-[r:T|U {k: v}]->(b)`, several
// separated by commas, optionally named (`p = …`), or wrapped in `shortestPath(…)` /
// `allShortestPaths(…)`. Used by MATCH and CREATE.

extension Parser {
    mutating func parsePatternList() throws(QueryError) -> [PatternPart] {
        var parts: [PatternPart] = []
        repeat { parts.append(try parsePatternPart()) } while accept(.comma)
        return parts
    }

    mutating func parsePatternPart() throws(QueryError) -> PatternPart {
        var pathVariable: String?
        if current.kind == .identifier || current.kind == .escapedIdentifier, next.isSymbol(.equal) {
            pathVariable = advance().text
            advance()
        }
        if let kind = shortestPathKind(current), next.isSymbol(.leftParen) {
            let location = current.location
            advance(); advance()
            var part = try parsePatternPart()
            try expect(.rightParen, "')'")
            guard part.pathVariable == nil, part.relationships.count == 1 else {
                throw error("\(kind == .one ? "shortestPath" : "allShortestPaths")(…) requires a pattern of exactly one relationship, as in shortestPath((a)-[:KNOWS*]-(b))",
                            at: location)
            }
            part.pathVariable = pathVariable
            part.shortest = kind
            return part
        }
        var nodes = [try parseNodePattern()]
        var relationships: [RelationshipPattern] = []
        while current.isSymbol(.minus) || (current.isSymbol(.less) && next.isSymbol(.minus)) {
            relationships.append(try parseRelationshipPattern())
            nodes.append(try parseNodePattern())
        }
        return PatternPart(pathVariable: pathVariable, nodes: nodes, relationships: relationships)
    }

    /// The shortest-path function a token names (`shortestPath`, `allShortestPaths`, any case).
    func shortestPathKind(_ token: Token) -> ShortestPathKind? {
        guard token.kind == .identifier else { return nil }
        switch token.text.lowercased() {
        case "shortestpath": return .one
        case "allshortestpaths": return .all
        default: return nil
        }
    }

    mutating func parseNodePattern() throws(QueryError) -> NodePattern {
        let location = current.location
        try expect(.leftParen, "'('")
        var variable: String?
        if current.kind == .identifier || current.kind == .escapedIdentifier { variable = advance().text }
        var labels: [String] = []
        while accept(.colon) { labels.append(try parseName("a label name")) }
        var properties: [(key: String, value: Expression)] = []
        let hasPropertyMap = current.isSymbol(.leftBrace)
        if hasPropertyMap { properties = try parseMapEntries() }
        guard accept(.rightParen) else {
            throw unexpected(labels.isEmpty && properties.isEmpty && variable == nil
                ? "a variable, a label, '{', a parameter or ')'"
                : properties.isEmpty ? "a label, '{', a parameter or ')'" : "')'")
        }
        return NodePattern(variable: variable, labels: labels, properties: properties, location: location,
                           hasPropertyMap: hasPropertyMap)
    }

    /// `-[…]->`, `<-[…]-`, `-[…]-`, and the bare forms `-->`, `<--`, `--`.
    mutating func parseRelationshipPattern() throws(QueryError) -> RelationshipPattern {
        let location = current.location
        let pointsLeft = accept(.less)
        try expect(.minus, "'-'")
        var variable: String?
        var types: [String] = []
        var properties: [(key: String, value: Expression)] = []
        var length: VariableLength?
        if accept(.leftBracket) {
            if current.kind == .identifier || current.kind == .escapedIdentifier { variable = advance().text }
            if accept(.colon) {
                types.append(try parseName("a relationship type name"))
                while accept(.pipe) {
                    _ = accept(.colon)
                    let type = try parseName("a relationship type name")
                    // `[:T|:T]` is `[:T]`: a relationship matches once, however often its type is listed.
                    if !types.contains(type) { types.append(type) }
                }
            }
            if accept(.star) { length = try parseVariableLength() }
            if current.isSymbol(.leftBrace) { properties = try parseMapEntries() }
            guard accept(.rightBracket) else {
                throw unexpected(properties.isEmpty ? "a relationship type, '{', a parameter or ']'" : "']'")
            }
        }
        try expect(.minus, "'-'")
        let pointsRight = accept(.greater)
        let direction: PatternDirection = pointsLeft == pointsRight ? .either : (pointsRight ? .leftToRight : .rightToLeft)
        return RelationshipPattern(variable: variable, types: types, properties: properties,
                                   direction: direction, location: location, length: length)
    }

    /// `{key: expression, …}` as ordered entries (a pattern's property map or a map literal).
    mutating func parseMapEntries() throws(QueryError) -> [(key: String, value: Expression)] {
        try expect(.leftBrace)
        var entries: [(key: String, value: Expression)] = []
        if accept(.rightBrace) { return entries }
        repeat {
            let key = try parseName("a property key name")
            try expect(.colon, "':'")
            entries.append((key, try parseExpression()))
        } while accept(.comma)
        guard accept(.rightBrace) else { throw unexpected("',' or '}'") }
        return entries
    }
}

extension Parser {
    /// After `*`: nothing (1..∞), `n` (exactly n), `n..m`, `..m`, `n..`.
    mutating func parseVariableLength() throws(QueryError) -> VariableLength {
        func bound(_ parser: inout Parser) throws(QueryError) -> Int? {
            guard parser.current.kind == .integer else { return nil }
            let token = parser.advance()
            return Int(try parser.integerValue(token, negative: false))
        }
        let low = try bound(&self)
        if accept(.dotDot) {
            let high = try bound(&self)
            return VariableLength(min: low ?? 1, max: high)
        }
        if let low { return VariableLength(min: low, max: low) }
        return VariableLength(min: 1, max: nil)
    }
}
