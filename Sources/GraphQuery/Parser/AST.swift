// AST.swift — the syntax tree the parser builds: a query is a list of clauses; patterns and
// expressions keep their source location so the semantic pass can report where a name was used.
// Names stay strings here; the planner resolves them to slots and the executor to schema ids.

/// A parsed query: clauses in order.
package struct Query: Sendable {
    package var clauses: [Clause]
    /// Every `$name` the query mentions, checked against the bound parameters before it runs.
    package var parameterNames: Set<String>
    /// `UNION [ALL]` parts after the first, each a whole query of its own (`all`: keep duplicates).
    package var unions: [(all: Bool, query: Query)] = []
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
    /// `CALL name(args) [YIELD …] [WHERE …]`, in a query or on its own.
    case call(CallClause)
    /// `SET item, item …`.
    case set([SetItem])
    /// `REMOVE item, item …`.
    case remove([RemoveItem])
    /// `[DETACH] DELETE expression, …`.
    case delete(DeleteClause)
    /// `MERGE pattern [ON CREATE SET …] [ON MATCH SET …]`.
    case merge(MergeClause)
    /// `CREATE INDEX …`, `CREATE CONSTRAINT …`, `DROP …`: a query of its own.
    case schema(SchemaCommand)
    /// `LOAD CSV [WITH HEADERS] FROM url AS row [FIELDTERMINATOR ';']`.
    case loadCSV(LoadCSVClause)

    /// True for clauses that change the graph (a CALL depends on its procedure: the binder decides).
    var isUpdating: Bool {
        switch self {
        case .create, .set, .remove, .delete, .merge, .schema: return true
        case .match, .unwind, .with, .return, .call, .loadCSV: return false
        }
    }
}

/// `LOAD CSV WITH HEADERS FROM 'file:///users.csv' AS row`.
package struct LoadCSVClause: Sendable {
    package var withHeaders: Bool
    package var url: Expression
    package var variable: String
    /// The field separator, one byte (`,` unless FIELDTERMINATOR says otherwise).
    package var terminator: UInt8
}

/// `CALL db.labels() YIELD label AS l WHERE …`.
package struct CallClause: Sendable {
    package var name: String
    package var arguments: [Expression]
    /// nil: no YIELD (every output column, for a standalone call); `YIELD *` is also nil.
    package var yields: [(name: String, alias: String?)]?
    package var predicate: Expression?
    package var location: SourceLocation
    /// `CALL p.name` without parentheses: each argument is the parameter of its name.
    package var implicitArguments = false
    /// `YIELD *` was written (only a standalone call may).
    package var yieldsAll = false
}

/// One item of SET (also used by MERGE's ON CREATE / ON MATCH).
package enum SetItem: Sendable {
    /// `target.key = value`.
    case property(target: Expression, key: String, value: Expression)
    /// `n = {map}`: replaces every property.
    case replaceProperties(variable: Expression, value: Expression)
    /// `n += {map}`: adds and overwrites properties, keeps the others.
    case mergeProperties(variable: Expression, value: Expression)
    /// `n:Label:Other`.
    case labels(variable: Expression, labels: [String])
}

/// One item of REMOVE.
package enum RemoveItem: Sendable {
    case property(target: Expression, key: String)
    case labels(variable: Expression, labels: [String])
}

/// `[DETACH] DELETE a, b`.
package struct DeleteClause: Sendable {
    package var detach: Bool
    package var targets: [Expression]
}

/// `MERGE (a)-[:T]->(b) ON CREATE SET … ON MATCH SET …`.
package struct MergeClause: Sendable {
    package var pattern: PatternPart
    package var onCreate: [SetItem]
    package var onMatch: [SetItem]
}

/// A schema statement: an index, or a unique constraint (backed by a unique index).
package struct SchemaCommand: Sendable, Hashable {
    package enum Action: Sendable, Hashable { case create, drop }
    package var action: Action
    package var label: String
    package var key: String
    package var isConstraint: Bool
    /// Set for `CREATE/DROP FULLTEXT INDEX …` and Neo4j's `DROP INDEX name` (Parser+FullText.swift).
    package var fullText: FullTextSchemaCommand? = nil
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
    /// `shortestPath(…)` or `allShortestPaths(…)` around the chain (one relationship, then).
    package var shortest: ShortestPathKind? = nil
}

/// Which shortest paths a `shortestPath(…)` / `allShortestPaths(…)` pattern stands for.
package enum ShortestPathKind: Sendable, Hashable {
    /// `shortestPath`: one path of the least length (none when the ends are not connected).
    case one
    /// `allShortestPaths`: every path of the least length.
    case all

    /// The path variable of a shortest path written as a value (no query can spell it).
    static let hiddenPathName = "\u{0}shortest path"
}

