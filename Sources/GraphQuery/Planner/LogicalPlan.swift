// LogicalPlan.swift — the operators a query runs as, in order. A plan holds names, not schema
// ids, so it is valid for any graph and can be cached by query text; names are resolved to
// ids when the plan runs.

/// How a pattern match finds or extends its rows, one step at a time.
indirect enum PatternOperator: Sendable {
    /// Every node into `slot`.
    case allNodesScan(slot: Int)
    /// Every node with `label` into `slot`.
    case labelScan(slot: Int, label: String)
    /// Nodes with `label` whose `key` equals `value` (an index when the store has one); without
    /// a label, nodes of any labels (Graph.nodeIDs(key:equalTo:): every index on `key` at once).
    case propertySeek(slot: Int, label: String?, key: String, value: Expression)
    /// The node whose id is `id` (`WHERE id(n) = value`), when one exists, or with `inList`
    /// the nodes whose ids `id`'s list holds (`WHERE id(n) IN list`), in id order: no scan.
    case idSeek(slot: Int, id: Expression, inList: Bool)
    /// Candidates for `WHERE n.key IN list` on a node of `label`, in id order: each listed
    /// value's nodes when (label, key) is indexed, else every node of the label. The conjunct
    /// itself still filters them.
    case propertyListSeek(slot: Int, label: String, key: String, list: Expression)
    /// `slot` already holds a node (from an earlier clause or pattern): it must not be null.
    case argument(slot: Int)
    /// Follows relationships of `types` (all when empty) from the node in `from`.
    /// `to` already holding a node makes this a check; `exclude` are the relationship slots
    /// this MATCH bound earlier, which must differ (openCypher's relationship uniqueness).
    /// `bindsRelationship` false: nothing reads the relationship (anonymous, unfiltered, not
    /// in a path, no later uniqueness check), so its slot gets null instead of an id that an
    /// incoming list would have to look up.
    case expand(from: Int, relationship: Int, to: Int, types: [String], direction: PatternDirection,
                toIsBound: Bool, relationshipIsBound: Bool, exclude: [Int], bindsRelationship: Bool)
    /// The node in `slot` must have all `labels` and property values equal to `properties`.
    case nodeFilter(slot: Int, labels: [String], properties: [(key: String, value: Expression)])
    /// The relationship in `slot` must have property values equal to `properties`.
    case relationshipFilter(slot: Int, properties: [(key: String, value: Expression)])
    /// A variable-length expansion from `from`: `relationship` receives the list of relationships
    /// walked (no relationship twice: openCypher's uniqueness), `to` the end node; every matching
    /// relationship must have `properties`. `bindsRelationships` false: nothing reads the list
    /// (anonymous, not in a path, no later uniqueness check), so the slot gets null instead of
    /// a list built for every path.
    case variableExpand(from: Int, relationship: Int, to: Int, types: [String], direction: PatternDirection,
                        toIsBound: Bool, min: Int, max: Int?, properties: [(key: String, value: Expression)], exclude: [Int],
                        bindsRelationships: Bool)
    /// `from` and `to` are both bound and the relationship is not needed: a binary search of
    /// `from`'s sorted adjacency (what `NOT (a)-[:FRIEND]-(b)` becomes), not a walk.
    case adjacencyCheck(from: Int, to: Int, types: [String], direction: PatternDirection)
    /// A WHERE conjunct, placed right after the operator that binds the last slot it reads.
    case filter(Expression)
    /// The list of relationships in `slot` reversed: a variable-length relationship walked from
    /// its pattern's right end is bound in the pattern's order, left to right.
    case reverseList(slot: Int)
    /// Builds the path value of `p = (…)` from the pattern's node and relationship slots.
    case bindPath(slot: Int, nodes: [Int], relationships: [Int])
    /// `shortestPath(…)` / `allShortestPaths(…)` between two bound nodes.
    case shortestPath(ShortestPathStep)
    /// A variable-length relationship whose variable an earlier clause bound to a list of
    /// relationships (`WITH [r1, r2] AS rs MATCH (a)-[rs*]->(b)`): the list must be a walk
    /// from the node in `from` (taken from its end when `reversed`), `direction`-wise, of
    /// `types`, with `min...max` relationships; `to` receives (or must hold) where it ends.
    case followList(from: Int, relationship: Int, to: Int, types: [String], direction: PatternDirection,
                    toIsBound: Bool, min: Int, max: Int?, reversed: Bool)
}

