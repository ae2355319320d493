// DataDirectory.swift — the multi-graph data directory: one GraphStore per graph name.
// Layout: `<data>/LOCK` (flock'ed by the owning process, holding its pid) and
// `<data>/graphs/<name>/` with that graph's snapshots and log segments (AppendLog.swift).
// Also runs the once-a-second flusher of `--fsync everysec` and installs imported graphs.

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// The data directory: one GraphStore per graph name, opened (replayed) on first use.
/// Holds an exclusive lock on `<path>/LOCK` for its lifetime, so two processes (or two
/// DataDirectory values) never write the same graphs.
public final class DataDirectory: @unchecked Sendable {
    // @unchecked: the mutable state is inside `state`, a Mutex; the rest is immutable.

    /// How graphs are made durable and repaired (graphd's --fsync, --compaction-ratio, --repair).
    public struct Options: Sendable, Equatable {
        /// When log records are fdatasync'ed.
        public var fsync: FsyncPolicy = .always
        /// Compact a graph automatically once the log a restart would replay after its newest
        /// snapshot is larger than `compactionRatio` × the snapshot (and than
        /// `compactionMinimumBytes`). 1 keeps a restart's replay no longer than its snapshot
        /// load and writes each byte about twice; 0 turns automatic compaction off.
        public var compactionRatio: Double = 1.0
        /// Below this much log no automatic compaction happens (small graphs just replay).
        public var compactionMinimumBytes: Int = 16 << 20
        /// Open damaged graphs by cutting their log at the last good record (keeping a copy of
        /// what is cut) or falling back from a damaged snapshot, instead of refusing.
        public var repair = false
        /// The most memory the ids in a snapshot or log may claim for their slots (id N makes
        /// slots 0...N); a file naming ids beyond it is refused as damaged instead of exhausting
        /// memory. The default is this machine's physical memory.
        public var slotMemoryLimit: Int
        /// How much log is kept past the newest snapshot for reading commits back (change
        /// feed, GRAPH.CHANGES, replicas): --change-retention.
        public var changeRetention: ChangeRetention = .none

        public init(fsync: FsyncPolicy = .always, compactionRatio: Double = 1.0,
                    compactionMinimumBytes: Int = 16 << 20, repair: Bool = false, slotMemoryLimit: Int? = nil,
                    changeRetention: ChangeRetention = .none) {
            self.changeRetention = changeRetention
            self.fsync = fsync
            self.compactionRatio = compactionRatio
            self.compactionMinimumBytes = compactionMinimumBytes
            self.repair = repair
            self.slotMemoryLimit = slotMemoryLimit ?? IDSlotLimit.physicalMemory
        }
    }

    public let path: String
    public let options: Options
    let fileSystem: FileSystem
    private let lockFD: Int32
    private let state = Mutex(State())
    private let recentEvents = RecentEvents()
    private let report: @Sendable (String) -> Void
    private var flusher: DispatchSourceTimer?

    private struct State {
        var stores: [String: GraphStore] = [:]
        var messages: [String] = []
        var storeObservers: [StoreObserver] = []

        /// Tells the observers that graph `name` now has `store` (nil: deleted).
        func announce(_ name: String, _ store: GraphStore?) {
            for observer in storeObservers { observer(name, store) }
        }
    }

    /// Told, under the directory's lock (so it must be quick and call nothing here), whenever a
    /// graph's store is opened, created or replaced (the new store) or deleted (nil).
    public typealias StoreObserver = @Sendable (_ name: String, _ store: GraphStore?) -> Void

    /// Adds `observer` and tells it, before any later change, of every store open now.
    public func observeStores(_ observer: @escaping StoreObserver) {
        state.withLock { state in
            state.storeObservers.append(observer)
            for (name, store) in state.stores { observer(name, store) }
        }
    }

    /// The latest background events, kept for `events` (tests, diagnostics).
    private final class RecentEvents: Sendable {
        let items = Mutex<[String]>([])
        func append(_ message: String) {
            items.withLock { items in
                items.append(message)
                if items.count > 100 { items.removeFirst() }
            }
        }
    }

