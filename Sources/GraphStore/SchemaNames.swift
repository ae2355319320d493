// SchemaNames.swift — interning of labels, relationship types and property keys.
// A name table maps names to dense 0-based ids (array for id → name, dictionary for name → id).

/// One table of interned names: ids are dense and assigned in first-use order.
struct NameTable: Sendable, Equatable {
    private(set) var names: [String] = []
    private var ids: [String: UInt32] = [:]

    var count: Int { names.count }

    func id(of name: String) -> UInt32? { ids[name] }

    /// - Precondition: `name` is not yet interned.
    mutating func append(_ name: String) -> UInt32 {
        let id = UInt32(names.count)
        names.append(name)
        ids[name] = id
        return id
    }

    /// Drops the most recently interned name (transaction rollback).
    mutating func removeLast() {
        let name = names.removeLast()
        ids[name] = nil
    }
}

/// Which of the three name tables an interning refers to (undo records, errors).
enum NameKind: UInt8, Sendable {
    case label, relationshipType, propertyKey
}
