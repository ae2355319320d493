// Binder.swift — the semantic pass: resolves every variable to a row slot, rejects undefined
// variables, unknown functions, misplaced aggregates and invalid CREATE patterns, all before
// anything runs. Third phase of the pipeline (AST → BoundQuery).

/// Checks a parsed query and resolves its names.
struct Binder {
    var scope = Scope()
    /// Procedures and registered functions the query may call.
    var registry = ProcedureRegistry()
    /// Parameters a `CALL p.name` without parentheses reads as its arguments.
    var implicitParameters: Set<String> = []

    static func bind(_ query: Query, registry: ProcedureRegistry = .standard) throws(QueryError) -> BoundQuery {
        var binder = Binder(registry: registry)
        var bound = try binder.bindQuery(query)
        if !query.unions.isEmpty {
            if query.unions.contains(where: \.all) && query.unions.contains(where: { !$0.all }) {
                throw Binder.semantic("Invalid combination of UNION and UNION ALL")
            }
            for (all, part) in query.unions {
                var partBinder = Binder(registry: registry)
                let boundPart = try partBinder.bindQuery(part)
                guard boundPart.columns == bound.columns else {
                    throw Binder.semantic("All sub queries in an UNION must have the same column names")
                }
                bound.isUpdating = bound.isUpdating || boundPart.isUpdating
                bound.unions.append((all, boundPart))
            }
        }
        return bound
    }

    /// A binder over another scope with the same registry (ORDER BY, WITH … WHERE, SKIP/LIMIT).
    func with(scope: Scope) -> Binder { Binder(scope: scope, registry: registry) }

    static func semantic(_ message: String) -> QueryError { QueryError(.semantic, message) }

