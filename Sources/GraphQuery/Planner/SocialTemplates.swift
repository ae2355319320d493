// SocialTemplates.swift — recognises docs/social.md's plain invitable-audience,
// relationship-label and invitation-feed queries, whose pipelines (collects, unwinds, a list
// comprehension with a pattern inside, a seek per listed id, two groupings) are too long for
// the clause-level rewrites of SocialPlanner, by their tokens: the same tokens up to variable
// names, keyword case, layout and the ids (parameters or literals). The query's own RETURN and
// everything after it are kept as written; only the part before is replaced by a call of a
// kernel that yields the variables the RETURN reads. Called from QueryEngine.compile after the
// original query has parsed and bound, so every error is the original's.

/// A plain-Cypher pipeline recognised token for token, and the Cypher that replaces it.
struct QueryTemplate: Sendable {
    /// The template's tokens, without the end of input.
    let tokens: [Token]
    /// Template identifiers that are variables: the query may name them otherwise (one name
    /// each, different names for different variables). Every other identifier must be as
    /// written (case aside for keywords and function names).
    let variables: Set<String>
    /// The template's ORDER BY keys (tokens after `ORDER BY`): the kernel's own order, so a
    /// RETURN sorting by exactly these needs no sort. Nil when the rows come in no order a
    /// RETURN would ask for.
    let order: [Token]?
    /// The procedure the replacement calls; its first call gets a further argument, `true`
    /// (the binder would refuse it in text), asking for the pattern's own rows.
    let procedure: String
    /// RETURN items the kernel can yield as well, instead of the query evaluating them row by
    /// row (each expression reads the template's variables only, so it means the same there).
    let columns: [TemplateColumn]
    /// The Cypher that computes the template's variables, given the match.
    let replacement: @Sendable (TemplateMatch) -> String

    init(_ text: String, variables: Set<String>, order: String?, procedure: String, columns: [TemplateColumn] = [],
         replacement: @escaping @Sendable (TemplateMatch) -> String) {
        // The templates are constants of this file: they lex.
        tokens = Self.tokens(text)
        self.variables = variables
        self.order = order.map(Self.tokens)
        self.procedure = procedure
        self.columns = columns
        self.replacement = replacement
    }

    static func tokens(_ text: String) -> [Token] { (try? Lexer.tokenize(text))?.dropLast() ?? [] }

    /// A RETURN item's expression (in each of its spellings) that the template's kernel
    /// yields as `output`.
    struct TemplateColumn: Sendable {
        let spellings: [[Token]]
        let output: String

        init(_ output: String, spellings: [String]) {
            self.output = output
            self.spellings = spellings.map(QueryTemplate.tokens)
        }

        /// The variable the replacement yields `output` as: a name no query can clash with,
        /// since the replacement is all the query sees before its RETURN.
        var hiddenName: String { "`graphd \(output)`" }
    }

    /// How the query matched: the query's name of each template variable, the source text
    /// of each `$slot` (a parameter or a single literal token), and the columns its RETURN
    /// reads from the kernel.
    struct TemplateMatch {
        var names: [String: String] = [:]
        var slots: [String: String] = [:]
        var columns: [TemplateColumn] = []
        /// The query's ORDER BY was the kernel's order and is dropped: the replacement must
        /// yield its rows in that order.
        var ordersAsKernel = false

        /// The query's name of template variable `variable`, back-ticked.
        func name(_ variable: String) -> String {
            "`" + (names[variable] ?? variable).replacingOccurrences(of: "`", with: "``") + "`"
        }

        /// The YIELD items of the columns the RETURN reads from the kernel (each with its
        /// leading comma), or "".
        var columnYields: String { columns.map { ", \($0.output) AS \($0.hiddenName)" }.joined() }
    }

    /// The match of the template against the start of `query`, and the index of the first
    /// query token after it; nil when the tokens differ.
    func match(_ query: [Token], source: [UInt8]) -> (TemplateMatch, end: Int)? {
        guard query.count > tokens.count else { return nil }
        var result = TemplateMatch()
        var taken: Set<String> = []
        guard let end = Self.match(tokens, variables: variables, in: query, at: 0, source: source,
                                   result: &result, taken: &taken) else { return nil }
        return (result, end)
    }

