// AST.swift — the syntax tree the parser builds: a query is a list of clauses; patterns and
// expressions keep their source location so the semantic pass can report where a name was used.
// Names stay strings here; the planner resolves them to slots and the executor to schema ids.

/// A parsed query: clauses in order.
package struct Query: Sendable {
    package var clauses: [Clause]
    /// Every `$name` the query mentions, checked against the bound parameters before it runs.
    package var parameterNames: Set<String>
}

/// One clause.
package enum Clause: Sendable {
    case match(MatchClause)
    case create(CreateClause)
    case unwind(UnwindClause)
    /// WITH: a projection that starts a new scope.
    case with(Projection)
    /// RETURN: the final projection.
    case `return`(Projection)

    /// True for clauses that change the graph.
    var isUpdating: Bool {
        if case .create = self { return true }
        return false
    }
}

/// `[OPTIONAL] MATCH pattern, pattern … [WHERE predicate]`.
package struct MatchClause: Sendable {
    package var isOptional: Bool
    package var patterns: [PatternPart]
    package var predicate: Expression?
}

/// `CREATE pattern, pattern …`.
package struct CreateClause: Sendable {
    package var patterns: [PatternPart]
}

/// `UNWIND list AS variable`.
package struct UnwindClause: Sendable {
    package var list: Expression
    package var variable: String
    package var location: SourceLocation
}

/// The body of WITH and RETURN.
package struct Projection: Sendable {
    package var isDistinct: Bool
    /// `*`: every variable in scope, before the listed items.
    package var includesAll: Bool
    package var items: [ProjectionItem]
    package var orderBy: [SortItem]
    package var skip: Expression?
    package var limit: Expression?
    /// WITH … WHERE.
    package var predicate: Expression?
    package var location: SourceLocation
}

/// `expression [AS alias]`; `name` is the column name: the alias, else the source text
/// (for a bare variable its name, so that `` `n` `` stays `n` in the next scope).
package struct ProjectionItem: Sendable {
    package var expression: Expression
    package var alias: String?
    package var sourceText: String
    package var name: String {
        if let alias { return alias }
        if case .variable(let variable, _) = expression { return variable }
        return sourceText
    }
}

/// `expression [ASC|DESC]`.
package struct SortItem: Sendable {
    package var expression: Expression
    package var ascending: Bool
    package var sourceText: String
}

/// A chain `(a)-[r]->(b)<-[s]-(c)`: `nodes.count == relationships.count + 1`.
package struct PatternPart: Sendable {
    /// `p = (…)`: a named path (parsed; binding it is not supported yet).
    package var pathVariable: String?
    package var nodes: [NodePattern]
    package var relationships: [RelationshipPattern]
}

/// `(variable:Label:Other {key: value})`.
package struct NodePattern: Sendable {
    package var variable: String?
    package var labels: [String]
    package var properties: [(key: String, value: Expression)]
    package var location: SourceLocation
}

/// Which way a relationship pattern points, read left to right.
package enum PatternDirection: Sendable, Hashable {
    /// `-[]->`
    case leftToRight
    /// `<-[]-`
    case rightToLeft
    /// `-[]-` (or `<-[]->`): either way.
    case either
}

/// `-[variable:TYPE|OTHER {key: value}]->`.
package struct RelationshipPattern: Sendable {
    package var variable: String?
    package var types: [String]
    package var properties: [(key: String, value: Expression)]
    package var direction: PatternDirection
    package var location: SourceLocation
}

/// A literal constant.
package enum Literal: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
}

/// Binary operators, loosest first in `Parser+Expression.swift`'s precedence table.
package enum BinaryOperator: String, Sendable, Hashable {
    case or = "OR", xor = "XOR", and = "AND"
    case equal = "=", notEqual = "<>", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case add = "+", subtract = "-", multiply = "*", divide = "/", modulo = "%", power = "^"
    case `in` = "IN"
    case startsWith = "STARTS WITH", endsWith = "ENDS WITH", contains = "CONTAINS"
}

/// Unary operators.
package enum UnaryOperator: String, Sendable, Hashable {
    case not = "NOT", negate = "-", plus = "+"
}

/// A function call `name([DISTINCT] args)`, or `count(*)` with `isStar`.
package struct FunctionCall: Sendable {
    package var name: String
    package var isDistinct: Bool
    package var isStar: Bool
    package var arguments: [Expression]
    package var location: SourceLocation
}

/// An expression.
package indirect enum Expression: Sendable {
    case literal(Literal)
    case parameter(String)
    case variable(String, SourceLocation)
    case property(Expression, String)
    case list([Expression])
    case map([(key: String, value: Expression)])
    case unary(UnaryOperator, Expression)
    case binary(BinaryOperator, Expression, Expression)
    /// `e IS NULL` (`negated == false`) or `e IS NOT NULL`.
    case isNull(Expression, negated: Bool)
    /// `n:Label:Other`: true when the node has every label.
    case hasLabels(Expression, [String])
    /// `list[index]`.
    case subscriptIndex(Expression, Expression)
    case function(FunctionCall)
    /// Filled in by the planner: the value of the n-th aggregate of the enclosing projection.
    case aggregateResult(Int)
    /// Filled in by the planner: a variable resolved to its row slot.
    case slot(Int)
}
