// RegexMatch.swift — `string =~ pattern`: the whole string must match the regular expression
// (Java/Neo4j semantics, not a search), using Foundation's NSRegularExpression.

import Foundation

/// Compiles and applies `=~` patterns (compiled per call: patterns in queries are short).
enum RegexMatch {
    /// True when `pattern` matches all of `text`; an invalid pattern is a runtime error.
    static func matches(_ text: String, _ pattern: String) throws(QueryError) -> Bool {
        let expression: NSRegularExpression
        do { expression = try NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: []) }
        catch { throw QueryError(.runtime, "Invalid regular expression '\(pattern)'") }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, options: [], range: range) != nil
    }
}
