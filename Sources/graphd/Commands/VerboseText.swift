// VerboseText.swift — FalkorDB's verbose stringification of lists, maps and paths
// (SIValue_ToString): a whole composite value becomes ONE bulk string such as
// `[1, two, 3.000000]` or `{k: 1, s: x}`. Inside it doubles are `%f`, strings are
// unquoted, null is `NULL`, a node is `(id)` and a relationship `[id]`.

import GraphQuery

/// Renders result values the way FalkorDB's verbose reply nests them in text.
enum VerboseText {
    /// The text of `value` as it appears inside a stringified composite.
    static func render(_ value: ResultValue) -> String {
        var text = ""
        append(value, to: &text)
        return text
    }

    static func append(_ value: ResultValue, to text: inout String) {
        switch value {
        case .null: text += "NULL"
        case .bool(let b): text += b ? "true" : "false"
        case .integer(let n): text += String(n)
        case .double(let d): text += NumberFormatting.fixed(d)
        case .string(let s): text += s
        case .temporal(let t): text += t.description
        case .list(let items):
            text += "["
            for (i, item) in items.enumerated() {
                if i > 0 { text += ", " }
                append(item, to: &text)
            }
            text += "]"
        case .map(let entries):
            text += "{"
            for (i, entry) in entries.enumerated() {
                if i > 0 { text += ", " }
                text += entry.key
                text += ": "
                append(entry.value, to: &text)
            }
            text += "}"
        case .node(let node):
            text += "(\(node.id))"
        case .relationship(let relationship):
            text += "[\(relationship.id)]"
        case .path(let path):
            // Nodes and relationships alternate: (n0), [r0], (n1), …
            text += "["
            for (i, node) in path.nodes.enumerated() {
                if i > 0 {
                    text += ", "
                    if i - 1 < path.relationships.count {
                        text += "[\(path.relationships[i - 1].id)], "
                    }
                }
                text += "(\(node.id))"
            }
            text += "]"
        }
    }
}
