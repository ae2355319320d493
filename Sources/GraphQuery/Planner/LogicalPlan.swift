// LogicalPlan.swift — the operators a query runs as, in order. A plan holds names, not schema
// ids, so it is valid for any graph and can be cached by query text; names are resolved to
// ids when the plan runs.

/// How a pattern match finds or extends its rows, one step at a time.
enum PatternOperator: Sendable {
    /// Every node into `slot`.
    case allNodesScan(slot: Int)
    /// Every node with `label` into `slot`.
    case labelScan(slot: Int, label: String)
    /// Nodes with `label` whose `key` equals `value` (an index when the store has one).
    case propertySeek(slot: Int, label: String, key: String, value: Expression)
    /// `slot` already holds a node (from an earlier clause or pattern): it must not be null.
    case argument(slot: Int)
    /// Follows relationships of `types` (all when empty) from the node in `from`.
    /// `to` already holding a node makes this a check; `exclude` are the relationship slots
    /// this MATCH bound earlier, which must differ (openCypher's relationship uniqueness).
    case expand(from: Int, relationship: Int, to: Int, types: [String], direction: PatternDirection,
                toIsBound: Bool, relationshipIsBound: Bool, exclude: [Int])
    /// The node in `slot` must have all `labels` and property values equal to `properties`.
    case nodeFilter(slot: Int, labels: [String], properties: [(key: String, value: Expression)])
    /// The relationship in `slot` must have property values equal to `properties`.
    case relationshipFilter(slot: Int, properties: [(key: String, value: Expression)])
}

/// One step of a plan; each maps the current rows to new rows.
enum PlanStep: Sendable {
    case match(operators: [PatternOperator], predicate: Expression?, isOptional: Bool, introduced: [Int])
    case create(BoundCreate)
    case unwind(list: Expression, slot: Int)
    case projection(BoundProjection)
}

/// A runnable plan.
struct LogicalPlan: Sendable {
    /// Steps with the row width in effect after each.
    var steps: [(step: PlanStep, width: Int)]
    var columns: [String]?
    var isUpdating: Bool
    var parameterNames: Set<String>
}