    /// Matches `template` against `query` from `start`, extending `result` (a variable seen
    /// before must have the same name again; a new one a name not in `taken`). The index of
    /// the first query token after the match, or nil when the tokens differ.
    static func match(_ template: [Token], variables: Set<String>, in query: [Token], at start: Int, source: [UInt8],
                      result: inout TemplateMatch, taken: inout Set<String>) -> Int? {
        guard query.count > start + template.count else { return nil }
        for (k, t) in template.enumerated() {
            let q = query[start + k]
            switch t.kind {
            case .parameter:
                switch q.kind {
                case .parameter, .integer, .float, .string: break
                default: return nil
                }
                let text = String(decoding: source[q.location.offset..<q.endOffset], as: UTF8.self)
                if let seen = result.slots[t.text], seen != text { return nil }
                result.slots[t.text] = text
            case .identifier where variables.contains(t.text):
                guard q.kind == .identifier || q.kind == .escapedIdentifier else { return nil }
                if let seen = result.names[t.text] {
                    guard seen == q.text else { return nil }
                } else {
                    guard !taken.contains(q.text) else { return nil }
                    taken.insert(q.text)
                    result.names[t.text] = q.text
                }
            case .identifier:
                guard q.kind == .identifier else { return nil }
                // Labels, types and property keys (after `:` or `.`, or before `:` in a map)
                // are case-sensitive; keywords and function names are not.
                let named = k > 0 && (template[k - 1].isSymbol(.colon) || template[k - 1].isSymbol(.dot))
                    || (k + 1 < template.count && template[k + 1].isSymbol(.colon))
                guard named ? q.text == t.text : q.text.uppercased() == t.text.uppercased() else { return nil }
            default:
                guard q.kind == t.kind, q.text == t.text else { return nil }
            }
        }
        return start + template.count
    }

    /// Whether an item of the RETURN in `query[start..<end]` is aliased to the query's name of a
    /// variable the template's ORDER BY keys read (`RETURN x.id AS i … ORDER BY i`): the ORDER
    /// BY then sorts by the item, not by the kernel's variable.
    func rebindsOrderVariable(_ query: [Token], from start: Int, to end: Int, names: [String: String]) -> Bool {
        guard let order else { return false }
        let read = Set(order.filter { $0.kind == .identifier && variables.contains($0.text) }.compactMap { names[$0.text] })
        for k in start..<max(start, end - 1) where query[k].isKeyword("AS") {
            let alias = query[k + 1]
            if alias.kind == .identifier || alias.kind == .escapedIdentifier, read.contains(alias.text) { return true }
        }
        return false
    }

    /// Whether `query[start...]` starts with this template's ORDER BY keys (mapped through
    /// `names`), followed by the end of the keys.
    func ordersAsKernel(_ query: [Token], at start: Int, names: [String: String]) -> Bool {
        guard let order, start + order.count < query.count else { return false }
        for (k, t) in order.enumerated() {
            let q = query[start + k]
            if t.kind == .identifier, variables.contains(t.text) {
                guard q.kind == .identifier || q.kind == .escapedIdentifier, q.text == names[t.text] else { return false }
            } else if t.kind == .identifier {
                guard q.kind == .identifier, q.text.uppercased() == t.text.uppercased() else { return false }
            } else {
                guard q.kind == t.kind, q.text == t.text else { return false }
            }
        }
        let next = query[start + order.count]
        return next.kind == .endOfInput || next.isKeyword("SKIP") || next.isKeyword("LIMIT") || next.isSymbol(.semicolon)
    }
}

