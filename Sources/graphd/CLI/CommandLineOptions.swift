// CommandLineOptions.swift — parses graphd's command line into what to do: serve (with
// its address, port and data directory) or print help. Pure and typed, so it is unit
// tested; `GraphdMain` turns a `UsageError` into one line on stderr and exit status 2.

/// What the command line asked for.
enum CommandLineCommand: Equatable, Sendable {
    case serve(ServeOptions)
    case help
}

/// Options of `graphd serve`.
struct ServeOptions: Equatable, Sendable {
    static let defaultPort = 6479
    static let defaultBindAddress = "127.0.0.1"
    static let defaultDataDirectory = "./graphd-data"

    var port = ServeOptions.defaultPort
    var bindAddress = ServeOptions.defaultBindAddress
    var dataDirectory = ServeOptions.defaultDataDirectory
}

/// A command line graphd does not understand. The description is the one-line message.
struct UsageError: Error, Equatable, CustomStringConvertible, Sendable {
    var description: String
}

/// The parser: `graphd [serve] [--port N] [--data DIR] [--bind ADDR]`, `graphd --help`.
enum CommandLineOptions {
    static let usage = """
        graphd — a social graph engine speaking Redis's protocol and FalkorDB's GRAPH.* commands

        Usage:
          graphd [serve] [--port N] [--data DIR] [--bind ADDR]
          graphd --help

        Options:
          --port N      TCP port to listen on (default \(ServeOptions.defaultPort); 0 picks a free one)
          --data DIR    data directory, created if missing (default \(ServeOptions.defaultDataDirectory))
          --bind ADDR   IPv4 or IPv6 address to listen on (default \(ServeOptions.defaultBindAddress))
          -h, --help    show this help

        Connect with: redis-cli -p \(ServeOptions.defaultPort)   or   nc 127.0.0.1 \(ServeOptions.defaultPort)
        """

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineCommand {
        var rest = arguments[...]
        if let first = rest.first {
            if first == "serve" {
                rest = rest.dropFirst()
            } else if first == "help" {
                return .help
            } else if !first.hasPrefix("-") {
                throw UsageError(description: "graphd: unknown command '\(first)' (try graphd --help)")
            }
        }
        var options = ServeOptions()
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" { return .help }
            // Accept both `--port 6479` and `--port=6479`.
            let name: String
            var inlineValue: String? = nil
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = rest.popFirst() else {
                    throw UsageError(description: "graphd: option '\(name)' needs a value")
                }
                return next
            }
            switch name {
            case "--port":
                let text = try value()
                guard let port = Int(text), (0...65535).contains(port) else {
                    throw UsageError(description: "graphd: invalid port '\(text)' (expected 0-65535)")
                }
                options.port = port
            case "--data":
                let text = try value()
                guard !text.isEmpty else { throw UsageError(description: "graphd: --data needs a directory") }
                options.dataDirectory = text
            case "--bind":
                let text = try value()
                guard !text.isEmpty else { throw UsageError(description: "graphd: --bind needs an address") }
                options.bindAddress = text
            default:
                throw UsageError(description: "graphd: unknown option '\(argument)' (try graphd --help)")
            }
        }
        return .serve(options)
    }
}