    /// Longest graph name accepted, in UTF-8 bytes (a directory name must fit in 255).
    public static let maximumNameLength = 200

    /// Opens the data directory at `path`, creating it if missing, and takes its lock.
    /// `events` receives what happens later in the background (a failed fsync or compaction).
    public convenience init(path: String, options: Options = Options(),
                            events: (@Sendable (String) -> Void)? = nil) throws(StoreError) {
        try self.init(path: path, options: options, events: events, fileSystem: PosixFileSystem())
    }

    init(path: String, options: Options, events: (@Sendable (String) -> Void)?, fileSystem: FileSystem) throws(StoreError) {
        self.path = path
        self.options = options
        self.fileSystem = fileSystem
        try fileSystem.createDirectory(path + "/graphs")
        lockFD = try Self.acquireLock(path + "/LOCK", directory: path)
        let recent = recentEvents
        report = { message in
            recent.append(message)
            events?(message)
        }
        removeInterruptedInstalls()
        if options.fsync == .everysec { startFlusher() }
    }

    deinit {
        flusher?.cancel()
        state.withLock { state in for store in state.stores.values { store.close() } }
        _ = Glibc.close(lockFD)  // releases the flock
    }

    /// Names of all graphs on disk, sorted.
    public func graphNames() -> [String] {
        let names = (try? fileSystem.contentsOfDirectory(graphsPath)) ?? []
        return names.filter { Self.validationProblem($0) == nil && fileSystem.isDirectory(graphsPath + "/" + $0) }.sorted()
    }

    /// The store of graph `name`, opened and replayed on first use; nil when there is no such graph.
    public func graph(named name: String) throws(StoreError) -> GraphStore? {
        try Self.validate(name)
        return try state.withLock { (state) throws(StoreError) -> GraphStore? in
            if let store = state.stores[name] { return store }
            guard fileSystem.isDirectory(directory(of: name)) else { return nil }
            return try open(name, state: &state)
        }
    }

    /// The store of graph `name` if it is open already and the directory is not busy (opening
    /// or deleting a graph) this instant; nil otherwise. Never waits and never reads a disk:
    /// for the server's I/O thread.
    public func openedGraph(named name: String) -> GraphStore? {
        state.withLockIfAvailable { $0.stores[name] } ?? nil
    }

    /// The store of graph `name`, created empty (with its log) if it does not exist.
    public func createGraph(named name: String) throws(StoreError) -> GraphStore {
        try Self.validate(name)
        return try state.withLock { (state) throws(StoreError) -> GraphStore in
            if let store = state.stores[name] { return store }
            let dir = directory(of: name)
            if !fileSystem.isDirectory(dir) {
                try fileSystem.createDirectory(dir)
                try fileSystem.syncDirectory(graphsPath)  // make the new entry in graphs/ durable
            }
            return try open(name, state: &state)
        }
    }

    /// Closes graph `name` and removes its directory; false when there is no such graph.
    /// Writers holding the old store get StoreError(.closed) from then on.
    public func deleteGraph(named name: String) throws(StoreError) -> Bool {
        try Self.validate(name)
        return try state.withLock { (state) throws(StoreError) -> Bool in
            if let store = state.stores.removeValue(forKey: name) {
                store.close()
                state.announce(name, nil)
            }
            let dir = directory(of: name)
            guard fileSystem.isDirectory(dir) else { return false }
            try fileSystem.removeTree(dir)
            try fileSystem.syncDirectory(graphsPath)
            return true
        }
    }

