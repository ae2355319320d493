// DataDirectory.swift — the multi-graph data directory: one GraphStore per graph name.
// Layout: `<data>/LOCK` (flock'ed by the owning process, holding its pid) and
// `<data>/graphs/<name>/` with that graph's log segments (AppendLog.swift).

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The data directory: one GraphStore per graph name, opened (replayed) on first use.
/// Holds an exclusive lock on `<path>/LOCK` for its lifetime, so two processes (or two
/// DataDirectory values) never write the same graphs.
public final class DataDirectory: @unchecked Sendable {
    // @unchecked: the mutable state is inside `state`, a Mutex; `lockFD` is immutable.
    public let path: String
    private let lockFD: Int32
    private let state = Mutex(State())

    private struct State {
        var stores: [String: GraphStore] = [:]
        var messages: [String] = []
    }

    /// Longest graph name accepted, in UTF-8 bytes (a directory name must fit in 255).
    public static let maximumNameLength = 200

    /// Opens the data directory at `path`, creating it if missing, and takes its lock.
    public init(path: String) throws(StoreError) {
        self.path = path
        try FileSystem.createDirectory(path + "/graphs")
        lockFD = try Self.acquireLock(path + "/LOCK", directory: path)
    }

    deinit {
        state.withLock { state in for store in state.stores.values { store.close() } }
        _ = Glibc.close(lockFD)  // releases the flock
    }

    /// Names of all graphs on disk, sorted.
    public func graphNames() -> [String] {
        let names = (try? FileSystem.contentsOfDirectory(graphsPath)) ?? []
        return names.filter { Self.validationProblem($0) == nil && FileSystem.isDirectory(graphsPath + "/" + $0) }.sorted()
    }

    /// The store of graph `name`, opened and replayed on first use; nil when there is no such graph.
    public func graph(named name: String) throws(StoreError) -> GraphStore? {
        try Self.validate(name)
        return try state.withLock { (state) throws(StoreError) -> GraphStore? in
            if let store = state.stores[name] { return store }
            guard FileSystem.isDirectory(directory(of: name)) else { return nil }
            return try open(name, state: &state)
        }
    }

    /// The store of graph `name`, created empty (with its log) if it does not exist.
    public func createGraph(named name: String) throws(StoreError) -> GraphStore {
        try Self.validate(name)
        return try state.withLock { (state) throws(StoreError) -> GraphStore in
            if let store = state.stores[name] { return store }
            let dir = directory(of: name)
            if !FileSystem.isDirectory(dir) {
                try FileSystem.createDirectory(dir)
                try PosixFile.syncDirectory(of: dir)  // make the new entry in graphs/ durable
            }
            return try open(name, state: &state)
        }
    }

    /// Closes graph `name` and removes its directory; false when there is no such graph.
    /// Writers holding the old store get StoreError(.closed) from then on.
    public func deleteGraph(named name: String) throws(StoreError) -> Bool {
        try Self.validate(name)
        return try state.withLock { (state) throws(StoreError) -> Bool in
            if let store = state.stores.removeValue(forKey: name) { store.close() }
            let dir = directory(of: name)
            guard FileSystem.isDirectory(dir) else { return false }
            try FileSystem.removeItem(dir)
            try PosixFile.syncDirectory(of: dir)
            return true
        }
    }

    /// What recovery repaired so far, e.g. "graphd: social: torn record at offset 812 of
    /// /d/graphs/social/log-00000001.glog cut off (37 bytes dropped)".
    public var recoveryMessages: [String] { state.withLock { $0.messages } }

    // MARK: names

    /// Throws StoreError(.invalidGraphName) unless `name` can be a graph (and directory) name.
    public static func validate(_ name: String) throws(StoreError) {
        if let problem = validationProblem(name) {
            throw StoreError(.invalidGraphName, "invalid graph name '\(name)': \(problem)")
        }
    }

    static func validationProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > maximumNameLength { return "it is longer than \(maximumNameLength) bytes" }
        if name.contains("/") { return "it contains '/'" }
        if name.contains("..") { return "it contains '..'" }
        if name == "." { return "it is '.'" }
        if name.utf8.contains(0) { return "it contains a NUL byte" }
        return nil
    }

    // MARK: internals

    private var graphsPath: String { path + "/graphs" }
    private func directory(of name: String) -> String { graphsPath + "/" + name }

    private func open(_ name: String, state: inout State) throws(StoreError) -> GraphStore {
        let recovered = try LogRecovery.open(directory: directory(of: name), graphName: name)
        let store = GraphStore(name: name, graph: recovered.graph, sink: recovered.log)
        state.stores[name] = store
        state.messages += recovered.messages
        return store
    }

    /// Takes an exclusive flock on `lockPath` (a fresh open file description, so it also
    /// excludes a second DataDirectory in this process) and writes our pid into it.
    private static func acquireLock(_ lockPath: String, directory: String) throws(StoreError) -> Int32 {
        let fd = Glibc.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw StoreError.system("cannot open lock file", lockPath) }
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
