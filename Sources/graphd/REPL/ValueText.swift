// ValueText.swift — result values as a person reads them in the REPL: strings quoted,
// nodes as (id:Label {key: value}), relationships as [id:TYPE {…}], paths as
// (a)-[:T]->(b). Also the plain text of a value for CSV and its JSON form.

import GraphQuery

/// Renders `ResultValue`s for the REPL's table, CSV and JSON output.
enum ValueText {
    /// The readable form, as in a table cell.
    static func readable(_ value: ResultValue) -> String {
        var text = ""
        appendReadable(value, to: &text)
        return text
    }

    /// The plain form for CSV: strings without quotes, null as empty, the rest readable.
    static func plain(_ value: ResultValue) -> String {
        switch value {
        case .null: return ""
        case .string(let s): return s
        default: return readable(value)
        }
    }

    static func number(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return "\(d)"
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out.append(c)
            }
        }
        return out + "\""
    }

    private static func appendReadable(_ value: ResultValue, to text: inout String) {
        switch value {
        case .null: text += "null"
        case .bool(let b): text += b ? "true" : "false"
        case .integer(let n): text += String(n)
        case .double(let d): text += number(d)
        case .string(let s): text += quoted(s)
        case .temporal(let t): text += t.description
        case .list(let items):
            text += "["
            for (i, item) in items.enumerated() {
                if i > 0 { text += ", " }
                appendReadable(item, to: &text)
            }
            text += "]"
        case .map(let entries):
            text += "{"
            for (i, entry) in entries.enumerated() {
                if i > 0 { text += ", " }
                text += entry.key + ": "
                appendReadable(entry.value, to: &text)
            }
            text += "}"
        case .node(let node): appendNode(node, to: &text)
        case .relationship(let relationship):
            text += "[\(relationship.id):\(relationship.type.name)"
            appendProperties(relationship.properties, to: &text)
            text += "]"
        case .path(let path):
            for (i, node) in path.nodes.enumerated() {
                if i > 0 {
                    let relationship = path.relationships[i - 1]
                    let forward = relationship.startNodeID == path.nodes[i - 1].id
                    text += forward ? "-" : "<-"
                    text += "[:\(relationship.type.name)"
                    appendProperties(relationship.properties, to: &text)
                    text += forward ? "]->" : "]-"
                }
                appendNode(node, to: &text)
            }
        }
    }

    private static func appendNode(_ node: ResultNode, to text: inout String) {
        text += "(\(node.id)"
        for label in node.labels { text += ":" + label.name }
        appendProperties(node.properties, to: &text)
        text += ")"
    }

    private static func appendProperties(_ properties: [ResultProperty], to text: inout String) {
        guard !properties.isEmpty else { return }
        text += " {"
        for (i, property) in properties.enumerated() {
            if i > 0 { text += ", " }
            text += property.key.name + ": "
            appendReadable(property.value, to: &text)
        }
        text += "}"
    }

    /// The value as JSON: nodes as {"id", "labels", "properties"}, relationships as
    /// {"id", "type", "start", "end", "properties"}, paths as {"nodes", "relationships"}.
    static func json(_ value: ResultValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let n): return String(n)
        case .double(let d): return d.isFinite ? number(d) : quoted(number(d))
        case .string(let s): return jsonString(s)
        case .temporal(let t): return jsonString(t.description)
        case .list(let items): return "[" + items.map(json).joined(separator: ",") + "]"
        case .map(let entries):
            return "{" + entries.map { jsonString($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        case .node(let node): return jsonNode(node)
        case .relationship(let r): return jsonRelationship(r)
        case .path(let path):
            return "{\"nodes\":[" + path.nodes.map(jsonNode).joined(separator: ",") + "],\"relationships\":["
                + path.relationships.map(jsonRelationship).joined(separator: ",") + "]}"
        }
    }

    private static func jsonNode(_ node: ResultNode) -> String {
        "{\"id\":\(node.id),\"labels\":[" + node.labels.map { jsonString($0.name) }.joined(separator: ",")
            + "],\"properties\":" + jsonProperties(node.properties) + "}"
    }

    private static func jsonRelationship(_ r: ResultRelationship) -> String {
        "{\"id\":\(r.id),\"type\":\(jsonString(r.type.name)),\"start\":\(r.startNodeID),\"end\":\(r.endNodeID),\"properties\":"
            + jsonProperties(r.properties) + "}"
    }

    private static func jsonProperties(_ properties: [ResultProperty]) -> String {
        "{" + properties.map { jsonString($0.key.name) + ":" + json($0.value) }.joined(separator: ",") + "}"
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
