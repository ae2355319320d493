// ImportHeader.swift — the header line of an import CSV in neo4j-admin's notation:
// `name:ID(Group)`, `:START_ID(Group)`, `:END_ID(Group)`, `:LABEL`, `:TYPE`, `:IGNORE` and
// `name:type` / `name:type[]` properties (types: int, float, boolean, string and the temporal
// date, localtime, time, localdatetime, datetime, duration), turned into typed column roles.

import GraphStore

/// The type of a property column.
public enum ImportValueType: Sendable, Equatable {
    case integer, double, boolean, string
    /// ISO 8601 text read as that temporal type (zoned text without a zone is UTC).
    case temporal(TemporalType)

    /// neo4j-admin's type names.
    static func named(_ name: String) -> ImportValueType? {
        switch name.lowercased() {
        case "int", "long", "short", "byte", "integer": return .integer
        case "float", "double": return .double
        case "boolean", "bool": return .boolean
        case "string", "char": return .string
        default: return TemporalType(rawValue: name.lowercased()).map(ImportValueType.temporal)
        }
    }
}

/// What one column of an import file holds.
public enum ImportColumn: Sendable, Equatable {
    /// The node's id within `group` ("" is the global id space); kept as property `property` when named.
    case id(property: String?, group: String)
    case startID(group: String)
    case endID(group: String)
    /// Extra labels, separated by ';'.
    case labels
    /// The relationship's type, overriding the file's.
    case type
    case ignore
    case property(name: String, type: ImportValueType, isList: Bool)
}

/// The parsed header of one file.
public struct ImportHeader: Sendable, Equatable {
    public var columns: [ImportColumn]

    /// Parses header fields. `nodes`: whether the file holds nodes (else relationships).
    /// Without an `:ID` column a node file's column named `id` is the id; without
    /// `:START_ID`/`:END_ID` a relationship file's first two columns are its ends.
    public init(fields: [String], nodes: Bool, file: String, line: Int) throws(ImportError) {
        func fail(_ reason: String) -> ImportError { ImportError(file: file, line: line, reason: reason) }
        var columns: [ImportColumn] = []
        for (index, raw) in fields.enumerated() {
            let field = raw.trimmingSpaces()
            var name = field
            var kind = ""
            if let colon = field.lastIndex(of: ":") {
                name = String(field[..<colon])
                kind = String(field[field.index(after: colon)...])
            }
            // `ID(Group)`: split off the group.
            var group = ""
            if let open = kind.firstIndex(of: "("), kind.hasSuffix(")") {
                group = String(kind[kind.index(after: open)..<kind.index(before: kind.endIndex)])
                kind = String(kind[..<open])
            }
            switch kind.uppercased() {
            case "ID":
                guard nodes else { throw fail("column \(index + 1) '\(field)': an :ID column belongs in a node file") }
                columns.append(.id(property: name.isEmpty ? nil : name, group: group))
            case "START_ID":
                guard !nodes else { throw fail("column \(index + 1) '\(field)': :START_ID belongs in a relationship file") }
                columns.append(.startID(group: group))
            case "END_ID":
                guard !nodes else { throw fail("column \(index + 1) '\(field)': :END_ID belongs in a relationship file") }
                columns.append(.endID(group: group))
            case "LABEL":
                guard nodes else { throw fail("column \(index + 1) '\(field)': :LABEL belongs in a node file") }
                columns.append(.labels)
            case "TYPE":
                guard !nodes else { throw fail("column \(index + 1) '\(field)': :TYPE belongs in a relationship file") }
                columns.append(.type)
            case "IGNORE":
                columns.append(.ignore)
            case "":
                guard !name.isEmpty else { throw fail("column \(index + 1) has no name") }
                columns.append(.property(name: name, type: .string, isList: false))
            default:
                let isList = kind.hasSuffix("[]")
                let typeName = isList ? String(kind.dropLast(2)) : kind
                guard let type = ImportValueType.named(typeName) else {
                    throw fail("column \(index + 1) '\(field)': unknown type '\(typeName)' (expected int, long, float, double, boolean, string, date, localtime, time, localdatetime, datetime or duration)")
                }
                guard !name.isEmpty else { throw fail("column \(index + 1) '\(field)': a property column needs a name") }
                columns.append(.property(name: name, type: type, isList: isList))
            }
        }
        if nodes {
            let ids = columns.filter { if case .id = $0 { return true } else { return false } }.count
            if ids > 1 { throw fail("more than one :ID column") }
            if ids == 0, let idIndex = columns.firstIndex(of: .property(name: "id", type: .string, isList: false)) {
                columns[idIndex] = .id(property: "id", group: "")
            }
        } else {
            let starts = columns.filter { if case .startID = $0 { return true } else { return false } }.count
            let ends = columns.filter { if case .endID = $0 { return true } else { return false } }.count
            if starts > 1 || ends > 1 { throw fail("more than one :START_ID or :END_ID column") }
            if starts == 0 && ends == 0 {
                guard columns.count >= 2 else {
                    throw fail("a relationship file needs :START_ID and :END_ID columns (or at least two columns)")
                }
                columns[0] = .startID(group: "")
                columns[1] = .endID(group: "")
            } else if starts == 0 || ends == 0 {
                throw fail("a relationship file needs both :START_ID and :END_ID")
            }
        }
        self.columns = columns
    }
}

extension String {
    func trimmingSpaces() -> String {
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
