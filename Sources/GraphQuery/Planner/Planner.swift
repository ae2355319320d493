// Planner.swift — turns a bound query into a logical plan. Each pattern chain starts from a bound
// node, else a (label, property) seek, else a label scan, else all nodes, and expands along
// adjacency lists to both ends, filtering each node and relationship as soon as it is bound.

/// Builds plans.
enum Planner {
    /// - Parameter optimize: false plans the query as bound, without the Normalizer's or the
    ///   rules' rewrites: the reference the metamorphic tests compare every phrasing with.
    ///   - batched: stretches that end in a count grouped by node run on the batched executor
    ///     (BatchProgram); false keeps every step row at a time.
    static func plan(_ query: BoundQuery, optimize: Bool = true, batched: Bool? = nil) -> LogicalPlan {
        let batched = batched ?? optimize
        // One canonical form per meaning, then the rules that put it on the kernels (Planner/Social*.swift).
        let query = optimize ? SocialPlanner.rewrite(SocialPipelines.rewrite(Normalizer.normalize(query))) : query
        var steps: [(step: PlanStep, width: Int)] = []
        for (clause, width) in query.clauses {
            switch clause {
            case .match(let match):
                steps.append((planMatch(match), width))
            case .create(let create):
                steps.append((.create(create), width))
            case .unwind(let list, let slot):
                steps.append((.unwind(list: list, slot: slot), width))
            case .projection(let projection):
                steps.append((.projection(projection), width))
            case .call(let call): steps.append((.call(call), width))
            case .set(let items): steps.append((.set(items), width))
            case .remove(let items): steps.append((.remove(items), width))
            case .delete(let detach, let targets): steps.append((.delete(detach: detach, targets: targets), width))
            case .merge(let merge):
                guard case .match(let operators, _, _, _) = planMatch(merge.match) else { continue }
                steps.append((.merge(operators: operators, merge: merge), width))
            case .schema(let command): steps.append((.schema(command), width))
            case .loadCSV(let url, let withHeaders, let slot, let terminator):
                steps.append((.loadCSV(url: url, withHeaders: withHeaders, slot: slot, terminator: terminator), width))
            }
        }
        var planned = LogicalPlan(steps: steps, columns: query.columns, slotNames: query.slotNames, isUpdating: query.isUpdating,
                                  parameterNames: query.parameterNames,
                                  unions: query.unions.map { ($0.all, plan($0.query, optimize: optimize, batched: batched)) },
                                  stepBoxes: StepBox.boxes(steps))
        planned.pointLookup = PointLookup(planned)
        if batched { planned.batchPrograms = BatchProgram.programs(of: steps) }
        return planned
    }

