// Scope.swift — the variables visible at one point of a query, each with its row slot and
// what it holds. MATCH, CREATE and UNWIND add to a scope; WITH and RETURN replace it.

/// What a variable holds, so that `(a)-[a]->()` or reusing a relationship as a node is caught.
enum VariableKind: Sendable, Hashable {
    case node, relationship, path, value
    /// A value the text fixes as no graph entity (`WITH true AS r`): never a node or relationship.
    case scalar(StaticType)
}

/// Variables in scope: name → slot, in declaration order (the order `RETURN *` uses).
struct Scope: Sendable {
    private(set) var slots: [String: (slot: Int, kind: VariableKind)] = [:]
    private(set) var names: [String] = []
    /// Slots allocated so far, named or hidden; the row width.
    private(set) var width = 0

    subscript(name: String) -> (slot: Int, kind: VariableKind)? { slots[name] }

    /// Declares a named variable in a fresh slot.
    mutating func declare(_ name: String, kind: VariableKind) -> Int {
        let slot = allocateHidden()
        slots[name] = (slot, kind)
        names.append(name)
        return slot
    }

    /// Names an existing slot (ORDER BY's view of the input row behind the output columns).
    mutating func alias(_ name: String, to slot: Int, kind: VariableKind) {
        slots[name] = (slot, kind)
        names.append(name)
        width = max(width, slot + 1)
    }

    /// A slot no name refers to, for anonymous pattern elements.
    mutating func allocateHidden() -> Int {
        width += 1
        return width - 1
    }
}
