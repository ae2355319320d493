// QueryEngine.swift — the entry point of the query layer, calling the phases top to bottom:
// parameter header → EXPLAIN/PROFILE prefix → lexer/parser → binder (semantic checks) → planner
// → executor, with the plan cached by query body text. The server and embedding apps call
// `execute`, `explain` and `profile`, and read or change `configuration`.

import Glibc
import GraphStore
import Synchronization

/// Parses, plans (plans cached by query text) and runs queries. Thread-safe.
public final class QueryEngine: Sendable {
    /// Plans by query body text (the text after any `CYPHER` header, so that parameter values
    /// do not defeat the cache). Cleared whole when it reaches `cacheCapacity` entries.
    private let cache = Mutex<[PlanKey: CachedPlan]>([:])
    private let cacheCapacity: Int
    /// Query bodies that ran past `executeIfQuick`'s budget, with their strikes (`strikesOut`,
    /// `probation`).
    private let slowBodies = Mutex<[String: QuickRecord]>([:])
    private let settings: Mutex<QueryConfiguration>
    /// The procedures and registered functions queries may call.
    public let procedures: ProcedureRegistry
    /// False plans every query as bound, with none of the planner's rewrites (the Normalizer,
    /// the rules onto the kernels, the templates): the reference answer of every phrasing.
    let optimize: Bool
    /// Whether counts grouped by node run on the batched executor (BatchProgram).
    let batched: Bool
    /// The dense counters batched aggregations borrow (BatchGroups).
    let groupCounters = GroupCounterPool()
    /// The scratch shortest-path searches borrow (ShortestPathOperator).
    let traversalScratch = TraversalScratchPool()

    /// - Parameters:
    ///   - cacheCapacity: how many plans to keep before the cache is cleared.
    ///   - configuration: time, row and memory limits and the LOAD CSV directory.
    ///   - procedures: what `CALL` and registered functions can reach; `.standard` has every built-in.
    ///   - optimize: the planner rewrites queries (as every engine graphd serves with), or, when
    ///     false, plans them exactly as bound: the reference the metamorphic tests and the
    ///     benchmark harness check each phrasing's answer against.
    ///   - batched: stretches that count rows grouped by node run on the batched executor
    ///     (the default follows `optimize`); `optimize: false, batched: true` measures the
    ///     general executor without the rules.
    public init(cacheCapacity: Int = 1024, configuration: QueryConfiguration = QueryConfiguration(),
                procedures: ProcedureRegistry = .standard, optimize: Bool = true, batched: Bool? = nil) {
        self.cacheCapacity = max(1, cacheCapacity)
        self.settings = Mutex(configuration)
        self.procedures = procedures
        self.optimize = optimize
        self.batched = batched ?? optimize
    }

