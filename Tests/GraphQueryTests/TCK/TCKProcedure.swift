// TCKProcedure.swift — the procedures TCK scenarios declare ("there exists a procedure
// test.my.proc(in :: INTEGER?) :: (out :: STRING?)" with a table): each call answers the table's
// rows whose input columns equal its arguments, with their output columns.

import GraphStore
@testable import GraphQuery

struct TCKProcedure: Procedure {
    let signature: ProcedureSignature
    /// The table's rows: the argument values, then the output values.
    let rows: [[RuntimeValue]]

    /// The procedure a step's text and table declare, or nil when either does not read.
    init?(declaration: String, table: [[String]]) {
        // `test.my.proc(in :: INTEGER?) :: (out :: STRING?):`
        guard let open = declaration.firstIndex(of: "("), let close = declaration.firstIndex(of: ")"),
              let outputsOpen = declaration[close...].firstIndex(of: "("),
              let outputsClose = declaration.lastIndex(of: ")") else { return nil }
        let name = String(declaration[..<open]).trimmingCharacters(in: .whitespaces)
        func fields(_ text: Substring) -> [ProcedureField] {
            text.split(separator: ",").compactMap { field in
                let parts = field.components(separatedBy: "::").map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { return nil }
                let type = parts[1].replacingOccurrences(of: "?", with: "").split(separator: " ").first.map(String.init) ?? "ANY"
                return ProcedureField(parts[0], ProcedureValueType(rawValue: type) ?? .any)
            }
        }
        let arguments = fields(declaration[declaration.index(after: open)..<close])
        let outputs = fields(declaration[declaration.index(after: outputsOpen)..<outputsClose])
        signature = ProcedureSignature(name: name, arguments: arguments, outputs: outputs)
        // The table's values, evaluated as Cypher literals (the TCK writes them so).
        var values: [[RuntimeValue]] = []
        let engine = QueryEngine(), store = GraphStore.inMemory()
        for row in table.dropFirst() where !row.isEmpty {
            guard let result = try? engine.execute("RETURN " + row.joined(separator: ", "), on: store),
                  let cells = result.rows.first else { return nil }
            values.append(cells.map(TCKProcedure.runtime))
        }
        rows = values
    }

    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows {
        var out = ProcedureRows(width: signature.outputs.count)
        for row in rows where zip(row, arguments).allSatisfy({ RuntimeValue.equals($0, $1) == true || ($0.isNull && $1.isNull) }) {
            out.append(row: Array(row.dropFirst(arguments.count)))
        }
        return out
    }

    static func runtime(_ value: ResultValue) -> RuntimeValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .list(let l): return .list(l.map(runtime))
        case .map(let m): return .map(keys: m.map(\.key), values: m.map { runtime($0.value) })
        default: return .null
        }
    }
}
