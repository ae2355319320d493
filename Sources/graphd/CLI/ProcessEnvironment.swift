// ProcessEnvironment.swift — reads the process environment (GRAPHD_* flags, HOME, COLUMNS)
// through Glibc, once, into a plain dictionary that the parser takes as an argument.

import Glibc

/// The process environment as values, never as shared mutable state.
enum ProcessEnvironment {
    /// Every `NAME=value` pair of the environment.
    static func all() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// One variable, or nil.
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
