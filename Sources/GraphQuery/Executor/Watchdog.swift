// Watchdog.swift — stops a runaway query: every operator ticks it once per row it handles, and
// every few hundred ticks it reads the clock against the query's deadline; breakers also charge
// it the memory their buffered rows take, against the per-query cap. Either limit throws, and the
// store's transaction rolls back whatever a write had done.

import Glibc

/// The limits of one query run. A class so that every operator of the run shares one counter
/// without threading an `inout` through the recursive matcher; it never leaves the run's thread,
/// so its variables skip the runtime's exclusivity check (`@exclusivity(unchecked)`), which
/// every row's tick paid.
final class Watchdog {
    let deadline: ContinuousClock.Instant?
    let timeout: Duration?
    let memoryLimit: Int?
    /// The server-wide count this run's charges go to as well; they are taken off it when
    /// the run's watchdog goes (deinit).
    let ceiling: MemoryCeiling?
    /// Raised from another thread to stop the run (the REPL's Ctrl-C).
    let cancellation: QueryCancellation?
    /// For a run on trial (QueryEngine.executeIfQuick): when it must give up, as if cancelled.
    let budgetEnd: ContinuousClock.Instant?
    /// True once the run stopped because it used up its budget (not a real error).
    @exclusivity(unchecked) private(set) var ranOutOfBudget = false
    /// The clock is read when `ticks & checkMask == 0`: every 256 ticks, every 16 on a budget.
    private let checkMask: UInt32
    @exclusivity(unchecked) private var ticks: UInt32 = 0
    /// Estimated bytes held by buffered rows so far (never decreases: a conservative bound).
    @exclusivity(unchecked) private(set) var memoryUsed = 0

    /// `now` is the caller's reading of the clock when it has one (a read costs tens of
    /// nanoseconds, a noticeable part of a point lookup).
    init(timeout: Duration?, memoryLimit: Int?, cancellation: QueryCancellation? = nil, budget: Duration? = nil,
         ceiling: MemoryCeiling? = nil, now: ContinuousClock.Instant = .now) {
        self.ceiling = ceiling
        self.timeout = timeout
        self.deadline = timeout.map { now + $0 }
        self.memoryLimit = memoryLimit
        self.cancellation = cancellation
        self.budgetEnd = budget.map { now + $0 }
        self.checkMask = budget == nil ? 0xFF : 0x0F
    }

    /// Called per row; checks the clock every 256 calls (≈ microseconds apart), far inside 50 ms.
    @inline(__always)
    func tick() throws(QueryError) {
        ticks &+= 1
        if ticks & checkMask == 0 { try checkNow() }
    }

    /// Throws the timeout when the run is past its deadline (only: a trial's budget and a
    /// cancellation are for stopping work, and at the end there is none left to stop).
    func checkDeadline(now: ContinuousClock.Instant = .now) throws(QueryError) {
        guard let deadline, now >= deadline else { return }
        let limit = timeout.map { "\(Int(($0 / .milliseconds(1)).rounded())) ms" } ?? "its"
        throw QueryError(.timeout, "Query timed out: it ran past its time limit of \(limit)")
    }

    /// Checks the deadline (and a cancellation) immediately.
    func checkNow() throws(QueryError) {
        if let cancellation, cancellation.isCancelled {
            throw QueryError(.timeout, "Query cancelled")
        }
        if deadline == nil && budgetEnd == nil { return }
        let now = ContinuousClock.now
        if let budgetEnd, now >= budgetEnd {
            ranOutOfBudget = true
            throw QueryError(.timeout, "Query ran past its trial budget")
        }
        try checkDeadline(now: now)
    }

    deinit { ceiling?.add(-memoryUsed) }

    /// A run that buffered this much hands the freed memory back to the system when it ends
    /// (`returnFreedMemory`).
    static let trimAfterBytes = 128 << 20

    /// Returns freed heap memory to the system (glibc's malloc_trim). Millions of small
    /// allocations a bomb made and lost (lists of lists) otherwise stay in the process,
    /// and a second bomb's gigabyte lands on top of the first's.
    static func returnFreedMemory() {
        if let trim = mallocTrim { _ = trim(0) }
    }

    /// glibc's malloc_trim, which Swift's Glibc module does not export: looked up once
    /// (RTLD_DEFAULT is nil on Linux).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = dlsym(nil, "malloc_trim").map {
        unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self)
    }

    /// Charges `bytes` of buffered intermediate results against the memory cap.
    func charge(_ bytes: Int) throws(QueryError) {
        memoryUsed &+= bytes
        if let ceiling, !ceiling.add(bytes) { throw ceiling.error }
        if let memoryLimit, memoryUsed > memoryLimit {
            throw QueryError(.runtime, "Query's memory consumption exceeded capacity: it buffered more than \(memoryLimit) bytes of intermediate results")
        }
        try tick()
    }

    /// What a row costs besides its values (`size(of:)`): its array's header and the
    /// allocator's rounding, and its slot in the growing array of rows. Counted low, a cap of
    /// 1 GiB let the process grow past 2 GiB.
    static let rowOverhead = 64
    /// What a collected value costs besides itself: the list's spare capacity as it doubles.
    static let collectedOverhead = 24

    /// A rough size of a row: 24 bytes a slot plus the payload of strings and collections.
    static func size(of row: [RuntimeValue]) -> Int {
        var total = rowOverhead
        for value in row { total += size(of: value) }
        return total
    }

    /// What keeping `row` adds when `earlier` is kept as well: a list in the same slot of both,
    /// one buffer shared, is counted by `earlier` alone. Rows after `WITH collect(f) AS fs
    /// UNWIND fs AS f` all carry `fs`; counting it whole for each kept row made keeping a row
    /// cost as much as the list is long, and overstated what the rows hold.
    static func size(of row: [RuntimeValue], besides earlier: [RuntimeValue]?) -> Int {
        guard let earlier, earlier.count == row.count else { return size(of: row) }
        var total = rowOverhead
        for (value, other) in zip(row, earlier) {
            if case .list(let list) = value, case .list(let kept) = other, list.count == kept.count,
               list.withUnsafeBufferPointer({ a in kept.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }) {
                total += 24
            } else {
                total += size(of: value)
            }
        }
        return total
    }

    /// Inlined for the scalars every row holds; collections are sized out of line.
    @inline(__always)
    static func size(of value: RuntimeValue) -> Int {
        switch value {
        case .string(let s): return 24 + s.utf8.count
        case .list, .map: return collectionSize(of: value)
        default: return 24
        }
    }

    private static func collectionSize(of value: RuntimeValue) -> Int {
        switch value {
        case .list(let l): return 32 + l.reduce(0) { $0 + size(of: $1) }
        case .map(let keys, let values):
            return 48 + keys.reduce(0) { $0 + 16 + $1.utf8.count } + values.reduce(0) { $0 + size(of: $1) }
        default: return size(of: value)
        }
    }
}
