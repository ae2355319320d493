// BoundQuery.swift — the output of the semantic pass: clauses whose variables are resolved to
// row slots, whose functions are known, and whose aggregates are pulled out of projections.
// The planner turns it into operators; nothing here depends on a particular graph.

/// A node in a pattern, its variable resolved to a slot (anonymous nodes get hidden slots).
struct BoundNodePattern: Sendable {
    var slot: Int
    var labels: [String]
    var properties: [(key: String, value: Expression)]
}

/// A relationship in a pattern, its variable resolved to a slot.
struct BoundRelationshipPattern: Sendable {
    var slot: Int
    var types: [String]
    var properties: [(key: String, value: Expression)]
    var direction: PatternDirection
    /// Hop bounds of a variable-length relationship, whose slot then holds a list of relationships.
    var length: VariableLength? = nil
    /// Whether the query names the relationship (`[r:FRIEND]`), so that later clauses may read it.
    var isNamed = true
}

/// A pattern chain: `nodes.count == relationships.count + 1`; relationship i joins node i and i+1.
struct BoundPattern: Sendable {
    var nodes: [BoundNodePattern]
    var relationships: [BoundRelationshipPattern]
    /// The slot of `p` in `p = (…)`, which receives the matched path.
    var pathSlot: Int? = nil
    /// Set for `shortestPath(…)` / `allShortestPaths(…)`: one relationship, always with a
    /// length (`*1..1` for one written without), and a path slot (hidden when unnamed).
    var shortest: ShortestPathKind? = nil
    /// The shortest path's relationship was written without a length: its slot holds the one
    /// relationship, not a list.
    var shortestIsSingleHop = false
}

/// MATCH after binding.
struct BoundMatch: Sendable {
    var patterns: [BoundPattern]
    var predicate: Expression?
    var isOptional: Bool
    /// Slots that hold values before this clause runs (variables of earlier clauses).
    var boundBefore: Set<Int>
    /// Slots this clause introduces: set to null by OPTIONAL MATCH when nothing matches.
    var introduced: [Int]
    /// The uniqueness group of relationships, by slot: two relationships must differ only within
    /// a group (openCypher's uniqueness holds per MATCH clause; the Normalizer joins clauses,
    /// keeping each one's group). A relationship not listed is in group 0.
    var relationshipGroups: [Int: Int] = [:]
}

/// CREATE after binding.
struct BoundCreate: Sendable {
    var patterns: [BoundPattern]
    var boundBefore: Set<Int>
}

/// An aggregate call pulled out of a projection item; `argument` is nil for `count(*)`.
struct BoundAggregate: Sendable {
    var function: AggregateFunction
    var isDistinct: Bool
    var argument: Expression?
    /// percentileDisc's and percentileCont's second argument.
    var percentile: Expression? = nil
}

/// WITH or RETURN after binding. Item expressions read the input row; aggregate calls in them
/// were replaced by `.aggregateResult(i)`. ORDER BY and WITH's WHERE read the output row
/// (slot i = item i), and when `sortSeesInput`, the input row after it at `items.count + slot`.
struct BoundProjection: Sendable {
    var items: [(name: String, expression: Expression)]
    var aggregates: [BoundAggregate]
    var isDistinct: Bool
    var orderBy: [(expression: Expression, ascending: Bool)]
    var sortSeesInput: Bool
    var skip: Expression?
    var limit: Expression?
    var predicate: Expression?
    /// The planner rule that rewrote this projection's aggregates (EXPLAIN names it).
    var rule: String? = nil
    var isAggregating: Bool { !aggregates.isEmpty }
}

/// CALL after binding: the procedure by name (looked up in the engine's registry when it runs),
/// resolved arguments, and which output column goes to which slot.
struct BoundCall: Sendable {
    var name: String
    var arguments: [Expression]
    var outputs: [(column: Int, slot: Int)]
    var predicate: Expression?
    var isReadOnly: Bool
    /// The procedure declares no outputs: each input row goes on once, as it came.
    var isVoid = false
    /// Set only by the planner's rewrite of an OPTIONAL MATCH (SocialPlanner): an input row
    /// for which no output row passes goes on once, with the output slots null.
    var isOptional = false
    /// Set only by the planner's connections rewrite (SocialPlanner.connections): the call
    /// runs once for all its input rows. When more than one row comes, they are folded into
    /// one whose first argument's slot holds the list of their values (nulls dropped), and the
    /// procedure answers for them together, as the grouping it replaces did. Nothing after the
    /// call may read the input rows' other slots.
    var gathersInput = false
    /// The planner rule that made this call out of a plain pattern (EXPLAIN names it); nil
    /// for a CALL the query wrote.
    var rule: String? = nil
    /// Set by a rule whose call may find, for some rows, that the rewrite does not hold
    /// (QueryEngine.rewriteDoesNotHold): the plan as bound is kept beside it.
    var mayNotHold = false
}

/// MERGE after binding: the pattern to look for (with its slots) and to create when absent.
struct BoundMerge: Sendable {
    var match: BoundMatch
    var create: BoundCreate
    var onCreate: [SetItem]
    var onMatch: [SetItem]
    /// `MERGE p = …`: the slot of the path, bound from the created pattern too.
    var pathSlot: Int? = nil
}

/// A clause after binding (BoundQuery pairs each with the row width in effect after it).
enum BoundClause: Sendable {
    case match(BoundMatch)
    case create(BoundCreate)
    case unwind(list: Expression, slot: Int)
    case projection(BoundProjection)
    case call(BoundCall)
    /// SET items with resolved expressions (shared with MERGE's ON CREATE / ON MATCH).
    case set([SetItem])
    case remove([RemoveItem])
    case delete(detach: Bool, targets: [Expression])
    case merge(BoundMerge)
    case schema(SchemaCommand)
    case loadCSV(url: Expression, withHeaders: Bool, slot: Int, terminator: UInt8)
}

/// A whole query after binding.
struct BoundQuery: Sendable {
    /// Each clause with the row width after it.
    var clauses: [(clause: BoundClause, width: Int)]
    /// Column names when the query ends in RETURN; nil for a pure write.
    var columns: [String]?
    /// Parallel to `clauses`: the variable name of each named slot after the clause.
    var slotNames: [[Int: String]] = []
    var isUpdating: Bool
    var parameterNames: Set<String>
    /// The UNION parts after this one, bound each in a scope of its own.
    var unions: [(all: Bool, query: BoundQuery)] = []
}
