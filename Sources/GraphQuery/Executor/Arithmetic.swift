// Arithmetic.swift — + - * / % ^ on runtime values with FalkorDB's rules: integer arithmetic
// fails with `Integer overflow` (openCypher), as literals do, integer division or modulo by zero is
// `Division by zero`, mixed integer and float gives float, + also joins strings (a number, boolean or
// temporal value joins as its text) and lists. Temporal operands: Temporal/TemporalOperators.swift.

import Foundation

extension RuntimeValue {
    static func typeMismatch(expected: String, _ value: RuntimeValue) -> QueryError {
        QueryError(.type, "Type mismatch: expected \(expected) but was \(value.typeName)")
    }

    /// The bytes `a + b` makes when it joins two strings or lists (24 a list element), or nil.
    static func joinedSize(_ a: RuntimeValue, _ b: RuntimeValue) -> Int? {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.utf8.count + y.utf8.count
        case (.list(let x), .list(let y)): return (x.count + y.count) * 24
        default: return nil
        }
    }

    static func arithmetic(_ op: BinaryOperator, _ a: RuntimeValue, _ b: RuntimeValue) throws(QueryError) -> RuntimeValue {
        if a.isNull || b.isNull { return .null }
        if op == .add {
            switch (a, b) {
            case (.string(let x), .string(let y)): return .string(x + y)
            case (.string(let x), _) where b.numeric != nil || b.isBool || b.isTemporal: return .string(x + b.plainText)
            case (_, .string(let y)) where a.numeric != nil || a.isBool || a.isTemporal: return .string(a.plainText + y)
            case (.list(let x), .list(let y)): return .list(x + y)
            case (.list(let x), _): return .list(x + [b])
            case (_, .list(let y)): return .list([a] + y)
            default: break
            }
        }
        let expected = op == .add ? "Integer, Float, String, List, or Null" : "Integer, Float, or Null"
        // Temporal operands are looked for only once the numbers' path is ruled out.
        guard a.numeric != nil, b.numeric != nil else {
            if a.isTemporal || b.isTemporal { return try temporalArithmetic(op, a, b) }
            throw typeMismatch(expected: expected, a.numeric == nil ? a : b)
        }
        if case .integer(let x) = a, case .integer(let y) = b {
            switch op {
            case .add, .subtract, .multiply:
                let (value, overflow) = switch op {
                case .add: x.addingReportingOverflow(y)
                case .subtract: x.subtractingReportingOverflow(y)
                default: x.multipliedReportingOverflow(by: y)
                }
                if overflow { throw QueryError(.runtime, "Integer overflow: \(x) \(op.rawValue) \(y) does not fit in 64 bits") }
                return .integer(value)
            case .divide:
                guard y != 0 else { throw QueryError(.runtime, "Division by zero") }
                return .integer(x.dividedReportingOverflow(by: y).partialValue)
            case .modulo:
                guard y != 0 else { throw QueryError(.runtime, "Division by zero") }
                return .integer(x.remainderReportingOverflow(dividingBy: y).partialValue)
            case .power: return .double(pow(Double(x), Double(y)))
            default: break
            }
        }
        // At least one side is a float; both are numbers.
        let x = a.numeric!, y = b.numeric!
        switch op {
        case .add: return .double(x + y)
        case .subtract: return .double(x - y)
        case .multiply: return .double(x * y)
        case .divide: return .double(x / y)
        case .modulo: return .double(x.truncatingRemainder(dividingBy: y))
        default: return .double(pow(x, y))
        }
    }

    var isBool: Bool { if case .bool = self { return true } else { return false } }

    /// The value as `toString` renders it.
    var plainText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return Self.format(d)
        case .string(let s): return s
        case .list(let l): return "[" + l.map(\.plainText).joined(separator: ", ") + "]"
        case .map(let k, let v): return "{" + zip(k, v).map { "\($0): \($1.plainText)" }.joined(separator: ", ") + "}"
        case .node(let n): return "(\(n.rawValue))"
        case .relationship(let r): return "[\(r.id.rawValue)]"
        case .path(let nodes, _): return "<" + nodes.map { "(\($0.rawValue))" }.joined(separator: "-") + ">"
        case .temporal(let t): return t.description
        }
    }

    /// `%.15g`, FalkorDB's float format, without a trailing `.0` for whole numbers.
    static func format(_ d: Double) -> String {
        String(format: "%.15g", d)
    }
}
