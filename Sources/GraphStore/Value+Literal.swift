// Value+Literal.swift — renders a Value as a Cypher literal for error messages.
// e.g. a unique-constraint violation names the offending value as the user wrote it.

extension Value {
    /// The value as a Cypher literal: 1, 1.5, 'Ann', true, [1, 2], {a: 1}, null.
    var cypherLiteral: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s):
            var out = "'"
            for c in s {
                if c == "\\" || c == "'" { out.append("\\") }
                out.append(c)
            }
            return out + "'"
        case .list(let items): return "[" + items.map(\.cypherLiteral).joined(separator: ", ") + "]"
        case .map(let map): return "{" + map.map { "\($0.0): \($0.1.cypherLiteral)" }.joined(separator: ", ") + "}"
        case .temporal(let t): return "\(t.constructorName)('\(t)')"
        }
    }
}
