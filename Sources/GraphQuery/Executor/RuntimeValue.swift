// RuntimeValue.swift — the value operators pass around while a query runs. Graph entities are
// bare ids (4 bytes) and are looked up in the graph only when a property is read or the row
// is materialised into a ResultValue at the very end.

import GraphStore

/// A value during execution.
enum RuntimeValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case list([RuntimeValue])
    /// Keys in the order written; lookups are linear (maps in queries are small).
    case map(keys: [String], values: [RuntimeValue])
    case node(NodeID)
    case relationship(RelationshipID)

    init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .list(let l): self = .list(l.map(RuntimeValue.init))
        case .map(let m): self = .map(keys: m.keys, values: m.values.map(RuntimeValue.init))
        }
    }

    var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The storable form, or nil for values a property cannot hold (nodes, relationships).
    var storable: Value? {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .list(let l):
            var out: [Value] = []
            for element in l {
                guard let v = element.storable else { return nil }
                out.append(v)
            }
            return .list(out)
        case .map(let keys, let values):
            var map = ValueMap()
            for (k, v) in zip(keys, values) {
                guard let s = v.storable else { return nil }
                map[k] = s
            }
            return .map(map)
        case .node, .relationship: return nil
        }
    }

    /// The openCypher type name, for type-mismatch messages.
    var typeName: String {
        switch self {
        case .null: return "Null"
        case .bool: return "Boolean"
        case .integer: return "Integer"
        case .double: return "Float"
        case .string: return "String"
        case .list: return "List"
        case .map: return "Map"
        case .node: return "Node"
        case .relationship: return "Edge"
        }
    }
}

extension ResultValue {
    /// Copies a runtime value out of the graph: entities get their labels or type and properties.
    init(_ value: RuntimeValue, in graph: Graph) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .list(let l): self = .list(l.map { ResultValue($0, in: graph) })
        case .map(let keys, let values):
            self = .map(zip(keys, values).map { ResultMapEntry(key: $0, value: ResultValue($1, in: graph)) })
        case .node(let id):
            self = .node(ResultNode(
                id: Int64(id.rawValue),
                labels: graph.labels(of: id).map { SchemaName(id: $0.index, name: graph.name(of: $0)) },
                properties: graph.properties(of: id).map { ResultProperty(in: graph, key: $0.key, value: $0.value) }))
        case .relationship(let id):
            let type = graph.type(of: id)
            self = .relationship(ResultRelationship(
                id: Int64(id.rawValue), type: SchemaName(id: type.index, name: graph.name(of: type)),
                startNodeID: Int64(graph.startNode(of: id).rawValue), endNodeID: Int64(graph.endNode(of: id).rawValue),
                properties: graph.properties(of: id).map { ResultProperty(in: graph, key: $0.key, value: $0.value) }))
        }
    }
}

extension ResultProperty {
    init(in graph: Graph, key: PropertyKeyID, value: Value) {
        self.init(key: SchemaName(id: key.index, name: graph.name(of: key)), value: ResultValue(RuntimeValue(value), in: graph))
    }
}