    static func planMatch(_ match: BoundMatch) -> PlanStep {
        // Social recognizers (Planner/Social*.swift) hook in here, one line, returning a
        // specialised step when they recognise the match, e.g.:
        // if let step = SocialPlanner.plan(match) { return step }
        var bound = match.boundBefore
        var operators: [PatternOperator] = []
        // Relationships bound so far, by uniqueness group: a new one must differ from its group's.
        var relationshipsOfGroup: [Int: [Int]] = [:]
        // WHERE: `n.key = value` on a labelled new node becomes part of its pattern (so it can
        // seek an index); every other conjunct runs as soon as the slots it reads are bound.
        var (patterns, conjuncts) = absorbEqualities(match)
        patterns = seekingPinnedNodesFirst(patterns, bound: bound)
        func placeReady() {
            conjuncts.removeAll { conjunct in
                guard let slots = conjunct.referencedSlots, slots.isSubset(of: bound) else { return false }
                operators.append(.filter(conjunct))
                return true
            }
        }
        placeReady()
        // A pattern's first node: checked when bound, else sought, scanned by label, or scanned.
        func bindStart(_ node: BoundNodePattern) {
            if bound.contains(node.slot) {
                operators.append(.argument(slot: node.slot))
                operators.append(.nodeFilter(slot: node.slot, labels: node.labels, properties: node.properties))
            } else if let (index, value, inList) = idEquality(of: node.slot, in: conjuncts, bound: bound) {
                conjuncts.remove(at: index)
                operators.append(.idSeek(slot: node.slot, id: value, inList: inList))
                operators.append(.nodeFilter(slot: node.slot, labels: node.labels, properties: node.properties))
            } else if let (label, key, value) = seekable(node, bound: bound) {
                operators.append(.propertySeek(slot: node.slot, label: label, key: key, value: value))
                operators.append(.nodeFilter(slot: node.slot, labels: label == nil ? node.labels : node.labels.filter { $0 != label },
                                             properties: node.properties.filter { $0.key != key }))
            } else if let label = node.labels.first, let (key, list) = propertyIn(of: node.slot, in: conjuncts, bound: bound) {
                operators.append(.propertyListSeek(slot: node.slot, label: label, key: key, list: list))
                operators.append(.nodeFilter(slot: node.slot, labels: Array(node.labels.dropFirst()), properties: node.properties))
            } else if let label = node.labels.first {
                operators.append(.labelScan(slot: node.slot, label: label))
                operators.append(.nodeFilter(slot: node.slot, labels: Array(node.labels.dropFirst()), properties: node.properties))
            } else {
                operators.append(.allNodesScan(slot: node.slot))
                operators.append(.nodeFilter(slot: node.slot, labels: [], properties: node.properties))
            }
            bound.insert(node.slot)
            placeReady()
        }
        // Shortest paths last: their ends are then bound by the other patterns that name them.
        patterns = patterns.filter { $0.shortest == nil } + patterns.filter { $0.shortest != nil }
        for pattern in patterns {
            if let kind = pattern.shortest, let pathSlot = pattern.pathSlot {
                for node in pattern.nodes { bindStart(node) }
                let relationship = pattern.relationships[0]
                let length = relationship.length ?? VariableLength(min: 1, max: 1)
                // WHERE conjuncts on the path or its relationships choose among the paths.
                let searched: Set<Int> = [relationship.slot, pathSlot]
                var onPath: [Expression] = []
                var stepConditions: [PathStepCondition] = []
                conjuncts.removeAll { conjunct in
                    guard let slots = conjunct.referencedSlots, !slots.isDisjoint(with: searched),
                          slots.isSubset(of: bound.union(searched)) else { return false }
                    if let condition = stepCondition(conjunct, path: pathSlot, relationship: relationship.slot, bound: bound) {
                        stepConditions.append(condition)
                    } else {
                        onPath.append(conjunct)
                    }
                    return true
                }
                operators.append(.shortestPath(ShortestPathStep(
                    from: pattern.nodes[0].slot, relationship: relationship.slot, to: pattern.nodes[1].slot, path: pathSlot,
                    types: relationship.types, direction: relationship.direction, min: length.min, max: length.max,
                    properties: relationship.properties, kind: kind, singleHop: pattern.shortestIsSingleHop,
                    stepConditions: stepConditions,
                    predicate: onPath.dropFirst().reduce(onPath.first) { all, next in all.map { .binary(.and, $0, next) } })))
                bound.formUnion(searched)
                placeReady()
                continue
            }
            let start = startIndex(of: pattern, bound: bound,
                                   idSought: { idEquality(of: $0, in: conjuncts, bound: bound) != nil },
                                   listSought: { propertyIn(of: $0, in: conjuncts, bound: bound) != nil })
            bindStart(pattern.nodes[start])
            // Rightwards from the start, then leftwards: relationship i joins node i and i + 1.
            let steps = Array(start..<pattern.relationships.count).map { ($0, true) }
                + Array((0..<start).reversed()).map { ($0, false) }
            for (i, rightwards) in steps {
                let relationship = pattern.relationships[i]
                let from = pattern.nodes[rightwards ? i : i + 1]
                let to = pattern.nodes[rightwards ? i + 1 : i]
                var direction = relationship.direction
                if !rightwards {
                    switch direction {
                    case .leftToRight: direction = .rightToLeft
                    case .rightToLeft: direction = .leftToRight
                    case .either: break
                    }
                }
                let relationshipIsBound = bound.contains(relationship.slot)
                let group = match.group(of: relationship.slot)
                if let length = relationship.length, relationshipIsBound {
                    operators.append(.followList(from: from.slot, relationship: relationship.slot, to: to.slot,
                                                 types: relationship.types, direction: direction, toIsBound: bound.contains(to.slot),
                                                 min: length.min, max: length.max, reversed: !rightwards))
                    if !to.labels.isEmpty || !to.properties.isEmpty {
                        operators.append(.nodeFilter(slot: to.slot, labels: to.labels, properties: to.properties))
                    }
                    bound.insert(to.slot)
                    placeReady()
                    continue
                }
                if let length = relationship.length {
                    operators.append(.variableExpand(from: from.slot, relationship: relationship.slot, to: to.slot,
                                                     types: relationship.types, direction: direction,
                                                     toIsBound: bound.contains(to.slot), min: length.min, max: length.max,
                                                     properties: relationship.properties, exclude: relationshipsOfGroup[group] ?? [],
                                                     bindsRelationships: relationship.isNamed || pattern.pathSlot != nil))
                    if !rightwards && (relationship.isNamed || pattern.pathSlot != nil) {
                        operators.append(.reverseList(slot: relationship.slot))
                    }
                    if !to.labels.isEmpty || !to.properties.isEmpty {
                        operators.append(.nodeFilter(slot: to.slot, labels: to.labels, properties: to.properties))
                    }
                    bound.insert(to.slot)
                    bound.insert(relationship.slot)
                    relationshipsOfGroup[group, default: []].append(relationship.slot)
                    placeReady()
                    continue
                }
                operators.append(.expand(from: from.slot, relationship: relationship.slot, to: to.slot,
                                         types: relationship.types, direction: direction,
                                         toIsBound: bound.contains(to.slot), relationshipIsBound: relationshipIsBound,
                                         exclude: relationshipIsBound ? [] : relationshipsOfGroup[group] ?? [],
                                         bindsRelationship: relationship.isNamed || pattern.pathSlot != nil
                                            || !relationship.properties.isEmpty || relationshipIsBound))
                if !relationship.properties.isEmpty {
                    operators.append(.relationshipFilter(slot: relationship.slot, properties: relationship.properties))
                }
                if !to.labels.isEmpty || !to.properties.isEmpty {
                    operators.append(.nodeFilter(slot: to.slot, labels: to.labels, properties: to.properties))
                }
                bound.insert(to.slot)
                if !relationshipIsBound { relationshipsOfGroup[group, default: []].append(relationship.slot) }
                bound.insert(relationship.slot)
                placeReady()
            }
            if let pathSlot = pattern.pathSlot {
                operators.append(.bindPath(slot: pathSlot, nodes: pattern.nodes.map(\.slot),
                                           relationships: pattern.relationships.map(\.slot)))
                bound.insert(pathSlot)
                placeReady()
            }
        }
        // A relationship a later uniqueness check compares must be bound too.
        var compared = Set<Int>()
        for op in operators {
            switch op {
            case .expand(_, _, _, _, _, _, _, let exclude, _), .variableExpand(_, _, _, _, _, _, _, _, _, let exclude, _):
                compared.formUnion(exclude)
            default: break
            }
        }
        operators = operators.map { op in
            if case .expand(let from, let r, let to, let types, let direction, let toIsBound, let isBound, let exclude, false) = op,
               compared.contains(r) {
                return .expand(from: from, relationship: r, to: to, types: types, direction: direction, toIsBound: toIsBound,
                               relationshipIsBound: isBound, exclude: exclude, bindsRelationship: true)
            }
            if case .variableExpand(let from, let r, let to, let types, let direction, let toIsBound, let min, let max,
                                    let properties, let exclude, false) = op, compared.contains(r) {
                return .variableExpand(from: from, relationship: r, to: to, types: types, direction: direction,
                                       toIsBound: toIsBound, min: min, max: max, properties: properties, exclude: exclude,
                                       bindsRelationships: true)
            }
            return op
        }
        // What is left reads something a plan cannot place (a pattern predicate, an aggregate).
        let rest = conjuncts.dropFirst().reduce(conjuncts.first) { all, next in all.map { .binary(.and, $0, next) } }
        return .match(operators: operators, predicate: rest, isOptional: match.isOptional,
                      introduced: match.introduced)
    }