    /// Makes `graph` the entire content of graph `name` (import): snapshot + fresh log segment,
    /// atomically; a crash leaves the old graph or the new one, never a mix. replacing:false
    /// throws StoreError(.graphExists) if the graph exists. The old store, if open, is closed
    /// (its writers get StoreError(.closed)).
    /// `lastSequence`: the log continues after it; `history`: the graph's; `snapshotBytes`:
    /// snapshot 1's file as it is, `graph` loaded from it (all three: a replica's copy of its
    /// primary's graph, installed without writing it out again).
    public func installGraph(named name: String, graph: Graph, replacing: Bool,
                             lastSequence: UInt64 = 0, history given: GraphHistory? = nil,
                             snapshotBytes: [UInt8]? = nil) throws(StoreError) -> GraphStore {
        try Self.validate(name)
        var graph = graph
        if graph.isInTransaction { graph.rollbackTransaction() }
        return try state.withLock { (state) throws(StoreError) -> GraphStore in
            let target = directory(of: name)
            let exists = fileSystem.isDirectory(target)
            if exists && !replacing {
                throw StoreError(.graphExists, "graph '\(name)' already exists in \(path); delete it first or replace it",
                                 path: target)
            }
            // Build the new graph beside the old one, under a name no graph can have ('..').
            let staging = graphsPath + "/" + name + Self.installingSuffix
            try fileSystem.removeTree(staging)
            try fileSystem.createDirectory(staging)
            let snapshotLength: Int
            // Sequence numbers start again at 1: tokens of the graph it replaces mean nothing here.
            // (A replica's copy of its primary's graph keeps the primary's history instead.)
            let history = given ?? GraphHistory.fresh()
            do throws(StoreError) {
                if let snapshotBytes {
                    try fileSystem.createDurably(staging + "/" + SnapshotFormat.fileName(1), contents: snapshotBytes)
                    snapshotLength = snapshotBytes.count
                } else {
                    snapshotLength = try SnapshotWriter(fileSystem: fileSystem).write(graph, number: 1, lastSequence: lastSequence,
                                                                                       directory: staging)
                }
                try fileSystem.createDurably(staging + "/" + AppendLog.segmentFileName(1), contents: AppendLog.header(segment: 1))
                try HistoryFile(directory: staging, fileSystem: fileSystem).write(history, openUnder: options.fsync)
                try fileSystem.syncDirectory(graphsPath)
            } catch {
                try? fileSystem.removeTree(staging)
                throw error
            }
            if let old = state.stores.removeValue(forKey: name) { old.close() }
            // One atomic step switches graphs: an exchange (old ↔ new) or a plain rename.
            do throws(StoreError) {
                if exists {
                    try fileSystem.exchange(staging, target)
                } else {
                    try fileSystem.rename(staging, to: target)
                }
            } catch {
                try? fileSystem.removeTree(staging)
                throw error
            }
            try fileSystem.syncDirectory(graphsPath)
            try? fileSystem.removeTree(staging)  // the old graph, after an exchange
            // The graph is in memory already: open only its (empty) log instead of reloading.
            let file = try fileSystem.open(target + "/" + AppendLog.segmentFileName(1))
            let log = AppendLog(directory: target, fileSystem: fileSystem, file: file, segment: 1,
                                end: AppendLog.headerLength, lastSequence: lastSequence, snapshotNumber: 1)
            let store = try GraphStore.opened(name: name,
                                          recovered: RecoveredLog(graph: graph, log: log, messages: [], snapshotLength: snapshotLength,
                                                                  history: history),
                                          directory: target, fileSystem: fileSystem, options: options, report: report)
            state.stores[name] = store
            state.announce(name, store)
            return store
        }
    }

    /// What recovery repaired so far, e.g. "graphd: social: torn record at offset 812 of
    /// /d/graphs/social/log-00000001.glog cut off (37 bytes dropped)".
    public var recoveryMessages: [String] { state.withLock { $0.messages } }

    /// The latest background events (at most 100): failed fsyncs, compactions.
    public var events: [String] { recentEvents.items.withLock { $0 } }

    /// Runs one tick of the `everysec` flusher now (tests call it instead of waiting a second).
    func flushAll() {
        let stores = state.withLock { Array($0.stores.values) }
        for store in stores { store.flushTick() }
    }

    // MARK: names

