// ParameterHeader+Temporal.swift — temporal values in a `CYPHER` header, as FalkorDB takes them:
// a constructor call on literal arguments (`d=date('2024-01-02')`, `t=datetime({epochMillis: 0})`,
// `p=duration('P1D')`), evaluated once when the header is read. The clock forms (`date()`) read
// the clock then.

import GraphStore

extension HeaderValueParser {
    /// The value of `name(literal?)` when `name` is a temporal constructor; nil otherwise or when
    /// the call is malformed or its value invalid.
    mutating func parseTemporalCall(_ name: String) -> Value? {
        let lowered = name.lowercased()
        let kind: TemporalKind?
        switch lowered {
        case "date": kind = .date
        case "localtime": kind = .localTime
        case "time": kind = .time
        case "localdatetime": kind = .localDateTime
        case "datetime": kind = .dateTime
        case "duration": kind = nil
        default: return nil
        }
        guard nextToken()?.isSymbol(.leftParen) == true else { return nil }
        var arguments: [RuntimeValue] = []
        if (try? peekToken())?.isSymbol(.rightParen) == true {
            consume()
        } else {
            guard let argument = parseValue(), nextToken()?.isSymbol(.rightParen) == true else { return nil }
            arguments.append(RuntimeValue(argument))
        }
        let result: RuntimeValue?
        if let kind {
            result = try? TemporalConstruction.make(kind, arguments) { ExecutionContext.realNow() }
        } else {
            guard let argument = arguments.first else { return nil }
            result = try? TemporalConstruction.duration(argument)
        }
        return result?.storable
    }
}