    mutating func bindQuery(_ query: Query) throws(QueryError) -> BoundQuery {
        var clauses: [(clause: BoundClause, width: Int)] = []
        var columns: [String]?
        var slotNames: [[Int: String]] = []
        var isUpdating = query.clauses.contains { $0.isUpdating }
        for (index, clause) in query.clauses.enumerated() {
            let bound: BoundClause
            switch clause {
            case .match(let match): bound = .match(try bindMatch(match))
            case .create(let create): bound = .create(try bindCreate(create))
            case .call(let call):
                let standalone = query.clauses.count == 1
                let (b, names) = try bindCall(call, standalone: standalone, last: index == query.clauses.count - 1)
                if !b.isReadOnly { isUpdating = true }
                if index == query.clauses.count - 1 { columns = names }
                bound = .call(b)
            case .set(let items): bound = .set(try bindSetItems(items))
            case .remove(let items): bound = .remove(try bindRemoveItems(items))
            case .delete(let delete):
                var targets: [Expression] = []
                for target in delete.targets {
                    if case .hasLabels = target {
                        throw QueryError(.syntax, "DELETE removes nodes and relationships, not labels: use REMOVE n:Label")
                    }
                    if let type = staticType(of: target), !type.isEntity {
                        throw Binder.typeError("DELETE", expected: "Node, Relationship or Path", type)
                    }
                    let e = try resolve(target, allowAggregates: false)
                    targets.append(e)
                }
                bound = .delete(detach: delete.detach, targets: targets)
            case .merge(let merge): bound = .merge(try bindMerge(merge))
            case .schema(let command): bound = .schema(command)
            case .loadCSV(let load):
                let url = try resolve(load.url, allowAggregates: false)
                if scope[load.variable] != nil { throw Binder.semantic("Variable `\(load.variable)` already declared") }
                bound = .loadCSV(url: url, withHeaders: load.withHeaders, slot: scope.declare(load.variable, kind: .value),
                                 terminator: load.terminator)
            case .unwind(let unwind):
                let list = try resolve(unwind.list, allowAggregates: false)
                if scope[unwind.variable] != nil {
                    throw Binder.semantic("Variable `\(unwind.variable)` already declared")
                }
                bound = .unwind(list: list, slot: scope.declare(unwind.variable, kind: .value))
            case .with(let projection):
                let before = scope
                do {
                    bound = .projection(try bindProjection(projection, isReturn: false))
                } catch {
                    // WITH's WHERE may read variables the WITH does not pass on (openCypher:
                    // `WITH c WHERE r IS NULL`): a plain WITH filters its input first, then projects.
                    scope = before
                    guard let filter = prefilter(projection) else { throw error }
                    clauses.append((.projection(filter), scope.width))
                    slotNames.append(Dictionary(scope.names.compactMap { n in scope[n].map { ($0.slot, n) } }, uniquingKeysWith: { a, _ in a }))
                    var rest = projection
                    rest.predicate = nil
                    let projected = try bindProjection(rest, isReturn: false)
                    guard projected.aggregates.isEmpty else { throw error }
                    bound = .projection(projected)
                }
            case .return(let projection):
                let p = try bindProjection(projection, isReturn: true)
                columns = p.items.map(\.name)
                bound = .projection(p)
            }
            clauses.append((bound, scope.width))
            // Variable names by slot, for EXPLAIN (slots are reused after WITH: one map per clause).
            slotNames.append(Dictionary(scope.names.compactMap { n in scope[n].map { ($0.slot, n) } }, uniquingKeysWith: { a, _ in a }))
            if index == query.clauses.count - 1 {
                switch clause {
                case .return, .create, .call, .set, .remove, .delete, .merge, .schema: break
                case .match(let m):
                    throw Binder.semantic("Query cannot conclude with \(m.isOptional ? "OPTIONAL MATCH" : "MATCH") (must be a RETURN clause, an update clause, a procedure call or a non-returning subquery)")
                case .loadCSV:
                    throw Binder.semantic("Query cannot conclude with LOAD CSV (must be a RETURN clause, an update clause, a procedure call or a non-returning subquery)")
                case .unwind:
                    throw Binder.semantic("Query cannot conclude with UNWIND (must be a RETURN clause, an update clause, a procedure call or a non-returning subquery)")
                case .with:
                    throw Binder.semantic("Query cannot conclude with WITH (must be a RETURN clause, an update clause, a procedure call or a non-returning subquery)")
                }
            }
        }
        // A query ending in a CALL returns the call's outputs, which are the row's first slots
        // only when the call stands alone: after other clauses (`UNWIND … CALL db.labels()`)
        // they follow the earlier variables, so a projection of them ends the query.
        if case .call(let call)? = clauses.last?.clause,
           call.outputs.map(\.slot) != Array(0..<call.outputs.count), let names = columns {
            let items = zip(names, call.outputs).map { (name: $0.0, expression: Expression.slot($0.1.slot)) }
            clauses.append((.projection(BoundProjection(items: items, aggregates: [], isDistinct: false, orderBy: [],
                                                        sortSeesInput: false, skip: nil, limit: nil, predicate: nil)),
                            items.count))
            slotNames.append(Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.offset, $0.element) }))
        }
        return BoundQuery(clauses: clauses, columns: columns, slotNames: slotNames, isUpdating: isUpdating,
                          parameterNames: query.parameterNames.union(implicitParameters))
    }

    // MARK: patterns

    /// Resolves a pattern element's variable: an existing one of the right kind, or a new slot.
    mutating func slot(for variable: String?, kind: VariableKind) throws(QueryError) -> (slot: Int, existed: Bool) {
        guard let variable else { return (scope.allocateHidden(), false) }
        if let existing = scope[variable] {
            // A plain value (from UNWIND or WITH) may hold an entity: checked when the plan runs.
            if case .scalar(let type) = existing.kind {
                throw Binder.typeError("variable '\(variable)'", expected: kind == .node ? "Node" : "Relationship", type)
            }
            guard existing.kind == kind || existing.kind == .value else {
                let kinds = Set([existing.kind, kind])
                throw Binder.semantic(kinds == [.node, .relationship]
                    ? "The alias '\(variable)' was specified for both a node and a relationship"
                    : "The alias '\(variable)' was specified for both a \(existing.kind) and a \(kind)")
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
                // A variable-length relationship may name a list an earlier clause made.
                if relationship.length != nil, let name = relationship.variable, let entry = scope[name],
                   entry.kind == .scalar(.list) {
                    relationships.append(entry.slot)
                    continue
                }
                // A new variable-length relationship's variable holds the list of relationships.
                if relationship.length != nil, let name = relationship.variable, scope[name] == nil {
                    let s = scope.declare(name, kind: .scalar(.list))
                    relationshipSlots.insert(s)
                    relationships.append(s)
                    continue
                }
                let (s, _) = try slot(for: relationship.variable, kind: .relationship)
                if relationship.length != nil, boundBefore.contains(s), let name = relationship.variable, scope[name]?.kind == .relationship {
                    throw Binder.semantic("Type mismatch: the variable-length relationship '\(name)' needs a list of relationships, but an earlier clause bound it to one relationship")
                }
                if !boundBefore.contains(s), !relationshipSlots.insert(s).inserted {
                    throw Binder.semantic("Cannot use the same relationship variable '\(relationship.variable ?? "")' for multiple patterns")
                }
                relationships.append(s)
            }
            shapes.append((nodes, relationships))
        }
        var pathSlots: [Int?] = []
        for part in match.patterns {
            guard let path = part.pathVariable else {
                // A shortest path always has a path slot: its operator binds the path it found.
                pathSlots.append(part.shortest == nil ? nil : scope.allocateHidden())
                continue
            }
            if scope[path] != nil { throw Binder.semantic("Variable `\(path)` already declared") }
            pathSlots.append(scope.declare(path, kind: .path))
        }
        for (i, (part, shape)) in zip(match.patterns, shapes).enumerated() {
            var bound = BoundPattern(nodes: [], relationships: [], pathSlot: pathSlots[i])
            for (node, s) in zip(part.nodes, shape.nodes) {
                bound.nodes.append(BoundNodePattern(slot: s, labels: node.labels, properties: try resolve(node.properties)))
            }
            for (relationship, s) in zip(part.relationships, shape.relationships) {
                bound.relationships.append(BoundRelationshipPattern(
                    slot: s, types: relationship.types, properties: try resolve(relationship.properties),
                    direction: relationship.direction, length: relationship.length, isNamed: relationship.variable != nil))
            }
            if let kind = part.shortest {
                bound.shortest = kind
                // `shortestPath((a)-[r]-(b))`: one hop, `r` a relationship rather than a list.
                if bound.relationships[0].length == nil {
                    bound.relationships[0].length = VariableLength(min: 1, max: 1)
                    bound.shortestIsSingleHop = true
                }
                if boundBefore.contains(shape.relationships[0]) {
                    throw Binder.semantic("The relationship '\(part.relationships[0].variable ?? "")' of a shortest path cannot reuse a variable bound before")
                }
            }
            patterns.append(bound)
        }
        try checkPredicate(match.predicate)
        let predicate = try match.predicate.map { e throws(QueryError) in try resolve(e, allowAggregates: false) }
        return BoundMatch(patterns: patterns, predicate: predicate, isOptional: match.isOptional,
                          boundBefore: boundBefore, introduced: Array(boundBefore.count..<scope.width))
    }

    mutating func bindCreate(_ create: CreateClause, allowUndirected: Bool = false) throws(QueryError) -> BoundCreate {
        let boundBefore = Set(0..<scope.width)
        var patterns: [BoundPattern] = []
        for part in create.patterns {
            if part.shortest != nil {
                throw Binder.semantic("shortestPath(…) and allShortestPaths(…) can only be used to match, not in CREATE or MERGE")
            }
            if let path = part.pathVariable {
                throw QueryError(.semantic, "Named paths are not supported in CREATE or MERGE ('\(path)')")
            }
            var bound = BoundPattern(nodes: [], relationships: [])
            for node in part.nodes {
                let (s, existed) = try slot(for: node.variable, kind: .node)
                if existed, !node.labels.isEmpty || !node.properties.isEmpty || node.hasPropertyMap || part.relationships.isEmpty {
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
                guard relationship.direction != .either || allowUndirected else {
                    throw Binder.semantic("Only directed relationships are supported in CREATE")
                }
                if relationship.length != nil {
                    throw Binder.semantic("Variable length relationships cannot be used in CREATE or MERGE")
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

    /// For a plain WITH (no aggregation, DISTINCT, ORDER BY, SKIP or LIMIT) whose WHERE reads
    /// variables of its input, the WHERE as a filter on the input row: a projection passing
    /// every slot on as it is (slot i stays slot i), with the WHERE, its aliases replaced by
    /// what they name. Nil when the WHERE does not bind that way either.
    func prefilter(_ projection: Projection) -> BoundProjection? {
        guard let predicate = projection.predicate, !projection.isDistinct, projection.orderBy.isEmpty,
              projection.skip == nil, projection.limit == nil else { return nil }
        var aliases: [String: Expression] = [:]
        for item in projection.items {
            if let alias = item.alias { aliases[alias] = item.expression }
        }
        let substituted = predicate.rewritten { e in
            if case .variable(let name, _) = e { return aliases[name] } else { return nil }
        }
        guard let resolved = try? resolve(substituted, allowAggregates: false) else { return nil }
        var names: [Int: String] = [:]
        for name in scope.names { if let entry = scope[name] { names[entry.slot] = name } }
        let items = (0..<scope.width).map { slot in (name: names[slot] ?? " slot \(slot)", expression: Expression.slot(slot)) }
        return BoundProjection(items: items, aggregates: [], isDistinct: false, orderBy: [], sortSeesInput: false,
                               skip: nil, limit: nil, predicate: resolved)
    }

    /// `expression` with each part written as one of `items`' expressions (one `eligible`
    /// accepts) replaced by that item's column: what ORDER BY and WITH's WHERE may write out.
    static func columns(of items: [ProjectionItem], in expression: Expression,
                        eligible: (Expression) -> Bool) -> Expression {
        expression.rewritten { e in
            items.first { $0.expression.isSameExpression(as: e) && eligible($0.expression) }
                .map { .variable($0.name, SourceLocation(line: 1, column: 1, offset: 0)) }
        }
    }

    mutating func bindProjection(_ projection: Projection, isReturn: Bool) throws(QueryError) -> BoundProjection {
        var items: [(name: String, expression: Expression)] = []
        var kinds: [VariableKind] = []
        var sourceTexts: [String] = []
        if projection.includesAll {
            // openCypher orders the columns of `*` by name.
            let visible = scope.names.sorted()
            // `WITH *` of nothing passes the rows on with no columns (openCypher); `RETURN *` of
            // nothing would return rows without columns, which is an error.
            if visible.isEmpty && projection.items.isEmpty && isReturn {
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
            if item.expression.isBarePattern { throw Binder.patternAsValue() }
            let expression = try resolve(item.expression, aggregates: &aggregates)
            items.append((item.name, expression))
            sourceTexts.append(item.sourceText)
            if case .slot(let s) = expression, let entry = scope.slots.values.first(where: { $0.slot == s }) {
                kinds.append(entry.kind)
            } else if let type = staticType(of: item.expression), !type.isEntity {
                kinds.append(.scalar(type))
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
            let binder = with(scope: sortScope)
            do {
                orderBy.append((try binder.resolve(sort.expression, allowAggregates: false), sort.ascending))
            } catch {
                // `RETURN n.age AS age, count(*) AS c ORDER BY n.age + count(*)`: a projected
                // variable, property or aggregate may be written out again and stands for its
                // column (not a larger expression: `a + b + count(*)` stays ambiguous).
                let substituted = Binder.columns(of: projection.items, in: sort.expression) {
                    $0.isVariableOrProperty || $0.isAggregateCall
                }
                guard let resolved = try? binder.resolve(substituted, allowAggregates: false) else { throw error }
                orderBy.append((resolved, sort.ascending))
            }
        }
        let constant = with(scope: Scope())
        let skip = try projection.skip.map { e throws(QueryError) in try constant.resolve(e, allowAggregates: false) }
        let limit = try projection.limit.map { e throws(QueryError) in try constant.resolve(e, allowAggregates: false) }
        let outputBinder = with(scope: output)
        var predicate: Expression?
        if let written = projection.predicate {
            do {
                predicate = try outputBinder.resolve(written, allowAggregates: false)
            } catch {
                // `WITH DISTINCT a.name AS name WHERE a.name = 'B'`: an expression the WITH
                // projects stands for its column, so the WHERE may still write it out.
                let substituted = Binder.columns(of: projection.items, in: written) { _ in true }
                guard let resolved = try? outputBinder.resolve(substituted, allowAggregates: false) else { throw error }
                predicate = resolved
            }
        }
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
        try checkTypes(expression)
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
        case .slice(let base, let from, let to):
            return .slice(try recurse(base), try from.map(recurse), try to.map(recurse))
        case .caseExpression(let subject, let branches, let otherwise):
            var out: [(when: Expression, then: Expression)] = []
            for (w, t) in branches { out.append((try recurse(w), try recurse(t))) }
            return .caseExpression(subject: try subject.map(recurse), branches: out, otherwise: try otherwise.map(recurse))
        case .listComprehension(let variable, let list, let predicate, let projection):
            let resolvedList = try recurse(list)
            var inner = self
            let slot = inner.declareLocal(variable)
            return .listComprehension(variable: .slot(slot), list: resolvedList,
                                      predicate: try predicate.map { e throws(QueryError) in try inner.resolve(e, aggregates: &aggregates, allowAggregates: false) },
                                      projection: try projection.map { e throws(QueryError) in try inner.resolve(e, aggregates: &aggregates, allowAggregates: false) })
        case .reduce(let accumulator, let initial, let variable, let list, let expression):
            // The start and the list read the enclosing scope; the step reads both names too.
            let resolvedInitial = try recurse(initial)
            let resolvedList = try recurse(list)
            var inner = self
            let accumulatorSlot = inner.declareLocal(accumulator)
            let variableSlot = inner.declareLocal(variable)
            return .reduce(accumulator: .slot(accumulatorSlot), initial: resolvedInitial, variable: .slot(variableSlot),
                           list: resolvedList,
                           expression: try inner.resolve(expression, aggregates: &aggregates, allowAggregates: false))
        case .quantifier(let quantifier, let variable, let list, let predicate):
            let resolvedList = try recurse(list)
            var inner = self
            let slot = inner.declareLocal(variable)
            return .quantifier(quantifier, variable: .slot(slot), list: resolvedList,
                               predicate: try inner.resolve(predicate, aggregates: &aggregates, allowAggregates: false))
        case .mapProjection(let base, let items):
            var out: [MapProjectionItem] = []
            for item in items {
                switch item {
                case .property, .allProperties: out.append(item)
                case .literal(let key, let e): out.append(.literal(key, try recurse(e)))
                case .variable(let key, let e): out.append(.variable(key, try recurse(e)))
                }
            }
            return .mapProjection(try recurse(base), out)
        case .patternPredicate(let pattern):
            return .patternPredicate(try bindPatternPredicate(pattern))
        case .patternComprehension(let pattern):
            return .patternComprehension(try bindPatternPredicate(pattern))
        case .subquery(let subquery):
            return .subquery(try bindSubquery(subquery))
        case .function(let call):
            let builtIn = FunctionCatalog.lookup(call.name)
            guard let signature = builtIn ?? registeredSignature(call.name) else {
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
                if call.arguments.contains(where: { $0.callsFunction("rand") }) {
                    throw QueryError(.syntax, "Can't use non-deterministic (random) functions inside of aggregate functions")
                }
                // Aggregates may not nest: resolve the argument with aggregates disallowed.
                let argument = try call.arguments.first.map { e throws(QueryError) in
                    try resolve(e, allowAggregates: false)
                }
                guard let function = AggregateFunction(rawValue: signature.name) else {
                    throw QueryError(.semantic, "Aggregating function '\(call.name)' has no implementation")
                }
                let percentile = try call.arguments.dropFirst().first.map { e throws(QueryError) in
                    try resolve(e, allowAggregates: false)
                }
                aggregates.append(BoundAggregate(function: function, isDistinct: call.isDistinct, argument: argument,
                                                 percentile: percentile))
                return .aggregateResult(aggregates.count - 1)
            }
            var arguments: [Expression] = []
            for a in call.arguments { arguments.append(try recurse(a)) }
            var resolved = call
            resolved.name = signature.name
            resolved.arguments = arguments
            if builtIn != nil {
                guard let scalar = ScalarFunction(rawValue: signature.name) else {
                    throw QueryError(.semantic, "Function '\(call.name)' has no implementation")
                }
                resolved.scalar = scalar
            }
            return .function(resolved)
        }
    }
}

extension Expression {
    var isVariable: Bool { if case .variable = self { return true } else { return false } }
}

// MARK: locals, pattern predicates, calls and updating clauses

extension Binder {
    /// Declares a comprehension's or quantifier's variable in a fresh slot past the clause's row
    /// (the evaluator writes it into a copy of the row). Shadows an outer variable of the same name.
    mutating func declareLocal(_ variable: Expression) -> Int {
        guard case .variable(let name, _) = variable else { return scope.allocateHidden() }
        return scope.declare(name, kind: .value)
    }

    /// A registered (non built-in) function as a catalog signature.
    func registeredSignature(_ name: String) -> FunctionSignature? {
        guard let function = registry.function(named: name) else { return nil }
        return FunctionSignature(name: function.name.lowercased(), kind: .scalar,
                                 minArguments: function.minArguments, maxArguments: function.maxArguments)
    }

    /// Binds a pattern used as a predicate into match operators run against the current row.
    /// Its new variables live in slots past the row and are not visible afterwards.
    func bindPatternPredicate(_ pattern: PatternPredicate) throws(QueryError) -> PatternPredicate {
        if pattern.projection == nil, !pattern.isSubquery {
            for part in pattern.patterns {
                let names = [part.pathVariable] + part.nodes.map(\.variable) + part.relationships.map(\.variable)
                for case let name? in names where scope[name] == nil {
                    throw Binder.semantic("'\(name)' not defined: a pattern used as a predicate may not introduce a variable (use EXISTS { MATCH … })")
                }
            }
        }
        var inner = self
        let match = try inner.bindMatch(MatchClause(isOptional: false, patterns: pattern.patterns, predicate: pattern.predicate))
        var bound = pattern
        guard case .match(let operators, let predicate, _, _) = Planner.planMatch(match) else { return bound }
        // An anonymous relationship between two bound nodes only needs to exist: check the
        // adjacency instead of walking it (the relationship's slot is read by nothing).
        let named = Set(inner.scope.names.compactMap { inner.scope[$0]?.slot })
        bound.plan = operators.map { op in
            // (Not in a pattern comprehension: there every relationship is one element.)
            if pattern.projection == nil,
               case .expand(let from, let relationship, let to, let types, let direction, true, false, let exclude, _) = op,
               exclude.isEmpty, relationship >= scope.width, !named.contains(relationship),
               !operators.contains(where: { if case .relationshipFilter(relationship, _) = $0 { true } else { false } }) {
                return .adjacencyCheck(from: from, to: to, types: types, direction: direction)
            }
            return op
        }
        bound.predicate = predicate
        bound.projection = try pattern.projection.map { e throws(QueryError) in try inner.resolve(e, allowAggregates: false) }
        bound.width = inner.scope.width
        return bound
    }

    /// Binds `EXISTS { … }` / `COUNT { … }` as a query of its own that starts from the current
    /// row: its clauses see every variable in scope, and what it returns is only counted, so a
    /// body without RETURN (`COUNT { MATCH … }`) returns its rows as they are.
    func bindSubquery(_ subquery: Subquery) throws(QueryError) -> Subquery {
        var query = subquery.query
        if case .return? = query.clauses.last {} else {
            let item = ProjectionItem(expression: .literal(.bool(true)), alias: " row", sourceText: "true")
            query.clauses.append(.return(Projection(isDistinct: false, includesAll: false, items: [item], orderBy: [],
                                                    skip: nil, limit: nil, predicate: nil, location: subquery.location)))
        }
        var inner = self
        let bound = try inner.bindQuery(query)
        guard !bound.isUpdating else {
            throw QueryError(.semantic, "\(subquery.kind.rawValue) { … } cannot change the graph", location: subquery.location)
        }
        var result = subquery
        result.plan = Planner.plan(bound)
        result.outerWidth = scope.width
        return result
    }

    /// Resolves CALL: the procedure must exist, take this many arguments, and yield these names.
    /// Returns the bound call and the column names it yields.
    /// A call that ends a longer query (`UNWIND … CALL db.labels()`) returns every output
    /// without YIELD, as a standalone one does; one followed by more clauses must name them.
    mutating func bindCall(_ written: CallClause, standalone: Bool, last: Bool = true) throws(QueryError) -> (BoundCall, [String]) {
        guard let procedure = registry.procedure(named: written.name) else {
            throw Binder.semantic("Procedure `\(written.name)` is not registered")
        }
        let signature = procedure.signature
        var call = written
        if call.implicitArguments {
            guard standalone else {
                throw QueryError(.syntax, "Procedure call inside a query does not support passing arguments implicitly (pass them explicitly in parentheses after the procedure name)", location: call.location)
            }
            // `CALL p.name`: each argument is the query parameter of the argument's name.
            call.arguments = signature.arguments.map { .parameter($0.name) }
            implicitParameters.formUnion(signature.arguments.map(\.name))
        }
        if !standalone, call.yieldsAll {
            throw QueryError(.syntax, "Procedure call inside a query does not support naming results implicitly (name explicitly using `YIELD` instead)", location: call.location)
        }
        if !standalone, !last, call.yields == nil, !signature.outputs.isEmpty {
            throw QueryError(.syntax, "Procedure call inside a query does not support naming results implicitly (name explicitly using `YIELD` instead)", location: call.location)
        }
        let required = signature.arguments.count - signature.arguments.reversed().prefix { $0.isOptional }.count
        guard (required...signature.arguments.count).contains(call.arguments.count) else {
            let expected = required == signature.arguments.count ? "\(required)" : "\(required) to \(signature.arguments.count)"
            throw Binder.semantic("Procedure call provides \(call.arguments.count) argument\(call.arguments.count == 1 ? "" : "s") to `\(call.name)`, which expects \(expected)")
        }
        var arguments: [Expression] = []
        for argument in call.arguments { arguments.append(try resolve(argument, allowAggregates: false)) }
        // Left-out trailing arguments are null: each procedure reads null as its default.
        arguments += Array(repeating: .literal(.null), count: signature.arguments.count - arguments.count)
        let yields = call.yields ?? signature.outputs.map { ($0.name, nil) }
        var outputs: [(column: Int, slot: Int)] = []
        var names: [String] = []
        for (name, alias) in yields {
            guard let column = signature.outputs.firstIndex(where: { $0.name == name }) else {
                throw Binder.semantic("Unknown output '\(name)' of procedure `\(call.name)`; it yields \(signature.outputs.map(\.name).joined(separator: ", "))")
            }
            let variable = alias ?? name
            if scope[variable] != nil { throw Binder.semantic("Variable `\(variable)` already declared") }
            let kind: VariableKind = switch signature.outputs[column].type {
            case .node: .node
            case .relationship: .relationship
            default: .value
            }
            outputs.append((column, scope.declare(variable, kind: kind)))
            names.append(variable)
        }
        let predicate = try call.predicate.map { e throws(QueryError) in try resolve(e, allowAggregates: false) }
        return (BoundCall(name: call.name, arguments: arguments, outputs: outputs, predicate: predicate,
                          isReadOnly: signature.isReadOnly, isVoid: signature.outputs.isEmpty && !standalone), names)
    }

    /// A SET target must be a variable holding a node or relationship (checked at run time for values).
    func resolveTarget(_ target: Expression) throws(QueryError) -> Expression {
        let resolved = try resolve(target, allowAggregates: false)
        if case .variable(let name, _) = target, let entry = scope[name], entry.kind == .value {
            return resolved  // may hold an entity from WITH/UNWIND: checked when it runs
        }
        return resolved
    }

    func bindSetItems(_ items: [SetItem]) throws(QueryError) -> [SetItem] {
        var out: [SetItem] = []
        for item in items {
            switch item {
            case .property(let target, let key, let value):
                out.append(.property(target: try resolveTarget(target), key: key, value: try resolve(value, allowAggregates: false)))
            case .replaceProperties(let variable, let value):
                out.append(.replaceProperties(variable: try resolveTarget(variable), value: try resolve(value, allowAggregates: false)))
            case .mergeProperties(let variable, let value):
                out.append(.mergeProperties(variable: try resolveTarget(variable), value: try resolve(value, allowAggregates: false)))
            case .labels(let variable, let labels):
                if case .variable(let name, _) = variable, scope[name]?.kind == .relationship {
                    throw Binder.semantic("Labels can only be set on nodes: '\(name)' is a relationship")
                }
                out.append(.labels(variable: try resolveTarget(variable), labels: labels))
            }
        }
        return out
    }

    func bindRemoveItems(_ items: [RemoveItem]) throws(QueryError) -> [RemoveItem] {
        var out: [RemoveItem] = []
        for item in items {
            switch item {
            case .property(let target, let key): out.append(.property(target: try resolveTarget(target), key: key))
            case .labels(let variable, let labels):
                if case .variable(let name, _) = variable, scope[name]?.kind == .relationship {
                    throw Binder.semantic("Labels can only be removed from nodes: '\(name)' is a relationship")
                }
                out.append(.labels(variable: try resolveTarget(variable), labels: labels))
            }
        }
        return out
    }

    /// MERGE binds its pattern twice over the same slots: once to match, once to create.
    mutating func bindMerge(_ merge: MergeClause) throws(QueryError) -> BoundMerge {
        let before = self
        for node in merge.pattern.nodes {
            for (key, value) in node.properties {
                if case .literal(.null) = value {
                    throw QueryError(.runtime, "Cannot merge node using null property value for '\(key)'")
                }
            }
        }
        for relationship in merge.pattern.relationships {
            for (key, value) in relationship.properties {
                if case .literal(.null) = value {
                    throw QueryError(.runtime, "Cannot merge relationship using null property value for '\(key)'")
                }
            }
        }
        // `MATCH (a) MERGE (a)`: a lone node already bound has nothing to merge.
        if merge.pattern.relationships.isEmpty, let name = merge.pattern.nodes[0].variable, scope[name] != nil {
            throw Binder.semantic("Variable `\(name)` already declared: MERGE of a node already bound merges nothing")
        }
        let match = try bindMatch(MatchClause(isOptional: false, patterns: [merge.pattern], predicate: nil))
        // Bind the CREATE form against the scope from before the MERGE so that new variables
        // are "new" to it, then check both gave every variable the same slot.
        var creator = before
        var created = merge.pattern
        created.pathVariable = nil
        let create = try creator.bindCreate(CreateClause(patterns: [created]), allowUndirected: true)
        // `MERGE p = …`: the path's slot comes last (bindMatch declares it after the pattern's).
        let path = match.patterns[0].pathSlot
        if path != nil { _ = creator.scope.allocateHidden() }
        guard creator.scope.width == scope.width else {
            throw Binder.semantic("MERGE pattern could not be bound consistently")
        }
        return BoundMerge(match: match, create: create, onCreate: try bindSetItems(merge.onCreate),
                          onMatch: try bindSetItems(merge.onMatch), pathSlot: path)
    }
}
