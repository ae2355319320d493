// StaticTypes.swift — what the semantic pass can tell of a value's type before anything runs,
// and the compile-time type errors openCypher asks for with it: `123 AND true`, `type(n)` of a
// node, `r.name` of a path, `DELETE 1 + 1`, a pattern used as a value. Only types the text fixes
// (literals, operators, pattern variables) count; anything else is left to run time.

/// A type the query text fixes for an expression.
enum StaticType: String, Sendable, Hashable {
    case boolean = "Boolean", integer = "Integer", float = "Float", string = "String", list = "List", map = "Map"
    case node = "Node", relationship = "Relationship", path = "Path"

    var isEntity: Bool { self == .node || self == .relationship || self == .path }
}

extension Binder {
    /// The type the text fixes for `expression` (unresolved: variables by name), or nil when it
    /// depends on the data (a property, a parameter, null, a function of those).
    func staticType(of expression: Expression) -> StaticType? {
        switch expression {
        case .literal(let literal):
            switch literal {
            case .null: return nil
            case .bool: return .boolean
            case .integer: return .integer
            case .double: return .float
            case .string: return .string
            }
        case .list, .listComprehension, .patternComprehension: return .list
        case .map, .mapProjection: return .map
        case .variable(let name, _):
            switch scope[name]?.kind {
            case .node?: return .node
            case .relationship?: return .relationship
            case .path?: return .path
            case .scalar(let type)?: return type
            default: return nil
            }
        case .isNull, .hasLabels, .patternPredicate, .quantifier: return .boolean
        case .unary(.not, _): return .boolean
        case .binary(let op, let l, let r):
            switch op {
            case .and, .or, .xor, .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual, .in,
                 .startsWith, .endsWith, .contains, .regexMatch: return .boolean
            case .add, .subtract, .multiply, .divide, .modulo, .power:
                // Numbers only: `+` of strings or lists is left to run time.
                guard let a = staticType(of: l), let b = staticType(of: r),
                      [StaticType.integer, .float].contains(a), [StaticType.integer, .float].contains(b) else { return nil }
                return a == .integer && b == .integer && op != .power ? .integer : .float
            }
        case .subquery(let subquery): return subquery.kind == .exists ? .boolean : .integer
        default: return nil
        }
    }

    /// A type error at compile time, worded as the same mismatch is when it runs.
    static func typeError(_ what: String, expected: String, _ type: StaticType) -> QueryError {
        QueryError(.type, "Type mismatch: expected \(expected) but was \(type.rawValue)\(what.isEmpty ? "" : " (\(what))")")
    }

    /// Refuses what openCypher rejects before running: a boolean operator on a value that
    /// cannot be a boolean, a property of a value that has none, `type()`, `length()` and
    /// `size()` of the wrong kind of value, and a pattern where a value is wanted.
    func checkTypes(_ expression: Expression) throws(QueryError) {
        switch expression {
        case .binary(let op, let l, let r) where op == .and || op == .or || op == .xor:
            for side in [l, r] {
                if let type = staticType(of: side), type != .boolean {
                    throw Binder.typeError("", expected: "Boolean or Null", type)
                }
            }
        case .unary(.not, let operand):
            if let type = staticType(of: operand), type != .boolean { throw Binder.typeError("", expected: "Boolean or Null", type) }
        case .property(let base, let key):
            if let type = staticType(of: base), type != .node, type != .relationship, type != .map {
                throw Binder.typeError("reading property '\(key)'", expected: "Map, Node, Edge, or Null", type)
            }
        case .function(let call):
            if let bare = call.arguments.first(where: \.isBarePattern) {
                _ = bare
                throw Binder.patternAsValue()
            }
            guard call.arguments.count == 1, let type = staticType(of: call.arguments[0]) else { return }
            switch call.name.lowercased() {
            case "type" where type != .relationship:
                throw Binder.typeError("argument of type()", expected: "Relationship", type)
            case "length" where type == .node || type == .relationship:
                throw Binder.typeError("argument of length()", expected: "Path", type)
            case "size" where type.isEntity:
                throw Binder.typeError("argument of size()", expected: "List or String", type)
            default: break
            }
        default: break
        }
    }

    /// A pattern written as a value (`RETURN (a)-->()`), which openCypher allows only as a
    /// test: in WHERE, with a boolean operator, in `exists(…)` or in a pattern comprehension.
    static func patternAsValue() -> QueryError {
        QueryError(.syntax, "A pattern expression should only be used to test whether a pattern exists: write exists((a)-->(b)), or a pattern comprehension [(a)-->(b) | b] for its matches")
    }

    /// Refuses a WHERE whose value the text fixes as something other than a boolean (`WHERE (n)`).
    func checkPredicate(_ predicate: Expression?) throws(QueryError) {
        guard let predicate, let type = staticType(of: predicate), type != .boolean else { return }
        throw Binder.typeError("WHERE", expected: "Boolean", type)
    }
}

extension Expression {
    /// Whether `name` is called anywhere in the expression (comprehensions and CASE included).
    func callsFunction(_ name: String) -> Bool {
        if case .function(let call) = self, call.name.lowercased() == name { return true }
        return children.contains { $0.callsFunction(name) }
    }

    /// A relationship pattern used as an expression, not inside `exists(…)` or `EXISTS { … }`.
    var isBarePattern: Bool {
        if case .patternPredicate(let pattern) = self { return !pattern.isSubquery && !pattern.isExistsCall }
        return false
    }
}
