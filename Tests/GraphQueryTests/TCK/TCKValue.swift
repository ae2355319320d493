// TCKValue.swift — the TCK's expected values (`1`, `1.0`, `'a'`, `[1, 2]`, `{k: 1}`, `(:L {k: 1})`,
// `[:T {k: 1}]`, `<(:A)-[:T]->(:B)>`, `null`, `NaN`) and graphd's result values, both put in
// one canonical text, so a row matches when the texts are equal. A temporal result matches the
// quoted string of its ISO 8601 text, which is how the TCK writes expected temporal values. Maps and properties are
// sorted by key, labels by name; `ignoringListOrder` sorts list elements too.

import Foundation
@testable import GraphQuery

enum TCKValue {
    /// The canonical text of a TCK value, or nil when it does not parse.
    static func canonical(_ text: String, ignoringListOrder: Bool = false) -> String? {
        var parser = Parser(Array(text.unicodeScalars), ignoringListOrder: ignoringListOrder)
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.atEnd ? value : nil
    }

    /// The canonical text of a result value.
    static func canonical(_ value: ResultValue, ignoringListOrder: Bool = false) -> String {
        func properties(_ list: [ResultProperty]) -> String {
            "{" + list.map { "\($0.key.name):\(canonical($0.value, ignoringListOrder: ignoringListOrder))" }.sorted().joined(separator: ",") + "}"
        }
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return "I\(i)"
        case .double(let d): return float(d)
        case .string(let s): return "S" + s.debugDescription
        // The TCK writes a temporal value as its toString text in quotes ('2015-07-21'), as
        // the reference implementation compares them: by that text.
        case .temporal(let t): return "S" + t.description.debugDescription
        case .list(let l):
            let elements = l.map { canonical($0, ignoringListOrder: ignoringListOrder) }
            return "[" + (ignoringListOrder ? elements.sorted() : elements).joined(separator: ",") + "]"
        case .map(let m):
            return "{" + m.map { "\($0.key):\(canonical($0.value, ignoringListOrder: ignoringListOrder))" }.sorted().joined(separator: ",") + "}"
        case .node(let n): return node(n, properties)
        case .relationship(let r): return "[:" + r.type.name + properties(r.properties) + "]"
        case .path(let p):
            var text = "<" + node(p.nodes[0], properties)
            for (i, r) in p.relationships.enumerated() {
                let forward = r.startNodeID == p.nodes[i].id
                text += (forward ? "-" : "<-") + "[:" + r.type.name + properties(r.properties) + "]" + (forward ? "->" : "-")
                text += node(p.nodes[i + 1], properties)
            }
            return text + ">"
        }
    }

    static func node(_ n: ResultNode, _ properties: ([ResultProperty]) -> String) -> String {
        "(" + n.labels.map { ":" + $0.name }.sorted().joined() + properties(n.properties) + ")"
    }

    static func float(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        return "F\(d == 0 ? 0 : d)"
    }

    /// A recursive-descent reader of the TCK's value syntax, writing canonical text.
    struct Parser {
        let chars: [Unicode.Scalar]
        var i = 0
        let ignoringListOrder: Bool

        init(_ chars: [Unicode.Scalar], ignoringListOrder: Bool) {
            self.chars = chars
            self.ignoringListOrder = ignoringListOrder
        }

        var atEnd: Bool { i >= chars.count }
        var peek: Unicode.Scalar? { i < chars.count ? chars[i] : nil }

        mutating func skipSpace() { while let c = peek, c == " " || c == "\n" || c == "\t" { i += 1 } }

        mutating func accept(_ c: Unicode.Scalar) -> Bool {
            skipSpace()
            if peek == c { i += 1; return true }
            return false
        }

        mutating func value() -> String? {
            skipSpace()
            guard let c = peek else { return nil }
            switch c {
            case "'": return string().map { "S" + $0.debugDescription }
            case "[": return listOrRelationship()
            case "{": return map().map { "{" + $0 + "}" }
            case "(": return nodeText()
            case "<": return path()
            default: return scalar()
            }
        }

        mutating func string() -> String? {
            guard accept("'") else { return nil }
            var out = ""
            while let c = peek {
                i += 1
                if c == "\\", let next = peek {
                    i += 1
                    switch next {
                    case "n": out.append("\n")
                    case "t": out.append("\t")
                    default: out.unicodeScalars.append(next)
                    }
                } else if c == "'" {
                    return out
                } else {
                    out.unicodeScalars.append(c)
                }
            }
            return nil
        }

        mutating func word() -> String {
            skipSpace()
            var out = ""
            while let c = peek, c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "." || c == "-" || c == "+" {
                out.unicodeScalars.append(c)
                i += 1
            }
            return out
        }

        mutating func name() -> String {
            skipSpace()
            if peek == "`" {
                i += 1
                var out = ""
                while let c = peek, c != "`" { out.unicodeScalars.append(c); i += 1 }
                i += 1
                return out
            }
            var out = ""
            while let c = peek, c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" { out.unicodeScalars.append(c); i += 1 }
            return out
        }

        mutating func scalar() -> String? {
            let w = word()
            switch w.lowercased() {
            case "null": return "null"
            case "true": return "true"
            case "false": return "false"
            case "nan": return "NaN"
            case "inf", "infinity", "+inf": return TCKValue.float(.infinity)
            case "-inf", "-infinity": return TCKValue.float(-.infinity)
            default: break
            }
            if let n = Int64(w) { return "I\(n)" }
            if w.hasPrefix("0x") || w.hasPrefix("-0x"), let n = Int64(w.replacingOccurrences(of: "0x", with: ""), radix: 16) { return "I\(n)" }
            if let d = Double(w) { return TCKValue.float(d) }
            return nil
        }

        mutating func listOrRelationship() -> String? {
            guard accept("[") else { return nil }
            skipSpace()
            if peek == ":" { return relationshipBody() }
            var elements: [String] = []
            if accept("]") { return "[]" }
            repeat {
                guard let e = value() else { return nil }
                elements.append(e)
            } while accept(",")
            guard accept("]") else { return nil }
            return "[" + (ignoringListOrder ? elements.sorted() : elements).joined(separator: ",") + "]"
        }

        /// After `[`: `:TYPE {props}]`.
        mutating func relationshipBody() -> String? {
            guard accept(":") else { return nil }
            let type = name()
            skipSpace()
            var props = "{}"
            if peek == "{" { guard let m = map() else { return nil }; props = "{" + m + "}" }
            guard accept("]") else { return nil }
            return "[:" + type + props + "]"
        }

        /// The entries of `{…}`, sorted, without the braces.
        mutating func map() -> String? {
            guard accept("{") else { return nil }
            var entries: [String] = []
            if accept("}") { return "" }
            repeat {
                let key = name()
                guard accept(":"), let v = value() else { return nil }
                entries.append(key + ":" + v)
            } while accept(",")
            guard accept("}") else { return nil }
            return entries.sorted().joined(separator: ",")
        }

        mutating func nodeText() -> String? {
            guard accept("(") else { return nil }
            var labels: [String] = []
            while accept(":") { labels.append(":" + name()) }
            skipSpace()
            var props = "{}"
            if peek == "{" { guard let m = map() else { return nil }; props = "{" + m + "}" }
            guard accept(")") else { return nil }
            return "(" + labels.sorted().joined() + props + ")"
        }

        mutating func path() -> String? {
            guard accept("<"), var text = nodeText() else { return nil }
            text = "<" + text
            while true {
                skipSpace()
                if accept(">") { return text + ">" }
                let backward = accept("<")
                guard accept("-"), accept("["), let r = relationshipBody(), accept("-") else { return nil }
                var forward = false
                if !backward { forward = accept(">") }
                guard backward || forward, let n = nodeText() else { return nil }
                text += (forward ? "-" : "<-") + r + (forward ? "->" : "-") + n
            }
        }
    }
}
