// Server.swift — the event loop: one I/O thread that accepts, reads, writes and closes
// sockets with epoll, drives each `Connection` state machine, runs fast commands and cheap
// reads itself (a read that overruns a small budget gives up and goes on), and hands the
// rest to workers: other reads to a pool of one thread per core, writes and the remaining
// commands to a serial Dispatch queue per connection. Workers run the command table against the
// store and post the reply back through a completion queue and the wake-up pipe; the I/O
// thread writes it in order. Reads run in parallel (the store's read lock is shared); writes
// queue on the store's write lock and then wait together for one group-commit fsync.
// Queries beyond MAX_QUEUED_QUERIES are refused at once.

import Dispatch
import Glibc
import Synchronization

/// Where and how the server listens, and its per-connection bounds.
struct ServerConfiguration: Sendable {
    var bindAddress: String = "127.0.0.1"
    var port: Int = 6479
    var limits = ProtocolLimits()
    /// Connections served at once; one more is told so and closed (Redis's maxclients).
    var maxClients = 10_000
    /// Unsent reply bytes one client may accumulate before it is disconnected.
    var clientOutputLimit = Connection.defaultOutputLimit
    /// After a stop is requested and no command is running, how long to keep trying to
    /// flush replies to clients that do not read.
    var flushGraceMilliseconds: Int = 2000
    /// After a stop is requested, how long running commands may take before the loop
    /// returns without them (their queries are bounded by their timeouts too).
    var stopGraceMilliseconds: Int = 10_000
    /// Where log lines go (stderr in graphd; captured in tests).
    var log: @Sendable (String) -> Void = { ServerLog.write($0) }
}

/// A finished command, posted by a worker for the I/O thread.
private struct Completion: Sendable {
    var connection: UInt64
    var reply: [UInt8]
    var outcome: CommandOutcome
    var session: ClientSession
    /// True for commands that counted toward the pending-query limit.
    var countedAsQuery: Bool
}

/// Replies handed from workers to the I/O thread.
private final class CompletionQueue: Sendable {
    private let items = Mutex<[Completion]>([])
    /// Adds a reply; true when the queue was empty, i.e. the I/O thread must be woken.
    /// (It takes everything after every wake-up, so a push onto a non-empty queue is
    /// picked up with the earlier one: one pipe write per batch, not per reply.)
    func push(_ completion: Completion) -> Bool {
        items.withLock { items in
            items.append(completion)
            return items.count == 1
        }
    }
    func takeAll() -> [Completion] { items.withLock { items in defer { items = [] }; return items } }
}

/// The RESP server. `run()` blocks the calling thread until a stop is requested.
final class Server {
    private let configuration: ServerConfiguration
    private let context: ServerContext
    private let table: CommandTable
    private let epoll: Epoll
    private var listener: ListeningSocket?
    private let wakeUp: WakeUpPipe
    private let completions = CompletionQueue()
    /// Runs reads handed to workers: Dispatch's global pool, one thread per core (more only
    /// while some block).
    private let readPool = DispatchQueue.global(qos: .userInitiated)
    /// Set by the signal handler (or a test) to stop the loop.
    let stopSignal: StopSignal

    private final class Slot {
        let descriptor: Int32
        var connection: Connection
        var interest: Epoll.Events
        /// Runs this connection's commands (at most one at a time). A serial queue per
        /// connection gets a thread of its own when its command blocks — as a write does while
        /// it waits for the group-commit fsync — so every connection's write can join the same
        /// fsync instead of queueing behind a few busy workers of a CPU-sized pool.
        let commands = DispatchQueue(label: "graphd.connection", qos: .userInitiated)
        init(descriptor: Int32, connection: Connection, interest: Epoll.Events) {
            self.descriptor = descriptor; self.connection = connection; self.interest = interest
        }
    }