    /// The engine's limits; setting them affects queries that start afterwards (GRAPH.CONFIG SET).
    public var configuration: QueryConfiguration {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    /// `text` may start with FalkorDB's parameter header: `CYPHER name=value name2=value2 <query>`
    /// (values are Cypher literals; names may be backticked). `parameters` adds to/overrides them.
    /// readOnly: a query that would write fails with QueryError(.semantic,
    ///   "graph.RO_QUERY is to be executed only on read-only queries") before anything happens.
    /// Read queries run under store.read; writing queries under store.write (one transaction).
    /// A query starting with `EXPLAIN` returns its plan (one row per line, column `QUERY PLAN`)
    /// without running; `PROFILE` runs it and returns the plan with rows and time per operator.
    public func execute(_ text: String, on store: GraphStore, parameters: [String: Value] = [:],
                        readOnly: Bool = false) throws(QueryError) -> QueryResult {
        try execute(text, on: store, parameters: parameters, readOnly: readOnly, timeout: nil)
    }

    /// `execute` with a time limit: nil uses the configured default; the configured maximum
    /// caps it. Every operator checks the deadline, so a runaway query stops soon after it
    /// with a `.timeout` error, and a stopped write leaves nothing behind. `cancellation`,
    /// cancelled from another thread, stops the query the same way ("Query cancelled").
    public func execute(_ text: String, on store: GraphStore, parameters: [String: Value] = [:],
                        readOnly: Bool = false, timeout: Duration?,
                        cancellation: QueryCancellation? = nil) throws(QueryError) -> QueryResult {
        let clock = ContinuousClock()
        let started = clock.now
        let header = try ParameterHeader.split(text)
        let (mode, body) = QueryEngine.splitPrefix(header.body)
        let (compiled, cached) = try compile(body, forRun: mode != .explain)
        if mode == .explain {
            var result = QueryResult(columns: ["QUERY PLAN"], rows: compiled.plan.treeDescription().map { [.string($0)] },
                                     hasResultSet: true)
            result.statistics.cachedExecution = cached
            return result
        }
        let profiler = mode == .profile ? Profiler(steps: compiled.plan.steps.count) : nil
        var result = try run(compiled, on: store, header: header, parameters: parameters, readOnly: readOnly,
                             timeout: timeout, profiler: profiler, cancellation: cancellation, started: started)
        if let profiler {
            result = QueryResult(columns: ["QUERY PLAN"], rows: compiled.plan.treeDescription(profile: profiler).map { [.string($0)] },
                                 hasResultSet: true, statistics: result.statistics)
        }
        result.statistics.cachedExecution = cached
        result.statistics.executionTimeMilliseconds = QueryEngine.milliseconds(clock.now - started)
        return result
    }

    /// Whether `text` is a read expected to be quick: its plan may answer within the quick
    /// budget (`answersQuickly`) and it has not overrun that budget lately (no strikes). The
    /// server gives such a read, when it could not run at once (the graph's lock taken), a lane
    /// of its own instead of the queue behind long traversals.
    public func isPresumedQuick(_ text: String) -> Bool {
        guard let header = try? ParameterHeader.split(text) else { return false }
        let (mode, body) = QueryEngine.splitPrefix(header.body)
        guard mode == .run, let (compiled, _) = try? compile(body, forRun: false),
              !compiled.plan.isUpdating, compiled.answersQuickly else { return false }
        return slowBodies.withLock { bodies in bodies.isEmpty ? 0 : bodies[body]?.strikes ?? 0 } == 0
    }

    /// Runs `text` only if it is a quick read, for a caller that must not block (the server's
    /// I/O thread answering a cheap query itself instead of waking a worker): returns nil,
    /// having changed nothing, when the text writes, is EXPLAIN or PROFILE, was slow before,
    /// finds the graph's lock taken, or runs past `budget` — the caller then runs it the
    /// ordinary way. A text that keeps overrunning the budget (`strikesOut` times more often
    /// than not) is tried quickly only on probation (one call in `probation`). Errors (syntax,
    /// missing parameters, …) are thrown as `execute` throws them.
    public func executeIfQuick(_ text: String, on store: GraphStore, readOnly: Bool = false, timeout: Duration?,
                               budget: Duration) throws(QueryError) -> QueryResult? {
        let clock = ContinuousClock()
        let started = clock.now
        let header = try ParameterHeader.split(text)
        let (mode, body) = QueryEngine.splitPrefix(header.body)
        guard mode == .run else { return nil }
        // Planned, not yet run: a text declined here must not report its first run as cached.
        let (compiled, cached) = try compile(body, forRun: false)
        if compiled.plan.isUpdating && !readOnly { return nil }
        guard compiled.answersQuickly else { return nil }
        let strikes = slowBodies.withLock { bodies -> Int in
            guard !bodies.isEmpty, let record = bodies[body] else { return 0 }  // usually empty: no hashing
            guard record.strikes >= QueryEngine.strikesOut else { return record.strikes }
            // Struck out: every `probation`-th call is tried again, so a text that overran while
            // the server was cold, or while one hub's pair was asked for, is not sent to a
            // worker for good. A quick try takes a strike back; then it is tried every time.
            bodies[body]!.passedOver += 1
            return bodies[body]!.passedOver % QueryEngine.probation == 0 ? QueryEngine.strikesOut - 1 : record.strikes
        }
        if strikes >= QueryEngine.strikesOut { return nil }
        if !cached { _ = try compile(body, forRun: true) }  // the trial uses the plan: once a text
        let configuration = self.configuration
        // The budget is the run's, not the parse's: a first run also plans, once.
        let running = clock.now
        if let ceiling = configuration.memoryCeiling, ceiling.isExceeded { throw ceiling.error }
        let watchdog = Watchdog(timeout: configuration.effectiveTimeout(timeout), memoryLimit: configuration.memoryLimit,
                                budget: budget, ceiling: configuration.memoryCeiling, now: running)
        var result: QueryResult
        do {
            result = try run(compiled, on: store, header: header, parameters: [:], readOnly: readOnly,
                             configuration: configuration, watchdog: watchdog, profiler: nil, tryLock: true)
        } catch {
            if watchdog.ranOutOfBudget { strike(body, by: 1); return nil }
            if error == QueryEngine.lockBusy { return nil }
            throw error
        }
        let now = clock.now
        if now - running > budget {
            strike(body, by: 1)
        } else if strikes > 0 {
            strike(body, by: -1)
        }
        result.statistics.cachedExecution = cached
        result.statistics.executionTimeMilliseconds = QueryEngine.milliseconds(now - started)
        return result
    }

    /// True when `text` may change the graph (a writing clause or procedure, also under
    /// PROFILE); false for reads and EXPLAIN, and for text that does not compile (it changes
    /// nothing). Uses the plan cache, so asking after `executeIfQuick` costs a lookup.
    public func writes(_ text: String) -> Bool {
        guard let header = try? ParameterHeader.split(text) else { return false }
        let (mode, body) = QueryEngine.splitPrefix(header.body)
        guard mode != .explain, let (compiled, _) = try? compile(body, forRun: false) else { return false }
        return compiled.plan.isUpdating
    }

    /// False for plans with a step the budget cannot interrupt: a procedure whose signature
    /// does not promise `answersQuickly`, or LOAD CSV (it reads a file).
    func mayAnswerQuickly(_ plan: LogicalPlan) -> Bool {
        for (step, _) in plan.steps {
            switch step {
            case .call(let call):
                guard procedures.procedure(named: call.name)?.signature.answersQuickly == true else { return false }
            case .loadCSV: return false
            default: continue
            }
        }
        return plan.unions.allSatisfy { mayAnswerQuickly($0.plan) }
    }

    /// A duration in (fractional) milliseconds, as the statistics report it.
    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// Thrown inside `executeIfQuick` when the store's lock is not free at once; never escapes.
    static let lockBusy = QueryError(.runtime, "the graph is being written")

    /// Thrown by a rewritten plan that meets data its rewrite does not answer exactly (two
    /// connections sharing the values a query groups them by): the query runs again on its
    /// plan as bound (`CompiledPlan.fallback`), so it never escapes.
    static let rewriteDoesNotHold = QueryError(.runtime, "a rewritten plan cannot answer this data exactly")

    /// Overruns of the budget, less quick runs since, after which a text is not tried quickly:
    /// one overrun may be a cold cache or a preemption; three in a row are the query.
    static let strikesOut = 3

    /// A struck-out text is tried again on every this-many-th call (a wasted try costs at most
    /// the budget, a sixty-fourth of the calls).
    static let probation = 64

    private func strike(_ body: String, by change: Int) {
        slowBodies.withLock { bodies in
            if bodies.count >= cacheCapacity { bodies.removeAll(keepingCapacity: true) }
            var record = bodies[body] ?? QuickRecord()
            // Never past the count that strikes out: one quick try on probation brings it back.
            record.strikes = min(QueryEngine.strikesOut, max(0, record.strikes + change))
            bodies[body] = record.strikes == 0 ? nil : record
        }
    }

    /// A text's standing on the quick path: its overruns less its quick runs since, and the
    /// calls declined without a try since it struck out.
    struct QuickRecord {
        var strikes = 0
        var passedOver = 0
    }

    /// The operator tree of `text`'s plan, root first, children indented four spaces
    /// (GRAPH.EXPLAIN). Nothing runs; `store` is not read (plans do not depend on the data).
    public func explain(_ text: String, on store: GraphStore) throws(QueryError) -> [String] {
        let header = try ParameterHeader.split(text)
        let (compiled, _) = try compile(QueryEngine.splitPrefix(header.body).body, forRun: false)
        return compiled.plan.treeDescription()
    }

    /// Runs `text` and returns its operator tree with `Records produced` and `Execution time`
    /// per operator (GRAPH.PROFILE). A writing query's changes are kept, as FalkorDB does.
    public func profile(_ text: String, on store: GraphStore, parameters: [String: Value] = [:],
                        timeout: Duration? = nil) throws(QueryError) -> [String] {
        let header = try ParameterHeader.split(text)
        let (compiled, _) = try compile(QueryEngine.splitPrefix(header.body).body, forRun: true)
        let profiler = Profiler(steps: compiled.plan.steps.count)
        _ = try run(compiled, on: store, header: header, parameters: parameters, readOnly: false, timeout: timeout,
                    profiler: profiler)
        return compiled.plan.treeDescription(profile: profiler)
    }

    enum Mode { case run, explain, profile }

    /// Strips a leading `EXPLAIN` or `PROFILE` keyword (any case). Every query passes here, so
    /// the common case (neither word) is decided on bytes, without building a string.
    static func splitPrefix(_ body: String) -> (mode: Mode, body: String) {
        guard let (mode, keywordEnd) = leadingMode(body) else { return (.run, body) }
        // Blank the keyword out rather than drop it, so error columns still match the text.
        let utf8 = Array(body.utf8)
        var blanked = utf8[..<keywordEnd].map { $0 == UInt8(ascii: "\n") ? $0 : UInt8(ascii: " ") }
        blanked.append(contentsOf: utf8[keywordEnd...])
        return (mode, String(decoding: blanked, as: UTF8.self))
    }

    /// The mode a leading `EXPLAIN` or `PROFILE` (any case, followed by a blank) sets, and the
    /// byte offset just past the keyword; nil for an ordinary query.
    static func leadingMode(_ text: String) -> (Mode, Int)? {
        var text = text
        return text.withUTF8 { bytes -> (Mode, Int)? in
            // Two tests, not a loop over a list of words: every query passes here.
            func blankAfter(_ end: Int?) -> Int? { end.flatMap { $0 < bytes.count && Lexer.isBlank(bytes[$0]) ? $0 : nil } }
            if let end = blankAfter(Lexer.endOfLeadingWord("EXPLAIN", in: bytes)) { return (.explain, end) }
            if let end = blankAfter(Lexer.endOfLeadingWord("PROFILE", in: bytes)) { return (.profile, end) }
            return nil
        }
    }

    private func run(_ compiled: CompiledPlan, on store: GraphStore, header: ParameterHeader, parameters: [String: Value],
                     readOnly: Bool, timeout: Duration?, profiler: Profiler?,
                     cancellation: QueryCancellation? = nil, started: ContinuousClock.Instant = .now) throws(QueryError) -> QueryResult {
        let configuration = self.configuration
        // Past the server's memory ceiling nothing new starts: refused at once, not run into it.
        if let ceiling = configuration.memoryCeiling, ceiling.isExceeded { throw ceiling.error }
        let watchdog = Watchdog(timeout: configuration.effectiveTimeout(timeout), memoryLimit: configuration.memoryLimit,
                                cancellation: cancellation, ceiling: configuration.memoryCeiling, now: started)
        // The run's buffers are gone by now (the result aside): a big one's memory goes back.
        defer { if watchdog.memoryUsed >= Watchdog.trimAfterBytes { Watchdog.returnFreedMemory() } }
        return try run(compiled, on: store, header: header, parameters: parameters, readOnly: readOnly,
                       configuration: configuration, watchdog: watchdog, profiler: profiler)
    }

    private func run(_ compiled: CompiledPlan, on store: GraphStore, header: ParameterHeader, parameters: [String: Value],
                     readOnly: Bool, configuration: QueryConfiguration, watchdog: Watchdog, profiler: Profiler?,
                     tryLock: Bool = false) throws(QueryError) -> QueryResult {
        do {
            return try runPlan(compiled, on: store, header: header, parameters: parameters, readOnly: readOnly,
                               configuration: configuration, watchdog: watchdog, profiler: profiler, tryLock: tryLock)
        } catch let error where error == QueryEngine.rewriteDoesNotHold {
            // The rewritten run changed nothing (a write rolls back on any error): run as bound.
            guard let fallback = compiled.fallback else { throw QueryError(.runtime, "internal: \(error.message)") }
            return try runPlan(fallback, on: store, header: header, parameters: parameters, readOnly: readOnly,
                               configuration: configuration, watchdog: watchdog, profiler: profiler, tryLock: tryLock)
        }
    }

    private func runPlan(_ compiled: CompiledPlan, on store: GraphStore, header: ParameterHeader, parameters: [String: Value],
                         readOnly: Bool, configuration: QueryConfiguration, watchdog: Watchdog, profiler: Profiler?,
                         tryLock: Bool) throws(QueryError) -> QueryResult {
        if readOnly && compiled.plan.isUpdating {
            throw QueryError(.semantic, "graph.RO_QUERY is to be executed only on read-only queries")
        }
        var bound = header.parameters
        for (name, value) in parameters { bound[name] = RuntimeValue(value) }
        if !compiled.plan.parameterNames.isSubset(of: bound.keys) {
            throw QueryError(.semantic, "Missing parameters")
        }
        do {
            if compiled.plan.isUpdating {
                return try store.write { graph in
                    try Executor.run(compiled.plan, graph: &graph, parameters: bound, registry: procedures, watchdog: watchdog,
                                     profiler: profiler, resultRowLimit: configuration.resultRowLimit,
                                     importDirectory: configuration.importDirectory, groupCounters: groupCounters,
                                     traversalScratch: traversalScratch, changeStore: store)
                }
            } else {
                // In place: a read-only plan changes nothing, and a copy would retain every buffer.
                // A local function, not a closure in a constant: that one was allocated, with
                // a copy of the plan, on every run.
                func body(_ graph: UnsafeMutablePointer<Graph>) throws -> QueryResult {
                    try Executor.run(compiled.plan, graphStorage: graph, parameters: bound, registry: procedures, watchdog: watchdog,
                                     profiler: profiler, resultRowLimit: configuration.resultRowLimit,
                                     importDirectory: configuration.importDirectory, groupCounters: groupCounters,
                                     traversalScratch: traversalScratch, changeStore: store)
                }
                if tryLock {
                    guard let result = try store.readInPlaceIfFree(body) else { throw QueryEngine.lockBusy }
                    return result
                }
                return try store.readInPlace(body)
            }
        } catch let error as QueryError {
            throw error
        } catch let error as GraphError {
            throw ExecutionContext.queryError(error)
        } catch let error as StoreError {
            throw QueryError(.storage, error.message)
        } catch {
            throw QueryError(.runtime, "\(error)")
        }
    }

    /// A cached plan is per thread as well as per text: running a plan retains and releases its
    /// expressions and arrays, and two cores doing that on the same objects bounce their
    /// reference counts between caches, which cost the second reader thread most of its gain.
    struct PlanKey: Hashable {
        var thread: UInt
        var body: String
    }

    /// A plan as the cache holds it: in a box, because a plan is a dozen arrays and sets, and
    /// copying one out of the cache for every run retained and released each of them (a tenth
    /// of a point lookup's time over the wire).
    final class CompiledPlan: Sendable {
        let plan: LogicalPlan
        /// No step the quick path's budget cannot interrupt (`mayAnswerQuickly`), decided once.
        let answersQuickly: Bool
        /// The plan as bound, for a rewritten plan that may find its rewrite does not hold for
        /// the data (`rewriteDoesNotHold`); nil for every other plan.
        let fallback: CompiledPlan?

        init(_ plan: LogicalPlan, answersQuickly: Bool, fallback: CompiledPlan? = nil) {
            self.plan = plan
            self.answersQuickly = answersQuickly
            self.fallback = fallback
        }
    }

    /// A cached plan, and whether a run has used it: planning a text to see whether it writes
    /// (the server does, to pick a thread) or to EXPLAIN it caches the plan but runs nothing.
    struct CachedPlan {
        var compiled: CompiledPlan
        var hasRun: Bool
    }

    /// The plan for a query body, from the cache when present, and whether an earlier run used
    /// that plan (the reply's `Cached execution: 1`). `forRun`: the plan is about to run, so a
    /// later run reuses a plan that has run.
    func compile(_ body: String, forRun: Bool) throws(QueryError) -> (CompiledPlan, Bool) {
        let key = PlanKey(thread: UInt(pthread_self()), body: body)
        let hit = cache.withLock { plans -> CachedPlan? in
            guard let entry = plans[key] else { return nil }
            if forRun && !entry.hasRun { plans[key]?.hasRun = true }
            return entry
        }
        if let hit { return (hit.compiled, hit.hasRun) }
        let query = try Parser.parse(body)
        let bound: BoundQuery
        do {
            bound = try Binder.bind(query, registry: procedures)
        } catch {
            // A semantic error that knows where it is shows that line, as a syntax error does.
            var located = error
            if let location = error.location, error.contextLine == nil {
                located.contextLine = Lexer.lineText(Array(body.utf8), containing: location.offset)
            }
            throw located
        }
        // Rewrites of the syntax tree bind again; the original bound first, so errors are its own.
        let rewritten = optimize ? CollectUnwind.rewrite(query).flatMap { try? Binder.bind($0, registry: procedures) } : nil
        let plan = optimize ? Planner.plan(rewritten ?? bound, batched: batched)
            : Planner.plan(bound, optimize: false, batched: batched)
        var fallback: CompiledPlan?
        if plan.mayNotHold {
            let asBound = Planner.plan(bound, optimize: false, batched: batched)
            fallback = CompiledPlan(asBound, answersQuickly: mayAnswerQuickly(asBound))
        }
        let compiled = CompiledPlan(plan, answersQuickly: mayAnswerQuickly(plan), fallback: fallback)
        cache.withLock { plans in
            if plans.count >= cacheCapacity { plans.removeAll(keepingCapacity: true) }
            plans[key] = CachedPlan(compiled: compiled, hasRun: forRun)
        }
        return (compiled, false)
    }
}