extension QueryTemplate {
    /// The RETURN items right after the template (at `end`) that are one of its columns, as
    /// source ranges to replace by the column's hidden name; `match.columns` gets each column
    /// used. Only whole items with an alias count (the alias keeps the column's name), and
    /// only in a RETURN: its items are evaluated where the template's variables are bound as
    /// the template binds them, and nothing after a RETURN rebinds them.
    func columnEdits(_ query: [Token], at end: Int, source: [UInt8], match: inout TemplateMatch) -> [(Range<Int>, String)] {
        guard !columns.isEmpty, query[end].isKeyword("RETURN") else { return [] }
        var edits: [(Range<Int>, String)] = []
        var k = end + 1
        if query[k].isKeyword("DISTINCT") { k += 1 }
        while true {
            // `k` is the first token of an item.
            found: for column in columns {
                for spelling in column.spellings {
                    var result = match
                    var taken: Set<String> = []
                    guard let after = Self.match(spelling, variables: variables, in: query, at: k, source: source,
                                                 result: &result, taken: &taken),
                          taken.isEmpty, query[after].isKeyword("AS") else { continue }
                    edits.append((query[k].location.offset..<query[after - 1].endOffset, column.hiddenName))
                    if !match.columns.contains(where: { $0.output == column.output }) { match.columns.append(column) }
                    break found
                }
            }
            // On to the next item: past a comma outside brackets, or done at the items' end.
            var depth = 0
            scan: while true {
                let t = query[k]
                k += 1
                switch t.kind {
                case .endOfInput, .symbol(.semicolon): return edits
                case .symbol(.leftParen), .symbol(.leftBracket), .symbol(.leftBrace): depth += 1
                case .symbol(.rightParen), .symbol(.rightBracket), .symbol(.rightBrace): depth -= 1
                case .symbol(.comma) where depth == 0: break scan
                case .identifier where depth == 0 && ["ORDER", "SKIP", "LIMIT", "UNION"].contains(t.text.uppercased()):
                    return edits
                default: break
                }
            }
        }
    }
}

/// The templates graphd recognises and the rewrite of a query body through them.
enum SocialTemplates {
    /// The procedures the replacements call (see each one's `patternRows`).
    static let audienceProcedure = "social.invitableAudience"
    static let relationshipsProcedure = "social.relationships"
    static let invitationsProcedure = "social.invitations"

    /// docs/social.md's invitable audience with `hops` 2 and 1 (the 2-hop part dropped), its
    /// relationship labels and its invitation feed.
    static let templates: [QueryTemplate] = [audience(hops: 2), audience(hops: 1), relationshipLabels, invitationFeed]

    static func audience(hops: Int) -> QueryTemplate {
        let reach = hops == 2 ? """
            UNWIND friends AS f
            OPTIONAL MATCH (f)-[:FRIEND]-(x)
            WITH e, h, friends, collect(DISTINCT x) + friends AS reach
            UNWIND reach AS c
            """ : "UNWIND friends AS c"
        return QueryTemplate("""
            MATCH (h:User)-[:HOSTS]->(e:Event {id: $event})
            MATCH (h)-[:FRIEND]-(f)
            WITH e, h, collect(DISTINCT f) AS friends
            \(reach)
            WITH DISTINCT e, h, friends, c
            WHERE c <> h AND NOT (c)-[:INVITED]->(e) AND NOT (c)-[:ATTENDING]->(e) AND NOT (h)-[:BLOCKED]-(c)
            WITH c, c IN friends AS isFriend, size([m IN friends WHERE (m)-[:FRIEND]-(c)]) AS mutual
            """,
            variables: ["h", "e", "f", "friends", "x", "reach", "c", "m", "isFriend", "mutual"],
            order: "isFriend DESC, mutual DESC, id(c)", procedure: audienceProcedure, columns: audienceColumns) { m in
            // Events are matched as the query matches them; each (event, host) pair goes to
            // the kernel.
            """
            MATCH (`graphd host`:User)-[:HOSTS]->(`graphd event`:Event {id: \(m.slots["event"] ?? "null")})
            WITH collect(DISTINCT [`graphd event`, `graphd host`]) AS `graphd pairs`
            CALL \(audienceProcedure)(`graphd pairs`, {hops: \(hops)})
            YIELD user AS \(m.name("c")), isFriend AS \(m.name("isFriend")), mutual AS \(m.name("mutual"))\(m.columnYields)
            """
        }
    }

    /// The audience's documented label, which the kernel yields as `relation`: evaluated per
    /// row, it was a third of a large audience's time.
    static let audienceColumns: [QueryTemplate.TemplateColumn] = [
        .init("relation", spellings: ["CASE WHEN isFriend THEN 'FRIEND' ELSE 'CONNECTION' END"]),
    ]

