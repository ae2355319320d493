// BuiltInProcedures.swift — the procedures every engine has: db.labels, db.relationshipTypes,
// db.propertyKeys and db.indexes, and `ProcedureRegistry.standard`, the one place where the
// procedures of other areas (social) are registered, one line each.

import GraphStore

extension ProcedureRegistry {
    /// The built-in procedures, plus those of the social area.
    public static var standard: ProcedureRegistry {
        var registry = ProcedureRegistry()
        registry.register(DatabaseLabels())
        registry.register(DatabaseRelationshipTypes())
        registry.register(DatabasePropertyKeys())
        registry.register(DatabaseIndexes())
        // Other areas register their procedures and functions below, one line each
        // (e.g. `registry.register(SocialFriendsProcedure())`, `registry.register(function: SocialCanView())`).
        registry.registerSocialProcedures()  // social.* (docs/social.md), Procedures/Social*.swift
        registry.registerFullTextProcedures()  // db.idx.fulltext.*, db.index.fulltext.* (FullTextProcedures.swift)
        return registry
    }
}

/// `CALL db.labels() YIELD label`: every label the graph has interned, in id order.
struct DatabaseLabels: Procedure {
    var signature: ProcedureSignature { .init(name: "db.labels", outputs: [.init("label", .string)], answersQuickly: true) }
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        ProcedureRows(graph.labelNames.map { [.string($0)] })
    }
}

/// `CALL db.relationshipTypes() YIELD relationshipType`.
struct DatabaseRelationshipTypes: Procedure {
    var signature: ProcedureSignature {
        .init(name: "db.relationshipTypes", outputs: [.init("relationshipType", .string)], answersQuickly: true)
    }
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        ProcedureRows(graph.relationshipTypeNames.map { [.string($0)] })
    }
}

/// `CALL db.propertyKeys() YIELD propertyKey`.
struct DatabasePropertyKeys: Procedure {
    var signature: ProcedureSignature { .init(name: "db.propertyKeys", outputs: [.init("propertyKey", .string)], answersQuickly: true) }
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        ProcedureRows(graph.propertyKeyNames.map { [.string($0)] })
    }
}

/// `CALL db.indexes()`: one row per (label, key) index, in creation order; a unique index is
/// the backing of a unique constraint and says so in `type`. Then one row per full-text index
/// (type FULLTEXT, its properties, language and stop words, as FalkorDB lists them).
struct DatabaseIndexes: Procedure {
    var signature: ProcedureSignature {
        .init(name: "db.indexes", outputs: [.init("label", .string), .init("properties", .list),
                                           .init("type", .string), .init("entitytype", .string),
                                           .init("language", .string), .init("stopwords", .list),
                                           .init("status", .string)], answersQuickly: true)
    }
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        var rows = graph.indexes.map { index -> [RuntimeValue] in
            [.string(graph.name(of: index.label)), .list([.string(graph.name(of: index.key))]),
             .string(index.isUnique ? "UNIQUE" : "RANGE"), .string("NODE"), .null, .list([]), .string("OPERATIONAL")]
        }
        for index in graph.fullTextIndexDescriptors {
            let isNode = index.entity == .node
            rows.append([.string(isNode ? graph.name(of: LabelID(rawValue: index.schemaID)) : graph.name(of: RelationshipTypeID(rawValue: index.schemaID))),
                         .list(index.keys.map { .string(graph.name(of: $0)) }), .string("FULLTEXT"),
                         .string(isNode ? "NODE" : "RELATIONSHIP"), index.language.isEmpty ? .null : .string(index.language),
                         .list(index.stopwords.map { .string($0) }), .string("OPERATIONAL")])
        }
        return ProcedureRows(rows)
    }
}
