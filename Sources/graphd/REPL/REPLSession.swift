// REPLSession.swift — what the REPL does with each statement or `:command`: runs it on the
// backend, prints the result (table, CSV or JSON) and the summary line, or the error with a
// caret under the offending text. Independent of where input comes from (terminal, pipe,
// -e), so the interactive loop and scripts share it.

import GraphQuery
import GraphStore

/// Where the session writes: results to `output`, errors and notes to `diagnostics`.
struct REPLOutput {
    var output: (String) -> Void
    var diagnostics: (String) -> Void
    /// The width tables are cut to.
    var width: () -> Int
}

/// The state of one REPL: current graph, parameters, settings.
final class REPLSession {
    /// What handling one input led to.
    enum Outcome: Equatable { case succeeded, failed, quit }

    let backend: any QueryBackend
    private(set) var graph: String
    private(set) var parameters: [String: Value] = [:]
    var timing: Bool
    let format: OutputFormat
    let out: REPLOutput
    /// Set in interactive sessions: statements run on a worker so Ctrl-C can stop the wait.
    var interruptible: InterruptibleCall?

    init(backend: any QueryBackend, graph: String, format: OutputFormat, timing: Bool, output: REPLOutput) {
        self.backend = backend
        self.graph = graph
        self.format = format
        self.timing = timing
        self.out = output
    }

    static let helpText = """
        Statements end with ';' and may span lines. Ctrl-C cancels the input or a running query,
        Ctrl-D (or :quit) leaves. Up/Down recall earlier lines.

          :help                    this text
          :use NAME                switch to graph NAME (created by its first write)
          :graphs                  list the graphs
          :schema                  labels, relationship types, property keys and indexes
          :param NAME => VALUE     set parameter $NAME to a Cypher expression (e.g. 42, 'Ann', [1, 2])
          :params                  list the parameters (:params clear forgets them)
          :explain QUERY           show the plan without running it (or start a statement with EXPLAIN)
          :profile QUERY           run and show the plan with row counts (or start with PROFILE)
          :timing on|off           show or hide the time after each result
          :quit                    leave

        """

    /// Handles one statement or command.
    func handle(_ input: REPLInput) -> Outcome {
        switch input {
        case .statement(let text): return runStatement(text)
        case .command(let text): return runCommand(text)
        }
    }

    // MARK: statements

    private func runStatement(_ text: String) -> Outcome {
        let (keyword, rest) = Self.firstWord(text)
        switch keyword.uppercased() {
        case "EXPLAIN": return showPlan(rest, profile: false)
        case "PROFILE": return showPlan(rest, profile: true)
        default: break
        }
        let clock = ContinuousClock()
        let started = clock.now
        let backend = self.backend, graph = self.graph, parameters = self.parameters
        // Made before the statement starts, so a Ctrl-C at any moment of it reaches the query.
        let cancellation = QueryCancellation()
        guard let outcome = call({ () -> Result<QueryResult, REPLError> in
            do throws(REPLError) {
                return .success(try backend.execute(text, graph: graph, parameters: parameters, cancellation: cancellation))
            } catch {
                return .failure(error)
            }
        }, cancellation: cancellation) else { return .failed }
        let elapsed = clock.now - started
        switch outcome {
        case .success(let result):
            print(result, milliseconds: Self.milliseconds(elapsed))
            return .succeeded
        case .failure(let error):
            report(error, statement: text)
            return .failed
        }
    }

    private func showPlan(_ query: String, profile: Bool) -> Outcome {
        guard !query.isEmpty else {
            out.diagnostics("\(profile ? ":profile" : ":explain") needs a query\n")
            return .failed
        }
        let backend = self.backend, graph = self.graph, parameters = self.parameters
        guard let outcome = call({ () -> Result<[String], REPLError> in
            do throws(REPLError) {
                return .success(try backend.plan(query, graph: graph, parameters: parameters, profile: profile))
            } catch {
                return .failure(error)
            }
        }) else { return .failed }
        switch outcome {
        case .success(let lines):
            out.output(lines.joined(separator: "\n") + "\n")
            return .succeeded
        case .failure(let error):
            report(error, statement: query)
            return .failed
        }
    }

