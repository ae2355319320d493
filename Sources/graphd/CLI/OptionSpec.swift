// OptionSpec.swift — one command-line flag described once, as data: its name, the value it
// takes, the environment variable that may supply it, its help line and how it sets the
// options. The parser, the help text and the environment lookup all read the same table.

/// A flag of one subcommand whose options are `Options`.
struct OptionSpec<Options>: Sendable {
    /// How a flag's text becomes part of `Options`; throws a one-line `UsageError`.
    typealias Apply = @Sendable (inout Options, String) throws(UsageError) -> Void

    /// `--port`.
    var name: String
    /// `-e`, when the flag has a one-letter form.
    var shortName: String?
    /// What the value is called in the help (`N`, `DIR`); nil for a switch, which takes no value.
    var valueName: String?
    /// The environment variable that supplies the flag when the command line does not.
    var environment: String?
    /// One line for `--help`.
    var help: String
    /// True when the flag may be given several times (each one is applied in order). Such
    /// flags take no environment variable: a list is not one value.
    var repeatable = false
    var apply: Apply

    init(_ name: String, short: String? = nil, value: String? = nil, environment: String? = nil,
         repeatable: Bool = false, help: String, apply: @escaping Apply) {
        self.name = name
        self.shortName = short
        self.valueName = value
        self.environment = environment
        self.repeatable = repeatable
        self.help = help
        self.apply = apply
    }

    /// True when `argument` (without any `=value`) names this flag.
    func matches(_ argument: String) -> Bool { argument == name || argument == shortName }
}

/// A subcommand: its name, a one-line summary, the usage line and its flags.
struct SubcommandSpec<Options>: Sendable {
    var name: String
    var summary: String
    var usage: String
    var options: [OptionSpec<Options>]
    /// Text after the flag list (examples, notes).
    var epilogue: String = ""

    /// How errors name the command: `graphd` for serve, which is also the bare command, else
    /// `graphd <name>`.
    var commandName: String { name == "serve" ? "graphd" : "graphd \(name)" }

    /// `graphd <name> --help`: the usage, every flag with its value, environment variable and help.
    var helpText: String {
        var text = "graphd \(name) — \(summary)\n\nUsage:\n  \(usage)\n\nOptions:\n"
        var rows: [(String, String)] = []
        for option in options {
            var left = option.shortName.map { "\($0), " } ?? ""
            left += option.name
            if let value = option.valueName { left += " " + value }
            var right = option.help
            if option.repeatable { right += " (repeatable)" }
            if let environment = option.environment { right += " [env \(environment)]" }
            rows.append((left, right))
        }
        rows.append(("-h, --help", "show this help"))
        let width = rows.map { $0.0.count }.max() ?? 0
        for (left, right) in rows {
            text += "  " + left + String(repeating: " ", count: width - left.count + 2) + right + "\n"
        }
        if !epilogue.isEmpty { text += "\n" + epilogue + "\n" }
        return text
    }

    /// Parses `arguments` (after the subcommand name) on top of `defaults`, taking values
    /// from `environment` first so that a flag on the command line wins. Returns nil when
    /// help was asked for.
    func parse(_ arguments: ArraySlice<String>, defaults: Options,
               environment: [String: String]) throws(UsageError) -> Options? {
        var options = defaults
        for option in environmentOptions(in: environment) {
            let text = environment[option.environment!]!
            if option.valueName == nil {
                guard let on = Self.switchValue(text) else {
                    throw UsageError(description: "graphd: invalid value '\(text)' in \(option.environment!) (expected 1 or 0)")
                }
                if on { try option.apply(&options, "") }
            } else {
                do throws(UsageError) {
                    try option.apply(&options, text)
                } catch {
                    throw UsageError(description: error.description + " (from \(option.environment!))")
                }
            }
        }
        var rest = arguments
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" { return nil }
            var flagName = argument
            var inlineValue: String? = nil
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flagName = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = self.options.first(where: { $0.matches(flagName) }) else {
                if argument.hasPrefix("-") {
                    throw UsageError(description: "\(commandName): unknown option '\(flagName)' (try \(commandName) --help)")
                }
                throw UsageError(description: "\(commandName): unexpected argument '\(argument)' (try \(commandName) --help)")
            }
            if option.valueName == nil {
                if let inlineValue {
                    throw UsageError(description: "\(commandName): option '\(option.name)' takes no value (got '\(inlineValue)')")
                }
                try option.apply(&options, "")
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if let next = rest.popFirst() {
                value = next
            } else {
                throw UsageError(description: "graphd: option '\(option.name)' needs a value")
            }
            try option.apply(&options, value)
        }
        return options
    }

    private func environmentOptions(in environment: [String: String]) -> [OptionSpec<Options>] {
        options.filter { option in option.environment.map { environment[$0] != nil } ?? false }
    }

    /// `1/true/yes/on` and `0/false/no/off` for switches set from the environment.
    static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: return nil
        }
    }
}

/// Value checks shared by the flag tables: each returns the parsed value or throws the
/// one-line message that names the flag and what was expected.
enum OptionValue {
    static func port(_ text: String, flag: String = "--port") throws(UsageError) -> Int {
        guard let port = Int(text), (0...65535).contains(port) else {
            throw UsageError(description: "graphd: invalid port '\(text)' (expected 0-65535)")
        }
        return port
    }

    static func nonEmpty(_ text: String, flag: String, what: String) throws(UsageError) -> String {
        guard !text.isEmpty else { throw UsageError(description: "graphd: \(flag) needs \(what)") }
        return text
    }

    static func integer(_ text: String, flag: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(description: "graphd: invalid value '\(text)' for \(flag) (expected an integer in \(range.lowerBound)...\(range.upperBound))")
        }
        return value
    }

    static func choice<T>(_ text: String, flag: String, _ choices: [(String, T)]) throws(UsageError) -> T {
        guard let match = choices.first(where: { $0.0 == text.lowercased() }) else {
            throw UsageError(description: "graphd: invalid value '\(text)' for \(flag) (expected \(choices.map(\.0).joined(separator: ", ")))")
        }
        return match.1
    }

    /// `LABEL=PATH` (import's --nodes, --relationships, --edge-list).
    static func labelledPath(_ text: String, flag: String) throws(UsageError) -> (name: String, path: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex,
              text.index(after: equals) != text.endIndex else {
            throw UsageError(description: "graphd: invalid value '\(text)' for \(flag) (expected NAME=FILE)")
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
}
