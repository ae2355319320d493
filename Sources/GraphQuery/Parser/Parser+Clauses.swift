// Parser+Clauses.swift — the updating and procedure clauses: SET, REMOVE, [DETACH] DELETE,
// MERGE with ON CREATE / ON MATCH, CALL … YIELD … WHERE, and the schema statements
// (CREATE/DROP INDEX, CREATE/DROP CONSTRAINT … IS UNIQUE). Part of the parse phase.

extension Parser {
    mutating func parseExpressionList() throws(QueryError) -> [Expression] {
        var list: [Expression] = []
        repeat { list.append(try parseExpression()) } while accept(.comma)
        return list
    }

    /// A variable reference as the target of SET or REMOVE.
    mutating func parseTargetVariable() throws(QueryError) -> Expression {
        let location = current.location
        return .variable(try parseName("a variable name"), location)
    }

    mutating func parseSetItems() throws(QueryError) -> [SetItem] {
        var items: [SetItem] = []
        repeat {
            // `SET (expression).key = value`: the entity is whatever the parentheses give.
            if accept(.leftParen) {
                let target = try parseExpression()
                try expect(.rightParen, "')'")
                try expect(.dot, "'.'")
                let key = try parseName("a property key name")
                try expect(.equal, "'='")
                items.append(.property(target: target, key: key, value: try parseExpression()))
                continue
            }
            let variable = try parseTargetVariable()
            if current.isSymbol(.colon) {
                var labels: [String] = []
                while accept(.colon) { labels.append(try parseName("a label name")) }
                items.append(.labels(variable: variable, labels: labels))
            } else if accept(.dot) {
                var target = variable
                var key = try parseName("a property key name")
                while accept(.dot) {
                    target = .property(target, key)
                    key = try parseName("a property key name")
                }
                try expect(.equal, "'='")
                items.append(.property(target: target, key: key, value: try parseExpression()))
            } else if accept(.equal) {
                items.append(.replaceProperties(variable: variable, value: try parseExpression()))
            } else if accept(.plusEqual) {
                items.append(.mergeProperties(variable: variable, value: try parseExpression()))
            } else {
                throw unexpected("'.', ':', '=' or '+='")
            }
        } while accept(.comma)
        return items
    }

    mutating func parseRemoveItems() throws(QueryError) -> [RemoveItem] {
        var items: [RemoveItem] = []
        repeat {
            let variable = try parseTargetVariable()
            if current.isSymbol(.colon) {
                var labels: [String] = []
                while accept(.colon) { labels.append(try parseName("a label name")) }
                items.append(.labels(variable: variable, labels: labels))
            } else if accept(.dot) {
                items.append(.property(target: variable, key: try parseName("a property key name")))
            } else {
                throw unexpected("'.' or ':'")
            }
        } while accept(.comma)
        return items
    }

    mutating func parseMerge() throws(QueryError) -> MergeClause {
        let pattern = try parsePatternPart()
        var onCreate: [SetItem] = [], onMatch: [SetItem] = []
        while current.isKeyword("ON") {
            advance()
            if acceptKeyword("CREATE") {
                try expectKeyword("SET")
                onCreate += try parseSetItems()
            } else if acceptKeyword("MATCH") {
                try expectKeyword("SET")
                onMatch += try parseSetItems()
            } else {
                throw unexpected("'CREATE' or 'MATCH'")
            }
        }
        return MergeClause(pattern: pattern, onCreate: onCreate, onMatch: onMatch)
    }

    mutating func parseCall(start: SourceLocation) throws(QueryError) -> CallClause {
        var name = try parseName("a procedure name")
        while accept(.dot) { name += "." + (try parseName("a procedure name")) }
        var arguments: [Expression] = []
        let implicitArguments = !accept(.leftParen)
        if !implicitArguments, !accept(.rightParen) {
            arguments = try parseExpressionList()
            try expect(.rightParen, "',' or ')'")
        }
        var yields: [(name: String, alias: String?)]?
        var predicate: Expression?
        var yieldsAll = false
        if acceptKeyword("YIELD") {
            yieldsAll = accept(.star)
            if !yieldsAll {
                var list: [(name: String, alias: String?)] = []
                repeat {
                    let field = try parseName("a procedure output name")
                    let alias = acceptKeyword("AS") ? try parseName("an alias name") : nil
                    list.append((field, alias))
                } while accept(.comma)
                yields = list
            }
            if acceptKeyword("WHERE") { predicate = try parseExpression() }
        }
        return CallClause(name: name, arguments: arguments, yields: yields, predicate: predicate, location: start,
                          implicitArguments: implicitArguments, yieldsAll: yieldsAll)
    }

    /// After CREATE/DROP: `INDEX FOR (u:User) ON (u.id)`, `INDEX ON :User(id)`,
    /// `CONSTRAINT [name] FOR (u:User) REQUIRE u.id IS UNIQUE`, `CONSTRAINT ON (u:User) ASSERT u.id IS UNIQUE`.
    mutating func parseSchema(_ action: SchemaCommand.Action) throws(QueryError) -> SchemaCommand {
        if acceptKeyword("FULLTEXT") { return try parseFullTextSchema(action) }
        if action == .drop, current.isKeyword("INDEX"), !next.isKeyword("FOR"), !next.isKeyword("ON") {
            advance()
            return try parseDropIndexByName()
        }
        if acceptKeyword("INDEX") {
            if acceptKeyword("ON") {
                try expect(.colon, "':'")
                let label = try parseName("a label name")
                try expect(.leftParen, "'('")
                let key = try parseName("a property key name")
                try expect(.rightParen, "')'")
                return SchemaCommand(action: action, label: label, key: key, isConstraint: false)
            }
            try expectKeyword("FOR")
            let (variable, label) = try parseSchemaNode()
            try expectKeyword("ON")
            try expect(.leftParen, "'('")
            let key = try parseSchemaProperty(variable)
            try expect(.rightParen, "')'")
            return SchemaCommand(action: action, label: label, key: key, isConstraint: false)
        }
        try expectKeyword("CONSTRAINT")
        if !current.isKeyword("FOR") && !current.isKeyword("ON") { _ = try parseName("'FOR' or a constraint name") }
        if !acceptKeyword("FOR") { try expectKeyword("ON") }
        let (variable, label) = try parseSchemaNode()
        if !acceptKeyword("REQUIRE") { try expectKeyword("ASSERT") }
        let key = try parseSchemaProperty(variable)
        try expectKeyword("IS")
        try expectKeyword("UNIQUE")
        return SchemaCommand(action: action, label: label, key: key, isConstraint: true)
    }

    /// `(u:User)` in a schema statement.
    mutating func parseSchemaNode() throws(QueryError) -> (String, String) {
        try expect(.leftParen, "'('")
        let variable = try parseName("a variable name")
        try expect(.colon, "':'")
        let label = try parseName("a label name")
        try expect(.rightParen, "')'")
        return (variable, label)
    }

    /// `u.id`, where `u` must be the schema node's variable.
    mutating func parseSchemaProperty(_ variable: String) throws(QueryError) -> String {
        let location = current.location
        let name = try parseName("'\(variable)'")
        guard name == variable else { throw error("'\(name)' not defined: expected '\(variable)'", at: location) }
        try expect(.dot, "'.'")
        return try parseName("a property key name")
    }
}