    /// Runs `body` interruptibly when interactive; nil (after a note) when Ctrl-C stopped it.
    private func call<T: Sendable>(_ body: @escaping @Sendable () -> T, cancellation: QueryCancellation? = nil) -> T? {
        guard let interruptible else { return body() }
        let backend = self.backend
        let result = interruptible.run(body, onInterrupt: {
            cancellation?.cancel()
            backend.interrupt()
        })
        if result == nil {
            let note = backend is RemoteBackend
                ? "Interrupted: stopped waiting and closed the connection (the next statement reconnects)."
                : cancellation != nil
                    ? "Interrupted: the statement was cancelled (a write is rolled back)."
                    : "Interrupted: stopped waiting; the statement finishes in the background and its result is dropped."
            out.diagnostics(note + "\n")
        }
        return result
    }

    private func print(_ result: QueryResult, milliseconds: Double) {
        switch format {
        case .table:
            var text = result.hasResultSet ? ResultFormatter.table(result, width: out.width()) : ""
            text += ResultFormatter.summary(result, milliseconds: timing ? milliseconds : nil) + "\n"
            out.output(text)
        case .csv:
            out.output(ResultFormatter.csv(result))
        case .json:
            out.output(ResultFormatter.json(result))
        }
    }

    /// The error, and for a located one the statement's line with a caret under the column.
    func report(_ error: REPLError, statement: String) {
        guard case .query(let queryError) = error else {
            out.diagnostics("Error: \(error.description)\n")
            return
        }
        var text = "\(Self.kindName(queryError.kind)) error: \(queryError.message)\n"
        if let location = queryError.location {
            let lines = statement.split(separator: "\n", omittingEmptySubsequences: false)
            let line = queryError.contextLine
                ?? (location.line - 1 < lines.count ? String(lines[location.line - 1]) : "")
            text += "  at line \(location.line), column \(location.column):\n"
            text += "  " + line + "\n"
            text += "  " + String(repeating: " ", count: max(0, location.column - 1)) + "^\n"
        }
        out.diagnostics(text)
    }

    static func kindName(_ kind: QueryError.Kind) -> String {
        switch kind {
        case .syntax: return "Syntax"
        case .semantic: return "Semantic"
        case .type: return "Type"
        case .runtime: return "Runtime"
        case .constraint: return "Constraint"
        case .timeout: return "Timeout"
        case .storage: return "Storage"
        }
    }

    // MARK: commands

    private func runCommand(_ text: String) -> Outcome {
        let (name, argument) = Self.firstWord(text)
        switch name.lowercased() {
        case "help", "h", "?":
            out.output(Self.helpText)
        case "quit", "q", "exit":
            return .quit
        case "use":
            guard !argument.isEmpty else {
                out.output("Using graph '\(graph)'\n")
                return .succeeded
            }
            do throws(StoreError) {
                try DataDirectory.validate(argument)
            } catch {
                out.diagnostics("Error: \(error.description)\n")
                return .failed
            }
            graph = argument
            out.output("Using graph '\(graph)'\n")
        case "graphs":
            do throws(REPLError) {
                let names = try backend.graphNames()
                out.output(names.isEmpty ? "(no graphs)\n" : names.map { ($0 == graph ? "* " : "  ") + $0 }.joined(separator: "\n") + "\n")
            } catch {
                report(error, statement: text)
                return .failed
            }
        case "schema":
            do throws(REPLError) {
                out.output(Self.describe(try backend.schema(graph: graph), graph: graph))
            } catch {
                report(error, statement: text)
                return .failed
            }
        case "param":
            return setParameter(argument)
        case "params":
            if argument.lowercased() == "clear" {
                parameters = [:]
                out.output("Parameters cleared\n")
            } else if parameters.isEmpty {
                out.output("(no parameters)\n")
            } else {
                out.output(parameters.keys.sorted().map { ":param \($0) => \(CypherLiteral.render(parameters[$0]!))" }
                    .joined(separator: "\n") + "\n")
            }
        case "explain":
            return showPlan(argument, profile: false)
        case "profile":
            return showPlan(argument, profile: true)
        case "timing":
            switch argument.lowercased() {
            case "on": timing = true
            case "off": timing = false
            case "": break
            default:
                out.diagnostics("Error: :timing takes on or off\n")
                return .failed
            }
            out.output("Timing \(timing ? "on" : "off")\n")
        default:
            out.diagnostics("Error: unknown command ':\(name)' (try :help)\n")
            return .failed
        }
        return .succeeded
    }

