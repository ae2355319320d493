// TCKFeature.swift — reads the openCypher TCK's Gherkin feature files (Tests/Fixtures/tck): a
// feature's scenarios, each scenario outline expanded once per Examples row (`<name>` replaced
// in every step), each step with its doc string ("""…""") or table (| a | b |).

import Foundation

/// One step of a scenario: its text after the keyword (Given/When/Then/And/But), and the doc
/// string or table under it.
struct TCKStep: Sendable {
    var text: String
    var docString: String?
    var table: [[String]]?
}

/// One runnable scenario (an outline's examples row counts as one).
struct TCKScenario: Sendable {
    /// The feature file, relative to `features/`.
    var file: String
    var title: String
    /// The examples row's number (1-based) for an expanded outline.
    var example: Int?
    var tags: [String]
    var steps: [TCKStep]

    /// The scenario's name in the expected-failures list.
    var key: String { file + " | " + title + (example.map { " | example \($0)" } ?? "") }
}

enum TCKFeatureParser {
    /// Every scenario of a feature file's text.
    static func scenarios(in text: String, file: String) -> [TCKScenario] {
        // Some files have CRLF line ends (a "\r\n" is one Character: split on scalars).
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        var result: [TCKScenario] = []
        var background: [TCKStep] = []
        var current: (title: String, isOutline: Bool, tags: [String], steps: [TCKStep])?
        var examples: [[String]] = []
        var inExamples = false
        var inBackground = false
        var pendingTags: [String] = []
        var i = 0

        func finish() {
            guard let scenario = current else { return }
            if scenario.isOutline {
                let header = examples.first ?? []
                for (n, row) in examples.dropFirst().enumerated() {
                    func substitute(_ s: String) -> String {
                        var out = s
                        for (name, value) in zip(header, row) { out = out.replacingOccurrences(of: "<\(name)>", with: value) }
                        return out
                    }
                    let steps = (background + scenario.steps).map { step in
                        TCKStep(text: substitute(step.text), docString: step.docString.map(substitute),
                                table: step.table.map { $0.map { $0.map(substitute) } })
                    }
                    result.append(TCKScenario(file: file, title: substitute(scenario.title), example: n + 1,
                                              tags: scenario.tags, steps: steps))
                }
            } else {
                result.append(TCKScenario(file: file, title: scenario.title, example: nil, tags: scenario.tags,
                                          steps: background + scenario.steps))
            }
            current = nil
            examples = []
            inExamples = false
        }

        func appendStep(_ step: TCKStep) {
            if inBackground { background.append(step) } else { current?.steps.append(step) }
        }

        while i < lines.count {
            let line = lines[i].trimmingCharacters(in: .whitespaces)
            i += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                pendingTags += line.split(separator: " ").map(String.init)
                continue
            }
            if line.hasPrefix("Feature:") { continue }
            if line.hasPrefix("Background:") {
                finish()
                inBackground = true
                continue
            }
            if line.hasPrefix("Scenario Outline:") || line.hasPrefix("Scenario Template:") || line.hasPrefix("Scenario:") {
                finish()
                inBackground = false
                let isOutline = !line.hasPrefix("Scenario:")
                let title = String(line[line.index(after: line.firstIndex(of: ":")!)...]).trimmingCharacters(in: .whitespaces)
                current = (title, isOutline, pendingTags, [])
                pendingTags = []
                continue
            }
            if line.hasPrefix("Examples:") {
                inExamples = true
                pendingTags = []
                continue
            }
            if line.hasPrefix("|") {
                let row = cells(line)
                if inExamples {
                    examples.append(row)
                } else if inBackground {
                    background[background.count - 1].table = (background[background.count - 1].table ?? []) + [row]
                } else if let count = current?.steps.count, count > 0 {
                    current!.steps[count - 1].table = (current!.steps[count - 1].table ?? []) + [row]
                }
                continue
            }
            if line.hasPrefix("\"\"\"") {
                var body: [String] = []
                let indent = lines[i - 1].prefix { $0 == " " }.count
                while i < lines.count, !lines[i].trimmingCharacters(in: .whitespaces).hasPrefix("\"\"\"") {
                    body.append(String(lines[i].dropFirst(min(indent, lines[i].prefix { $0 == " " }.count))))
                    i += 1
                }
                i += 1
                let text = body.joined(separator: "\n")
                if inBackground { background[background.count - 1].docString = text }
                else if let count = current?.steps.count, count > 0 { current!.steps[count - 1].docString = text }
                continue
            }
            for keyword in ["Given ", "When ", "Then ", "And ", "But "] where line.hasPrefix(keyword) {
                appendStep(TCKStep(text: String(line.dropFirst(keyword.count))))
                break
            }
        }
        finish()
        return result
    }

    /// The cells of a table row, trimmed; `\|` is a bar, `\\` a backslash, `\n` a newline.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for c in line.dropFirst() {
            if escaped {
                // Gherkin's table escapes: `\|`, `\\` and `\n`; any other pair stays as written.
                switch c {
                case "|", "\\": cell.append(c)
                case "n": cell.append("\n")
                default: cell.append("\\"); cell.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "|" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(c)
            }
        }
        return cells
    }
}
