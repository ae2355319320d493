// ServeCommand.swift — `graphd serve`: checks the safety rules (no open port without a
// password), raises the open-file limit for many clients, opens the data directory
// (replaying each graph's log), builds the server context from the flags, serves until
// SIGINT/SIGTERM, then closes every graph so the log is durable, and exits 0.

import Dispatch
import Glibc
import GraphQuery
import GraphStore

/// Runs the server for `graphd serve`.
enum ServeCommand {
    /// Serves with `options`; returns the process exit status.
    static func run(_ options: ServeOptions) -> Int32 {
        // A client that disconnects mid-reply must not kill the server.
        signal(SIGPIPE, SIG_IGN)

        if let problem = bindProblem(address: options.bindAddress, password: options.server.password) {
            ServerLog.write(problem)
            return 2
        }
        let fileLimit = raiseOpenFileLimit(wanted: options.server.maxClients + 128)
        if fileLimit < options.server.maxClients + 128 {
            ServerLog.write("open-file limit is \(fileLimit): fewer than --max-clients \(options.server.maxClients) "
                            + "connections can be served; raise it with `ulimit -n`")
        }

        let dataDirectory: DataDirectory
        do throws(StoreError) {
            dataDirectory = try DataDirectory(path: options.dataDirectory, options: options.durability,
                                              events: { ServerLog.write($0) })
        } catch {
            ServerLog.write("cannot open data directory \(options.dataDirectory): \(error)")
            return 1
        }
        // Open (replay) every graph now rather than on first use, so that recovery
        // messages appear at start and a damaged log stops the start with a clear error.
        for name in dataDirectory.graphNames() {
            do throws(StoreError) {
                _ = try dataDirectory.graph(named: name)
            } catch {
                ServerLog.write("cannot open graph '\(name)': \(error)")
                return 1
            }
        }
        for message in dataDirectory.recoveryMessages { ServerLog.write(message) }

        var limits = QueryLimits()
        limits.timeoutDefault = options.server.timeoutDefaultMilliseconds
        limits.timeoutMax = options.server.timeoutMaxMilliseconds
        limits.resultSetSize = options.server.maxResultRows
        limits.maxQueuedQueries = options.server.maxQueuedQueries
        limits.maxQueryLength = options.server.maxQueryBytes
        limits.threadCount = Int64(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        limits.cacheSize = 1024
        var configuration = ServerConfiguration()
        configuration.bindAddress = options.bindAddress
        configuration.port = options.port
        configuration.maxClients = options.server.maxClients
        configuration.clientOutputLimit = options.server.clientOutputLimitBytes
        configuration.busyPollMicroseconds = options.server.busyPollMicroseconds
        configuration.limits.maxBulkLength = options.server.maxBulkBytes

        guard let replication = initialReplication(options) else { return 1 }
        let server: Server
        var built: ServerContext?
        do {
            // The context needs the real port (INFO), known once the socket is bound.
            server = try Server(configuration: configuration) { port in
                let context = ServerContext(dataDirectory: dataDirectory,
                              engine: QueryEngine(cacheCapacity: Int(limits.cacheSize),
                                                  configuration: QueryConfiguration(importDirectory: options.server.importFolder,
                                                                                     memoryCeiling: MemoryCeiling(limit: options.server.memoryCeilingBytes))),
                              configuration: RuntimeConfiguration(limits), password: options.server.password, port: port,
                              replication: replication, log: { ServerLog.write($0) },
                              clientOutputLimit: options.server.clientOutputLimitBytes)
                built = context
                return context
            }
        } catch {
            ServerLog.write("cannot listen on \(options.bindAddress):\(options.port): \(error)")
            return 1
        }
        if let context = built { startReplication(context, options: options, port: server.port) }
        let watcher = SignalWatcher(stop: server.stopSignal, queue: DispatchQueue(label: "graphd.signals"))
        let shownAddress = options.bindAddress.contains(":") ? "[\(options.bindAddress)]" : options.bindAddress
        print("graphd listening on \(shownAddress):\(server.port), data in \(options.dataDirectory)"
              + (options.server.password == nil ? "" : " (password required)"))
        fflush(nil)
        do {
            try server.run()
        } catch {
            ServerLog.write("\(error)")
            return 1
        }
        _ = consume watcher
        built?.replication.endLinks()
        closeGraphs(dataDirectory, within: .seconds(5))
        print("graphd stopped")
        fflush(nil)
        return 0
    }

    /// The replication state to start with: --replica-of, else what CONFIG REWRITE saved in
    /// the data directory, else primary; --replica-priority over the saved priority. Nil (after
    /// saying why) when the saved file cannot be read.
    static func initialReplication(_ options: ServeOptions) -> ReplicationState? {
        let saved: ReplicationConfigFile?
        do throws(ReplicationConfigFile.ParseError) {
            saved = try ReplicationConfigFile.load(dataDirectory: options.dataDirectory)
        } catch {
            ServerLog.write("cannot start: \(options.dataDirectory)/\(error)")
            return nil
        }
        var settings = saved?.settings ?? ReplicationSettings()
        if let priority = options.replication.replicaPriority { settings.replicaPriority = priority }
        let role = options.replication.replicaOf.map { .replica(of: $0) } ?? saved?.role ?? .primary
        return ReplicationState(role: role, settings: settings,
                                primaryPassword: options.replication.primaryPassword ?? options.server.password)
    }

    /// Before the first write: asks the Sentinels (if any) who the primary is and follows it if
    /// it is another server, so that a primary restarted after a failover does not take writes
    /// its set has moved on from; then starts the link of a replica.
    static func startReplication(_ context: ServerContext, options: ServeOptions, port: Int) {
        if !options.replication.sentinels.isEmpty, let name = options.replication.sentinelName {
            switch SentinelQuery.primary(named: name, sentinels: options.replication.sentinels, password: nil) {
            case .success(let primary):
                let isSelf = primary.port == port
                    && (primary.host == options.bindAddress || isLoopback(primary.host) && isLoopback(options.bindAddress))
                if isSelf {
                    ServerLog.write("Sentinel names this server (\(primary.host):\(primary.port)) the primary of '\(name)'")
                    context.replication.setRole(.primary, offset: 0)
                } else {
                    ServerLog.write("Sentinel names \(primary.host):\(primary.port) the primary of '\(name)': following it")
                    context.replication.setRole(.replica(of: primary), offset: 0)
                }
            case .failure(let error):
                ServerLog.write("no Sentinel answered who the primary of '\(name)' is (\(error)); starting as configured")
            }
        }
        if context.replication.role == .primary && ReplicationConfigFile.wasFollowing(dataDirectory: context.dataDirectory.path) {
            ServerLog.write("this server was a replica and starts as a primary: its graphs start new histories")
            ReplicationCommands.promoteGraphs(context)
        }
        if case .replica(let address) = context.replication.role {
            ServerLog.write("replica of \(address.host):\(address.port): read-only, following its log")
            context.startReplicaLink(context.replication.generation)
        }
    }

    /// Closes every graph (each close waits for a running write and closes its log), but
    /// gives up after `bound`: every acknowledged write was made durable before its reply,
    /// so what a still-running write loses was never acknowledged.
    static func closeGraphs(_ dataDirectory: DataDirectory, within bound: Duration) {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for name in dataDirectory.graphNames() {
                if let store = try? dataDirectory.graph(named: name) { store.close() }
            }
            done.signal()
        }
        let milliseconds = Int(bound.components.seconds * 1000)
        if done.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            ServerLog.write("a write was still running after \(milliseconds) ms; exiting without it "
                            + "(it was not acknowledged, and the log keeps every acknowledged write)")
        }
    }

    /// Why graphd refuses to listen on `address`, or nil when it may. A non-loopback
    /// address without a password would let anyone who can reach the port read and
    /// change every graph (Redis's protected mode refuses such clients for that reason).
    static func bindProblem(address: String, password: String?) -> String? {
        guard password == nil, !isLoopback(address) else { return nil }
        return "refusing to listen on \(address) without a password: any host that can reach it could read and "
            + "change every graph. Set one with --requirepass (or GRAPHD_PASSWORD), or bind 127.0.0.1 / ::1."
    }

    /// 127.0.0.0/8 and ::1.
    static func isLoopback(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { raw in raw.prefix(15).allSatisfy { $0 == 0 } && raw[15] == 1 }
        }
        return false
    }

    /// Raises the soft RLIMIT_NOFILE toward `wanted` (up to the hard limit); returns the
    /// soft limit in force afterwards.
    static func raiseOpenFileLimit(wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        if limit.rlim_cur < rlim_t(wanted) {
            let target = limit.rlim_max == rlim_t.max ? rlim_t(wanted) : min(rlim_t(wanted), limit.rlim_max)
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(limit.rlim_cur)
    }
}
