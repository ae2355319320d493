// Procedure.swift — the CALL framework: what a procedure is (a signature and a body that turns
// arguments into rows), how scalar functions from other files plug in, and the context both get.
// The binder checks calls against signatures; Executor/ProcedureCallOperator.swift runs them.

import GraphStore

/// The type of a procedure argument or output column, checked when arguments are passed
/// (`any` accepts everything; every type accepts null unless the procedure checks itself).
public enum ProcedureValueType: String, Sendable, Hashable {
    case any = "ANY", boolean = "BOOLEAN", integer = "INTEGER", float = "FLOAT", number = "NUMBER"
    case string = "STRING", list = "LIST", map = "MAP", node = "NODE", relationship = "RELATIONSHIP"

    /// True when `value` may be passed where this type is declared.
    func accepts(_ value: RuntimeValue) -> Bool {
        switch (self, value) {
        case (.any, _), (_, .null): return true
        case (.boolean, .bool), (.integer, .integer), (.float, .double), (.float, .integer),
             (.number, .integer), (.number, .double), (.string, .string), (.list, .list), (.map, .map),
             (.node, .node), (.relationship, .relationship): return true
        default: return false
        }
    }
}

/// A named, typed argument or output column of a procedure.
public struct ProcedureField: Sendable, Hashable {
    public var name: String
    public var type: ProcedureValueType
    /// An argument a call may leave out (only trailing ones, as Neo4j's defaulted arguments):
    /// the procedure then gets null, which it reads as its default (an options map: none).
    public var isOptional: Bool
    public init(_ name: String, _ type: ProcedureValueType, isOptional: Bool = false) {
        self.name = name; self.type = type; self.isOptional = isOptional
    }
}

/// What a procedure is called and what it takes and yields.
public struct ProcedureSignature: Sendable, Hashable {
    /// The full dotted name, e.g. `db.labels`; matched case-sensitively, as Neo4j does.
    public var name: String
    public var arguments: [ProcedureField]
    /// The columns each output row holds, in order; `YIELD` picks among them by name.
    public var outputs: [ProcedureField]
    /// False for procedures that change the graph: a query calling one runs as a write
    /// transaction and is refused by `readOnly` execution (GRAPH.RO_QUERY).
    public var isReadOnly: Bool
    /// True when the procedure's work is bounded by the neighbourhood of what it is given (one
    /// node's lists, one pair's intersection) and the rows it yields, so that the server may
    /// try it on its I/O thread (QueryEngine.executeIfQuick). Its compute phase cannot be
    /// interrupted there, so anything that may walk two hops from a hub leaves this false.
    public var answersQuickly: Bool

    public init(name: String, arguments: [ProcedureField] = [], outputs: [ProcedureField], isReadOnly: Bool = true,
                answersQuickly: Bool = false) {
        self.name = name; self.arguments = arguments; self.outputs = outputs; self.isReadOnly = isReadOnly
        self.answersQuickly = answersQuickly
    }
}

/// What a procedure or registered function may use besides the graph: the query's deadline
/// (long-running procedures call `checkDeadline()` in their loops) and, for writing procedures,
/// the statistics the reply reports.
public struct ProcedureContext {
    /// Counters the reply reports; a writing procedure adds what it changed.
    public var statistics: QueryStatistics
    let watchdog: Watchdog
    /// What the run's social calls share (the schema, a friend list), kept by the executor between calls.
    var socialRun: SocialRunCache
    /// The store the query runs in, for change tokens (held locked by the run); nil for a
    /// graph outside any store.
    let changeStore: GraphStore?

    init(statistics: QueryStatistics, watchdog: Watchdog, socialRun: SocialRunCache = SocialRunCache(),
         changeStore: GraphStore? = nil) {
        self.statistics = statistics
        self.watchdog = watchdog
        self.socialRun = socialRun
        self.changeStore = changeStore
    }

    /// The social schema of `graph` for `names`: resolved on the run's first call, reused by
    /// the next ones (a relationship-label query calls a procedure per listed user, and each
    /// resolution hashes eleven names).
    mutating func socialSchema(_ graph: Graph, names: SocialNames) -> SocialSchema {
        socialRun.schema(graph, names: names)
    }

    /// The friends `a` and `b` share, reusing `a`'s friend list across the run's calls
    /// (SocialRunCache.mutualFriends).
    mutating func mutualFriends(_ a: NodeID, _ b: NodeID, graph: Graph, schema: SocialSchema, pool: TraversalScratchPool) -> [NodeID] {
        socialRun.mutualFriends(a, b, graph: graph, schema: schema, pool: pool)
    }

    /// The number of friends `a` and `b` share, through the run's kept friend lists.
    mutating func mutualFriendCount(_ a: NodeID, _ b: NodeID, graph: Graph, schema: SocialSchema, pool: TraversalScratchPool) -> Int {
        socialRun.mutualFriendCount(a, b, graph: graph, schema: schema, pool: pool)
    }

    /// Throws the query's timeout error once the deadline has passed (cheap: reads the clock
    /// once every few hundred calls).
    public func checkDeadline() throws(QueryError) { try watchdog.tick() }
}

