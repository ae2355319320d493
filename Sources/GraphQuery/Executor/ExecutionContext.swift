// ExecutionContext.swift — what one run of a plan carries: the graph (in place, never copied,
// so writes do not trigger copy-on-write and reads retain nothing), the bound parameters, the
// statistics counters, the engine's procedures, the watchdog (deadline and memory cap) and,
// for PROFILE, the per-step counters. It lives only inside the store's read or write closure.

import GraphStore

/// A row: one value per slot of the current scope.
typealias Row = [RuntimeValue]

/// The state of one query run. A final class, used by one thread only: the operators are
/// methods on it and recurse for every row, and a struct this size was copied (every field
/// retained and released) on every call of the matcher.
///
/// The graph is reached through a pointer to the caller's own storage (the store's, under its
/// read or write lock). A `Graph` is a struct of about fourteen buffers; calling a method of
/// another module on a class's stored `Graph` copies the struct first (retaining and releasing
/// every buffer, the same reference counts on every reader core). An `inout` borrow does not,
/// so the hot read paths go through `withGraph`.
///
/// Its stored variables are `@exclusivity(unchecked)`: a context never leaves its run's thread,
/// and no access to one of them overlaps another access to the same one, so the runtime's
/// dynamic exclusivity check (a thread-local access set consulted on every access to a class's
/// `var`) bought nothing: it was 5% of the server's time for a row-heavy query, every `n.key`
/// reading `recentPropertyKeys`.
final class ExecutionContext {
    private let graphStorage: UnsafeMutablePointer<Graph>
    /// The run's graph. Reading a member through this copies the struct: hot paths use `withGraph`.
    var graph: Graph {
        get { graphStorage.pointee }
        _modify { yield &graphStorage.pointee }
    }
    let parameters: [String: RuntimeValue]
    @exclusivity(unchecked) var statistics = QueryStatistics()
    let registry: ProcedureRegistry
    let watchdog: Watchdog
    /// Non-nil under PROFILE.
    @exclusivity(unchecked) var profiler: Profiler?
    /// Result rows allowed before the query fails (nil: no limit).
    let resultRowLimit: Int?
    /// The only directory LOAD CSV may read (nil: LOAD CSV of files is disabled).
    @exclusivity(unchecked) var importDirectory: String? = nil
    /// The last property keys and labels resolved to ids (Evaluator's propertyKeyID,
    /// PatternMatcher's hasLabel). Ids never change meaning within a run (names are only ever
    /// added), so the pairs stay right.
    @exclusivity(unchecked) var recentPropertyKeys = RecentNames<PropertyKeyID>()
    /// What the run's social procedure calls share (SocialRunCache).
    @exclusivity(unchecked) var socialRun = SocialRunCache()
    /// The long list `IN` tests last read, indexed once it is read again (ListMembership).
    @exclusivity(unchecked) var listMembership = ListMembership()
    /// The instant `datetime()` and `*.statement()` read, fixed at its first reading in the query.
    @exclusivity(unchecked) var statementClock: (seconds: Int64, nanos: Int64)? = nil
    /// The procedure the run called last, by name: a call per row (a rewritten OPTIONAL MATCH)
    /// looks it up once instead of lower-casing and hashing its name every time.
    @exclusivity(unchecked) var recentProcedure: ResolvedProcedure?
    @exclusivity(unchecked) var recentLabels = RecentNames<LabelID>()
    /// The last relationship types of one name resolved (`[:FRIEND]`), as the one-element
    /// array an expansion iterates: no hashing and no allocation per expansion.
    @exclusivity(unchecked) var recentTypes = RecentNames<[RelationshipTypeID]>()
    /// Dense per-node counters for batched aggregations (BatchGroups), lent by the engine; nil
    /// allocates them per run.
    @exclusivity(unchecked) var groupCounters: GroupCounterPool?
    /// The traversal scratch shortest-path searches borrow, lent by the engine; nil makes a
    /// fresh one per search.
    @exclusivity(unchecked) var traversalScratch: TraversalScratchPool?
    /// Whether the plan changes nothing: an operator may then go on from inside a store search
    /// that holds the graph (ShortestPathOperator).
    @exclusivity(unchecked) var isReadOnly = false
    /// Set once the run deletes something: reading a property or the labels of an entity then
    /// checks that it still exists (ids freed by the run are not reused before it commits).
    @exclusivity(unchecked) var hasDeleted = false

    /// The error for reading what this query deleted (Neo4j's DeletedEntityAccess).
    static func deletedAccess(_ entity: String, _ id: UInt32) -> QueryError {
        QueryError(.runtime, "The \(entity) \(id) was deleted by this query: its properties and labels can no longer be read")
    }
    /// The store the run reads or writes, locked by it: change tokens come from it. Nil for a
    /// graph outside any store.
    @exclusivity(unchecked) var changeStore: GraphStore?
    /// Where the plan's returned rows go (Executor.run); nil for a plan that returns nothing.
    /// The last stretch's stream holds it (StreamState) while it runs.
    @exclusivity(unchecked) var collector: ResultCollector?

