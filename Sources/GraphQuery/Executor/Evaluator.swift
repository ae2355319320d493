// Evaluator.swift — evaluates a resolved expression against a row: literals, parameters,
// slots, property access on nodes, relationships and maps, three-valued boolean logic,
// comparisons, arithmetic, IN and string predicates, and scalar function calls.

import GraphStore

extension ExecutionContext {
    /// The value of `expression` for `row`; `aggregates` feeds `.aggregateResult(i)`.
    func evaluate(_ expression: Expression, _ row: Row, aggregates: [RuntimeValue] = []) throws(QueryError) -> RuntimeValue {
        switch expression {
        case .literal(let literal):
            switch literal {
            case .null: return .null
            case .bool(let b): return .bool(b)
            case .integer(let i): return .integer(i)
            case .double(let d): return .double(d)
            case .string(let s): return .string(s)
            }
        case .parameter(let name):
            guard let value = parameters[name] else { throw QueryError(.semantic, "Missing parameters") }
            return value
        case .slot(let slot):
            return slot < row.count ? row[slot] : .null
        case .variable(let name, _):
            // The binder replaces every variable; reaching one means an unbound name.
            throw QueryError(.semantic, "'\(name)' not defined")
        case .aggregateResult(let index):
            return index < aggregates.count ? aggregates[index] : .null
        case .property(let base, let key):
            return try property(key, of: evaluate(base, row, aggregates: aggregates))
        case .list(let elements):
            var out: [RuntimeValue] = []
            out.reserveCapacity(elements.count)
            for e in elements { out.append(try evaluate(e, row, aggregates: aggregates)) }
            return .list(out)
        case .map(let entries):
            var keys: [String] = [], values: [RuntimeValue] = []
            for (k, v) in entries {
                let value = try evaluate(v, row, aggregates: aggregates)
                if let i = keys.firstIndex(of: k) { values[i] = value } else { keys.append(k); values.append(value) }
            }
            return .map(keys: keys, values: values)
        case .unary(let op, let operand):
            let value = try evaluate(operand, row, aggregates: aggregates)
            switch op {
            case .not:
                switch value {
                case .null: return .null
                case .bool(let b): return .bool(!b)
                default: throw RuntimeValue.typeMismatch(expected: "Boolean or Null", value)
                }
            case .negate:
                switch value {
                case .null: return .null
                case .integer(let i): return .integer(0 &- i)
                case .double(let d): return .double(-d)
                default: throw RuntimeValue.typeMismatch(expected: "Integer, Float, or Null", value)
                }
            case .plus:
                guard value.isNull || value.numeric != nil else {
                    throw RuntimeValue.typeMismatch(expected: "Integer, Float, or Null", value)
                }
                return value
            }
        case .binary(let op, let lhs, let rhs):
            return try binary(op, lhs, rhs, row, aggregates)
        case .isNull(let operand, let negated):
            let isNull = try evaluate(operand, row, aggregates: aggregates).isNull
            return .bool(isNull != negated)
        case .hasLabels(let operand, let labels):
            let value = try evaluate(operand, row, aggregates: aggregates)
            switch value {
            case .null: return .null
            case .node(let node):
                for label in labels {
                    guard let id = graph.labelID(named: label), graph.node(node, hasLabel: id) else { return .bool(false) }
                }
                return .bool(true)
            default: throw RuntimeValue.typeMismatch(expected: "Node or Null", value)
            }
        case .subscriptIndex(let base, let index):
            let container = try evaluate(base, row, aggregates: aggregates)
            let key = try evaluate(index, row, aggregates: aggregates)
            switch (container, key) {
            case (.null, _), (_, .null): return .null
            case (.list(let list), .integer(let i)):
                let position = i < 0 ? Int64(list.count) + i : i
                return position >= 0 && position < list.count ? list[Int(position)] : .null
            case (.map, .string(let k)), (.node, .string(let k)), (.relationship, .string(let k)):
                return try property(k, of: container)
            case (.list, _): throw RuntimeValue.typeMismatch(expected: "Integer", key)
            default: throw RuntimeValue.typeMismatch(expected: "List, Map, Node, Edge, or Null", container)
            }
        case .function(let call):
            var arguments: [RuntimeValue] = []
            for a in call.arguments { arguments.append(try evaluate(a, row, aggregates: aggregates)) }
            return try callScalar(call.name, arguments)
        }
    }