/// What a shortest-path operator searches for: the least-length paths from the node in `from`
/// to the node in `to` (both bound), along relationships of `types` (all when empty) with
/// `properties`, of `min...max` hops. Each path found binds `path`, and `relationship` (its
/// list of relationships, or the one relationship when `singleHop`).
struct ShortestPathStep: Sendable {
    var from: Int
    var relationship: Int
    var to: Int
    var path: Int
    var types: [String]
    var direction: PatternDirection
    var min: Int
    var max: Int?
    var properties: [(key: String, value: Expression)]
    var kind: ShortestPathKind
    var singleHop: Bool
    /// WHERE conjuncts every step must pass, `all(r IN relationships(p) WHERE …)`, `none(…)`
    /// and the same over `nodes(p)` or the relationship list: checked on each relationship
    /// (and its two nodes) as the breadth-first search meets it, so they keep it.
    var stepConditions: [PathStepCondition] = []
    /// The other WHERE conjuncts that read the path or its relationships: the shortest paths are
    /// those of the least length among the paths passing them, as in Neo4j, found by a search
    /// that tries every path of each length in turn instead of by breadth-first search.
    var predicate: Expression?
}

/// One step of a plan; each maps the current rows to new rows.
indirect enum PlanStep: Sendable {
    case match(operators: [PatternOperator], predicate: Expression?, isOptional: Bool, introduced: [Int])
    case create(BoundCreate)
    case unwind(list: Expression, slot: Int)
    case projection(BoundProjection)
    case call(BoundCall)
    case set([SetItem])
    case remove([RemoveItem])
    case delete(detach: Bool, targets: [Expression])
    /// MERGE: `operators` look for the pattern given the row; when none match, `create` runs.
    case merge(operators: [PatternOperator], merge: BoundMerge)
    case schema(SchemaCommand)
    case loadCSV(url: Expression, withHeaders: Bool, slot: Int, terminator: UInt8)

    /// A call that runs once for all its input rows (BoundCall.gathersInput).
    var gathersInput: Bool {
        if case .call(let call) = self { call.gathersInput } else { false }
    }
}

/// A runnable plan.
struct LogicalPlan: Sendable {
    /// Steps with the row width in effect after each.
    var steps: [(step: PlanStep, width: Int)]
    var columns: [String]?
    /// Parallel to `steps`: variable names by slot, so EXPLAIN can print `u` instead of `#0`.
    var slotNames: [[Int: String]] = []
    var isUpdating: Bool
    var parameterNames: Set<String>
    /// UNION parts run after this plan; their rows are appended (and deduplicated unless ALL).
    var unions: [(all: Bool, plan: LogicalPlan)] = []
    /// `steps`, boxed once for the executor's row-at-a-time dispatch (StreamState): boxing
    /// them on every run cost a point lookup an allocation per step.
    var stepBoxes: [StepBox] = []
    /// Set when the plan is a point lookup, which runs without the general executor.
    var pointLookup: PointLookup?
    /// Stretches that run batched (BatchExecutor), by the step of the aggregation they feed.
    var batchPrograms: [Int: BatchProgram] = [:]

    /// Whether a step takes a group's only row (`AggregateFunction.onlyRow`) or is a call that
    /// may not hold (`BoundCall.mayNotHold`): a rewrite that may find it does not hold for the
    /// data, so the plan as bound is kept beside it.
    var mayNotHold: Bool {
        steps.contains { step in
            switch step.step {
            case .projection(let projection): return projection.aggregates.contains { $0.function == .onlyRow }
            case .call(let call): return call.mayNotHold
            default: return false
            }
        } || unions.contains { $0.plan.mayNotHold }
    }
}

/// A condition on every relationship or every node of a shortest path: `predicate`, reading the
/// element in `slot`, must be `expected` (true for `all`, false for `none`).
struct PathStepCondition: Sendable {
    var slot: Int
    var predicate: Expression
    var expected: Bool
    /// Whether the elements are the path's nodes rather than its relationships.
    var onNodes: Bool
}
