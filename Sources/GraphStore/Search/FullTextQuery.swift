// FullTextQuery.swift — the query languages of the full-text procedures, parsed to one tree:
// RediSearch's dialect 1 as FalkorDB passes it (`db.idx.fulltext.query*`: words AND-ed, `a|b`,
// `-word`, `"a phrase"`, `prefix*`, `%fuzzy%` and `%%fuzzy%%` by Levenshtein distance,
// `(groups)`, `@field:` restrictions, `~optional`) and Lucene's classic syntax as Neo4j passes it
// (`db.index.fulltext.query*`: words OR-ed by default, AND/OR/NOT, `+`/`-`, `term~` and
// `term~1` by optimal-string-alignment distance, `prefix*`, phrases, groups).

/// A parsed full-text query.
public indirect enum FullTextQuery: Sendable, Equatable {
    /// One term: `exact` as typed, `prefix` for `t*`, `fuzzy(d, transpositions)` for `%t%` or `t~d`.
    case term([UInt32], TermMode, field: String?)
    /// Terms next to each other, in order (`"a b"`).
    case phrase([[UInt32]], field: String?)
    case and([FullTextQuery])
    case or([FullTextQuery])
    /// Everything indexed but what the operand matches.
    case not(FullTextQuery)
    /// `~t`: scores when present, never required (matches everything indexed).
    case optional(FullTextQuery)

    /// How a term matches dictionary terms.
    public enum TermMode: Sendable, Equatable {
        case exact, prefix
        case fuzzy(Int, transpositions: Bool)
    }
}

/// A query that does not parse: the message says where and why.
public struct FullTextQueryError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension FullTextQuery {
    /// Parses RediSearch dialect 1.
    public static func parseRediSearch(_ text: String) throws(FullTextQueryError) -> FullTextQuery {
        var parser = RediSearchParser(Array(text.unicodeScalars))
        let query = try parser.parseUnion()
        parser.skipSpaces()
        if parser.position < parser.scalars.count {
            throw FullTextQueryError("Syntax error at offset \(parser.position) near '\(parser.rest)'")
        }
        guard let query else { throw FullTextQueryError("Syntax error: the query is empty") }
        return query
    }

    /// Parses Lucene's classic syntax (Neo4j); the default operator is OR.
    public static func parseLucene(_ text: String) throws(FullTextQueryError) -> FullTextQuery {
        var parser = LuceneParser(Array(text.unicodeScalars))
        let query = try parser.parseClauses(closing: false)
        guard let query else { throw FullTextQueryError("Cannot parse '\(text)': the query is empty") }
        return query
    }
}

/// Reads RediSearch's syntax: union := intersect ('|' intersect)*, intersect := unary+,
/// unary := '-' unary | '~' unary | atom, atom := '(' union ')' | '"' words '"' | '%'…'%' word
/// | '@field:' atom | word ['*'].
private struct RediSearchParser {
    let scalars: [Unicode.Scalar]
    var position = 0
    var field: String?

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var rest: String { String(String.UnicodeScalarView(scalars[position...].prefix(20))) }
    var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    mutating func skipSpaces() { while let c = current, c.properties.isWhitespace { position += 1 } }