    /// docs/social.md's relationship labels up to the grouping WITH. The viewer's MATCH stays;
    /// `$users[i]` for every i of the range is evaluated by the query itself, as the UNWIND and
    /// the seeks would evaluate it (the same values, the same errors); the kernel then seeks
    /// each element's users and counts the mutual friends with the viewer's friends marked
    /// once. Its rows come as the general plan's: by viewer (one call per viewer), then i. When
    /// the RETURN orders by `i` alone, the viewers are collected into one call instead, whose
    /// rows come by i, then viewer (the general rows sorted stably by i), and the sort goes
    /// (the list is then evaluated only when some viewer matched: without one the UNWIND had no
    /// row to run for).
    static let relationshipLabels = QueryTemplate("""
        MATCH (v:User {id: $viewer})
        UNWIND range(0, size($users) - 1) AS i
        MATCH (x:User {id: $users[i]})
        OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x
        WITH i, v, x, count(DISTINCT m) AS mutual
        """,
        variables: ["v", "i", "x", "m", "mutual"], order: "i", procedure: relationshipsProcedure,
        columns: relationshipLabelColumns) { m in
        let users = m.slots["users"] ?? "null"
        let elements = "[`graphd i` IN range(0, size(\(users)) - 1) | \(users)[`graphd i`]]"
        let yields = "position AS \(m.name("i")), user AS \(m.name("x")), mutual AS \(m.name("mutual"))\(m.columnYields)"
        let seek = "MATCH (\(m.name("v")):User {id: \(m.slots["viewer"] ?? "null")})"
        guard m.ordersAsKernel else {
            return "\(seek)\nCALL \(relationshipsProcedure)(\(m.name("v")), \(elements))\nYIELD \(yields)"
        }
        return """
            \(seek)
            WITH collect(\(m.name("v"))) AS `graphd viewers`
            CALL \(relationshipsProcedure)(`graphd viewers`, CASE WHEN size(`graphd viewers`) = 0 THEN [] ELSE \(elements) END)
            YIELD viewer AS \(m.name("v")), \(yields)
            """
    }

    /// The label and the four flags of docs/social.md's relationship labels, each with its
    /// pattern bare or inside `exists(…)`: the kernel yields them with the mutual count.
    static let relationshipLabelColumns: [QueryTemplate.TemplateColumn] = {
        func spellings(_ pattern: String, _ text: (String) -> String) -> [String] { [text(pattern), text("exists(\(pattern))")] }
        func flag(_ pattern: String) -> [String] { spellings(pattern) { "x <> v AND \($0)" } }
        return [
            .init("relation", spellings: spellings("(v)-[:FRIEND]-(x)") {
                "CASE WHEN x = v THEN 'SELF' WHEN \($0) THEN 'FRIEND' WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END"
            }),
            .init("requestSent", spellings: flag("(v)-[:FRIEND_REQUEST]->(x)")),
            .init("requestReceived", spellings: flag("(x)-[:FRIEND_REQUEST]->(v)")),
            .init("blockedByViewer", spellings: flag("(v)-[:BLOCKED]->(x)")),
            .init("blocksViewer", spellings: flag("(x)-[:BLOCKED]->(v)")),
        ]
    }()

    /// docs/social.md's invitation feed up to its second grouping WITH. The user's MATCH stays
    /// as a seek (one row per matching user); the kernel walks the user's INVITED and ATTENDING
    /// lists, each event's hosts, and counts the mutual friends, in the general plan's order.
    /// When the RETURN orders by `event.starts_at, id(event)` alone, the users are collected
    /// into one call instead, whose rows come in that order (the planner passes a fourth
    /// argument, `true`), and the sort goes.
    static let invitationFeed = QueryTemplate("""
        MATCH (u:User {id: $user})-[r:INVITED|ATTENDING]->(event:Event)
        WITH u, event, max(CASE type(r) WHEN 'ATTENDING' THEN 1 ELSE 0 END) = 1 AS attending
        OPTIONAL MATCH (h:User)-[:HOSTS]->(event)
        OPTIONAL MATCH (u)-[:FRIEND]-(m)-[:FRIEND]-(h) WHERE u <> h
        WITH u, event, attending, h, count(DISTINCT m) AS mutual
        """,
        variables: ["u", "r", "event", "attending", "h", "m", "mutual"], order: "event.starts_at, id(event)",
        procedure: invitationsProcedure, columns: invitationFeedColumns) { m in
        let seek = "MATCH (\(m.name("u")):User {id: \(m.slots["user"] ?? "null")})"
        let yields = "event AS \(m.name("event")), attending AS \(m.name("attending")), host AS \(m.name("h")), hostMutual AS \(m.name("mutual"))\(m.columnYields)"
        guard m.ordersAsKernel else { return "\(seek)\nCALL \(invitationsProcedure)(\(m.name("u")), null)\nYIELD \(yields)" }
        return """
            \(seek)
            WITH collect(\(m.name("u"))) AS `graphd users`
            CALL \(invitationsProcedure)(`graphd users`, null)
            YIELD user AS \(m.name("u")), \(yields)
            """
    }

