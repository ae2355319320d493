// RuntimeValue.swift — the value operators pass around while a query runs. A node is its bare id
// (4 bytes), a relationship its id with the type and ends the walk that found it saw (16 bytes:
// the graph keeps no table of relationships by id); properties are looked up in the graph only
// when read or when the row is materialised into a ResultValue at the very end.

import GraphStore

/// A value during execution, as procedures and registered functions receive and return it.
/// Equality and hashing are openCypher's equivalence (RuntimeValue+Equivalence.swift):
/// `1` and `1.0` group together, NaN is equivalent to NaN.
public enum RuntimeValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case list([RuntimeValue])
    /// Keys in the order written; lookups are linear (maps in queries are small).
    case map(keys: [String], values: [RuntimeValue])
    case node(NodeID)
    case relationship(Relationship)
    /// A path: `nodes.count == relationships.count + 1`.
    case path(nodes: [NodeID], relationships: [Relationship])
    /// A date, time, date-time or duration (Executor/Temporal/); boxed, so every other value
    /// stays as small as it was.
    indirect case temporal(TemporalValue)

    /// A stored property value as a runtime value.
    public init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .list(let l): self = .list(l.map(RuntimeValue.init))
        case .map(let m): self = .map(keys: m.keys, values: m.values.map(RuntimeValue.init))
        case .temporal(let t): self = .temporal(t)
        }
    }

    /// A query text's literal as a runtime value.
    init(_ literal: Literal) {
        switch literal {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        }
    }

    /// True for null.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The storable form, or nil for values a property cannot hold (nodes, relationships, paths).
    public var storable: Value? {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .temporal(let t): return .temporal(t)
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
        case .node, .relationship, .path: return nil
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
        case .path: return "Path"
        case .temporal(let t): return t.typeName
        }
    }
}

extension ResultValue {
    /// A scalar value's result (null, boolean, number, string); nil for anything that may hold
    /// a node or relationship (those need the graph: `init(_:in:)`).
    @inline(__always)
    init?(scalar value: RuntimeValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .temporal(let t): self = .temporal(t)
        default: return nil
        }
    }

    /// Copies a runtime value out of the graph: entities get their labels or type and properties.
    init(_ value: RuntimeValue, in graph: borrowing Graph) {
        switch value {
        case .null, .bool, .integer, .double, .string, .temporal: self = ResultValue(scalar: value)!
        case .list(let l): self = .list(l.map { ResultValue($0, in: graph) })
        case .map(let keys, let values):
            self = .map(zip(keys, values).map { ResultMapEntry(key: $0, value: ResultValue($1, in: graph)) })
        case .node(let id) where !graph.contains(id):
            // Deleted earlier in the query: only its id is left.
            self = .node(ResultNode(id: Int64(id.rawValue), labels: [], properties: []))
        case .node(let id):
            self = .node(ResultNode(
                id: Int64(id.rawValue),
                labels: graph.labels(of: id).map { SchemaName(id: $0.index, name: graph.name(of: $0)) },
                properties: graph.properties(of: id).map { ResultProperty(in: graph, key: $0.key, value: $0.value) }))
        case .path(let nodes, let relationships):
            let nodeValues = nodes.map { ResultValue(.node($0), in: graph) }
            let relationshipValues = relationships.map { ResultValue(.relationship($0), in: graph) }
            self = .path(ResultPath(
                nodes: nodeValues.compactMap { if case .node(let n) = $0 { n } else { nil } },
                relationships: relationshipValues.compactMap { if case .relationship(let r) = $0 { r } else { nil } }))
        case .relationship(let r):
            // Deleted earlier in the query: its type and ends are still known, its properties gone.
            let properties = graph.contains(r) ? graph.properties(of: r.id) : []
            self = .relationship(ResultRelationship(
                id: Int64(r.id.rawValue), type: SchemaName(id: r.type.index, name: graph.name(of: r.type)),
                startNodeID: Int64(r.start.rawValue), endNodeID: Int64(r.end.rawValue),
                properties: properties.map { ResultProperty(in: graph, key: $0.key, value: $0.value) }))
        }
    }
}

extension ResultProperty {
    init(in graph: borrowing Graph, key: PropertyKeyID, value: Value) {
        self.init(key: SchemaName(id: key.index, name: graph.name(of: key)), value: ResultValue(RuntimeValue(value), in: graph))
    }
}
