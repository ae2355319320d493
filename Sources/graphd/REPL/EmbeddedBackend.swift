// EmbeddedBackend.swift — the REPL's in-process backend: opens the data directory (taking
// its lock, so no server may hold it) and runs statements through a QueryEngine, exactly as
// the server's GRAPH.QUERY does.

import GraphQuery
import GraphStore

/// Statements run in this process against a data directory.
final class EmbeddedBackend: QueryBackend {
    let directory: DataDirectory
    let engine: QueryEngine
    let summary: String

    init(directory: DataDirectory, engine: QueryEngine = QueryEngine()) {
        self.directory = directory
        self.engine = engine
        self.summary = "embedded on \(directory.path)"
    }

    func execute(_ query: String, graph: String, parameters: [String: Value],
                 cancellation: QueryCancellation?) throws(REPLError) -> QueryResult {
        let store = try self.store(graph)
        do throws(QueryError) {
            return try engine.execute(query, on: store, parameters: parameters, timeout: nil, cancellation: cancellation)
        } catch {
            throw .query(error)
        }
    }

    func plan(_ query: String, graph: String, parameters: [String: Value], profile: Bool) throws(REPLError) -> [String] {
        // A plan does not depend on the data: explaining never creates the graph.
        let target: GraphStore
        if profile {
            target = try store(graph)
        } else {
            do throws(StoreError) {
                target = try directory.graph(named: graph) ?? GraphStore.inMemory()
            } catch {
                throw .other(error.description)
            }
        }
        do throws(QueryError) {
            return profile ? try engine.profile(query, on: target, parameters: parameters) : try engine.explain(query, on: target)
        } catch {
            throw .query(error)
        }
    }

    func graphNames() throws(REPLError) -> [String] { directory.graphNames() }

    func schema(graph: String) throws(REPLError) -> GraphSchema {
        let found: GraphStore?
        do throws(StoreError) {
            found = try directory.graph(named: graph)
        } catch {
            throw .other(error.description)
        }
        guard let store = found else { throw .other("no graph named '\(graph)'") }
        return store.read { graph in
            var schema = GraphSchema()
            schema.labels = graph.labelNames.indices.map { i in
                (graph.labelNames[i], graph.nodeIDs(withLabel: LabelID(rawValue: UInt32(i))).count)
            }
            let typeCounts = graph.relationshipCountsByType()
            schema.relationshipTypes = graph.relationshipTypeNames.indices.map { (graph.relationshipTypeNames[$0], typeCounts[$0]) }
            schema.propertyKeys = graph.propertyKeyNames
            schema.indexes = graph.indexes.map { index in
                "\(graph.name(of: index.label))(\(graph.name(of: index.key)))" + (index.isUnique ? " UNIQUE" : "")
            }
            schema.nodeCount = graph.nodeCount
            schema.relationshipCount = graph.relationshipCount
            return schema
        }
    }

    /// An in-process query cannot be stopped from outside; the session stops waiting for it.
    /// Nothing to do: Ctrl-C cancels the statement's `QueryCancellation`, which stops the query
    /// at its next watchdog check (a write rolls back).
    func interrupt() {}

    private func store(_ graph: String) throws(REPLError) -> GraphStore {
        do throws(StoreError) {
            return try directory.createGraph(named: graph)
        } catch {
            throw .other(error.description)
        }
    }
}