    /// Quick-path tries one connection's pipelined requests get per batch of its input: with
    /// the 50 µs budget, a few milliseconds at most before the other clients are served.
    static let quickRunsPerTurn = 64
    private static let listenerToken: UInt64 = 0
    private static let wakeUpToken: UInt64 = 1
    private var nextToken: UInt64 = 2
    private var slots: [UInt64: Slot] = [:]
    private var runningCommands = 0
    private var stopRequestedAt: ContinuousClock.Instant?
    /// True while the listener is out of the epoll set because descriptors ran out.
    private var acceptPaused = false
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// The port the server listens on (the real one when configured with 0).
    let port: Int

    /// Binds the listening socket; `run()` starts serving.
    convenience init(configuration: ServerConfiguration, context: ServerContext,
                     table: CommandTable = .standard()) throws(SystemCallError) {
        try self.init(configuration: configuration, table: table) { _ in context }
    }

    /// Binds the listening socket, then builds the context knowing the bound port.
    init(configuration: ServerConfiguration, table: CommandTable = .standard(),
         context makeContext: (Int) -> ServerContext) throws(SystemCallError) {
        self.configuration = configuration
        self.table = table
        epoll = try Epoll()
        wakeUp = try WakeUpPipe()
        stopSignal = StopSignal(wakeUp: wakeUp)
        let listener = try ListeningSocket(address: configuration.bindAddress, port: configuration.port)
        port = listener.port
        context = makeContext(listener.port)
        try epoll.add(listener.descriptor, events: .input, token: Self.listenerToken)
        try epoll.add(wakeUp.readDescriptor, events: .input, token: Self.wakeUpToken)
        self.listener = listener
    }

    /// Serves until `stopSignal` is requested, then stops accepting, lets running
    /// commands finish, flushes replies (bounded by `flushGraceMilliseconds`) and returns.
    func run() throws(SystemCallError) {
        var stopping = false
        var idleSince: ContinuousClock.Instant? = nil
        while true {
            for (token, events) in try epoll.wait(timeoutMilliseconds: stopping ? 50 : -1) {
                switch token {
                case Self.listenerToken: acceptAll()
                case Self.wakeUpToken: wakeUp.drain()
                default: handle(token: token, events: events)
                }
            }
            for completion in completions.takeAll() { complete(completion) }

            if stopSignal.isRequested && !stopping {
                stopping = true
                beginStopping()
            }
            if stopping {
                if slots.isEmpty && runningCommands == 0 { return }
                if let since = stopRequestedAt, runningCommands > 0,
                   ContinuousClock.now - since > .milliseconds(configuration.stopGraceMilliseconds) {
                    configuration.log("stopping with \(runningCommands) command(s) still running after "
                                      + "\(configuration.stopGraceMilliseconds) ms")
                    for token in Array(slots.keys) { closeConnection(token) }
                    return
                }
                if slots.isEmpty { continue }
                if runningCommands == 0 {
                    let now = ContinuousClock.now
                    if let since = idleSince {
                        if now - since > .milliseconds(configuration.flushGraceMilliseconds) {
                            for token in Array(slots.keys) { closeConnection(token) }
                            return
                        }
                    } else {
                        idleSince = now
                    }
                }
            }
        }
    }

    // MARK: Events

    private func beginStopping() {
        stopRequestedAt = ContinuousClock.now
        if let listener {
            epoll.remove(listener.descriptor)
        }
        listener = nil     // closes the socket: no new connections
        for (token, slot) in slots {
            perform(slot.connection.stop(), token: token, slot: slot)
            settle(token: token, slot: slot)
        }
    }

