// Options.swift — the harness's command line: `graphd-bench <command> [--flag value]…`, every flag
// with a default, unknown flags refused with the list of known ones.

/// Parsed `--name value` flags of one subcommand.
struct Options {
    let command: String
    private var values: [String: String]
    private let known: [String: String]

    /// `known` maps each flag to its help text (and default, in the text).
    init(command: String, arguments: [String], known: [String: String]) throws {
        self.command = command
        self.known = known
        values = [:]
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            guard arg.hasPrefix("--") else { throw UsageError("unexpected argument '\(arg)'") }
            let name = String(arg.dropFirst(2))
            guard known[name] != nil else {
                throw UsageError("unknown flag --\(name) for '\(command)'; known: " + known.keys.sorted().map { "--" + $0 }.joined(separator: ", "))
            }
            guard i + 1 < arguments.count else { throw UsageError("--\(name) needs a value") }
            values[name] = arguments[i + 1]
            i += 2
        }
    }

    func string(_ name: String) -> String? { values[name] }
    func string(_ name: String, default value: String) -> String { values[name] ?? value }

    func int(_ name: String, default value: Int) throws -> Int {
        try int(name) ?? value
    }

    /// The flag's non-negative integer, or nil when it was not given.
    func int(_ name: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let v = Int(text), v >= 0 else { throw UsageError("--\(name) wants a non-negative integer, got '\(text)'") }
        return v
    }

    func double(_ name: String, default value: Double) throws -> Double {
        guard let text = values[name] else { return value }
        guard let v = Double(text), v >= 0 else { throw UsageError("--\(name) wants a non-negative number, got '\(text)'") }
        return v
    }

    func yesNo(_ name: String, default value: Bool) throws -> Bool {
        switch values[name] {
        case nil: return value
        case "yes": return true
        case "no": return false
        case let text?: throw UsageError("--\(name) wants yes or no, got '\(text)'")
        }
    }

    /// The comma-separated values of `--name`, each one of `all`; `defaults` (or `all`) without it.
    func list<T: RawRepresentable>(_ name: String, all: [T], defaults: [T]? = nil) throws -> [T] where T.RawValue == String {
        guard let text = values[name] else { return defaults ?? all }
        return try text.split(separator: ",").map { word in
            guard let v = T(rawValue: String(word)) else {
                throw UsageError("--\(name): unknown '\(word)'; choose from " + all.map(\.rawValue).joined(separator: ","))
            }
            return v
        }
    }

    var help: String { known.keys.sorted().map { "  --\($0)  \(known[$0]!)" }.joined(separator: "\n") }
}

/// A command line the harness cannot run, with what to change.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
