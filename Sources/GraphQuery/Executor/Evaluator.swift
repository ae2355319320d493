// Evaluator.swift — evaluates a resolved expression against a row: literals, parameters,
// slots, property access on nodes, relationships and maps, three-valued boolean logic,
// comparisons, arithmetic, IN and string predicates, and scalar function calls.

import GraphStore

extension ExecutionContext {
    /// The value of `expression` for `row`; `aggregates` feeds `.aggregateResult(i)`.
    func evaluate(_ expression: Expression, _ row: Row, aggregates: [RuntimeValue] = []) throws(QueryError) -> RuntimeValue {
        switch expression {
        case .literal(let literal): return RuntimeValue(literal)
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
                case .integer(let i):
                    guard i != .min else { throw QueryError(.runtime, "Integer overflow: -(\(i)) does not fit in 64 bits") }
                    return .integer(-i)
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
                    guard hasLabel(node, label) else { return .bool(false) }
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
            arguments.reserveCapacity(call.arguments.count)
            for a in call.arguments { arguments.append(try evaluate(a, row, aggregates: aggregates)) }
            if let function = call.scalar { return try callScalar(function, arguments) }
            return try callRegistered(call.name, arguments)
        case .slice(let base, let from, let to):
            let container = try evaluate(base, row, aggregates: aggregates)
            let lower = try from.map { e throws(QueryError) in try evaluate(e, row, aggregates: aggregates) }
            let upper = try to.map { e throws(QueryError) in try evaluate(e, row, aggregates: aggregates) }
            if container.isNull || lower?.isNull == true || upper?.isNull == true { return .null }
            guard case .list(let list) = container else { throw RuntimeValue.typeMismatch(expected: "List or Null", container) }
            func position(_ value: RuntimeValue?, _ absent: Int) throws(QueryError) -> Int {
                guard let value else { return absent }
                guard case .integer(let i) = value else { throw RuntimeValue.typeMismatch(expected: "Integer", value) }
                let p = i < 0 ? Int64(list.count) + i : i
                return Int(Swift.max(0, Swift.min(Int64(list.count), p)))
            }
            let a = try position(lower, 0), b = try position(upper, list.count)
            return a < b ? .list(Array(list[a..<b])) : .list([])
        case .caseExpression(let subject, let branches, let otherwise):
            let value = try subject.map { e throws(QueryError) in try evaluate(e, row, aggregates: aggregates) }
            for (when, then) in branches {
                let test = try evaluate(when, row, aggregates: aggregates)
                let hit = value.map { RuntimeValue.equals($0, test) == true } ?? (test == .bool(true))
                if hit { return try evaluate(then, row, aggregates: aggregates) }
            }
            return try otherwise.map { e throws(QueryError) in try evaluate(e, row, aggregates: aggregates) } ?? .null
        case .listComprehension(let variable, let list, let predicate, let projection):
            let source = try evaluate(list, row, aggregates: aggregates)
            if source.isNull { return .null }
            guard case .list(let elements) = source, case .slot(let slot) = variable else {
                throw RuntimeValue.typeMismatch(expected: "List or Null", source)
            }
            var local = Executor.padded(row, to: slot + 1)
            var out: [RuntimeValue] = []
            for element in elements {
                try watchdog.tick()
                local[slot] = element
                if let predicate, try evaluate(predicate, local, aggregates: aggregates) != .bool(true) { continue }
                out.append(try projection.map { e throws(QueryError) in try evaluate(e, local, aggregates: aggregates) } ?? element)
            }
            return .list(out)
        case .reduce(let accumulator, let initial, let variable, let list, let expression):
            var value = try evaluate(initial, row, aggregates: aggregates)
            let source = try evaluate(list, row, aggregates: aggregates)
            if source.isNull { return .null }
            guard case .list(let elements) = source, case .slot(let a) = accumulator, case .slot(let x) = variable else {
                throw RuntimeValue.typeMismatch(expected: "List or Null", source)
            }
            var local = Executor.padded(row, to: max(a, x) + 1)
            for element in elements {
                try watchdog.tick()
                local[a] = value
                local[x] = element
                value = try evaluate(expression, local, aggregates: aggregates)
            }
            return value
        case .quantifier(let quantifier, let variable, let list, let predicate):
            let source = try evaluate(list, row, aggregates: aggregates)
            if source.isNull { return .null }
            guard case .list(let elements) = source, case .slot(let slot) = variable else {
                throw RuntimeValue.typeMismatch(expected: "List or Null", source)
            }
            var local = Executor.padded(row, to: slot + 1)
            var trues = 0, nulls = 0
            for element in elements {
                try watchdog.tick()
                local[slot] = element
                switch try truth(evaluate(predicate, local, aggregates: aggregates)) {
                case .some(true): trues += 1
                case .none: nulls += 1
                case .some(false): break
                }
            }
            let falses = elements.count - trues - nulls
            // Three-valued: an unknown element leaves the answer unknown unless the rest decide it.
            switch quantifier {
            case .all: return falses > 0 ? .bool(false) : (nulls > 0 ? .null : .bool(true))
            case .any: return trues > 0 ? .bool(true) : (nulls > 0 ? .null : .bool(false))
            case .none: return trues > 0 ? .bool(false) : (nulls > 0 ? .null : .bool(true))
            case .single: return trues > 1 ? .bool(false) : (nulls > 0 ? .null : .bool(trues == 1))
            }
        case .mapProjection(let base, let items):
            let value = try evaluate(base, row, aggregates: aggregates)
            if value.isNull { return .null }
            var keys: [String] = [], values: [RuntimeValue] = []
            func put(_ key: String, _ v: RuntimeValue) {
                if let i = keys.firstIndex(of: key) { values[i] = v } else { keys.append(key); values.append(v) }
            }
            for item in items {
                switch item {
                case .property(let key): put(key, try property(key, of: value))
                case .literal(let key, let e), .variable(let key, let e): put(key, try evaluate(e, row, aggregates: aggregates))
                case .allProperties:
                    switch value {
                    case .node(let n): withGraph { g in for (k, v) in g.properties(of: n) { put(g.name(of: k), RuntimeValue(v)) } }
                    case .relationship(let r): withGraph { g in for (k, v) in g.properties(of: r.id) { put(g.name(of: k), RuntimeValue(v)) } }
                    case .map(let ks, let vs): for (k, v) in zip(ks, vs) { put(k, v) }
                    default: throw RuntimeValue.typeMismatch(expected: "Map, Node, Edge, or Null", value)
                    }
                }
            }
            return .map(keys: keys, values: values)
        case .patternComprehension(let pattern):
            var local = Executor.padded(row, to: pattern.width)
            var values: [RuntimeValue] = []
            // The closures capture the parts they read, not the whole pattern (a copy each), and
            // `self` unowned(unsafe): what a closure given to `match` captures is copied per
            // recursive call (see the MATCH step in Executor.swift).
            let (filter, projection) = (pattern.predicate, pattern.projection)
            _ = try match(pattern.plan, 0, &local) { [unowned(unsafe) self] (r: Row) throws(QueryError) -> Bool in
                if let filter, try evaluate(filter, r) != .bool(true) { return true }
                let value = try projection.map { e throws(QueryError) in try evaluate(e, r) } ?? .null
                try watchdog.charge(Watchdog.size(of: value))
                values.append(value)
                return true
            }
            return .list(values)
        case .subquery(let subquery):
            return try evaluate(subquery, row)
        case .patternPredicate(let pattern):
            if pattern.predicate == nil, let answer = try boundAdjacency(pattern.plan, row) { return .bool(answer) }
            var local = Executor.padded(row, to: pattern.width)
            var found = false
            // Without a filter the closure captures nothing counted (see patternComprehension).
            if let filter = pattern.predicate {
                _ = try match(pattern.plan, 0, &local) { [unowned(unsafe) self] (r: Row) throws(QueryError) -> Bool in
                    if try evaluate(filter, r) != .bool(true) { return true }
                    found = true
                    return false
                }
            } else {
                _ = try match(pattern.plan, 0, &local) { (_: Row) throws(QueryError) -> Bool in
                    found = true
                    return false
                }
            }
            return .bool(found)
        }
    }