    /// `all(x IN relationships(p) WHERE c)` or `none(…)` (or over `nodes(p)`, or the shortest
    /// path's relationship list `r`) where `c` reads only `x` and what is bound before the
    /// search: a condition each step of the path must meet.
    static func stepCondition(_ conjunct: Expression, path: Int, relationship: Int, bound: Set<Int>) -> PathStepCondition? {
        guard case .quantifier(let quantifier, .slot(let element), let list, let predicate) = conjunct,
              quantifier == .all || quantifier == .none,
              let slots = predicate.referencedSlots, slots.subtracting([element]).isSubset(of: bound) else { return nil }
        let onNodes: Bool
        switch list {
        case .slot(relationship): onNodes = false
        case .function(let call) where call.arguments.count == 1 && !call.isDistinct:
            guard case .slot(path) = call.arguments[0] else { return nil }
            switch call.name.lowercased() {
            case "relationships": onNodes = false
            case "nodes": onNodes = true
            default: return nil
            }
        default: return nil
        }
        return PathStepCondition(slot: element, predicate: predicate, expected: quantifier == .all, onNodes: onNodes)
    }

    /// The WHERE conjuncts of `match`, with `n.key = value` ones moved into the property map of
    /// a node `n` new to this MATCH when `value` is known before it (so `startIndex` can seek on
    /// it): `MATCH (u:User) WHERE u.id = $id` plans like `MATCH (u:User {id: $id})`.
    static func absorbEqualities(_ match: BoundMatch) -> ([BoundPattern], [Expression]) {
        var patterns = match.patterns
        var conjuncts: [Expression] = []
        func split(_ e: Expression) {
            if case .binary(.and, let l, let r) = e { split(l); split(r) } else { conjuncts.append(e) }
        }
        if let predicate = match.predicate { split(predicate) }
        conjuncts.removeAll { conjunct in
            guard case .binary(.equal, let l, let r) = conjunct else { return false }
            for (side, value) in [(l, r), (r, l)] {
                guard case .property(.slot(let slot), let key) = side, !match.boundBefore.contains(slot),
                      let valueSlots = value.referencedSlots, valueSlots.isSubset(of: match.boundBefore) else { continue }
                if case .literal(.null) = value { continue }
                for p in patterns.indices {
                    if let n = patterns[p].nodes.firstIndex(where: { $0.slot == slot }) {
                        patterns[p].nodes[n].properties.append((key, value))
                        return true
                    }
                }
            }
            return false
        }
        return (patterns, conjuncts)
    }