    /// The feed's documented host label, with its pattern bare or inside `exists(…)`: the
    /// kernel yields it with the mutual count.
    static let invitationFeedColumns: [QueryTemplate.TemplateColumn] = {
        let label = { (pattern: String) in
            "CASE WHEN h IS NULL THEN null WHEN h = u THEN 'SELF' WHEN \(pattern) THEN 'FRIEND' WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END"
        }
        return [.init("hostRelation", spellings: [label("(u)-[:FRIEND]-(h)"), label("exists((u)-[:FRIEND]-(h))")])]
    }()

    /// The plan of `body` through a template, or nil when none matches. `bound` is the query
    /// as written, already bound (so it is valid Cypher): its columns and parameters stay.
    static func plan(_ body: String, bound: BoundQuery, registry: ProcedureRegistry) -> LogicalPlan? {
        var plain = false
        if bound.unions.isEmpty, case .projection(let last)? = bound.clauses.last?.clause { plain = !last.isDistinct && !last.isAggregating }
        guard let (text, template, ordersAsKernel) = rewrite(body, finalProjectionIsPlain: plain),
              let query = try? Parser.parse(text), var replacement = try? Binder.bind(query, registry: registry),
              replacement.columns == bound.columns else { return nil }
        // The replacement's call comes before the query's own clauses: the first one of the name.
        for k in replacement.clauses.indices {
            guard case .call(var call) = replacement.clauses[k].clause, call.name == template.procedure else { continue }
            // A fourth: the query's ORDER BY was dropped, so the rows must come in its order
            // (a kernel whose pattern rows come in another order reads it).
            call.arguments.append(.literal(.bool(true)))
            if ordersAsKernel { call.arguments.append(.literal(.bool(true))) }
            call.rule = "template " + template.procedure
            replacement.clauses[k].clause = .call(call)
            break
        }
        replacement.parameterNames = bound.parameterNames
        return Planner.plan(replacement)
    }

    /// The body that replaces `body`, or nil when no template matches. `finalProjectionIsPlain`:
    /// the query's last projection neither deduplicates nor aggregates, so an ORDER BY equal to
    /// the kernel's order may be dropped (the rows already come in it).
    static func rewrite(_ body: String, finalProjectionIsPlain: Bool) -> (text: String, template: QueryTemplate, ordersAsKernel: Bool)? {
        guard let tokens = try? Lexer.tokenize(body) else { return nil }
        let source = Array(body.utf8)
        for template in templates {
            guard let found = template.match(tokens, source: source) else { continue }
            var match = found.0
            let end = found.1
            var edits = template.columnEdits(tokens, at: end, source: source, match: &match)
            if finalProjectionIsPlain, tokens[end].isKeyword("RETURN"), !tokens[end + 1].isKeyword("DISTINCT"),
               let order = topLevelOrderBy(tokens, from: end),
               template.ordersAsKernel(tokens, at: order + 2, names: match.names),
               !template.rebindsOrderVariable(tokens, from: end, to: order, names: match.names) {
                let keysEnd = tokens[order + 2 + (template.order?.count ?? 0)].location.offset
                edits.append((tokens[order].location.offset..<keysEnd, ""))
                match.ordersAsKernel = true
            }
            // The edits come in source order and do not overlap (the items, then ORDER BY).
            var rest = ""
            var from = tokens[end].location.offset
            for (range, text) in edits {
                rest += String(decoding: source[from..<range.lowerBound], as: UTF8.self) + text
                from = range.upperBound
            }
            rest += String(decoding: source[from...], as: UTF8.self)
            return (template.replacement(match) + "\n" + rest, template, match.ordersAsKernel)
        }
        return nil
    }

    /// The index of the first `ORDER` `BY` after `start`, before any UNION.
    static func topLevelOrderBy(_ tokens: [Token], from start: Int) -> Int? {
        var k = start
        while k + 1 < tokens.count, !tokens[k].isKeyword("UNION") {
            if tokens[k].isKeyword("ORDER"), tokens[k + 1].isKeyword("BY") { return k }
            k += 1
        }
        return nil
    }
}
