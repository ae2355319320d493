// ScalarFunctions.swift — the bodies of the scalar functions in FunctionCatalog, and the call
// into functions registered from other files (ProcedureRegistry). Arity was checked by the
// semantic pass; here only the argument types are. Null in, null out (except coalesce, exists).

import Foundation
import GraphStore

extension ExecutionContext {
    /// range(start, end[, step])'s first element, step and element count, checked: integer
    /// arguments, a non-zero step, a span that fits Int64. `UNWIND range(…)` iterates these
    /// without building the list.
    static func rangeBounds(_ arguments: [RuntimeValue]) throws(QueryError) -> (start: Int64, step: Int64, count: Int64) {
        let bounds = try arguments.map { (v: RuntimeValue) throws(QueryError) -> Int64 in
            guard case .integer(let i) = v else { throw RuntimeValue.typeMismatch(expected: "Integer", v) }
            return i
        }
        let step = bounds.count > 2 ? bounds[2] : 1
        guard step != 0 else { throw QueryError(.runtime, "ArgumentError: step argument to range() can't be 0") }
        // Spans near the Int64 limits overflow a plain subtraction: refuse them.
        let (span, spanOverflow) = step > 0 ? bounds[1].subtractingReportingOverflow(bounds[0])
                                            : bounds[0].subtractingReportingOverflow(bounds[1])
        if spanOverflow || step == .min {
            throw QueryError(.runtime, "ArgumentError: range(\(bounds[0]), \(bounds[1])) has too many elements")
        }
        return (bounds[0], step, span < 0 ? 0 : span / (step > 0 ? step : -step) + 1)
    }

    /// Calls a function registered from outside the engine (ProcedureRegistry), by name.
    func callRegistered(_ name: String, _ arguments: [RuntimeValue]) throws(QueryError) -> RuntimeValue {
        guard let function = registry.function(named: name) else { throw QueryError(.semantic, "Unknown function '\(name)'") }
        return try withGraph { (graph) throws(QueryError) in try function.call(arguments, graph: graph) }
    }