    /// A chain with a node bound before and one new node the planner could seek by a property
    /// finds that node first, as a pattern of its own, and then expands between them
    /// (ExpandInto): `MATCH (a) … MATCH (a)-[:F]-(b:U {id: 2})` seeks b, however it was
    /// written. With two new sought nodes the chain starts from one and reaches the other by
    /// expansion (whose far-node filter finds a uniquely indexed one by binary search:
    /// PatternMatcher's pinnedEnd), so seeks of common values are never paired up. The chain's
    /// copy of the sought node keeps no labels or properties: the lone pattern checks them.
    /// Paths are left whole, and nodes bound before stay in the chain as they are.
    static func seekingPinnedNodesFirst(_ patterns: [BoundPattern], bound: Set<Int>) -> [BoundPattern] {
        var result: [BoundPattern] = []
        var known = bound
        for pattern in patterns {
            let pinned = pattern.nodes.indices.filter { i in
                known.contains(pattern.nodes[i].slot) || seekable(pattern.nodes[i], bound: known) != nil
            }
            // Only one new node is sought ahead: two seeks of values that many nodes may hold
            // (`(a:A {writer: 1})-[:PAIR]->(b:B {writer: 1})`) would pair every a with every b
            // before the expansion checks them, where the chain walks from one to the other.
            let newPinned = Set(pinned.map { pattern.nodes[$0].slot }.filter { !known.contains($0) })
            guard pattern.pathSlot == nil, !pattern.relationships.isEmpty, Set(pinned.map { pattern.nodes[$0].slot }).count > 1,
                  newPinned.count == 1 else {
                result.append(pattern)
                known.formUnion(pattern.nodes.map(\.slot))
                continue
            }
            var chain = pattern
            var seen = Set<Int>()
            for i in pinned where seen.insert(pattern.nodes[i].slot).inserted {
                let node = pattern.nodes[i]
                // A node bound before is an argument of the chain, checked there as written.
                guard !known.contains(node.slot) else { continue }
                result.append(BoundPattern(nodes: [node], relationships: []))
                for k in chain.nodes.indices where chain.nodes[k].slot == node.slot {
                    chain.nodes[k].labels = []
                    chain.nodes[k].properties = []
                }
            }
            result.append(chain)
            known.formUnion(pattern.nodes.map(\.slot))
        }
        return result
    }

    /// The node to start a chain from: bound > seek on a label's index > seek on a property
    /// value without a label (every index on the key, and the nodes no index covers) > label
    /// scan > the first node. The seeks yield the few nodes holding the value; a label scan
    /// yields every member, each then expanded.
    static func startIndex(of pattern: BoundPattern, bound: Set<Int>, idSought: (Int) -> Bool = { _ in false },
                           listSought: (Int) -> Bool = { _ in false }) -> Int {
        if let i = pattern.nodes.firstIndex(where: { bound.contains($0.slot) }) { return i }
        if let i = pattern.nodes.firstIndex(where: { idSought($0.slot) }) { return i }
        if let i = pattern.nodes.firstIndex(where: { seekable($0, bound: bound)?.0 != nil }) { return i }
        if let i = pattern.nodes.firstIndex(where: { seekable($0, bound: bound) != nil }) { return i }
        if let i = pattern.nodes.firstIndex(where: { !$0.labels.isEmpty && listSought($0.slot) }) { return i }
        if let i = pattern.nodes.firstIndex(where: { !$0.labels.isEmpty }) { return i }
        return 0
    }

