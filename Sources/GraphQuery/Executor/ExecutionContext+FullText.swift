// ExecutionContext+FullText.swift — runs full-text index statements (Parser+FullText.swift):
// create with FalkorDB's OPTIONS (weight, phonetic, nostem, language, stopwords) or Neo4j's
// (indexConfig), drop one property, or drop a named index whole.

import GraphStore

extension ExecutionContext {
    func runFullTextSchema(_ command: FullTextSchemaCommand, _ action: SchemaCommand.Action) throws(QueryError) {
        let subject = command.entity == .node ? "(:\(command.label))" : "()-[:\(command.label)]-()"
        switch action {
        case .create:
            var language = "", stopwords: [String] = []
            for (key, value) in command.options.sorted(by: { $0.key < $1.key }) {
                switch (key, value) {
                case ("language", .string(let s)): language = s
                case ("stopwords", .list(let items)):
                    for item in items {
                        guard case .string(let s) = item else { throw QueryError(.semantic, "Full-text index stopwords must be strings") }
                        stopwords.append(s)
                    }
                case ("weight", _), ("phonetic", _), ("nostem", _), ("indexConfig", _): continue  // accepted, no effect
                default: throw QueryError(.semantic, "Invalid full-text index configuration: '\(key)'")
                }
            }
            if command.ifNotExists, let name = command.name, graph.fullTextIndex(named: name) != nil { return }
            let schemaID = command.entity == .node ? graph.internLabel(command.label).rawValue
                                                   : graph.internRelationshipType(command.label).rawValue
            let keys = command.keys.map { graph.internPropertyKey($0) }
            if command.ifNotExists, let existing = graph.fullTextIndex(command.entity, schemaID),
               keys.allSatisfy(existing.descriptor.keys.contains) { return }
            do {
                try graph.createFullTextIndex(FullTextIndexDescriptor(entity: command.entity, schemaID: schemaID, keys: keys,
                                                                      name: command.name ?? "", language: language, stopwords: stopwords))
            } catch {
                throw QueryError(.semantic, "Cannot create the full-text index on \(subject): \(error.message)")
            }
            statistics.indicesCreated += 1
        case .drop:
            if command.keys.isEmpty, let name = command.name {
                guard let index = graph.fullTextIndex(named: name) else {
                    throw QueryError(.semantic, "Unable to drop index '\(name)': no such index")
                }
                do { try graph.dropFullTextIndex(index.descriptor.entity, index.descriptor.schemaID, keys: nil) }
                catch { throw QueryError(.semantic, error.message) }
                statistics.indicesDeleted += 1
                return
            }
            let schemaID = command.entity == .node ? graph.labelID(named: command.label)?.rawValue
                                                   : graph.relationshipTypeID(named: command.label)?.rawValue
            let keys = command.keys.compactMap { graph.propertyKeyID(named: $0) }
            guard let schemaID, keys.count == command.keys.count, let index = graph.fullTextIndex(command.entity, schemaID),
                  keys.allSatisfy(index.descriptor.keys.contains) else {
                throw QueryError(.semantic, "Unable to drop full-text index on \(subject)(\(command.keys.joined(separator: ", "))): no such index")
            }
            do { try graph.dropFullTextIndex(command.entity, schemaID, keys: keys) } catch { throw QueryError(.semantic, error.message) }
            statistics.indicesDeleted += 1
        }
    }
}
