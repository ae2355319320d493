// ScalarFunctions.swift — the bodies of the scalar functions in FunctionCatalog. Arity was
// checked by the semantic pass; here only the argument types are. Null in, null out.

import GraphStore

extension ExecutionContext {
    func callScalar(_ name: String, _ arguments: [RuntimeValue]) throws(QueryError) -> RuntimeValue {
        if name == "coalesce" { return arguments.first { !$0.isNull } ?? .null }
        let argument = arguments.first ?? .null
        if argument.isNull { return .null }
        switch name {
        case "id":
            switch argument {
            case .node(let n): return .integer(Int64(n.rawValue))
            case .relationship(let r): return .integer(Int64(r.rawValue))
            default: throw RuntimeValue.typeMismatch(expected: "Node, Edge, or Null", argument)
            }
        case "labels":
            guard case .node(let n) = argument else { throw RuntimeValue.typeMismatch(expected: "Node or Null", argument) }
            return .list(graph.labels(of: n).map { .string(graph.name(of: $0)) })
        case "type":
            guard case .relationship(let r) = argument else { throw RuntimeValue.typeMismatch(expected: "Edge or Null", argument) }
            return .string(graph.name(of: graph.type(of: r)))
        case "toupper", "tolower":
            guard case .string(let s) = argument else { throw RuntimeValue.typeMismatch(expected: "String or Null", argument) }
            return .string(name == "toupper" ? s.uppercased() : s.lowercased())
        case "size":
            switch argument {
            case .string(let s): return .integer(Int64(s.count))
            case .list(let l): return .integer(Int64(l.count))
            default: throw RuntimeValue.typeMismatch(expected: "List, String, or Null", argument)
            }
        case "tostring":
            switch argument {
            case .string, .integer, .double, .bool: return .string(argument.plainText)
            default: throw RuntimeValue.typeMismatch(expected: "Integer, Float, String, Boolean, or Null", argument)
            }
        case "tointeger":
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
        default:
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