    /// `graph` must stay valid, and be changed by nobody else, for the life of the context.
    init(graph: UnsafeMutablePointer<Graph>, parameters: [String: RuntimeValue], registry: ProcedureRegistry = .standard,
         watchdog: Watchdog = Watchdog(timeout: nil, memoryLimit: nil), profiler: Profiler? = nil,
         resultRowLimit: Int? = nil) {
        self.graphStorage = graph
        self.parameters = parameters
        self.registry = registry
        self.watchdog = watchdog
        self.profiler = profiler
        self.resultRowLimit = resultRowLimit
    }

    /// Runs `body` on the graph in place (no copy). `body` must not reach `graph` or
    /// `withGraph` again by another path while it runs; keep it to the store calls it makes,
    /// and give it no closure that captures the graph (`map { g.… }`): the capture copies it.
    @inline(__always)
    func withGraph<R, E: Error>(_ body: (inout Graph) throws(E) -> R) throws(E) -> R {
        try body(&graphStorage.pointee)
    }

    /// The graph's address, for the batched executor's reads (Graph+PointerReads.swift).
    var graphPointer: UnsafePointer<Graph> { UnsafePointer(graphStorage) }

    // The per-row reads, through the graph's pointer (Graph+PointerReads.swift: a call on the
    // graph itself would copy all of it).

    @inline(__always)
    func property(_ key: PropertyKeyID, of node: NodeID) -> Value {
        Graph.property(key, of: node, in: graphStorage)
    }

    @inline(__always)
    func property(_ key: PropertyKeyID, of relationship: RelationshipID) -> Value {
        Graph.property(key, of: relationship, in: graphStorage)
    }

    @inline(__always)
    func node(_ node: NodeID, hasLabel label: LabelID) -> Bool {
        Graph.node(node, hasLabel: label, in: graphStorage)
    }

    @inline(__always)
    func adjacency(of node: NodeID, type: RelationshipTypeID, direction: Direction) -> AdjacencyList {
        Graph.adjacency(of: node, type: type, direction: direction, in: graphStorage)
    }

    /// Appends `row` to the stream's result collector (there must be one), handing it the
    /// graph by pointer (`ResultCollector.append(_:graph:)`).
    @inline(__always)
    func collect(_ row: Row, into state: inout StreamState) throws(QueryError) {
        try state.collector!.append(row, graph: graphStorage)
    }

    /// Appends one cell of a row begun with `ResultCollector.beginRow` to `collector` (the
    /// stream's, taken out), as `collect` appends each of a row's.
    @inline(__always)
    func collectCell(_ value: RuntimeValue, into collector: inout ResultCollector) {
        collector.appendCell(value, graph: graphStorage)
    }

    /// Maps a store error to the query layer's: constraint violations keep their category.
    static func queryError(_ error: GraphError) -> QueryError {
        QueryError(error.kind == .constraintViolation ? .constraint : .runtime, error.message)
    }
}

/// PROFILE's counters: rows each plan step produced and the time spent in it (excluding the
/// steps it fed). A class shared by the recursive streaming calls of one run.
final class Profiler {
    // Per row, on the run's thread only (see ExecutionContext on `@exclusivity(unchecked)`).
    @exclusivity(unchecked) var rows: [Int]
    @exclusivity(unchecked) var time: [Duration]
    init(steps: Int) {
        rows = Array(repeating: 0, count: steps)
        time = Array(repeating: .zero, count: steps)
    }
}

/// The last four names (property keys or labels) a run resolved to ids, most recent first: a
/// query reads a handful of keys (`u.name, u.username`) and checks a label or two row after
/// row, and comparing a short string costs less than hashing it into the graph's name table.
/// Inline slots, no allocation.
struct RecentNames<ID> {
    private var names: (String?, String?, String?, String?) = (nil, nil, nil, nil)
    private var ids: (ID?, ID?, ID?, ID?) = (nil, nil, nil, nil)

    /// The id `name` was remembered with, if it is one of the four. `mutating` although it
    /// changes nothing: called on the context's stored property (a class's), a non-mutating
    /// call copied the whole struct out first, four strings retained and released, on every
    /// property read of every row; a mutating one works on the slots in place.
    @inline(__always) mutating func id(of name: String) -> ID? {
        if names.0 == name { return ids.0 }
        if names.1 == name { return ids.1 }
        if names.2 == name { return ids.2 }
        if names.3 == name { return ids.3 }
        return nil
    }

    /// Remembers `name`, forgetting the least recently added of four.
    mutating func remember(_ name: String, _ id: ID) {
        names = (name, names.0, names.1, names.2)
        ids = (id, ids.0, ids.1, ids.2)
    }
}
