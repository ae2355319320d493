// ParserTests.swift — the parser on its own: clause structure, precedence, pattern shapes,
// source text of projection items, and the location of syntax errors.

import Testing
@testable import GraphQuery

@Suite("Parser")
struct ParserTests {
    /// Renders an expression fully parenthesised, to check precedence.
    func shape(_ e: Expression) -> String {
        switch e {
        case .literal(let l):
            switch l {
            case .null: return "null"
            case .bool(let b): return "\(b)"
            case .integer(let i): return "\(i)"
            case .double(let d): return "\(d)"
            case .string(let s): return "'\(s)'"
            }
        case .parameter(let p): return "$" + p
        case .variable(let v, _): return v
        case .property(let b, let k): return shape(b) + "." + k
        case .list(let l): return "[" + l.map(shape).joined(separator: ",") + "]"
        case .map(let m): return "{" + m.map { $0.key + ":" + shape($0.value) }.joined(separator: ",") + "}"
        case .unary(let op, let x): return "(\(op.rawValue) \(shape(x)))"
        case .binary(let op, let l, let r): return "(\(shape(l)) \(op.rawValue) \(shape(r)))"
        case .isNull(let x, let negated): return "(\(shape(x)) IS \(negated ? "NOT " : "")NULL)"
        case .hasLabels(let x, let labels): return "(" + shape(x) + labels.map { ":" + $0 }.joined() + ")"
        case .subscriptIndex(let b, let i): return shape(b) + "[" + shape(i) + "]"
        case .function(let f): return f.name + "(" + (f.isStar ? "*" : f.arguments.map(shape).joined(separator: ",")) + ")"
        case .aggregateResult(let i): return "agg\(i)"
        case .slot(let s): return "#\(s)"
        case .slice(let b, let from, let to):
            return shape(b) + "[" + (from.map(shape) ?? "") + ".." + (to.map(shape) ?? "") + "]"
        case .caseExpression(let subject, let branches, let otherwise):
            return "CASE " + (subject.map { shape($0) + " " } ?? "")
                + branches.map { "WHEN " + shape($0.when) + " THEN " + shape($0.then) }.joined(separator: " ")
                + (otherwise.map { " ELSE " + shape($0) } ?? "") + " END"
        case .listComprehension(let v, let list, let p, let proj):
            return "[" + shape(v) + " IN " + shape(list) + (p.map { " WHERE " + shape($0) } ?? "")
                + (proj.map { " | " + shape($0) } ?? "") + "]"
        case .quantifier(let q, let v, let list, let p):
            return q.rawValue + "(" + shape(v) + " IN " + shape(list) + " WHERE " + shape(p) + ")"
        case .reduce(let a, let initial, let v, let list, let e):
            return "reduce(" + shape(a) + " = " + shape(initial) + ", " + shape(v) + " IN " + shape(list) + " | " + shape(e) + ")"
        case .mapProjection(let b, let items): return shape(b) + "{\(items.count) items}"
        case .patternPredicate(let p): return "pattern(\(p.patterns.count))"
        case .patternComprehension(let p): return "[pattern(\(p.patterns.count)) | ...]"
        case .subquery(let s): return "\(s.kind.rawValue.lowercased()) {\(s.query.clauses.count) clauses}"
        }
    }

    func returnItems(_ text: String) throws -> [ProjectionItem] {
        let query = try Parser.parse(text)
        guard case .return(let projection) = query.clauses.last else { Issue.record("no RETURN"); return [] }
        return projection.items
    }

    @Test("operator precedence follows openCypher", arguments: [
        ("1 + 2 * 3", "(1 + (2 * 3))"),
        ("1 - 2 - 3", "((1 - 2) - 3)"),
        ("-2 ^ 2", "(-2 ^ 2)"),
        ("- a ^ 2", "((- a) ^ 2)"),
        ("a OR b AND c", "(a OR (b AND c))"),
        ("a XOR b OR c", "((a XOR b) OR c)"),
        ("NOT a = b AND c", "((NOT (a = b)) AND c)"),
        ("a + 1 IS NULL", "((a + 1) IS NULL)"),
        ("x IN [1, 2] = true", "((x IN [1,2]) = true)"),
        ("n.name STARTS WITH 'A' OR n.age <= 3", "((n.name STARTS WITH 'A') OR (n.age <= 3))"),
        ("a.b.c[0]", "a.b.c[0]"),
        ("count(*) + count(DISTINCT n)", "(count(*) + count(n))"),
        ("n IS NOT NULL", "(n IS NOT NULL)"),
        ("(1 + 2) * 3", "((1 + 2) * 3)"),
        ("NOT n:A:B OR m:C", "((NOT (n:A:B)) OR (m:C))"),
    ])
    func precedence(text: String, expected: String) throws {
        let items = try returnItems("RETURN " + text)
        #expect(items.count == 1)
        #expect(items.first.map { shape($0.expression) } == expected)
    }