    /// `:param name => expression` (also `name: expression`); the expression is evaluated
    /// by the query engine, so it may use earlier parameters.
    private func setParameter(_ text: String) -> Outcome {
        var name: Substring
        var expression: Substring
        if let arrow = text.firstRange(of: "=>") {
            name = text[..<arrow.lowerBound]
            expression = text[arrow.upperBound...]
        } else if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            expression = text[text.index(after: colon)...]
        } else {
            out.diagnostics("Error: usage is :param NAME => VALUE\n")
            return .failed
        }
        name = name.drop(while: \.isWhitespace)
        while name.last?.isWhitespace == true { name = name.dropLast() }
        if name.hasPrefix("$") { name = name.dropFirst() }
        if name.hasPrefix("`") && name.hasSuffix("`") && name.count >= 2 { name = name.dropFirst().dropLast() }
        expression = expression.drop(while: \.isWhitespace)
        guard !name.isEmpty, !expression.isEmpty else {
            out.diagnostics("Error: usage is :param NAME => VALUE\n")
            return .failed
        }
        do throws(QueryError) {
            let result = try QueryEngine(cacheCapacity: 1).execute("RETURN " + expression + " AS value",
                                                                   on: GraphStore.inMemory(), parameters: parameters)
            guard let cell = (result.rowCount > 0 ? result.row(0).first : nil), let value = Self.parameterValue(cell) else {
                out.diagnostics("Error: a parameter cannot hold a node, relationship or path\n")
                return .failed
            }
            parameters[String(name)] = value
            out.output(":param \(name) => \(CypherLiteral.render(value))\n")
            return .succeeded
        } catch {
            report(.query(error), statement: "RETURN " + expression + " AS value")
            return .failed
        }
    }

    static func parameterValue(_ value: ResultValue) -> Value? {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let n): return .integer(n)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .list(let items):
            var values: [Value] = []
            for item in items {
                guard let v = parameterValue(item) else { return nil }
                values.append(v)
            }
            return .list(values)
        case .map(let entries):
            var pairs: [(String, Value)] = []
            for entry in entries {
                guard let v = parameterValue(entry.value) else { return nil }
                pairs.append((entry.key, v))
            }
            return .map(ValueMap(pairs))
        case .temporal(let t): return .temporal(t)
        case .node, .relationship, .path: return nil
        }
    }

    static func describe(_ schema: GraphSchema, graph: String) -> String {
        func counted(_ items: [(name: String, count: Int?)]) -> String {
            items.isEmpty ? "(none)" : items.map { item in item.count.map { "\(item.name) (\($0))" } ?? item.name }.joined(separator: ", ")
        }
        var text = "Graph '\(graph)'"
        if let nodes = schema.nodeCount, let relationships = schema.relationshipCount {
            text += ": \(nodes) nodes, \(relationships) relationships"
        }
        text += "\n"
        text += "  Labels:              " + counted(schema.labels) + "\n"
        text += "  Relationship types:  " + counted(schema.relationshipTypes) + "\n"
        text += "  Property keys:       " + (schema.propertyKeys.isEmpty ? "(none)" : schema.propertyKeys.joined(separator: ", ")) + "\n"
        text += "  Indexes:             " + (schema.indexes.isEmpty ? "(none)" : schema.indexes.joined(separator: ", ")) + "\n"
        return text
    }

    /// The first word (upper/lower case kept) and the rest, trimmed.
    static func firstWord(_ text: String) -> (String, String) {
        let trimmed = text.drop(while: \.isWhitespace)
        let word = trimmed.prefix { !$0.isWhitespace }
        var rest = trimmed.dropFirst(word.count).drop(while: \.isWhitespace)
        while rest.last?.isWhitespace == true { rest = rest.dropLast() }
        return (String(word), String(rest))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
