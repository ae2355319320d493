// StatementBuffer.swift — collects input lines into statements: a statement ends at a ';'
// outside strings, backticked names and comments, so one may span lines and one line may
// hold several. A line starting with ':' on an empty buffer is a REPL command, complete
// at the end of its line.

/// One complete piece of input.
enum REPLInput: Equatable {
    /// A query, without its terminating ';'.
    case statement(String)
    /// A `:command args` line, without the ':'.
    case command(String)
}

/// Accumulates text until statements are complete.
struct StatementBuffer {
    /// Text of an unfinished statement.
    private(set) var pending = ""

    /// True when nothing but whitespace is waiting.
    var isEmpty: Bool { pending.allSatisfy(\.isWhitespace) }

    /// Forgets the unfinished statement (Ctrl-C).
    mutating func clear() { pending = "" }

    /// Adds one line; returns the statements and commands it completes, in order.
    mutating func add(line: String) -> [REPLInput] {
        if isEmpty {
            let trimmed = line.drop(while: \.isWhitespace)
            if trimmed.hasPrefix(":") {
                pending = ""
                var command = String(trimmed.dropFirst())
                while command.last?.isWhitespace == true || command.last == ";" { command.removeLast() }
                return [.command(command)]
            }
        }
        pending += pending.isEmpty ? line : "\n" + line
        var results: [REPLInput] = []
        while let end = Self.statementEnd(in: pending) {
            let statement = String(pending[..<end])
            pending = String(pending[pending.index(after: end)...])
            let text = Self.trimmed(statement)
            if text.hasPrefix(":") {
                // `RETURN 1; :schema;` — a command after a statement, ended by ';'.
                results.append(.command(String(text.dropFirst())))
            } else if !text.isEmpty {
                results.append(.statement(text))
            }
        }
        if isEmpty {
            pending = ""
        } else if let rest = Optional(Self.trimmed(pending)), rest.hasPrefix(":") && !rest.contains("\n") {
            // `RETURN 1; :schema` — a command after the last statement on the line.
            pending = ""
            results.append(contentsOf: add(line: rest))
        }
        return results
    }

    /// The rest at end of input: an unterminated statement still runs (as `cypher-shell`
    /// does with a file that lacks the final ';').
    mutating func finish() -> REPLInput? {
        defer { pending = "" }
        return isEmpty ? nil : .statement(Self.trimmed(pending))
    }

    /// Splits a whole text (a script, an `-e` argument) into inputs.
    static func split(_ text: String) -> [REPLInput] {
        var buffer = StatementBuffer()
        var inputs: [REPLInput] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            inputs += buffer.add(line: String(line))
        }
        if let last = buffer.finish() { inputs.append(last) }
        return inputs
    }

    private static func trimmed(_ text: String) -> String {
        var slice = text[...]
        while slice.first?.isWhitespace == true { slice = slice.dropFirst() }
        while slice.last?.isWhitespace == true { slice = slice.dropLast() }
        return String(slice)
    }

    /// The index of the first ';' that ends a statement, or nil.
    static func statementEnd(in text: String) -> String.Index? {
        enum Mode { case code, single, double, backtick, lineComment, blockComment }
        var mode = Mode.code
        var index = text.startIndex
        var previous: Character = " "
        while index < text.endIndex {
            let c = text[index]
            switch mode {
            case .code:
                if c == ";" { return index }
                if c == "'" { mode = .single }
                else if c == "\"" { mode = .double }
                else if c == "`" { mode = .backtick }
                else if c == "/" && previous == "/" { mode = .lineComment }
                else if c == "*" && previous == "/" { mode = .blockComment }
            case .single, .double:
                if c == "\\" {
                    index = text.index(after: index)
                    if index == text.endIndex { return nil }
                } else if (c == "'" && mode == .single) || (c == "\"" && mode == .double) {
                    mode = .code
                }
            case .backtick:
                if c == "`" { mode = .code }
            case .lineComment:
                if c == "\n" { mode = .code }
            case .blockComment:
                if c == "/" && previous == "*" { mode = .code; previous = " "; index = text.index(after: index); continue }
            }
            previous = c
            index = text.index(after: index)
        }
        return nil
    }
}