    @Test("column names are the source text as written, or the alias")
    func columnNames() throws {
        let items = try returnItems("RETURN  n.name ,count( * ), a+1 AS `sum`, toUpper(b)")
        #expect(items.map(\.name) == ["n.name", "count( * )", "sum", "toUpper(b)"])
    }

    @Test("patterns keep variables, labels, types, properties and directions")
    func patterns() throws {
        let query = try Parser.parse("MATCH (a:User:Admin {id: 1})-[r:FRIEND|FOLLOWS]->(b)<-[:X]-(c), (d)--(e) RETURN a")
        guard case .match(let match) = query.clauses[0] else { Issue.record("not a MATCH"); return }
        #expect(match.patterns.count == 2)
        let chain = match.patterns[0]
        #expect(chain.nodes.map(\.variable) == ["a", "b", "c"])
        #expect(chain.nodes[0].labels == ["User", "Admin"])
        #expect(chain.nodes[0].properties.map(\.key) == ["id"])
        #expect(chain.relationships.map(\.types) == [["FRIEND", "FOLLOWS"], ["X"]])
        #expect(chain.relationships.map(\.direction) == [.leftToRight, .rightToLeft])
        #expect(match.patterns[1].relationships[0].direction == .either)
        #expect(match.patterns[1].relationships[0].variable == nil)
    }

    @Test("clauses are parsed in order, with ORDER BY, SKIP and LIMIT")
    func clauses() throws {
        let query = try Parser.parse("UNWIND $xs AS x WITH DISTINCT x WHERE x > 1 RETURN x ORDER BY x DESC, 1 SKIP 1 LIMIT 2;")
        #expect(query.clauses.count == 3)
        #expect(query.parameterNames == ["xs"])
        guard case .return(let projection) = query.clauses[2], case .with(let with) = query.clauses[1] else {
            Issue.record("wrong clauses"); return
        }
        #expect(with.isDistinct && with.predicate != nil)
        #expect(projection.orderBy.map(\.ascending) == [false, true])
        #expect(projection.skip != nil && projection.limit != nil)
    }

    @Test("syntax errors carry the offending token's location and line", arguments: [
        ("MATCH (n RETURN n", "Invalid input 'R': expected a label, '{', a parameter or ')'", 1, 10, 9),
        ("MATCH (n)\nRETURN n.", "Unexpected end of input: expected a property key name", 2, 10, 19),
        ("CREATE (a)-[:R {x: 1]->(b)", "Invalid input ']': expected ',' or '}'", 1, 21, 20),
        ("RETURN 1 AS", "Unexpected end of input: expected an alias name", 1, 12, 11),
        ("MATCH (a)-[*x]->(b) RETURN a", "Invalid input 'x': expected a relationship type, '{', a parameter or ']'", 1, 13, 12),
        ("MATCH (n:) RETURN n", "Invalid input ')': expected a label name", 1, 10, 9),
        ("RETURN (1 + 2", "Unexpected end of input: expected ')'", 1, 14, 13),
    ])
    func errors(text: String, message: String, line: Int, column: Int, offset: Int) {
        #expect {
            _ = try Parser.parse(text)
        } throws: { error in
            guard let error = error as? QueryError else { return false }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return error.kind == .syntax && error.message == message
                && error.location == SourceLocation(line: line, column: column, offset: offset)
                && error.contextLine == String(lines[line - 1])
        }
    }

    @Test("a literal out of range is a plain (non-syntax) error that still knows where it is", arguments: [
        ("RETURN 01 + 09", "Invalid numeric value '09'", 13),
        ("RETURN 9223372036854775808", "Integer overflow '9223372036854775808'", 8),
        ("RETURN -9223372036854775809", "Integer overflow '-9223372036854775809'", 9),
    ])
    func literalErrors(text: String, message: String, column: Int) {
        #expect {
            _ = try Parser.parse(text)
        } throws: { error in
            guard let error = error as? QueryError else { return false }
            return error.kind == .semantic && error.message == message && error.location?.column == column
        }
    }
}
