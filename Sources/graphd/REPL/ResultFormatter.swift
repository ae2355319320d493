// ResultFormatter.swift — a QueryResult as the REPL prints it: an aligned table cut to the
// terminal width (numbers right-aligned, long cells ending in '…'), CSV (RFC 4180) or JSON
// Lines, and the summary line of counters, row count and time.

import GraphQuery

/// Formats results for `--format table|csv|json`.
enum ResultFormatter {
    /// The table, with a border, fitting in `width` columns.
    static func table(_ result: QueryResult, width: Int) -> String {
        let columns = result.columns
        guard !columns.isEmpty else { return "" }
        let rows = result.rows  // a copy as arrays: read once
        var cells = rows.map { row in row.map { ValueText.readable($0).replacingAll("\n", with: "\\n") } }
        let numeric = columns.indices.map { c in
            !rows.isEmpty && rows.allSatisfy { row in
                switch row[c] { case .integer, .double, .null: return true; default: return false }
            }
        }
        var widths = columns.indices.map { c in
            max(columns[c].count, cells.map { $0[c].count }.max() ?? 0)
        }
        // Each column costs its width plus 3 ("| " before, " " after), plus the final "|".
        let budget = max(width - 1 - 3 * columns.count, columns.count * 3)
        while widths.reduce(0, +) > budget {
            let widest = widths.indices.max { widths[$0] < widths[$1] }!
            if widths[widest] <= 3 { break }
            widths[widest] -= 1
        }
        cells = cells.map { row in row.indices.map { cut(row[$0], to: widths[$0]) } }
        let rule = "+" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "+") + "+\n"
        var text = rule
        text += "|" + columns.indices.map { " " + pad(cut(columns[$0], to: widths[$0]), widths[$0], right: false) + " " }
            .joined(separator: "|") + "|\n"
        text += rule
        for row in cells {
            text += "|" + row.indices.map { " " + pad(row[$0], widths[$0], right: numeric[$0]) + " " }.joined(separator: "|") + "|\n"
        }
        if !cells.isEmpty { text += rule }
        return text
    }

    /// RFC 4180 CSV: a header line, then one line per row; fields quoted when needed.
    static func csv(_ result: QueryResult) -> String {
        guard result.hasResultSet else { return "" }
        var text = result.columns.map(csvField).joined(separator: ",") + "\n"
        for row in result.rows {
            text += row.map { csvField(ValueText.plain($0)) }.joined(separator: ",") + "\n"
        }
        return text
    }

    /// JSON Lines: one object per row, keys in column order.
    static func json(_ result: QueryResult) -> String {
        guard result.hasResultSet else { return "" }
        var text = ""
        for row in result.rows {
            text += "{" + result.columns.indices.map { ValueText.jsonString(result.columns[$0]) + ":" + ValueText.json(row[$0]) }
                .joined(separator: ",") + "}\n"
        }
        return text
    }

    /// "3 rows, 1.2 ms" or "Nodes created: 2, Relationships created: 1, 0.8 ms".
    static func summary(_ result: QueryResult, milliseconds: Double?) -> String {
        var parts: [String] = []
        if result.hasResultSet { parts.append(result.rowCount == 1 ? "1 row" : "\(result.rowCount) rows") }
        let s = result.statistics
        let counters: [(String, Int)] = [
            ("Nodes created", s.nodesCreated), ("Nodes deleted", s.nodesDeleted),
            ("Relationships created", s.relationshipsCreated), ("Relationships deleted", s.relationshipsDeleted),
            ("Properties set", s.propertiesSet), ("Properties removed", s.propertiesRemoved),
            ("Labels added", s.labelsAdded), ("Labels removed", s.labelsRemoved),
            ("Indices created", s.indicesCreated), ("Indices deleted", s.indicesDeleted),
            ("Constraints created", s.constraintsCreated), ("Constraints deleted", s.constraintsDeleted),
        ]
        for (name, count) in counters where count > 0 { parts.append("\(name): \(count)") }
        if parts.isEmpty { parts.append("No changes") }
        if let milliseconds { parts.append(formatMilliseconds(milliseconds)) }
        return parts.joined(separator: ", ")
    }

    static func formatMilliseconds(_ ms: Double) -> String {
        if ms >= 1000 { return "\(Double(Int(ms / 10)) / 100) s" }
        if ms >= 10 { return "\(Int(ms.rounded())) ms" }
        return "\(Double(Int(ms * 100)) / 100) ms"
    }

    static func cut(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        return String(text.prefix(max(0, width - 1))) + "…"
    }

    private static func pad(_ text: String, _ width: Int, right: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }

    private static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }
}
