// Binder.swift — the semantic pass: resolves every variable to a row slot, rejects undefined
// variables, unknown functions, misplaced aggregates and invalid CREATE patterns, all before
// anything runs. Third phase of the pipeline (AST → BoundQuery).

/// Checks a parsed query and resolves its names.
struct Binder {
    var scope = Scope()

    static func bind(_ query: Query) throws(QueryError) -> BoundQuery {
        var binder = Binder()
        return try binder.bindQuery(query)
    }

    static func semantic(_ message: String) -> QueryError { QueryError(.semantic, message) }

    mutating func bindQuery(_ query: Query) throws(QueryError) -> BoundQuery {
        var clauses: [(clause: BoundClause, width: Int)] = []
        var columns: [String]?
        for (index, clause) in query.clauses.enumerated() {
            let bound: BoundClause
            switch clause {
            case .match(let match): bound = .match(try bindMatch(match))
            case .create(let create): bound = .create(try bindCreate(create))
            case .unwind(let unwind):
                let list = try resolve(unwind.list, allowAggregates: false)
                if scope[unwind.variable] != nil {
                    throw Binder.semantic("Variable `\(unwind.variable)` already declared")
                }
                bound = .unwind(list: list, slot: scope.declare(unwind.variable, kind: .value))
            case .with(let projection): bound = .projection(try bindProjection(projection, isReturn: false))
            case .return(let projection):
                let p = try bindProjection(projection, isReturn: true)
                columns = p.items.map(\.name)
                bound = .projection(p)
            }
            clauses.append((bound, scope.width))
            if index == query.clauses.count - 1 {
                switch clause {
                case .return, .create: break
                case .match(let m):
                    throw Binder.semantic("Query cannot conclude with \(m.isOptional ? "OPTIONAL MATCH" : "MATCH") (must be a RETURN clause, an update clause, a procedure call or a non-returning subquery)")
                case .unwind:
                    throw Binder.semantic("Query cannot conclude with UNWIND (must be a RETURN clause, an update clause, a procedure call or a non-returning subquery)")
                case .with:
                    throw Binder.semantic("Query cannot conclude with WITH (must be a RETURN clause, an update clause, a procedure call or a non-returning subquery)")
                }
            }
        }
        return BoundQuery(clauses: clauses, columns: columns, isUpdating: query.clauses.contains { $0.isUpdating },
                          parameterNames: query.parameterNames)
    }

    // MARK: patterns

    /// Resolves a pattern element's variable: an existing one of the right kind, or a new slot.
    mutating func slot(for variable: String?, kind: VariableKind) throws(QueryError) -> (slot: Int, existed: Bool) {
        guard let variable else { return (scope.allocateHidden(), false) }
        if let existing = scope[variable] {
            // A plain value (from UNWIND or WITH) may hold an entity: checked when the plan runs.
            guard existing.kind == kind || existing.kind == .value else {
                throw Binder.semantic("The alias '\(variable)' was specified for both a node and a relationship")
            }
            return (existing.slot, true)
        }
        return (scope.declare(variable, kind: kind), false)
    }

    mutating func bindMatch(_ match: MatchClause) throws(QueryError) -> BoundMatch {
        let boundBefore = Set(0..<scope.width)
        var patterns: [BoundPattern] = []
        var relationshipSlots: Set<Int> = []
        // Declare every variable of the clause first: a property map may refer to any of them.
        var shapes: [(nodes: [Int], relationships: [Int])] = []
        for part in match.patterns {
            var nodes: [Int] = [], relationships: [Int] = []
            for node in part.nodes { nodes.append(try slot(for: node.variable, kind: .node).slot) }
            for relationship in part.relationships {
                let (s, _) = try slot(for: relationship.variable, kind: .relationship)
                if !boundBefore.contains(s), !relationshipSlots.insert(s).inserted {
                    throw Binder.semantic("Cannot use the same relationship variable '\(relationship.variable ?? "")' for multiple patterns")
                }
                relationships.append(s)
            }
            if let path = part.pathVariable {
                throw QueryError(.semantic, "Named paths are not supported yet ('\(path)')")
            }
            shapes.append((nodes, relationships))
        }
        for (part, shape) in zip(match.patterns, shapes) {
            var bound = BoundPattern(nodes: [], relationships: [])
            for (node, s) in zip(part.nodes, shape.nodes) {
                bound.nodes.append(BoundNodePattern(slot: s, labels: node.labels, properties: try resolve(node.properties)))
            }
            for (relationship, s) in zip(part.relationships, shape.relationships) {
                bound.relationships.append(BoundRelationshipPattern(
                    slot: s, types: relationship.types, properties: try resolve(relationship.properties),
                    direction: relationship.direction))
            }
            patterns.append(bound)
        }
        let predicate = try match.predicate.map { e throws(QueryError) in try resolve(e, allowAggregates: false) }
        return BoundMatch(patterns: patterns, predicate: predicate, isOptional: match.isOptional,
                          boundBefore: boundBefore, introduced: Array(boundBefore.count..<scope.width))
    }