    mutating func parseUnion() throws(FullTextQueryError) -> FullTextQuery? {
        var parts: [FullTextQuery] = []
        while true {
            guard let part = try parseIntersect() else {
                if parts.isEmpty { return nil }
                throw FullTextQueryError("Syntax error at offset \(position): '|' needs a term after it")
            }
            parts.append(part)
            skipSpaces()
            if current == "|" { position += 1; continue }
            break
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseIntersect() throws(FullTextQueryError) -> FullTextQuery? {
        var parts: [FullTextQuery] = []
        while true {
            skipSpaces()
            guard let c = current, c != "|", c != ")" else { break }
            parts.append(contentsOf: try parseUnary())
        }
        if parts.isEmpty { return nil }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// One unary item; a plain word with punctuation inside gives several AND-ed terms.
    mutating func parseUnary() throws(FullTextQueryError) -> [FullTextQuery] {
        if current == "-" {
            position += 1
            let operand = try parseUnary()
            guard !operand.isEmpty else { throw FullTextQueryError("Syntax error at offset \(position): '-' needs a term after it") }
            return [.not(operand.count == 1 ? operand[0] : .and(operand))]
        }
        if current == "~" {
            position += 1
            let operand = try parseUnary()
            guard !operand.isEmpty else { throw FullTextQueryError("Syntax error at offset \(position): '~' needs a term after it") }
            return [.optional(operand.count == 1 ? operand[0] : .and(operand))]
        }
        return try parseAtom()
    }

    mutating func parseAtom() throws(FullTextQueryError) -> [FullTextQuery] {
        guard let c = current else { throw FullTextQueryError("Syntax error: the query ends too early") }
        if c == "@" {
            position += 1
            let start = position
            while let d = current, d != ":" && !d.properties.isWhitespace { position += 1 }
            guard current == ":", position > start else {
                throw FullTextQueryError("Syntax error at offset \(start): '@field' needs ':' after it")
            }
            let name = String(String.UnicodeScalarView(scalars[start..<position]))
            position += 1
            let saved = field
            field = name
            defer { field = saved }
            skipSpaces()
            return try parseAtom()
        }
        if c == "(" {
            position += 1
            let inner = try parseUnion()
            skipSpaces()
            guard current == ")" else { throw FullTextQueryError("Syntax error at offset \(position): missing ')'") }
            position += 1
            guard let inner else { throw FullTextQueryError("Syntax error at offset \(position): empty '()'") }
            return [inner]
        }
        if c == "\"" {
            position += 1
            let start = position
            while let d = current, d != "\"" { position += 1 }
            guard current == "\"" else { throw FullTextQueryError("Syntax error at offset \(start - 1): unterminated '\"'") }
            let text = String(String.UnicodeScalarView(scalars[start..<position]))
            position += 1
            let terms = TextTokenizer.terms(text)
            guard !terms.isEmpty else { return [] }
            return [terms.count == 1 ? .term(terms[0], .exact, field: field) : .phrase(terms, field: field)]
        }
        if c == "%" {
            var opening = 0
            while current == "%" { opening += 1; position += 1 }
            guard opening <= 3 else { throw FullTextQueryError("Syntax error at offset \(position): at most three '%' (distance 3)") }
            let start = position
            while let d = current, d != "%" && !d.properties.isWhitespace { position += 1 }
            let word = scalars[start..<position]
            var closing = 0
            while current == "%" && closing < opening { closing += 1; position += 1 }
            guard closing == opening, !word.isEmpty else {
                throw FullTextQueryError("Syntax error at offset \(start): a fuzzy term is %word% with as many '%' on each side")
            }
            let terms = TextTokenizer.terms(String(String.UnicodeScalarView(word)))
            return terms.map { .term($0, .fuzzy(opening, transpositions: false), field: field) }
        }
        // A plain word runs to whitespace or an operator (a '-' inside it joins, as in
        // "smith-jones", whose terms are AND-ed); it may end in '*'.
        let start = position
        while let d = current, !d.properties.isWhitespace, !"|()\"@~%".unicodeScalars.contains(d) { position += 1 }
        guard position > start else { throw FullTextQueryError("Syntax error at offset \(position) near '\(rest)'") }
        var word = String(String.UnicodeScalarView(scalars[start..<position]))
        var isPrefix = false
        if word.hasSuffix("*") { word.removeLast(); isPrefix = true }
        let terms = TextTokenizer.terms(word)
        if terms.isEmpty {
            if isPrefix { throw FullTextQueryError("Syntax error at offset \(start): '*' needs a prefix before it") }
            return []
        }
        return terms.enumerated().map { i, term in .term(term, isPrefix && i == terms.count - 1 ? .prefix : .exact, field: field) }
    }
}

/// Reads Lucene's classic syntax: clauses with `+`/`-`/`NOT` prefixes joined by AND/OR
/// (default OR), `(groups)`, `"phrases"`, `field:term`, `term*`, `term~` / `term~N`, `^boost`
/// (ignored).
private struct LuceneParser {
    let scalars: [Unicode.Scalar]
    var position = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }
    var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }
    mutating func skipSpaces() { while let c = current, c.properties.isWhitespace { position += 1 } }

    enum Occur { case must, should, mustNot }

    mutating func parseClauses(closing: Bool) throws(FullTextQueryError) -> FullTextQuery? {
        var clauses: [(Occur, FullTextQuery)] = []
        var pendingAnd = false
        while true {
            skipSpaces()
            guard let c = current else { break }
            if c == ")" {
                guard closing else { throw FullTextQueryError("Cannot parse: unexpected ')' at offset \(position)") }
                break
            }
            if let op = word(), op == "AND" || op == "OR" || op == "&&" || op == "||" {
                position += op.unicodeScalars.count
                if op == "AND" || op == "&&" {
                    pendingAnd = true
                    if let last = clauses.last, last.0 == .should { clauses[clauses.count - 1].0 = .must }
                }
                continue
            }
            var occur: Occur = pendingAnd ? .must : .should
            pendingAnd = false
            if c == "+" { occur = .must; position += 1 }
            else if c == "-" || c == "!" { occur = .mustNot; position += 1 }
            else if word() == "NOT" { occur = .mustNot; position += 3 }
            skipSpaces()
            guard let clause = try parseClause() else { continue }
            clauses.append((occur, clause))
        }
        let musts = clauses.filter { $0.0 == .must }.map(\.1)
        let shoulds = clauses.filter { $0.0 == .should }.map(\.1)
        let nots = clauses.filter { $0.0 == .mustNot }.map(\.1)
        var required: [FullTextQuery] = musts
        if musts.isEmpty && !shoulds.isEmpty { required.append(shoulds.count == 1 ? shoulds[0] : .or(shoulds)) }
        else if !shoulds.isEmpty { required.append(.optional(.or(shoulds))) }
        for n in nots { required.append(.not(n)) }
        if required.isEmpty { return nil }
        return required.count == 1 ? required[0] : .and(required)
    }

    /// The operator word at the position, if one (AND, OR, NOT, &&, ||) stands alone there.
    func word() -> String? {
        for op in ["AND", "OR", "NOT", "&&", "||"] {
            let n = op.unicodeScalars.count
            guard position + n <= scalars.count else { continue }
            if String(String.UnicodeScalarView(scalars[position..<position + n])) == op,
               position + n == scalars.count || scalars[position + n].properties.isWhitespace || scalars[position + n] == "(" {
                return op
            }
        }
        return nil
    }

    mutating func parseClause() throws(FullTextQueryError) -> FullTextQuery? {
        guard let c = current else { throw FullTextQueryError("Cannot parse: the query ends after an operator") }
        var field: String?
        // field:term
        var look = position
        while look < scalars.count, !scalars[look].properties.isWhitespace, !":()\"".unicodeScalars.contains(scalars[look]) { look += 1 }
        if look < scalars.count, scalars[look] == ":", look > position, c != "\"" {
            field = String(String.UnicodeScalarView(scalars[position..<look]))
            position = look + 1
        }
        guard let c = current else { throw FullTextQueryError("Cannot parse: a field needs a term") }
        var result: FullTextQuery?
        if c == "(" {
            position += 1
            result = try parseClauses(closing: true)
            guard current == ")" else { throw FullTextQueryError("Cannot parse: missing ')'") }
            position += 1
        } else if c == "\"" {
            position += 1
            let start = position
            while let d = current, d != "\"" { position += 1 }
            guard current == "\"" else { throw FullTextQueryError("Cannot parse: unterminated '\"'") }
            let terms = TextTokenizer.terms(String(String.UnicodeScalarView(scalars[start..<position])))
            position += 1
            if !terms.isEmpty { result = terms.count == 1 ? .term(terms[0], .exact, field: field) : .phrase(terms, field: field) }
        } else {
            let start = position
            while let d = current, !d.properties.isWhitespace, !"()\"^~".unicodeScalars.contains(d) { position += 1 }
            var text = String(String.UnicodeScalarView(scalars[start..<position]))
            var mode = FullTextQuery.TermMode.exact
            if current == "~" {
                position += 1
                let digits = position
                while let d = current, ("0"..."9").contains(d) || d == "." { position += 1 }
                let distance = position > digits ? Double(String(String.UnicodeScalarView(scalars[digits..<position]))) ?? 2 : 2
                guard distance >= 0 && distance <= 2 else {
                    throw FullTextQueryError("Cannot parse: a fuzzy distance is 0, 1 or 2")
                }
                mode = .fuzzy(Int(distance), transpositions: true)
            } else if text.hasSuffix("*") {
                text.removeLast()
                mode = .prefix
            }
            let terms = TextTokenizer.terms(text)
            if terms.count == 1 { result = .term(terms[0], mode, field: field) }
            else if terms.count > 1 { result = .phrase(terms, field: field) }
            else if position == start { throw FullTextQueryError("Cannot parse at offset \(position)") }
        }
        if current == "^" {  // boost: accepted, no effect on the matches
            position += 1
            while let d = current, ("0"..."9").contains(d) || d == "." { position += 1 }
        }
        return result
    }
}