/// A procedure callable with `CALL name(args) [YIELD …]`. A read-only procedure gets the graph
/// of a read transaction (it must not mutate it); a writing one gets the query's write
/// transaction, rolled back with the rest of the query if anything later fails.
public protocol Procedure: Sendable {
    var signature: ProcedureSignature { get }
    /// The output rows, `signature.outputs.count` values each. Arguments have been count- and
    /// type-checked against the signature.
    func call(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> ProcedureRows
    /// The number of rows `call` would return for `arguments`, when the procedure can tell
    /// without making them; nil to have `call` make them and count them. A query that only
    /// counts a call's rows (`CALL … YIELD user RETURN count(user)`) asks this first. A
    /// procedure that answers promises that none of its rows has a null output column (so
    /// `count(column)` is the number of rows too) and throws the errors `call` would throw.
    func count(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> Int?
}

extension Procedure {
    /// Most procedures have no cheaper way to count their rows than to make them.
    public func count(_ arguments: [RuntimeValue], graph: inout Graph, context: inout ProcedureContext) throws(QueryError) -> Int? { nil }
}

/// A procedure's output: rows of `width` values, stored one after another in one buffer. A
/// procedure answering thousands of rows (an audience, a hub's friends) built an array per
/// row, allocated, filled, read once and freed; `append` writes the values in place.
/// An array literal of rows still reads as one (`return [[.integer(0)]]`, `return []`).
public struct ProcedureRows: Sendable, ExpressibleByArrayLiteral {
    public private(set) var values: [RuntimeValue] = []
    /// Values per row.
    public let width: Int
    /// The number of rows (counted apart from `values`: a row may have no values).
    public private(set) var count = 0

    /// No rows yet, room for `capacity` of them.
    public init(width: Int, capacity: Int = 0) {
        self.width = width
        values.reserveCapacity(width * capacity)
    }

    /// `rows`, as wide as the widest; a shorter row reads as null in its missing columns.
    public init(_ rows: [[RuntimeValue]]) {
        self.init(width: rows.map(\.count).max() ?? 0, capacity: rows.count)
        for row in rows { append(row: row) }
    }

    public init(arrayLiteral rows: [RuntimeValue]...) { self.init(rows) }

    /// Value `column` of row `row`.
    @inline(__always) public subscript(row: Int, column: Int) -> RuntimeValue { values[row * width + column] }

    public mutating func append(_ a: RuntimeValue) {
        precondition(width == 1, "ProcedureRows: a row of 1 value in rows of \(width)")
        values.append(a)
        count += 1
    }

    public mutating func append(_ a: RuntimeValue, _ b: RuntimeValue) {
        precondition(width == 2, "ProcedureRows: a row of 2 values in rows of \(width)")
        values.append(a)
        values.append(b)
        count += 1
    }

    public mutating func append(_ a: RuntimeValue, _ b: RuntimeValue, _ c: RuntimeValue) {
        precondition(width == 3, "ProcedureRows: a row of 3 values in rows of \(width)")
        values.append(a)
        values.append(b)
        values.append(c)
        count += 1
    }

    public mutating func append(_ a: RuntimeValue, _ b: RuntimeValue, _ c: RuntimeValue, _ d: RuntimeValue) {
        precondition(width == 4, "ProcedureRows: a row of 4 values in rows of \(width)")
        values.append(a)
        values.append(b)
        values.append(c)
        values.append(d)
        count += 1
    }

    /// Rows `range` of `other` (as wide as these), in order.
    public mutating func append(rows range: Range<Int>, of other: ProcedureRows) {
        precondition(other.width == width, "ProcedureRows: rows of \(other.width) values in rows of \(width)")
        values.append(contentsOf: other.values[range.lowerBound * width ..< range.upperBound * width])
        count += range.count
    }

    /// A row of up to `width` values; missing ones are null. (An array per row: a procedure
    /// answering thousands of rows appends them value by value above.)
    public mutating func append(row: [RuntimeValue]) {
        precondition(row.count <= width, "ProcedureRows: a row of \(row.count) values in rows of \(width)")
        values.append(contentsOf: row)
        if row.count < width { values.append(contentsOf: repeatElement(.null, count: width - row.count)) }
        count += 1
    }
}

/// A scalar function added from outside the built-in catalog (e.g. `social.canView(viewer, user)`),
/// usable anywhere an expression is. Names are matched case-insensitively, like built-ins.
public protocol RegisteredFunction: Sendable {
    /// The full dotted name, e.g. `social.canView`.
    var name: String { get }
    var minArguments: Int { get }
    var maxArguments: Int { get }
    func call(_ arguments: [RuntimeValue], graph: Graph) throws(QueryError) -> RuntimeValue
}

/// The procedures and extra functions one QueryEngine knows. A value: each engine holds its own,
/// built by `ProcedureRegistry.standard` (BuiltInProcedures.swift) unless the embedder passes another.
public struct ProcedureRegistry: Sendable {
    private(set) var procedures: [String: any Procedure] = [:]
    private(set) var functions: [String: any RegisteredFunction] = [:]

    /// An empty registry (no procedures at all); most callers want `.standard`.
    public init() {}

    /// Adds or replaces a procedure under its signature's name.
    public mutating func register(_ procedure: any Procedure) {
        // Keyed in lower case: clients call `DB.LABELS()` (falkordb-py) as well as `db.labels()`.
        procedures[procedure.signature.name.lowercased()] = procedure
    }

    /// Adds or replaces a scalar function; a name clashing with a built-in function is ignored
    /// by lookups (built-ins win), so register namespaced names.
    public mutating func register(function: any RegisteredFunction) {
        functions[function.name.lowercased()] = function
    }

    /// The procedure called `name` in any case (`DB.LABELS` finds `db.labels`), if registered.
    public func procedure(named name: String) -> (any Procedure)? { procedures[name.lowercased()] }

    /// The registered function called `name` (any case), if any.
    public func function(named name: String) -> (any RegisteredFunction)? { functions[name.lowercased()] }

    /// Every registered procedure's signature, sorted by name (for `dbms.procedures()`-style
    /// listings), but for the planner's own calls, whose names begin with a space.
    public var signatures: [ProcedureSignature] {
        procedures.values.map(\.signature).filter { !$0.name.hasPrefix(" ") }.sorted { $0.name < $1.name }
    }
}

/// What one run's social procedure calls share: the resolved social schema, and in a
/// read-only run the friends of the user the calls keep asking about. Within a run the graph's
/// names only grow (a write may intern one; nothing removes one before the run ends), so their
/// counts tell whether the cached ids are still the graph's; a read-only run's graph does not
/// change at all.
struct SocialRunCache {
    private var schemaNames = SocialNames()
    private var schemaCounts: Graph.NameCounts?
    private var cachedSchema: SocialSchema?
    /// Set for a run that writes nothing (Executor.run): only then may friend lists be kept.
    var mayKeepFriendLists = false
    /// The first user of the last mutual-friends call, and that user's friends once a second
    /// call asked about the same user (one call alone reads the lists directly).
    private var lastUser: NodeID?
    private var kept: KeptFriendsLease?

    /// The graph keeps the standard names resolved; other names are resolved once a run (and
    /// again if the run interns a name).
    mutating func schema(_ graph: Graph, names: SocialNames) -> SocialSchema {
        if names == .standard { return graph.socialSchema() }
        let counts = graph.nameCounts
        if let cachedSchema, schemaCounts == counts, schemaNames == names { return cachedSchema }
        let schema = SocialSchema(graph: graph, names: names)
        (schemaNames, schemaCounts, cachedSchema) = (names, counts, schema)
        return schema
    }

    /// The friends `a` and `b` share: through `a`'s kept friends when the run asked about `a`
    /// just before (a viewer and each listed user), else straight from the graph.
    mutating func mutualFriends(_ a: NodeID, _ b: NodeID, graph: Graph, schema: SocialSchema, pool: TraversalScratchPool) -> [NodeID] {
        guard let kept = keptFriends(of: a, graph: graph, schema: schema, pool: pool) else { return graph.mutualFriends(a, b, schema: schema) }
        return graph.mutualFriends(kept.friends, b, schema: schema)
    }

    /// How many friends `a` and `b` share, as `mutualFriends` finds them.
    mutating func mutualFriendCount(_ a: NodeID, _ b: NodeID, graph: Graph, schema: SocialSchema, pool: TraversalScratchPool) -> Int {
        guard let kept = keptFriends(of: a, graph: graph, schema: schema, pool: pool) else { return graph.mutualFriendCount(a, b, schema: schema) }
        return graph.mutualFriendCount(kept.friends, b, schema: schema)
    }

    /// `a`'s friends when this call is the second or later in a row about `a` in a read-only
    /// run (kept from then on, in a scratch lent by `pool` until the run ends); nil otherwise.
    private mutating func keptFriends(of a: NodeID, graph: Graph, schema: SocialSchema, pool: TraversalScratchPool) -> KeptFriendsLease? {
        guard mayKeepFriendLists else { return nil }
        defer { lastUser = a }
        guard lastUser == a else { return nil }
        if let kept, kept.friends.user == a { return kept }
        if let kept {
            kept.keep(a, graph: graph, schema: schema)
        } else {
            kept = KeptFriendsLease(a, graph: graph, schema: schema, pool: pool)
        }
        return kept
    }
}

/// A user's kept friends in a scratch borrowed from a pool for the length of a run: the run's
/// cache drops it when the run ends, and the scratch goes back to the pool.
final class KeptFriendsLease {
    private let pool: TraversalScratchPool
    private(set) var friends: KeptFriends

    init(_ user: NodeID, graph: Graph, schema: SocialSchema, pool: TraversalScratchPool) {
        self.pool = pool
        friends = KeptFriends(user, of: graph, schema: schema, scratch: pool.checkOut())
    }

    /// Keeps `user`'s friends instead, in the same scratch.
    func keep(_ user: NodeID, graph: Graph, schema: SocialSchema) { friends.keep(user, of: graph, schema: schema) }

    deinit { pool.checkIn(friends.releaseScratch()) }
}