    /// Runs built-in `function` on its evaluated arguments.
    func callScalar(_ function: ScalarFunction, _ arguments: [RuntimeValue]) throws(QueryError) -> RuntimeValue {
        switch function {
        case .coalesce: return arguments.first { !$0.isNull } ?? .null
        case .exists: return .bool(!(arguments.first ?? .null).isNull)
        case .rand: return .double(Double.random(in: 0..<1))
        case .pi: return .double(Double.pi)
        case .e: return .double(M_E)
        case .timestamp:
            return .integer(Int64(Date().timeIntervalSince1970 * 1000))
        case .graphToken: return try changeToken(function: "graph.token")
        // Null as "since" means "never fetched", not "unknown": not the null-in, null-out rule.
        case .graphChangedSince where !arguments[0].isNull:
            return try changedSince(arguments, function: "graph.changedSince")
        default: break
        }
        if arguments.contains(where: \.isNull) {
            // Null in, null out — for every argument of the string and list functions.
            return .null
        }
        let argument = arguments.first ?? .null
        let name = function.rawValue  // for messages
        switch function {
        case .id:
            switch argument {
            case .node(let n): return .integer(Int64(n.rawValue))
            case .relationship(let r): return .integer(Int64(r.id.rawValue))
            default: throw RuntimeValue.typeMismatch(expected: "Node, Edge, or Null", argument)
            }
        case .expansionCount:
            guard case .node(let n) = argument, arguments.count >= 3, case .string(let type) = arguments[1],
                  case .integer(let raw) = arguments[2], let direction = Direction(rawValue: UInt8(clamping: raw)) else {
                throw RuntimeValue.typeMismatch(expected: "Node or Null", argument)
            }
            let labelName: String? = if arguments.count > 3, case .string(let name) = arguments[3] { name } else { nil }
            return withGraph { graph in
                guard let id = graph.relationshipTypeID(named: type) else { return .integer(0) }
                var label: LabelID? = nil
                if let labelName {
                    guard let labelID = graph.labelID(named: labelName) else { return .integer(0) }
                    label = labelID
                }
                return .integer(Int64(graph.expansionCount(of: n, type: id, direction: direction, neighborLabel: label)))
            }
        case .labels:
            guard case .node(let n) = argument else { throw RuntimeValue.typeMismatch(expected: "Node or Null", argument) }
            if hasDeleted, !withGraph({ $0.contains(n) }) { throw ExecutionContext.deletedAccess("node", n.rawValue) }
            return withGraph { graph in
                guard graph.contains(n) else { return .list([]) }
                var names: [RuntimeValue] = []
                for label in graph.labels(of: n) { names.append(.string(graph.name(of: label))) }
                return .list(names)
            }
        case .type:
            guard case .relationship(let r) = argument else { throw RuntimeValue.typeMismatch(expected: "Edge or Null", argument) }
            return withGraph { .string($0.name(of: r.type)) }
        case .properties, .keys:
            var keys: [String] = [], values: [RuntimeValue] = []
            switch argument {
            case .node(let n):
                withGraph { g in for (k, v) in g.properties(of: n) { keys.append(g.name(of: k)); values.append(RuntimeValue(v)) } }
            case .relationship(let r):
                withGraph { g in for (k, v) in g.properties(of: r.id) { keys.append(g.name(of: k)); values.append(RuntimeValue(v)) } }
            case .map(let ks, let vs): keys = ks; values = vs
            default: throw RuntimeValue.typeMismatch(expected: "Map, Node, Edge, or Null", argument)
            }
            return function == .keys ? .list(keys.map { .string($0) }) : .map(keys: keys, values: values)
        case .startnode, .endnode:
            guard case .relationship(let r) = argument else { throw RuntimeValue.typeMismatch(expected: "Edge or Null", argument) }
            return .node(function == .startnode ? r.start : r.end)
        case .nodes, .relationships, .length:
            guard case .path(let nodes, let relationships) = argument else {
                throw RuntimeValue.typeMismatch(expected: "Path or Null", argument)
            }
            if function == .length { return .integer(Int64(relationships.count)) }
            return function == .nodes ? .list(nodes.map { .node($0) }) : .list(relationships.map { .relationship($0) })
        case .toupper, .tolower:
            guard case .string(let s) = argument else { throw RuntimeValue.typeMismatch(expected: "String or Null", argument) }
            return .string(function == .toupper ? s.uppercased() : s.lowercased())
        case .trim, .ltrim, .rtrim:
            guard case .string(let s) = argument else { throw RuntimeValue.typeMismatch(expected: "String or Null", argument) }
            var scalars = Substring(s)
            if function != .rtrim { scalars = scalars.drop { $0 == " " } }
            if function != .ltrim { while scalars.last == " " { scalars = scalars.dropLast() } }
            return .string(String(scalars))
        case .size:
            switch argument {
            case .string(let s): return .integer(Int64(s.count))
            case .list(let l): return .integer(Int64(l.count))
            default: throw RuntimeValue.typeMismatch(expected: "List, String, or Null", argument)
            }
        case .head, .last, .tail:
            guard case .list(let l) = argument else { throw RuntimeValue.typeMismatch(expected: "List or Null", argument) }
            switch function {
            case .head: return l.first ?? .null
            case .last: return l.last ?? .null
            default: return .list(Array(l.dropFirst()))
            }
        case .reverse:
            switch argument {
            case .list(let l): return .list(l.reversed())
            case .string(let s): return .string(String(s.reversed()))
            default: throw RuntimeValue.typeMismatch(expected: "List, String, or Null", argument)
            }
        case .range:
            let (start, step, count) = try Self.rangeBounds(arguments)
            let (bytes, bytesOverflow) = Int(count).multipliedReportingOverflow(by: 24)
            try watchdog.charge(bytesOverflow ? Int.max : bytes)
            // The whole list is reserved at once, so it never grows: a growth copies every element
            // so far, which for a huge list takes longer than a deadline may be overrun. A list
            // that could not fit in half this machine's memory is refused before anything is built.
            let (stride, strideOverflow) = Int(count).multipliedReportingOverflow(by: MemoryLayout<RuntimeValue>.stride)
            // (Memory is asked of the system only for a list of a gigabyte or more.)
            if strideOverflow || (stride >= 1 << 30 && stride > Int(clamping: ProcessInfo.processInfo.physicalMemory / 2)) {
                throw QueryError(.runtime, "range(\(start), …) would build a list of \(count) elements, more than half of this machine's memory")
            }
            var out: [RuntimeValue] = []
            out.reserveCapacity(Int(count))
            var value = start
            do {
                for _ in 0..<count {
                    try watchdog.tick()
                    out.append(.integer(value))
                    value &+= step
                }
            } catch {
                Executor.discardInBackground(&out)
                throw error
            }
            return .list(out)
        case .tostring:
            switch argument {
            case .string, .integer, .double, .bool, .temporal: return .string(argument.plainText)
            default: throw RuntimeValue.typeMismatch(expected: "Integer, Float, String, Boolean, or Null", argument)
            }
        case .tointeger:
            switch argument {
            case .integer: return argument
            case .double(let d): return d.isFinite && abs(d) < 9.2e18 ? .integer(Int64(d.rounded(.towardZero))) : .null
            case .bool(let b): return .integer(b ? 1 : 0)
            case .string(let s):
                let text = s.trimmingSpaces
                if let i = Int64(text) { return .integer(i) }
                if let d = Double(text), d.isFinite, abs(d) < 9.2e18 { return .integer(Int64(d.rounded(.towardZero))) }
                return .null
            default: throw RuntimeValue.typeMismatch(expected: "Integer, Float, String, Boolean, or Null", argument)
            }
        case .tofloat:
            switch argument {
            case .double: return argument
            case .integer(let i): return .double(Double(i))
            case .string(let s): return Double(s.trimmingSpaces).map(RuntimeValue.double) ?? .null
            default: throw RuntimeValue.typeMismatch(expected: "Integer, Float, String, or Null", argument)
            }
        case .toboolean:
            switch argument {
            case .bool: return argument
            case .string(let s):
                switch s.trimmingSpaces.lowercased() {
                case "true": return .bool(true)
                case "false": return .bool(false)
                default: return .null
                }
            case .integer(let i): return .bool(i != 0)
            default: throw RuntimeValue.typeMismatch(expected: "Boolean, String, Integer, or Null", argument)
            }
        case .substring, .left, .right:
            guard case .string(let s) = argument else { throw RuntimeValue.typeMismatch(expected: "String or Null", argument) }
            let numbers = try arguments.dropFirst().map { (v: RuntimeValue) throws(QueryError) -> Int in
                guard case .integer(let i) = v else { throw RuntimeValue.typeMismatch(expected: "Integer", v) }
                guard i >= 0 else { throw QueryError(.runtime, "ArgumentError: negative length or start given to \(name)()") }
                return Int(clamping: i)
            }
            let characters = Array(s)
            switch function {
            case .left: return .string(String(characters.prefix(numbers[0])))
            case .right: return .string(String(characters.suffix(numbers[0])))
            default:
                let start = min(numbers[0], characters.count)
                let length = numbers.count > 1 ? numbers[1] : characters.count
                return .string(String(characters[start..<min(characters.count, start + min(length, characters.count))]))
            }
        case .split:
            guard case .string(let s) = argument, case .string(let separator) = arguments[1] else {
                throw RuntimeValue.typeMismatch(expected: "String or Null", arguments[1])
            }
            if separator.isEmpty { return .list(s.map { .string(String($0)) }) }
            return .list(s.components(separatedBy: separator).map { .string($0) })
        case .replace:
            guard case .string(let s) = argument, case .string(let search) = arguments[1], case .string(let with) = arguments[2] else {
                throw RuntimeValue.typeMismatch(expected: "String or Null", arguments.first { if case .string = $0 { false } else { true } } ?? argument)
            }
            if search.isEmpty { return .string(s) }
            return .string(s.replacingOccurrences(of: search, with: with))
        case .abs, .sign, .ceil, .floor, .round, .sqrt, .exp, .log, .log10:
            switch (function, argument) {
            case (.abs, .integer(let i)):
                guard i != .min else { throw QueryError(.runtime, "Integer overflow: abs(\(i)) does not fit in 64 bits") }
                return .integer(Swift.abs(i))
            case (.sign, .integer(let i)): return .integer(i.signum())
            default: break
            }
            guard let x = argument.numeric else { throw RuntimeValue.typeMismatch(expected: "Integer, Float, or Null", argument) }
            switch function {
            case .abs: return .double(Swift.abs(x))
            case .sign: return .integer(x > 0 ? 1 : (x < 0 ? -1 : 0))
            case .ceil: return .double(x.rounded(.up))
            case .floor: return .double(x.rounded(.down))
            case .round:
                if case .integer = argument { return .double(x) }
                return .double(x.rounded(.toNearestOrAwayFromZero))
            case .sqrt: return .double(x.squareRoot())
            case .exp: return .double(Foundation.exp(x))
            case .log: return .double(Foundation.log(x))
            default: return .double(Foundation.log10(x))
            }
        default:
            if let result = try callTemporal(function, arguments) { return result }
            throw QueryError(.semantic, "Unknown function '\(name)'")
        }
    }
}

extension String {
    /// The string without leading and trailing blanks (no Foundation needed).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        // A first non-blank exists, so a last one does too.
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
