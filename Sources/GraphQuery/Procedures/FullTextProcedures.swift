// FullTextProcedures.swift — FalkorDB's full-text procedures (`db.idx.fulltext.createNodeIndex`,
// `drop`, `queryNodes`, `queryRelationships`, with RediSearch's query syntax) and Neo4j's query
// procedures as aliases (`db.index.fulltext.queryNodes(name, query, {limit, skip})`, Lucene's
// syntax). Rows come best score first (FalkorDB: index order), then by id. docs/cypher.md lists
// the differences from both.

import GraphStore

extension ProcedureRegistry {
    /// Registers the full-text procedures (one line in `standard`).
    public mutating func registerFullTextProcedures() {
        register(FullTextCreateNodeIndex())
        register(FullTextDrop())
        register(FullTextQueryProcedure(entity: .node, dialect: .rediSearch))
        register(FullTextQueryProcedure(entity: .relationship, dialect: .rediSearch))
        register(FullTextQueryProcedure(entity: .node, dialect: .lucene))
        register(FullTextQueryProcedure(entity: .relationship, dialect: .lucene))
    }
}

/// The text that tells a user how to make the index a call needs.
func fullTextCreateHint(_ entity: FullTextEntity, _ label: String, key: String = "name") -> String {
    entity == .node ? "CREATE FULLTEXT INDEX FOR (n:\(label)) ON (n.\(key))"
                    : "CREATE FULLTEXT INDEX FOR ()-[e:\(label)]->() ON (e.\(key))"
}

/// `CALL db.idx.fulltext.createNodeIndex(label, field, …)`: `label` a string or
/// `{label, language, stopwords}`, each field a string or `{field, weight, nostem, phonetic}`;
/// adds fields to an existing index on the label.
struct FullTextCreateNodeIndex: Procedure {
    static let maxFields = 32
    var signature: ProcedureSignature {
        .init(name: "db.idx.fulltext.createNodeIndex",
              arguments: [.init("label", .any), .init("field", .any)]
                  + (2...Self.maxFields).map { .init("field\($0)", .any, isOptional: true) },
              outputs: [], isReadOnly: false)
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = signature.name
        var label = ""
        var language = ""
        var stopwords: [String] = []
        switch arguments[0] {
        case .string(let s): label = s
        case .map(let keys, let values):
            for (k, v) in zip(keys, values) {
                switch (k, v) {
                case ("label", .string(let s)): label = s
                case ("language", .string(let s)): language = s
                case ("stopwords", .list(let items)):
                    for item in items {
                        guard case .string(let s) = item else { throw QueryError(.type, "`\(name)`: stopwords must be strings") }
                        stopwords.append(s)
                    }
                default: throw QueryError(.runtime, "`\(name)`: invalid index configuration: '\(k)'")
                }
            }
        default: throw QueryError(.type, "`\(name)`: the label must be a string or a map, but was \(arguments[0].typeName)")
        }
        guard !label.isEmpty else { throw QueryError(.runtime, "`\(name)`: the label is missing") }
        var fields: [String] = []
        for argument in arguments.dropFirst() {
            switch argument {
            case .null: continue
            case .string(let s): fields.append(s)
            case .map(let keys, let values):
                var field: String?
                for (k, v) in zip(keys, values) {
                    switch k {
                    case "field":
                        guard case .string(let s) = v else { throw QueryError(.type, "`\(name)`: 'field' must be a string") }
                        field = s
                    case "weight", "nostem", "phonetic": continue  // accepted; graphd neither weighs, stems nor codes sounds
                    default: throw QueryError(.runtime, "`\(name)`: invalid field configuration: '\(k)'")
                    }
                }
                guard let field else { throw QueryError(.runtime, "`\(name)`: a field map needs 'field'") }
                fields.append(field)
            default: throw QueryError(.type, "`\(name)`: a field must be a string or a map, but was \(argument.typeName)")
            }
        }
        guard !fields.isEmpty else { throw QueryError(.runtime, "`\(name)` expects a label and at least one field") }
        let labelID = graph.internLabel(label)
        let keys = fields.map { graph.internPropertyKey($0) }
        do {
            try graph.createFullTextIndex(FullTextIndexDescriptor(entity: .node, schemaID: labelID.rawValue, keys: keys,
                                                                  language: language, stopwords: stopwords))
        } catch {
            throw QueryError(.runtime, error.message)
        }
        context.statistics.indicesCreated += 1
        return ProcedureRows(width: 0)
    }
}