/// `(variable:Label:Other {key: value})`.
package struct NodePattern: Sendable {
    package var variable: String?
    package var labels: [String]
    package var properties: [(key: String, value: Expression)]
    package var location: SourceLocation
    /// A property map was written, even `{}`.
    package var hasPropertyMap = false
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
    /// `*min..max` for a variable-length relationship (max nil: unbounded); nil for one hop.
    package var length: VariableLength? = nil
}

/// The hop bounds of `-[*min..max]-`.
package struct VariableLength: Sendable, Hashable {
    package var min: Int
    package var max: Int?
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
    case startsWith = "STARTS WITH", endsWith = "ENDS WITH", contains = "CONTAINS", regexMatch = "=~"
}

/// Unary operators.
package enum UnaryOperator: String, Sendable, Hashable {
    case not = "NOT", negate = "-", plus = "+"
}

/// The four list quantifiers.
package enum Quantifier: String, Sendable, Hashable { case all, any, none, single }

/// One entry of a map projection.
package enum MapProjectionItem: Sendable {
    /// `.key`
    case property(String)
    /// `key: expression`
    case literal(String, Expression)
    /// `variable` (the key is its name)
    case variable(String, Expression)
    /// `.*`
    case allProperties
}

/// A pattern used as an existence test. Before binding `patterns` are parsed parts; the binder
/// fills `plan` with the match operators that check it against the current row.
package struct PatternPredicate: Sendable {
    package var patterns: [PatternPart]
    package var predicate: Expression?
    package var location: SourceLocation
    /// For a pattern comprehension `[(a)-->(b) WHERE … | b.name]`: the value collected per match
    /// (nil for an existence test).
    package var projection: Expression? = nil
    /// True for `EXISTS { … }`, which may name new variables; a bare pattern used as a
    /// predicate may not (openCypher: its variables must be bound already).
    package var isSubquery = false
    /// Written inside `exists(…)`: a test, not a pattern used as a value.
    package var isExistsCall = false
    var plan: [PatternOperator] = []
    /// Row width the check needs (hidden slots for its anonymous elements).
    var width = 0
}

/// `EXISTS { MATCH … WITH … RETURN … }` or `COUNT { … }`: a query run for each row with the
/// row's variables in scope; EXISTS is whether it returns a row, COUNT how many it returns.
package struct Subquery: Sendable {
    package enum Kind: String, Sendable { case exists = "EXISTS", count = "COUNT" }
    package var kind: Kind
    package var query: Query
    package var location: SourceLocation
    /// Filled in by the binder: the query's plan, whose input is the row cut to `outerWidth`.
    var plan: LogicalPlan? = nil
    var outerWidth = 0
}

/// A function call `name([DISTINCT] args)`, or `count(*)` with `isStar`.
package struct FunctionCall: Sendable {
    package var name: String
    package var isDistinct: Bool
    package var isStar: Bool
    package var arguments: [Expression]
    package var location: SourceLocation
    /// The built-in scalar function the binder resolved `name` to; nil before binding and for
    /// a function registered from outside (ProcedureRegistry), which is looked up by name.
    package var scalar: ScalarFunction? = nil
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
    /// `list[from..to]` (either bound may be absent).
    case slice(Expression, Expression?, Expression?)
    /// `CASE [subject] WHEN … THEN … [ELSE …] END`; with a subject, WHEN values are compared to it.
    case caseExpression(subject: Expression?, branches: [(when: Expression, then: Expression)], otherwise: Expression?)
    /// `[x IN list WHERE predicate | projection]`; `variable` is a slot after binding (`.slot`).
    case listComprehension(variable: Expression, list: Expression, predicate: Expression?, projection: Expression?)
    /// `reduce(accumulator = initial, variable IN list | expression)`: the accumulator starts
    /// at `initial` and becomes `expression` for each element in turn; both names are slots
    /// after binding (`.slot`).
    case reduce(accumulator: Expression, initial: Expression, variable: Expression, list: Expression, expression: Expression)
    /// `all/any/none/single(x IN list WHERE predicate)`.
    case quantifier(Quantifier, variable: Expression, list: Expression, predicate: Expression)
    /// `n {.name, .age, alias: expr, .*}`.
    case mapProjection(Expression, [MapProjectionItem])
    /// A pattern used as a predicate (`(a)-[:FRIEND]-(b)` or `exists { MATCH … WHERE … }`):
    /// true when at least one match exists given the row's bound variables.
    case patternPredicate(PatternPredicate)
    /// `[(a)-[:F]->(b) WHERE … | b.name]`: a list with one value per match of the pattern.
    case patternComprehension(PatternPredicate)
    /// `EXISTS { … }` or `COUNT { … }` around a query of its own, which sees the row's variables.
    case subquery(Subquery)
    case function(FunctionCall)
    /// Filled in by the planner: the value of the n-th aggregate of the enclosing projection.
    case aggregateResult(Int)
    /// Filled in by the planner: a variable resolved to its row slot.
    case slot(Int)
}