    private func acceptAll() {
        guard let listener else { return }
        while true {
            let fd: Int32, peer: String
            switch listener.accept() {
            case .connection(let descriptor, let address): (fd, peer) = (descriptor, address)
            case .none: return
            case .outOfDescriptors:
                // The listening socket stays readable while descriptors are exhausted, which
                // would spin this loop: stop watching it until a connection closes.
                epoll.remove(listener.descriptor)
                acceptPaused = true
                configuration.log("out of file descriptors with \(slots.count) clients connected: not accepting "
                                  + "until one disconnects (raise `ulimit -n` or lower --max-clients)")
                return
            }
            let statistics = context.statistics
            if slots.count >= configuration.maxClients {
                // Counted before the close, so whoever sees the close also sees the count.
                statistics.rejectedConnections.add(1, ordering: .relaxed)
                // Redis's wording; the socket is fresh, so the short write goes out whole.
                let message = Array("-ERR max number of clients reached\r\n".utf8)
                _ = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
                continue
            }
            let token = nextToken
            nextToken += 1
            let session = ClientSession(id: Int64(token), peerAddress: peer, isAuthenticated: context.password == nil)
            let connection = Connection(limits: configuration.limits, session: session,
                                        outputLimit: configuration.clientOutputLimit)
            let slot = Slot(descriptor: fd, connection: connection, interest: .input)
            do {
                try epoll.add(fd, events: .input, token: token)
            } catch {
                close(fd)
                continue
            }
            slots[token] = slot
            statistics.connectedClients.add(1, ordering: .relaxed)
            statistics.totalConnections.add(1, ordering: .relaxed)
        }
    }

    private func handle(token: UInt64, events: Epoll.Events) {
        guard let slot = slots[token] else { return }
        if !events.intersection([.input, .hangup, .error]).isEmpty && slot.connection.wantsInput {
            readAvailable(token: token, slot: slot)
        } else if !events.intersection([.hangup, .error]).isEmpty {
            slot.connection.peerClosed()
        }
        settle(token: token, slot: slot)
    }