    mutating func bindCreate(_ create: CreateClause) throws(QueryError) -> BoundCreate {
        let boundBefore = Set(0..<scope.width)
        var patterns: [BoundPattern] = []
        for part in create.patterns {
            if let path = part.pathVariable {
                throw QueryError(.semantic, "Named paths are not supported yet ('\(path)')")
            }
            var bound = BoundPattern(nodes: [], relationships: [])
            for node in part.nodes {
                let (s, existed) = try slot(for: node.variable, kind: .node)
                if existed, !node.labels.isEmpty || !node.properties.isEmpty {
                    throw Binder.semantic("The bound variable '\(node.variable ?? "")' can't be redeclared in a CREATE clause")
                }
                // Only the first mention of a new variable creates the node; later ones reuse it.
                let labels = existed ? [] : node.labels
                bound.nodes.append(BoundNodePattern(slot: s, labels: labels, properties: try resolve(node.properties)))
            }
            for relationship in part.relationships {
                let (s, existed) = try slot(for: relationship.variable, kind: .relationship)
                if existed {
                    throw Binder.semantic("The bound variable '\(relationship.variable ?? "")' can't be redeclared in a CREATE clause")
                }
                guard relationship.types.count == 1 else {
                    throw Binder.semantic("Exactly one relationship type must be specified for each relation of a CREATE pattern.")
                }
                guard relationship.direction != .either else {
                    throw Binder.semantic("Only directed relationships are supported in CREATE")
                }
                bound.relationships.append(BoundRelationshipPattern(
                    slot: s, types: relationship.types, properties: try resolve(relationship.properties),
                    direction: relationship.direction))
            }
            patterns.append(bound)
        }
        return BoundCreate(patterns: patterns, boundBefore: boundBefore)
    }

    func resolve(_ properties: [(key: String, value: Expression)]) throws(QueryError) -> [(key: String, value: Expression)] {
        var out: [(key: String, value: Expression)] = []
        for (key, value) in properties { out.append((key, try resolve(value, allowAggregates: false))) }
        return out
    }

    // MARK: projections

    mutating func bindProjection(_ projection: Projection, isReturn: Bool) throws(QueryError) -> BoundProjection {
        var items: [(name: String, expression: Expression)] = []
        var kinds: [VariableKind] = []
        var sourceTexts: [String] = []
        if projection.includesAll {
            let visible = scope.names
            if visible.isEmpty && projection.items.isEmpty {
                throw Binder.semantic("\(isReturn ? "RETURN" : "WITH") * is not allowed when there are no variables in scope")
            }
            for name in visible {
                // `names` and `slots` are kept in step by Scope.declare.
                let entry = scope[name]!
                items.append((name, .slot(entry.slot)))
                kinds.append(entry.kind)
                sourceTexts.append(name)
            }
        }
        var aggregates: [BoundAggregate] = []
        for item in projection.items {
            if !isReturn, item.alias == nil, !item.expression.isVariable {
                throw Binder.semantic("WITH clause projections must be aliased")
            }
            let expression = try resolve(item.expression, aggregates: &aggregates)
            items.append((item.name, expression))
            sourceTexts.append(item.sourceText)
            if case .slot(let s) = expression, let entry = scope.slots.values.first(where: { $0.slot == s }) {
                kinds.append(entry.kind)
            } else {
                kinds.append(.value)
            }
        }
        if !aggregates.isEmpty {
            let keys = items.map(\.expression).filter { !$0.containsAggregate }
            for (item, text) in zip(items, sourceTexts) where item.expression.containsAggregate {
                guard item.expression.isDetermined(by: keys) else {
                    throw Binder.semantic("Ambiguous aggregation expression '\(text)': outside an aggregate it may only use the grouping keys")
                }
            }
        }
        var seen: Set<String> = []
        for item in items where !seen.insert(item.name).inserted {
            throw Binder.semantic("Error: Multiple result columns with the same name are not supported.")
        }

        var output = Scope()
        for (item, kind) in zip(items, kinds) { _ = output.declare(item.name, kind: kind) }
        let sortSeesInput = aggregates.isEmpty && !projection.isDistinct
        var orderBy: [(expression: Expression, ascending: Bool)] = []
        for sort in projection.orderBy {
            if let i = sourceTexts.firstIndex(of: sort.sourceText) ?? items.firstIndex(where: { $0.name == sort.sourceText }) {
                orderBy.append((.slot(i), sort.ascending))
                continue
            }
            var sortScope = output
            if sortSeesInput {
                // The input's variables sit after the output columns; output names shadow them.
                for name in scope.names where output[name] == nil {
                    // `names` and `slots` are kept in step by Scope.declare.
                    let entry = scope[name]!
                    sortScope.alias(name, to: items.count + entry.slot, kind: entry.kind)
                }
            }
            let binder = Binder(scope: sortScope)
            orderBy.append((try binder.resolve(sort.expression, allowAggregates: false), sort.ascending))
        }
        let constant = Binder(scope: Scope())
        let skip = try projection.skip.map { e throws(QueryError) in try constant.resolve(e, allowAggregates: false) }
        let limit = try projection.limit.map { e throws(QueryError) in try constant.resolve(e, allowAggregates: false) }
        let outputBinder = Binder(scope: output)
        let predicate = try projection.predicate.map { e throws(QueryError) in try outputBinder.resolve(e, allowAggregates: false) }
        scope = output
        return BoundProjection(items: items, aggregates: aggregates, isDistinct: projection.isDistinct, orderBy: orderBy,
                               sortSeesInput: sortSeesInput, skip: skip, limit: limit, predicate: predicate)
    }