    /// Throws StoreError(.invalidGraphName) unless `name` can be a graph (and directory) name.
    public static func validate(_ name: String) throws(StoreError) {
        if let problem = validationProblem(name) {
            throw StoreError(.invalidGraphName, "invalid graph name '\(name)': \(problem)")
        }
    }

    /// Read on bytes: every query names its graph, and Foundation's substring search (what
    /// `String.contains` resolves to here) cost microseconds a call.
    static func validationProblem(_ name: String) -> String? {
        let bytes = name.utf8
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > maximumNameLength { return "it is longer than \(maximumNameLength) bytes" }
        let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
        var previous: UInt8 = 0, slashes = false, dots = false, nul = false
        for byte in bytes {
            slashes = slashes || byte == slash
            dots = dots || (byte == dot && previous == dot)
            nul = nul || byte == 0
            previous = byte
        }
        if slashes { return "it contains '/'" }
        if dots { return "it contains '..'" }
        if bytes.count == 1 && previous == dot { return "it is '.'" }
        if nul { return "it contains a NUL byte" }
        return nil
    }

    // MARK: internals

    /// Suffix of a graph being installed; contains "..", so it is never a graph name.
    static let installingSuffix = "..installing"

    private var graphsPath: String { path + "/graphs" }
    private func directory(of name: String) -> String { graphsPath + "/" + name }

    private func open(_ name: String, state: inout State) throws(StoreError) -> GraphStore {
        let dir = directory(of: name)
        let recovered = try LogRecovery.open(directory: dir, graphName: name, fileSystem: fileSystem,
                                             mode: RecoveryMode(repair: options.repair, cleanUp: true, fsync: options.fsync,
                                                                slotMemoryLimit: options.slotMemoryLimit,
                                                                retention: options.changeRetention))
        let store = try GraphStore.opened(name: name, recovered: recovered, directory: dir, fileSystem: fileSystem,
                                      options: options, report: report)
        state.stores[name] = store
        state.messages += recovered.messages
        state.announce(name, store)
        return store
    }

    /// An install interrupted by a crash leaves `<name>..installing`: the new graph before its
    /// switch, or the old one after it. Either way the graph in place is the one to keep.
    private func removeInterruptedInstalls() {
        let names = (try? fileSystem.contentsOfDirectory(graphsPath)) ?? []
        for name in names where name.hasSuffix(Self.installingSuffix) {
            try? fileSystem.removeTree(graphsPath + "/" + name)
        }
    }

    /// The `everysec` flusher: every second, fdatasync each graph's new records.
    private func startFlusher() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "graphd.flusher", qos: .utility))
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.flushAll() }
        timer.resume()
        flusher = timer
    }

    /// Takes an exclusive flock on `lockPath` (a fresh open file description, so it also
    /// excludes a second DataDirectory in this process) and writes our pid into it.
    private static func acquireLock(_ lockPath: String, directory: String) throws(StoreError) -> Int32 {
        let fd = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw StoreError.system("cannot open lock file", lockPath) }
        var attempts = 0
        // The holder is this very process: a DataDirectory just released here whose lock
        // descriptor a child being spawned by another thread still holds a copy of (until its
        // exec closes it, O_CLOEXEC). Give that a moment (at most 0.5 s) before calling it busy.
        while flock(fd, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK, holderPID(fd) == String(getpid()), attempts < 100 {
            attempts += 1
            usleep(5_000)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno == EWOULDBLOCK
                ? StoreError(.locked, "data directory \(directory) is in use by another graphd (pid \(holderPID(fd))); "
                             + "stop it or choose another --data directory", path: lockPath)
                : StoreError.system("cannot lock", lockPath)
            _ = Glibc.close(fd)
            throw error
        }
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) != 0 || pwrite(fd, pid, pid.count, 0) != pid.count {
            let error = StoreError.system("cannot write pid to", lockPath)
            _ = Glibc.close(fd)
            throw error
        }
        return fd
    }

    private static func holderPID(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return "unknown" }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return text.isEmpty ? "unknown" : text
    }
}