    /// Reads what the socket holds (a bounded number of times, for fairness).
    private func readAvailable(token: UInt64, slot: Slot) {
        for _ in 0..<16 {
            guard slot.connection.wantsInput else { return }
            let count = readBuffer.withUnsafeMutableBytes { read(slot.descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                let actions = slot.connection.received(readBuffer[0..<count])
                perform(actions, token: token, slot: slot)
                if count < readBuffer.count { return }
            } else if count == 0 {
                perform(slot.connection.inputEnded(), token: token, slot: slot)
                return
            } else {
                let error = Glibc.errno
                if error == EINTR { continue }
                if error != EAGAIN && error != EWOULDBLOCK { slot.connection.peerClosed() }
                return
            }
        }
    }

    private func complete(_ completion: Completion) {
        runningCommands -= 1
        if completion.countedAsQuery { context.statistics.pendingQueries.subtract(1, ordering: .relaxed) }
        guard let slot = slots[completion.connection] else { return }
        let actions = slot.connection.completed(completion.reply, outcome: completion.outcome, session: completion.session)
        perform(actions, token: completion.connection, slot: slot)
        settle(token: completion.connection, slot: slot)
    }

    /// Carries out a connection's actions. Fast commands run right here; the rest go to
    /// a worker, at most one per connection (the state machine guarantees it). A query
    /// that finds MAX_QUEUED_QUERIES already pending is refused at once.
    private func perform(_ actions: [Connection.Action], token: UInt64, slot: Slot) {
        var queue = actions
        var quickRuns = 0
        while !queue.isEmpty {
            switch queue.removeFirst() {
            case .closeAfterFlush:
                continue
            case .closeOutputLimitExceeded(let bytes):
                context.statistics.outputLimitDisconnections.add(1, ordering: .relaxed)
                configuration.log("closing client id=\(slot.connection.session.id) addr=\(slot.connection.session.peerAddress): "
                                  + "\(bytes) bytes of unsent replies exceed the output limit of "
                                  + "\(configuration.clientOutputLimit) bytes")
            case .execute(let request):
                let spec = table.spec(named: request[0])
                var session = slot.connection.session
                if let spec, spec.flags.contains(.fast) {
                    let (reply, outcome) = table.execute(request, session: &session, context: context)
                    queue.append(contentsOf: slot.connection.completed(reply, outcome: outcome, session: session))
                    continue
                }
                // A cheap read is answered here: waking a worker and being woken back costs
                // more than the query (see GraphCommands.quickBudget). A client pipelining
                // many gets a bounded share of this thread per turn; the rest go to its worker.
                if let spec, spec.quickHandler != nil, quickRuns < Self.quickRunsPerTurn {
                    quickRuns += 1
                    if let (reply, outcome) = table.executeQuickly(request, spec: spec, session: &session, context: context) {
                        queue.append(contentsOf: slot.connection.completed(reply, outcome: outcome, session: session))
                        continue
                    }
                }
                let isQuery = spec?.flags.contains(.query) ?? false
                if isQuery && session.isAuthenticated {
                    let limit = context.configuration.limits.maxQueuedQueries
                    if context.statistics.pendingQueries.load(ordering: .relaxed) >= limit {
                        context.statistics.shedQueries.add(1, ordering: .relaxed)
                        var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
                        encoder.error("Max pending queries exceeded")
                        queue.append(contentsOf: slot.connection.completed(encoder.bytes, outcome: .keepOpen))
                        continue
                    }
                    context.statistics.pendingQueries.add(1, ordering: .relaxed)
                }
                let counted = isQuery && session.isAuthenticated
                let startingSession = session
                runningCommands += 1
                let table = self.table, context = self.context
                let completions = self.completions, wakeUp = self.wakeUp
                // A read that was not quick runs on the CPU-sized pool, first come first
                // served, so sixteen clients' traversals do not time-slice each other (which
                // multiplies the slowest one's latency); a write keeps its connection's queue,
                // where it may block on the group-commit fsync without holding a pool thread.
                let reads = if let spec, spec.quickHandler != nil, session.isAuthenticated {
                    GraphCommands.onlyReads(request, spec: spec, context: context)
                } else {
                    false
                }
                (reads ? readPool : slot.commands).async {
                    var session = startingSession
                    let (reply, outcome) = table.execute(request, session: &session, context: context)
                    let wasEmpty = completions.push(Completion(connection: token, reply: reply, outcome: outcome,
                                                               session: session, countedAsQuery: counted))
                    if wasEmpty { wakeUp.signal() }
                }
            }
        }
    }

    /// Writes what can be written, closes a finished connection, updates epoll interest.
    private func settle(token: UInt64, slot: Slot) {
        while slot.connection.hasPendingOutput {
            let count = slot.connection.pendingOutput.withUnsafeBytes {
                send(slot.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                perform(slot.connection.wrote(count), token: token, slot: slot)
            } else {
                let error = Glibc.errno
                if count < 0 && error == EINTR { continue }
                if count < 0 && (error == EAGAIN || error == EWOULDBLOCK) { break }
                slot.connection.peerClosed()
            }
        }
        if slot.connection.isFinished {
            closeConnection(token)
            return
        }
        var interest: Epoll.Events = []
        if slot.connection.wantsInput { interest.insert(.input) }
        if slot.connection.hasPendingOutput { interest.insert(.output) }
        if interest != slot.interest {
            do {
                // An empty interest set still reports hang-ups, which would spin the loop
                // while a closed client's command finishes: leave the set instead.
                if interest.isEmpty {
                    epoll.remove(slot.descriptor)
                } else if slot.interest.isEmpty {
                    try epoll.add(slot.descriptor, events: interest, token: token)
                } else {
                    try epoll.modify(slot.descriptor, events: interest, token: token)
                }
                slot.interest = interest
            } catch {
                slot.connection.peerClosed()
                if slot.connection.isFinished { closeConnection(token) }
            }
        }
    }

    private func closeConnection(_ token: UInt64) {
        guard let slot = slots.removeValue(forKey: token) else { return }
        context.statistics.connectedClients.subtract(1, ordering: .relaxed)
        if acceptPaused, let listener {
            // A descriptor is about to be freed: watch the listener again.
            acceptPaused = (try? epoll.add(listener.descriptor, events: .input, token: Self.listenerToken)) == nil
        }
        epoll.remove(slot.descriptor)
        // Closing with unread input makes the kernel send a reset, which can destroy the
        // error reply still in flight to the client: read what is waiting first (bounded),
        // and half-close so the client sees the reply, then end of stream.
        shutdown(slot.descriptor, Int32(SHUT_WR))
        for _ in 0..<16 {
            let count = readBuffer.withUnsafeMutableBytes { read(slot.descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
        }
        close(slot.descriptor)
    }
}
