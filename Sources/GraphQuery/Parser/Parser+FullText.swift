// Parser+FullText.swift — full-text index statements: FalkorDB's
// `CREATE|DROP FULLTEXT INDEX FOR (u:User) ON (u.name, u.username) [OPTIONS {…}]` (and
// `FOR ()-[e:R]->()` for relationships), Neo4j's
// `CREATE FULLTEXT INDEX name [IF NOT EXISTS] FOR (u:User) ON EACH [u.name] [OPTIONS {…}]` and
// `DROP INDEX name`. Part of the parse phase; ExecutionContext+FullText.swift runs them.

import GraphStore

/// A full-text index statement, as written.
package struct FullTextSchemaCommand: Sendable, Hashable {
    package var entity: FullTextEntity
    /// The label, or the relationship type; empty for a drop by name.
    package var label: String
    /// The properties; empty for a drop of the whole index by name.
    package var keys: [String]
    /// Neo4j's index name (nil: unnamed, FalkorDB's way).
    package var name: String?
    package var ifNotExists: Bool
    /// The OPTIONS map, literal values only.
    package var options: [String: Value]
}

extension Parser {
    /// After CREATE/DROP FULLTEXT.
    mutating func parseFullTextSchema(_ action: SchemaCommand.Action) throws(QueryError) -> SchemaCommand {
        try expectKeyword("INDEX")
        var name: String?
        var ifNotExists = false
        if !current.isKeyword("FOR") {
            if current.isKeyword("IF") {} else { name = try parseName("'FOR' or an index name") }
            if acceptKeyword("IF") {
                try expectKeyword("NOT")
                try expectKeyword("EXISTS")
                ifNotExists = true
            }
        }
        if action == .drop, let name, !current.isKeyword("FOR") {
            return SchemaCommand(action: .drop, label: "", key: "", isConstraint: false,
                                 fullText: FullTextSchemaCommand(entity: .node, label: "", keys: [], name: name,
                                                                 ifNotExists: false, options: [:]))
        }
        try expectKeyword("FOR")
        let (entity, variable, label) = try parseFullTextTarget()
        try expectKeyword("ON")
        var keys: [String] = []
        let closing: Symbol
        if acceptKeyword("EACH") {
            try expect(.leftBracket, "'['")
            closing = .rightBracket
        } else {
            try expect(.leftParen, "'('")
            closing = .rightParen
        }
        repeat { keys.append(try parseSchemaProperty(variable)) } while accept(.comma)
        try expect(closing, "'\(closing.rawValue)'")
        var options: [String: Value] = [:]
        if acceptKeyword("OPTIONS") {
            let location = current.location
            guard case .map(let entries) = try parseExpression() else { throw error("OPTIONS must be a map", at: location) }
            for (key, value) in entries { options[key] = try literalValue(value, at: location) }
        }
        let command = FullTextSchemaCommand(entity: entity, label: label, keys: keys, name: name,
                                            ifNotExists: ifNotExists, options: options)
        return SchemaCommand(action: action, label: label, key: keys.first ?? "", isConstraint: false, fullText: command)
    }

    /// Neo4j's `DROP INDEX name` (after DROP INDEX): drops a full-text index by its name.
    mutating func parseDropIndexByName() throws(QueryError) -> SchemaCommand {
        let name = try parseName("'FOR', 'ON' or an index name")
        return SchemaCommand(action: .drop, label: "", key: "", isConstraint: false,
                             fullText: FullTextSchemaCommand(entity: .node, label: "", keys: [], name: name,
                                                             ifNotExists: false, options: [:]))
    }

    /// `(v:Label)`, or `()-[v:TYPE]->()` in either direction or none.
    mutating func parseFullTextTarget() throws(QueryError) -> (FullTextEntity, String, String) {
        try expect(.leftParen, "'('")
        if accept(.rightParen) {
            _ = accept(.less)
            try expect(.minus, "'-'")
            try expect(.leftBracket, "'['")
            let variable = try parseName("a variable name")
            try expect(.colon, "':'")
            let type = try parseName("a relationship type")
            try expect(.rightBracket, "']'")
            try expect(.minus, "'-'")
            _ = accept(.greater)
            try expect(.leftParen, "'('")
            try expect(.rightParen, "')'")
            return (.relationship, variable, type)
        }
        let variable = try parseName("a variable name")
        try expect(.colon, "':'")
        let label = try parseName("a label name")
        try expect(.rightParen, "')'")
        return (.node, variable, label)
    }

    /// An OPTIONS value: literals, lists and maps of them.
    func literalValue(_ expression: Expression, at location: SourceLocation) throws(QueryError) -> Value {
        switch expression {
        case .literal(.null): return .null
        case .literal(.bool(let b)): return .bool(b)
        case .literal(.integer(let i)): return .integer(i)
        case .literal(.double(let d)): return .double(d)
        case .literal(.string(let s)): return .string(s)
        case .unary(.negate, .literal(.integer(let i))): return .integer(-i)
        case .unary(.negate, .literal(.double(let d))): return .double(-d)
        case .list(let items):
            var values: [Value] = []
            for item in items { values.append(try literalValue(item, at: location)) }
            return .list(values)
        case .map(let entries):
            var pairs: [(String, Value)] = []
            for (k, v) in entries { pairs.append((k, try literalValue(v, at: location))) }
            return .map(ValueMap(pairs))
        default:
            throw error("OPTIONS values must be literals", at: location)
        }
    }
}