    // MARK: expressions

    /// Resolves an expression where aggregates are not allowed.
    func resolve(_ expression: Expression, allowAggregates: Bool) throws(QueryError) -> Expression {
        var none: [BoundAggregate] = []
        return try resolve(expression, aggregates: &none, allowAggregates: allowAggregates)
    }

    /// Resolves variables to slots and, where allowed, moves aggregate calls into `aggregates`.
    func resolve(_ expression: Expression, aggregates: inout [BoundAggregate],
                 allowAggregates: Bool = true) throws(QueryError) -> Expression {
        func recurse(_ e: Expression) throws(QueryError) -> Expression {
            try resolve(e, aggregates: &aggregates, allowAggregates: allowAggregates)
        }
        switch expression {
        case .literal, .parameter, .aggregateResult, .slot: return expression
        case .variable(let name, _):
            guard let entry = scope[name] else { throw Binder.semantic("'\(name)' not defined") }
            return .slot(entry.slot)
        case .property(let base, let key): return .property(try recurse(base), key)
        case .list(let elements):
            var out: [Expression] = []
            for e in elements { out.append(try recurse(e)) }
            return .list(out)
        case .map(let entries):
            var out: [(key: String, value: Expression)] = []
            for (k, v) in entries { out.append((k, try recurse(v))) }
            return .map(out)
        case .unary(let op, let operand): return .unary(op, try recurse(operand))
        case .binary(let op, let l, let r): return .binary(op, try recurse(l), try recurse(r))
        case .isNull(let operand, let negated): return .isNull(try recurse(operand), negated: negated)
        case .hasLabels(let operand, let labels): return .hasLabels(try recurse(operand), labels)
        case .subscriptIndex(let base, let index): return .subscriptIndex(try recurse(base), try recurse(index))
        case .function(let call):
            guard let signature = FunctionCatalog.lookup(call.name) else {
                throw Binder.semantic("Unknown function '\(call.name)'")
            }
            if call.isStar, signature.name != "count" {
                throw QueryError(.syntax, "Invalid use of '*' in function '\(call.name)'")
            }
            let count = call.isStar ? 1 : call.arguments.count
            if count < signature.minArguments {
                throw Binder.semantic("Received \(count) arguments to function '\(call.name)', expected at least \(signature.minArguments)")
            }
            if count > signature.maxArguments {
                throw Binder.semantic("Received \(count) arguments to function '\(call.name)', expected at most \(signature.maxArguments)")
            }
            if signature.kind == .aggregate {
                guard allowAggregates else {
                    throw Binder.semantic("Invalid use of aggregating function '\(call.name)'")
                }
                // Aggregates may not nest: resolve the argument with aggregates disallowed.
                let argument = try call.arguments.first.map { e throws(QueryError) in
                    try resolve(e, allowAggregates: false)
                }
                aggregates.append(BoundAggregate(function: signature.name, isDistinct: call.isDistinct, argument: argument))
                return .aggregateResult(aggregates.count - 1)
            }
            var arguments: [Expression] = []
            for a in call.arguments { arguments.append(try recurse(a)) }
            var resolved = call
            resolved.name = signature.name
            resolved.arguments = arguments
            return .function(resolved)
        }
    }
}

extension Expression {
    var isVariable: Bool { if case .variable = self { return true } else { return false } }
}