/// `CALL db.idx.fulltext.drop(label)`: drops the label's whole full-text index.
struct FullTextDrop: Procedure {
    var signature: ProcedureSignature {
        .init(name: "db.idx.fulltext.drop", arguments: [.init("label", .string)], outputs: [], isReadOnly: false)
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        guard case .string(let label) = arguments[0] else { throw QueryError(.type, "`db.idx.fulltext.drop`: the label must be a string") }
        guard let id = graph.labelID(named: label), graph.fullTextIndex(.node, id.rawValue) != nil else {
            throw QueryError(.runtime, "`db.idx.fulltext.drop`: there is no full-text index on :\(label)")
        }
        do { try graph.dropFullTextIndex(.node, id.rawValue, keys: nil) } catch { throw QueryError(.runtime, error.message) }
        context.statistics.indicesDeleted += 1
        return ProcedureRows(width: 0)
    }
}

/// `db.idx.fulltext.queryNodes(label, query)` / `queryRelationships(type, query)` (RediSearch
/// syntax) and `db.index.fulltext.queryNodes(name, query[, {limit, skip}])` /
/// `queryRelationships` (Lucene syntax; the name of an index, or a label).
struct FullTextQueryProcedure: Procedure {
    enum Dialect { case rediSearch, lucene }
    let entity: FullTextEntity
    let dialect: Dialect

    var signature: ProcedureSignature {
        let prefix = dialect == .rediSearch ? "db.idx.fulltext." : "db.index.fulltext."
        let name = prefix + (entity == .node ? "queryNodes" : "queryRelationships")
        var arguments: [ProcedureField] = [.init(dialect == .rediSearch ? (entity == .node ? "label" : "relationshipType") : "indexName", .string),
                                           .init("query", .string)]
        if dialect == .lucene { arguments.append(.init("options", .map, isOptional: true)) }
        return .init(name: name, arguments: arguments,
                     outputs: [.init(entity == .node ? "node" : "relationship", entity == .node ? .node : .relationship),
                               .init("score", .float)])
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        let name = signature.name
        guard case .string(let target) = arguments[0] else {
            throw QueryError(.type, "`\(name)`: the first argument must be a string, but was \(arguments[0].typeName)")
        }
        guard case .string(let text) = arguments[1] else {
            throw QueryError(.type, "`\(name)`: the query must be a string, but was \(arguments[1].typeName)")
        }
        var limit = Int.max, skip = 0
        if dialect == .lucene, case .map(let keys, let values) = arguments[2] {
            for (k, v) in zip(keys, values) {
                guard case .integer(let n) = v, n >= 0 else { throw QueryError(.type, "`\(name)`: '\(k)' must be a non-negative integer") }
                switch k {
                case "limit": limit = Int(n)
                case "skip": skip = Int(n)
                case "analyzer": continue
                default: throw QueryError(.runtime, "`\(name)`: unknown option '\(k)'; allowed: analyzer, limit, skip")
                }
            }
        }
        let index: FullTextIndex?
        if dialect == .lucene, let named = graph.fullTextIndex(named: target), named.descriptor.entity == entity {
            index = named
        } else if entity == .node {
            index = graph.labelID(named: target).flatMap { graph.fullTextIndex(.node, $0.rawValue) }
        } else {
            index = graph.relationshipTypeID(named: target).flatMap { graph.fullTextIndex(.relationship, $0.rawValue) }
        }
        guard let index else {
            let what = dialect == .lucene ? "no full-text index named '\(target)'" : "no full-text index on \(entity == .node ? ":" : "[:")\(target)\(entity == .node ? "" : "]")"
            throw QueryError(.runtime, "`\(name)`: there is \(what); create one with \(fullTextCreateHint(entity, target))")
        }
        let query: FullTextQuery
        do throws(FullTextQueryError) {
            query = dialect == .rediSearch ? try .parseRediSearch(text) : try .parseLucene(text)
        } catch {
            throw QueryError(.runtime, "`\(name)`: \(error.message)")
        }
        let hits = graph.search(index, query)
        let chosen = hits.dropFirst(min(skip, hits.count)).prefix(limit)
        var rows = ProcedureRows(width: 2, capacity: chosen.count)
        if entity == .node {
            for hit in chosen { rows.append(.node(NodeID(rawValue: hit.id)), .double(hit.score)) }
        } else {
            let relationships = graph.relationships(withRawIDs: chosen.map(\.id))
            for (relationship, hit) in zip(relationships, chosen) { rows.append(.relationship(relationship), .double(hit.score)) }
        }
        return rows
    }
}