    /// A (label, key, value) to seek on: a node with a property value known before the pattern
    /// runs (a literal, a parameter, or an expression over already bound variables), and its
    /// first label; without one, the seek asks every index on the key.
    static func seekable(_ node: BoundNodePattern, bound: Set<Int>) -> (String?, String, Expression)? {
        node.properties.first { isKnown($0.value, bound: bound) }.map { (node.labels.first, $0.key, $0.value) }
    }

    /// A WHERE conjunct `id(n) = value` (either way round) or `id(n) IN list` on the node in
    /// `slot`, with a value known before the pattern runs: its index among `conjuncts`, the
    /// value, and whether it is a list. The node is then found by its id (NodeByIdSeek),
    /// whatever else the pattern or WHERE says of it.
    static func idEquality(of slot: Int, in conjuncts: [Expression], bound: Set<Int>)
        -> (index: Int, value: Expression, inList: Bool)? {
        for (index, conjunct) in conjuncts.enumerated() {
            switch conjunct {
            case .binary(.equal, let l, let r):
                for (side, value) in [(l, r), (r, l)]
                where Normalizer.nodeID(side, nodes: [slot]) != nil && isKnown(value, bound: bound) {
                    return (index, value, false)
                }
            case .binary(.in, let l, let r) where Normalizer.nodeID(l, nodes: [slot]) != nil && isKnown(r, bound: bound):
                return (index, r, true)
            default:
                continue
            }
        }
        return nil
    }

    /// A WHERE conjunct `n.key IN list` on the node in `slot`, with a list known before the
    /// pattern runs: the key and the list (the conjunct stays, to filter what is sought).
    static func propertyIn(of slot: Int, in conjuncts: [Expression], bound: Set<Int>) -> (key: String, list: Expression)? {
        for conjunct in conjuncts {
            if case .binary(.in, .property(.slot(slot), let key), let list) = conjunct, isKnown(list, bound: bound) {
                return (key, list)
            }
        }
        return nil
    }

    /// Whether a property map's value is known before the pattern runs (a literal other than
    /// null, a parameter, or an expression over `bound` slots), so a node can be found by it.
    static func isKnown(_ value: Expression, bound: Set<Int>) -> Bool {
        if case .literal(.null) = value { return false }
        return value.referencedSlots?.isSubset(of: bound) ?? false
    }
}

extension Expression {
    /// The slots the expression reads, or nil when it holds something a plan cannot precompute
    /// (an aggregate result).
    var referencedSlots: Set<Int>? {
        switch self {
        case .literal, .parameter: return []
        case .slot(let s): return [s]
        case .variable, .aggregateResult: return nil
        case .property(let base, _), .unary(_, let base), .isNull(let base, _), .hasLabels(let base, _):
            return base.referencedSlots
        case .binary(_, let l, let r), .subscriptIndex(let l, let r):
            guard let a = l.referencedSlots, let b = r.referencedSlots else { return nil }
            return a.union(b)
        case .slice(let base, let from, let to):
            return Expression.union([base] + [from, to].compactMap { $0 })
        case .caseExpression(let subject, let branches, let otherwise):
            return Expression.union([subject, otherwise].compactMap { $0 } + branches.flatMap { [$0.when, $0.then] })
        case .listComprehension(let variable, let list, let predicate, let projection):
            guard var all = Expression.union([list] + [predicate, projection].compactMap { $0 }) else { return nil }
            if case .slot(let s) = variable { all.remove(s) }
            return all
        case .reduce(let accumulator, let initial, let variable, let list, let expression):
            guard var all = Expression.union([initial, list, expression]) else { return nil }
            if case .slot(let s) = accumulator { all.remove(s) }
            if case .slot(let s) = variable { all.remove(s) }
            return all
        case .quantifier(_, let variable, let list, let predicate):
            guard var all = Expression.union([list, predicate]) else { return nil }
            if case .slot(let s) = variable { all.remove(s) }
            return all
        case .mapProjection(let base, let items):
            return Expression.union([base] + items.compactMap { item -> Expression? in
                switch item {
                case .literal(_, let e), .variable(_, let e): return e
                case .property, .allProperties: return nil
                }
            })
        case .patternPredicate, .patternComprehension, .subquery: return nil
        case .list(let elements): return Expression.union(elements)
        case .map(let entries): return Expression.union(entries.map(\.value))
        case .function(let call): return Expression.union(call.arguments)
        }
    }

    static func union(_ expressions: [Expression]) -> Set<Int>? {
        var all: Set<Int> = []
        for e in expressions {
            guard let s = e.referencedSlots else { return nil }
            all.formUnion(s)
        }
        return all
    }
}