    /// `value.key`: null on a missing key or a null base.
    func property(_ key: String, of value: RuntimeValue) throws(QueryError) -> RuntimeValue {
        switch value {
        case .null: return .null
        case .node(let node):
            guard let id = graph.propertyKeyID(named: key) else { return .null }
            return RuntimeValue(graph.property(id, of: node))
        case .relationship(let relationship):
            guard let id = graph.propertyKeyID(named: key) else { return .null }
            return RuntimeValue(graph.property(id, of: relationship))
        case .map(let keys, let values):
            return keys.firstIndex(of: key).map { values[$0] } ?? .null
        default:
            throw RuntimeValue.typeMismatch(expected: "Map, Node, Edge, or Null", value)
        }
    }

    /// A boolean operand: true, false, or nil for null; anything else is a type error.
    func truth(_ value: RuntimeValue) throws(QueryError) -> Bool? {
        switch value {
        case .null: return nil
        case .bool(let b): return b
        default: throw RuntimeValue.typeMismatch(expected: "Boolean or Null", value)
        }
    }

    func binary(_ op: BinaryOperator, _ lhs: Expression, _ rhs: Expression, _ row: Row,
                _ aggregates: [RuntimeValue]) throws(QueryError) -> RuntimeValue {
        let a = try evaluate(lhs, row, aggregates: aggregates)
        switch op {
        case .and, .or, .xor:
            // Three-valued logic: false AND x is false, true OR x is true, even when x is null.
            let x = try truth(a)
            if op == .and, x == false { return .bool(false) }
            if op == .or, x == true { return .bool(true) }
            let y = try truth(evaluate(rhs, row, aggregates: aggregates))
            switch op {
            case .and: return y == false ? .bool(false) : (x == nil || y == nil ? .null : .bool(true))
            case .or: return y == true ? .bool(true) : (x == nil || y == nil ? .null : .bool(false))
            default:
                guard let x, let y else { return .null }
                return .bool(x != y)
            }
        default: break
        }
        let b = try evaluate(rhs, row, aggregates: aggregates)
        switch op {
        case .equal: return RuntimeValue.equals(a, b).map(RuntimeValue.bool) ?? .null
        case .notEqual: return RuntimeValue.equals(a, b).map { .bool(!$0) } ?? .null
        case .less: return RuntimeValue.compare(a, b).map { .bool($0 < 0) } ?? .null
        case .lessEqual: return RuntimeValue.compare(a, b).map { .bool($0 <= 0) } ?? .null
        case .greater: return RuntimeValue.compare(a, b).map { .bool($0 > 0) } ?? .null
        case .greaterEqual: return RuntimeValue.compare(a, b).map { .bool($0 >= 0) } ?? .null
        case .add, .subtract, .multiply, .divide, .modulo, .power:
            return try RuntimeValue.arithmetic(op, a, b)
        case .in:
            switch b {
            case .null: return .null
            case .list(let list):
                var sawNull = false
                for element in list {
                    switch RuntimeValue.equals(a, element) {
                    case .some(true): return .bool(true)
                    case .none: sawNull = true
                    case .some(false): break
                    }
                }
                return sawNull ? .null : .bool(false)
            default: throw RuntimeValue.typeMismatch(expected: "List or Null", b)
            }
        case .startsWith, .endsWith, .contains:
            guard case .string(let s) = a, case .string(let t) = b else { return .null }
            switch op {
            case .startsWith: return .bool(s.hasPrefix(t))
            case .endsWith: return .bool(s.hasSuffix(t))
            default: return .bool(t.isEmpty || s.contains(t))
            }
        case .and, .or, .xor: return .null  // handled above
        }
    }
}