    /// `value.key`: null on a missing key or a null base.
    func property(_ key: String, of value: RuntimeValue) throws(QueryError) -> RuntimeValue {
        switch value {
        case .null: return .null
        case .node(let node):
            if hasDeleted, !withGraph({ $0.contains(node) }) { throw ExecutionContext.deletedAccess("node", node.rawValue) }
            guard let id = propertyKeyID(key) else { return .null }
            return RuntimeValue(property(id, of: node))
        case .relationship(let relationship):
            if hasDeleted, !withGraph({ $0.contains(relationship.id) }) {
                throw ExecutionContext.deletedAccess("relationship", relationship.id.rawValue)
            }
            guard let id = propertyKeyID(key) else { return .null }
            return RuntimeValue(property(id, of: relationship.id))
        case .map(let keys, let values):
            return keys.firstIndex(of: key).map { values[$0] } ?? .null
        case .temporal(let t):
            return try TemporalComponents.component(key, of: t)
        default:
            throw RuntimeValue.typeMismatch(expected: "Map, Node, Edge, or Null", value)
        }
    }

    /// The id of property key `key`, remembering the last few looked up (RecentNames): the
    /// graph is read only when it is not among them.
    @inline(__always)
    func propertyKeyID(_ key: String) -> PropertyKeyID? {
        if let id = recentPropertyKeys.id(of: key) { return id }
        let id = withGraph { $0.propertyKeyID(named: key) }
        if let id { recentPropertyKeys.remember(key, id) }
        return id
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
        // NaN is neither below nor above any number (openCypher): false, not null.
        if op == .less || op == .lessEqual || op == .greater || op == .greaterEqual,
           let x = a.numeric, let y = b.numeric, x.isNaN || y.isNaN {
            return .bool(false)
        }
        switch op {
        case .equal: return RuntimeValue.equals(a, b).map(RuntimeValue.bool) ?? .null
        case .notEqual: return RuntimeValue.equals(a, b).map { .bool(!$0) } ?? .null
        case .less: return RuntimeValue.compare(a, b).map { .bool($0 < 0) } ?? .null
        case .lessEqual: return RuntimeValue.compare(a, b).map { .bool($0 <= 0) } ?? .null
        case .greater: return RuntimeValue.compare(a, b).map { .bool($0 > 0) } ?? .null
        case .greaterEqual: return RuntimeValue.compare(a, b).map { .bool($0 >= 0) } ?? .null
        case .add, .subtract, .multiply, .divide, .modulo, .power:
            // A joined string or list is memory the query makes: a string doubled thirty
            // times over streamed rows is never buffered by a breaker, so it is charged here.
            if op == .add, let bytes = RuntimeValue.joinedSize(a, b), bytes >= 64 * 1024 { try watchdog.charge(bytes) }
            return try RuntimeValue.arithmetic(op, a, b)
        case .in:
            switch b {
            case .null: return .null
            case .list(let list):
                if let answer = listMembership.contains(a, in: list) { return answer }
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
        case .regexMatch:
            guard case .string(let s) = a, case .string(let pattern) = b else { return .null }
            return .bool(try RegexMatch.matches(s, pattern))
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
