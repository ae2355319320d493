// TemporalOperators.swift — `+`, `-`, `*` and `/` where a temporal value is an operand: a
// duration added to or taken from any temporal value, durations added together, and a duration
// scaled by a number. Anything else is a type error naming what was expected.

import GraphStore

extension RuntimeValue {
    /// `a op b` with at least one temporal operand, neither null.
    static func temporalArithmetic(_ op: BinaryOperator, _ a: RuntimeValue, _ b: RuntimeValue) throws(QueryError) -> RuntimeValue {
        switch (op, a, b) {
        case (.add, .temporal(let t), .temporal(.duration(let d))), (.add, .temporal(.duration(let d)), .temporal(let t)):
            return .temporal(try runTemporal { () throws(TemporalError) in try t.adding(d) })
        case (.subtract, .temporal(let t), .temporal(.duration(let d))):
            return .temporal(try runTemporal { () throws(TemporalError) in try t.adding(try d.negated()) })
        case (.multiply, .temporal(.duration(let d)), _), (.multiply, _, .temporal(.duration(let d))):
            let factor = a.isTemporal ? b : a
            switch factor {
            case .integer(let k):
                guard let product = d.times(k) else { throw QueryError(.runtime, "Duration is too large to represent") }
                return .temporal(.duration(product))
            case .double(let f):
                return .temporal(.duration(try runTemporal { () throws(TemporalError) in try d.times(f) }))
            default: throw typeMismatch(expected: "Integer, Float, or Null", factor)
            }
        case (.divide, .temporal(.duration(let d)), _):
            guard let divisor = b.numeric else { throw typeMismatch(expected: "Integer, Float, or Null", b) }
            guard divisor != 0 else { throw QueryError(.runtime, "Division by zero") }
            return .temporal(.duration(try runTemporal { () throws(TemporalError) in try d.divided(by: divisor) }))
        default:
            let culprit = a.isTemporal ? (op == .add || op == .subtract ? b : a) : a
            throw typeMismatch(expected: op == .add || op == .subtract ? "Duration" : "Integer, Float, or Null", culprit)
        }
    }

    var isTemporal: Bool { if case .temporal = self { return true } else { return false } }
}

/// Runs temporal work, turning its error into a runtime query error.
@inline(__always)
func runTemporal<T>(_ body: () throws(TemporalError) -> T) throws(QueryError) -> T {
    do { return try body() } catch { throw QueryError(.runtime, error.message) }
}
