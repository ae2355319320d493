// Server.swift — the event loop: one leading loop thread at a time accepts, reads, writes and
// closes sockets with epoll, drives each `Connection` state machine, runs fast commands and
// cheap reads itself (a read that overruns a small budget gives up and goes on), and hands the
// rest to workers: other reads to a pool of one thread per core, writes and the remaining
// commands to a serial Dispatch queue per connection. Workers run the command table against the
// store and post the reply back through a completion queue and the wake-up pipe; the loop
// writes it in order. Reads run in parallel (the store's read lock is shared); writes queue on
// the store's write lock and then wait together for one group-commit fsync. Queries beyond
// MAX_QUEUED_QUERIES are refused at once.
//
// A read that is not quick, arriving while no other read runs, is run by the loop thread that
// read it, leader/follower style, and its reply written by that thread, which then leads again.
// The client's request and reply cross no thread: no sleeping worker to wake, no waking the loop
// back (tens of microseconds on a lightly loaded server). Epoll is not left unwatched meanwhile:
// the other loop thread, a follower, sleeps in a standby epoll that watches the loop's epoll
// only while a read runs, so it is woken to lead only if something happens then (another
// client's request, a worker's reply). Handing the loop over up front cost every such read a
// futex wake-up and a context switch, 20 µs of a one-client connections request's 87. The
// loop's state is guarded by `state`: the leader holds it while it handles events, and a thread
// that ran a read holds it while it hands the reply to the connection.
//
// An idle leader polls for a short while before it sleeps in epoll_wait (`--busy-poll`,
// `waitForEvents`): a request that arrives meanwhile is read at once instead of after a wake-up,
// which in a VM costs as much as the rest of a small request's round trip. On a quiet server
// the follower polls too, with the same budget (`waitOnStandby`): through a read a loop thread
// runs, and after a request the leader had to wait for. The core it keeps awake is the one a
// lone client waits on for its reply, and a halted core's wake-up, paid when the reply
// arrives, grows with how long it has slept (docs/benchmarks.md#polling-before-sleeping).

import Dispatch
import Glibc
import GraphQuery
import GraphStore
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
    /// How long an idle leader polls for events before it sleeps in epoll_wait; 0 to always
    /// sleep. Polling trades CPU (at most a core, only while requests keep coming) for the
    /// wake-up: on this project's 2-core VM, PING's round trip at one client is 31 µs with 50 µs
    /// of polling against 55–63 µs without.
    var busyPollMicroseconds = ServerConfiguration.defaultBusyPollMicroseconds
    static let defaultBusyPollMicroseconds = 50
    /// With a busy-poll budget, how long a loop thread keeps polling into a read the other one
    /// runs. The read's client sends nothing until the reply, so polling through a short read
    /// saves the wake-ups that follow it (this thread's, and the client's core's); a longer
    /// read's own time dwarfs them, so the thread sleeps (the read's thread wakes the loop when
    /// done, `runOnLoopThread`).
    var pollIntoReadMicroseconds = 1000
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
    /// True for reads run on `readPool` (counted in `poolReads`).
    var fromPool = false
}

/// A command for a thread to run: a read a loop thread runs itself (see the file's header), or
/// any command handed to a worker.
private struct CommandJob: Sendable {
    var connection: UInt64
    var request: [[UInt8]]
    var session: ClientSession
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
///
/// @unchecked Sendable: loop threads share it; every mutable field is touched only while
/// `state` is held (the epoll waits are outside it: `epoll` is used by the leader alone,
/// `standby` by the follower alone).
final class Server: @unchecked Sendable {
    private let configuration: ServerConfiguration
    /// `configuration.busyPollMicroseconds` in nanoseconds.
    private let busyPollNanoseconds: Int64
    /// `configuration.pollIntoReadMicroseconds` in nanoseconds.
    private let pollIntoReadNanoseconds: Int64
    private let context: ServerContext
    /// The engine's memory ceiling, which client buffers count against too (nil: none).
    private let memoryCeiling: MemoryCeiling?
    private let table: CommandTable
    private let epoll: Epoll
    private var listener: ListeningSocket?
    private let wakeUp: WakeUpPipe
    private let completions = CompletionQueue()
    /// Channel and pattern subscriptions (PubSubCommands); guarded by `state` like the slots.
    private var pubSubRegistry = PubSubRegistry()
    /// The change feed's subscriptions (the `graphd:` channels among those); guarded by `state`.
    private var feedSubscriptions = FeedSubscriptions()
    /// Reads subscriptions' commits back from the log, off the loop.
    private let feedLogReads = DispatchQueue(label: "graphd.feed-log-reads", qos: .userInitiated)
    /// Runs reads handed to workers: Dispatch's global pool, one thread per core (more only
    /// while some block).
    private let readPool = DispatchQueue.global(qos: .userInitiated)
    /// Reads presumed quick that found the graph's lock taken: one at a time, each brief.
    private let quickLane = DispatchQueue(label: "graphd.quick-reads", qos: .userInteractive)
    /// Write queries, by graph name: a graph's writes take its store's lock one at a time
    /// anyway, and run back to back on one lane they do not contend for it (sixty-four
    /// connections' threads queued on one write lock were most of the server's context
    /// switches). A write does not wait for its fsync here (DurabilityDeferral), so a lane
    /// is held only for the query itself; other graphs' writes take the other lanes.
    private let writeLanes = (0..<4).map { DispatchQueue(label: "graphd.writes-\($0)", qos: .userInitiated) }
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
        /// The connection's buffered bytes as last counted against the memory ceiling.
        var countedBytes = 0
        /// Actions left over when the connection used up its turn (`inlineCommandsPerTurn`).
        var deferred: [Connection.Action] = []
        /// How many change-feed subscriptions it holds (settle refills them when it drains).
        var feedSubscriptions = 0
        init(descriptor: Int32, connection: Connection, interest: Epoll.Events) {
            self.descriptor = descriptor; self.connection = connection; self.interest = interest
        }
    }

    /// Quick-path tries one connection's pipelined requests get per batch of its input: with
    /// the 50 µs budget, a few milliseconds at most before the other clients are served.
    static let quickRunsPerTurn = 64
    /// Commands one connection runs on the loop thread per turn (PING, CONFIG, quick reads):
    /// a client pipelining thousands without reading its replies gets this many, then every
    /// other ready connection gets its turn before it is served again, as Redis serves one
    /// read's worth of a client's buffer per turn. 128 PINGs take about 60 µs.
    static let inlineCommandsPerTurn = 128
    /// Loop threads at most: while one runs a read, the other sleeps on standby or leads (it
    /// cannot take a read of its own then: one loop-thread read at a time).
    static let maximumLoopThreads = 2

    /// Guards every mutable field below (see the class comment).
    private let state = Mutex<Void>(())
    /// Where a follower sleeps: it holds the loop's epoll, armed (one-shot) only while the
    /// leader runs a read (`Self.loopToken`), and `standbyEnd`, readable once the loop is over.
    private let standby: Epoll
    private let standbyEnd: WakeUpPipe
    private static let loopToken: UInt64 = 0
    private static let standbyEndToken: UInt64 = 1
    /// Readable when the leader wakes the sleeping follower to poll (`wakeFollowerToPoll`).
    private let followerWake: WakeUpPipe
    private static let followerWakeToken: UInt64 = 2
    /// True while the follower sleeps in the standby epoll (see `wakeFollowerToPoll`).
    private let followerAsleep = Atomic<Bool>(false)
    /// When the leader last found a request it had waited for, or a loop thread last finished
    /// a read (`monotonicNanoseconds`): the follower polls for the busy-poll budget after it.
    private let lastActivity = Atomic<Int64>(0)
    /// The start (`inlineReadStart`) of the last read counted in `polledReads`.
    private let lastPolledRead = Atomic<Int64>(0)
    /// Signalled once, when the loop is over (`run()` waits on it).
    private let loopEnded = DispatchSemaphore(value: 0)
    private var loopThreads = 0
    /// True while a thread leads (handles events); false while the leader runs a read.
    private var seated = false
    private var loopFinished = false
    private var loopError: SystemCallError?
    /// A read some `perform` chose to run on the loop thread; taken before `state` is released.
    private var pendingInline: CommandJob?
    /// True while a loop thread runs a read (one at a time).
    private var inlineRunning = false {
        didSet { inlineReadStart.store(inlineRunning ? max(1, monotonicNanoseconds()) : 0, ordering: .sequentiallyConsistent) }
    }
    /// Reads handed to `readPool` and not yet completed.
    private var poolReads = 0 { didSet { poolBusy.store(poolReads > 0, ordering: .relaxed) } }
    /// Mirrors of `poolReads > 0` and of when the running loop-thread read started (0: none),
    /// readable without `state`: the busy poll checks them on every turn and must not contend
    /// for the lock with the threads running reads.
    private let poolBusy = Atomic<Bool>(false)
    private let inlineReadStart = Atomic<Int64>(0)
    /// Whether the command a loop thread runs (or is about to) is a lone write rather than a
    /// read: set with `inlineRunning`, read without `state` by the polling follower.
    private let inlineIsWrite = Atomic<Bool>(false)
    private var stopping = false
    private var idleSince: ContinuousClock.Instant?
    private static let listenerToken: UInt64 = 0
    private static let wakeUpToken: UInt64 = 1
    private var nextToken: UInt64 = 2
    private var slots: [UInt64: Slot] = [:]
    private var runningCommands = 0
    private var stopRequestedAt: ContinuousClock.Instant?
    /// True while the listener is out of the epoll set because descriptors ran out.
    private var acceptPaused = false
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Connections with actions left over from their last turn, served again at the next
    /// turn before the loop sleeps (fair service: see `inlineCommandsPerTurn`).
    private var backlog: [UInt64] = []

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
        busyPollNanoseconds = Int64(configuration.busyPollMicroseconds) * 1000
        pollIntoReadNanoseconds = Int64(configuration.pollIntoReadMicroseconds) * 1000
        self.table = table
        epoll = try Epoll()
        standby = try Epoll()
        standbyEnd = try WakeUpPipe()
        followerWake = try WakeUpPipe()
        wakeUp = try WakeUpPipe()
        stopSignal = StopSignal(wakeUp: wakeUp)
        let listener = try ListeningSocket(address: configuration.bindAddress, port: configuration.port)
        port = listener.port
        context = makeContext(listener.port)
        memoryCeiling = context.engine.configuration.memoryCeiling
        try epoll.add(listener.descriptor, events: .input, token: Self.listenerToken)
        try epoll.add(wakeUp.readDescriptor, events: .input, token: Self.wakeUpToken)
        try standby.add(epoll.descriptor, events: [], token: Self.loopToken)
        try standby.add(standbyEnd.readDescriptor, events: .input, token: Self.standbyEndToken)
        try standby.add(followerWake.readDescriptor, events: .input, token: Self.followerWakeToken)
        self.listener = listener
        context.changeFeed.connect { [weak self] graph, generation, commits, through in
            self?.feedDelivered(graph, generation: generation, commits: commits, through: through)
        }
    }

    /// Serves until `stopSignal` is requested, then stops accepting, lets running
    /// commands finish, flushes replies (bounded by `flushGraceMilliseconds`) and returns.
    /// The loop runs on threads of its own (see the file's header); this one waits for its end.
    func run() throws(SystemCallError) {
        let started = state.withLock { _ in
            seated = true
            return startLoopThread(leading: true)
        }
        guard started else { throw SystemCallError(call: "pthread_create", errno: Glibc.errno) }
        loopEnded.wait()
        if let error = state.withLock({ _ in loopError }) { throw error }
    }

    /// Starts a loop thread, leading (the seat is its) or on standby; false when the system
    /// refuses a thread.
    private func startLoopThread(leading: Bool) -> Bool {
        let box = Unmanaged.passRetained(LoopThreadStart(server: self, leading: leading)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let start = Unmanaged<LoopThreadStart>.fromOpaque(argument!).takeRetainedValue()
            start.server.serve(leading: start.leading)
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<LoopThreadStart>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        loopThreads += 1
        return true
    }

    /// What a new loop thread is started with.
    private final class LoopThreadStart {
        let server: Server
        let leading: Bool
        init(server: Server, leading: Bool) { self.server = server; self.leading = leading }
    }

    /// A loop thread: leads while it holds the seat; runs the reads it takes (then leads again
    /// if the seat is still free); otherwise sleeps on standby until the seat is free and
    /// something happens.
    private func serve(leading: Bool) {
        var leads = leading
        while true {
            if leads {
                guard let read = lead() else { return }
                switch runOnLoopThread(read) {
                case .leads: continue
                case .follows: leads = false
                case .loopOver: return
                }
            } else {
                do {
                    try waitOnStandby()
                } catch {
                    // Not expected (the standby epoll is the server's own). Without it this
                    // thread cannot follow: it ends, and the leader starts another when it
                    // next needs a follower.
                    state.withLock { _ in loopThreads -= 1 }
                    return
                }
                let outcome: StandbyOutcome = state.withLock { _ in
                    if loopFinished { return .loopOver }
                    guard !seated else { return .follows }
                    seated = true
                    return .leads
                }
                switch outcome {
                case .leads: leads = true
                case .follows: continue
                case .loopOver: return
                }
            }
        }
    }

    /// The follower's wait: returns when the standby has something for it (the loop's epoll
    /// has events while a read runs, or the loop is over). With a busy-poll budget it polls
    /// before it sleeps, yielding its core on every turn: up to
    /// `configuration.pollIntoReadMicroseconds` into a read a loop thread runs, and for the
    /// budget after a loop thread's read ends or the leader finds a request it had waited for
    /// (`noteQuietServerActivity`); the leader wakes it for either if it sleeps. Not while reads
    /// run on workers (their cores are theirs). Polling, it finds another client's request at
    /// once; and it keeps the other core awake, which with one client is where that client
    /// waits for its reply. In a VM an idle core halts, and waking it when the reply arrives
    /// costs more the longer it has slept.
    private func waitOnStandby() throws(SystemCallError) {
        while true {
            if busyPollNanoseconds > 0 {
                while !poolBusy.load(ordering: .relaxed) {
                    if try standbyHasEvents(timeoutMilliseconds: 0) { return }
                    let now = monotonicNanoseconds()
                    let readStart = inlineReadStart.load(ordering: .relaxed)
                    if readStart != 0 {
                        if now - readStart >= pollIntoReadNanoseconds { break }
                        countPolledRead(startedAt: readStart)
                    } else if now - lastActivity.load(ordering: .relaxed) >= busyPollNanoseconds {
                        break
                    }
                    sched_yield()
                }
            }
            // The leader stores a read's start, then looks whether this thread sleeps; this thread
            // says it sleeps, then looks for a read (both sequentially consistent): one of the
            // two sees the other, so no read starts unwatched while this thread falls asleep.
            followerAsleep.store(true, ordering: .sequentiallyConsistent)
            let readStart = inlineReadStart.load(ordering: .sequentiallyConsistent)
            if busyPollNanoseconds > 0 && readStart != 0 && !poolBusy.load(ordering: .relaxed)
                && monotonicNanoseconds() - readStart < pollIntoReadNanoseconds {
                followerAsleep.store(false, ordering: .relaxed)
                continue
            }
            let ready = try standbyHasEvents(timeoutMilliseconds: -1)
            followerAsleep.store(false, ordering: .relaxed)
            if ready { return }
        }
    }

    /// Counts a read a loop thread runs through which the other loop thread polls (INFO's
    /// `polled_reads`), once, whether it polls as the follower or, woken to lead, as the leader.
    private func countPolledRead(startedAt readStart: Int64) {
        guard !inlineIsWrite.load(ordering: .relaxed), lastPolledRead.load(ordering: .relaxed) != readStart,
              lastPolledRead.exchange(readStart, ordering: .relaxed) != readStart else { return }
        context.statistics.polledReads.add(1, ordering: .relaxed)
    }

    /// Waits on the standby epoll; true when it has something for the follower (a wake-up to
    /// poll is drained and is not such a thing).
    private func standbyHasEvents(timeoutMilliseconds: Int32) throws(SystemCallError) -> Bool {
        var found = false
        for (token, _) in try standby.wait(timeoutMilliseconds: timeoutMilliseconds) {
            if token == Self.followerWakeToken { followerWake.drain() } else { found = true }
        }
        return found
    }

    /// What a loop thread does next, after a read or a wake-up on standby.
    private enum StandbyOutcome {
        case leads, follows, loopOver
    }

    /// Leads the loop: waits for events and handles them, until this thread takes a read to run
    /// (returned, the seat given up and the standby armed) or the loop is over (nil).
    private func lead() -> CommandJob? {
        var timeout: Int32 = state.withLock { _ in waitTimeout }
        while true {
            let ready: [(token: UInt64, events: Epoll.Events)]
            do {
                ready = try waitForEvents(timeoutMilliseconds: timeout)
            } catch {
                state.withLock { _ in
                    loopError = error
                    endLoop()
                }
                return nil
            }
            let (finished, read, next): (Bool, CommandJob?, Int32) = state.withLock { _ in
                for (token, events) in ready {
                    switch token {
                    case Self.listenerToken: acceptAll()
                    case Self.wakeUpToken: wakeUp.drain()
                    default: handle(token: token, events: events)
                    }
                }
                for completion in completions.takeAll() { complete(completion) }
                serveBacklog()
                if loopIsOver() {
                    endLoop()
                    return (true, nil, 0)
                }
                guard let read = pendingInline else { return (false, nil, waitTimeout) }
                pendingInline = nil
                if armStandby() {
                    // (`inlineReadStart` is stored already: see `waitOnStandby`.)
                    if followerAsleep.load(ordering: .sequentiallyConsistent) { wakeFollowerToPoll() }
                    seated = false
                    return (false, read, 0)
                }
                // No thread to follow meanwhile: a worker runs it after all (a write on its
                // graph's write lane, as any other write).
                inlineRunning = false
                if inlineIsWrite.load(ordering: .relaxed) {
                    dispatch(read, on: writeLane(for: read.request), defersDurability: true)
                } else {
                    poolReads += 1
                    dispatch(read, on: readPool)
                }
                return (false, nil, waitTimeout)
            }
            if finished { return nil }
            if let read { return read }
            timeout = next
        }
    }

    /// Waits for events. With a busy-poll budget, an idle leader first polls, without sleeping,
    /// until the budget has passed since the last activity (see
    /// `ServerConfiguration.busyPollMicroseconds`): in a VM, a thread asleep in epoll_wait is
    /// woken by an interrupt to a halted virtual CPU, which costs about as much as a small
    /// query's whole round trip. It does not poll while reads run on workers (a busy server's
    /// leader is woken by their completions, and its core is theirs), polls at most
    /// `configuration.pollIntoReadMicroseconds` into a read a loop thread runs, and yields its
    /// core on every turn to any thread that wants it. With a stop pending
    /// (`timeoutMilliseconds` ≥ 0) it just waits.
    private func waitForEvents(timeoutMilliseconds: Int32) throws(SystemCallError) -> [(token: UInt64, events: Epoll.Events)] {
        if timeoutMilliseconds < 0 && busyPollNanoseconds > 0 {
            var idleSince = monotonicNanoseconds()
            let pollStart = idleSince
            while !poolBusy.load(ordering: .relaxed) {
                let ready = try epoll.wait(timeoutMilliseconds: 0)
                if !ready.isEmpty {
                    context.statistics.busyPollHits.add(1, ordering: .relaxed)
                    if monotonicNanoseconds() - pollStart >= Self.waitedForRequestNanoseconds { noteQuietServerActivity() }
                    return ready
                }
                let now = monotonicNanoseconds()
                let readStart = inlineReadStart.load(ordering: .relaxed)
                if readStart != 0 {
                    if now - readStart >= pollIntoReadNanoseconds { break }
                    countPolledRead(startedAt: readStart)
                    idleSince = now   // the client's next request comes after this read's reply
                } else if now - idleSince >= busyPollNanoseconds {
                    break
                }
                sched_yield()
            }
        }
        let ready = try epoll.wait(timeoutMilliseconds: timeoutMilliseconds)
        if busyPollNanoseconds > 0 && !ready.isEmpty { noteQuietServerActivity() }
        return ready
    }

    /// How long the leader must have polled in vain before the events it finds count as
    /// activity on a quiet server (`noteQuietServerActivity`). A busy server's leader finds
    /// events at once, and there the follower would only take a core from the threads that
    /// want it (sixteen clients on this project's two cores lost up to 15% of their calls when
    /// it polled after every request).
    static let waitedForRequestNanoseconds: Int64 = 5_000

    /// The leader found events it had waited for, so the server is quiet: the follower is to
    /// poll for the budget after now (see `waitOnStandby`), woken for that if it sleeps. Its
    /// core is the one a lone client waits on for its reply, and kept awake, that core is not
    /// woken from a halt when the reply arrives.
    private func noteQuietServerActivity() {
        lastActivity.store(monotonicNanoseconds(), ordering: .relaxed)
        if followerAsleep.load(ordering: .relaxed) { wakeFollowerToPoll() }
    }

    /// Wakes the sleeping follower to poll (unless reads run on workers: it would not poll).
    private func wakeFollowerToPoll() {
        guard busyPollNanoseconds > 0, !poolBusy.load(ordering: .relaxed) else { return }
        context.statistics.followerWakeUps.add(1, ordering: .relaxed)
        followerWake.signal()
    }

    /// Before the leader runs a read: makes sure a follower exists (starting the second loop
    /// thread the first time) and arms the standby, so that the follower wakes to lead if
    /// anything happens during the read. False when there is no follower (the system refused a
    /// thread) or the standby cannot be armed; the leader then hands the read to a worker.
    private func armStandby() -> Bool {
        guard loopThreads == Self.maximumLoopThreads || startLoopThread(leading: false) else { return false }
        do {
            try standby.modify(epoll.descriptor, events: [.input, .oneShot], token: Self.loopToken)
            return true
        } catch {
            return false
        }
    }

    /// Disarms the standby when the thread that ran a read takes the seat back (a follower woken
    /// after this finds the seat taken and sleeps again; disarming only spares it that).
    private func disarmStandby() {
        _ = try? standby.modify(epoll.descriptor, events: [], token: Self.loopToken)
    }

    /// The write lane of the graph a query names (its first argument).
    private func writeLane(for request: [[UInt8]]) -> DispatchQueue {
        let graph = request.count > 1 ? request[1] : []
        return writeLanes[Int(UInt(bitPattern: graph.hashValue) % UInt(writeLanes.count))]
    }

    /// Runs `job` (a read, or a connection's write or other command) on `queue`, a worker,
    /// posting its reply to the completion queue. A query that writes (`defersDurability`) does
    /// not block its worker until its record is durable: its reply is posted by the thread that
    /// synced the log (DurabilityDeferral), so a group of writers costs one wake-up of the loop
    /// instead of a parked thread each. The connection starts nothing else before that reply,
    /// so replies stay in order.
    private func dispatch(_ job: CommandJob, on queue: DispatchQueue, defersDurability: Bool = false) {
        let table = self.table, context = self.context
        let completions = self.completions, wakeUp = self.wakeUp
        let fromPool = queue === readPool
        queue.async {
            var session = job.session
            let deferral = defersDurability ? DurabilityDeferral() : nil
            let (reply, outcome) = DurabilityDeferral.$current.withValue(deferral) {
                table.execute(job.request, session: &session, context: context)
            }
            let post: @Sendable ([UInt8], ClientSession) -> Void = { reply, session in
                let wasEmpty = completions.push(Completion(connection: job.connection, reply: reply, outcome: outcome,
                                                           session: session, countedAsQuery: job.countedAsQuery,
                                                           fromPool: fromPool))
                if wasEmpty { wakeUp.signal() }
            }
            guard let deferral, !deferral.isEmpty else { return post(reply, session) }
            let answered = session
            deferral.whenDurable { error in
                guard let error else { return post(reply, answered) }
                var encoder = RESPEncoder(protocolVersion: answered.protocolVersion)
                QueryErrorReply.write(QueryError(.storage, error.message), into: &encoder)
                post(encoder.bytes, answered)
            }
        }
    }

    /// Runs `read` (a read, or a lone write: `inlineIsWrite`) on this loop thread (which gave up
    /// the seat to run it) and hands its reply to the connection; then any command that reply
    /// let the connection start and `perform` chose for a loop thread, the same way. Then it
    /// takes the seat back if it is still free (`.leads`), or becomes the follower (`.follows`).
    private func runOnLoopThread(_ read: CommandJob) -> StandbyOutcome {
        var read = read
        while true {
            let started = inlineReadStart.load(ordering: .relaxed)
            if inlineIsWrite.load(ordering: .relaxed) {
                context.statistics.loopWrites.add(1, ordering: .relaxed)
            } else {
                context.statistics.loopReads.add(1, ordering: .relaxed)
            }
            var session = read.session
            // A lone write polls for its fdatasync rather than sleep through it, as the loop
            // polls for requests (DurabilityPolling.swift): its core stays awake for the disk's answer.
            let isWrite = inlineIsWrite.load(ordering: .relaxed)
            let pollsForSync = busyPollNanoseconds > 0 && isWrite
            // Its commit goes to the change feed from this thread once the reply is out
            // (CommitHandOff.swift): no wake-up of the notifier, no event racing the reply.
            let handOff = isWrite ? CommitHandOff() : nil
            let (reply, outcome) = DurabilityPolling.$budget.withValue(pollsForSync ? .nanoseconds(pollIntoReadNanoseconds) : nil) {
                CommitHandOff.$current.withValue(handOff) {
                    table.execute(read.request, session: &session, context: context)
                }
            }
            let completion = Completion(connection: read.connection, reply: reply, outcome: outcome,
                                        session: session, countedAsQuery: read.countedAsQuery)
            lastActivity.store(monotonicNanoseconds(), ordering: .relaxed)
            let (next, then): (CommandJob?, StandbyOutcome) = state.withLock { _ in
                inlineRunning = false
                complete(completion)
                if let next = pendingInline {
                    pendingInline = nil
                    return (next, .follows)
                }
                if loopFinished { return (nil, .loopOver) }
                guard !seated else { return (nil, .follows) }
                seated = true
                disarmStandby()
                return (nil, .leads)
            }
            // The reply is out: now the commit's events, on this thread, before it leads again
            // (handing them out before taking the seat back let the follower lead the client's
            // next request, a hand-off that cost more than the events).
            handOff?.handOut()
            if let next {
                read = next
                continue
            }
            // A long read while the follower led: it stopped polling into the read (see
            // `waitForEvents`) and sleeps; wake it to poll for this client's next request while
            // the reply travels. (Should the two clocks disagree, the next request wakes it anyway.)
            if then == .follows && busyPollNanoseconds > 0
                && monotonicNanoseconds() - started >= pollIntoReadNanoseconds {
                wakeUp.signal()
            }
            return then
        }
    }

    /// Whether the loop is to end now; stopping (once requested) stops accepting, waits for
    /// running commands (bounded) and flushes replies (bounded).
    private func loopIsOver() -> Bool {
        if stopSignal.isRequested && !stopping {
            stopping = true
            beginStopping()
        }
        guard stopping else { return false }
        if slots.isEmpty && runningCommands == 0 { return true }
        if let since = stopRequestedAt, runningCommands > 0,
           ContinuousClock.now - since > .milliseconds(configuration.stopGraceMilliseconds) {
            configuration.log("stopping with \(runningCommands) command(s) still running after "
                              + "\(configuration.stopGraceMilliseconds) ms")
            for token in Array(slots.keys) { closeConnection(token) }
            return true
        }
        if slots.isEmpty || runningCommands > 0 { return false }
        let now = ContinuousClock.now
        guard let since = idleSince else {
            idleSince = now
            return false
        }
        guard now - since > .milliseconds(configuration.flushGraceMilliseconds) else { return false }
        for token in Array(slots.keys) { closeConnection(token) }
        return true
    }

    /// Ends the loop: wakes the follower on standby (it returns) and `run()`.
    private func endLoop() {
        loopFinished = true
        standbyEnd.signal()
        loopEnded.signal()
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
        // No command takes an argument longer than MAX_QUERY_LENGTH: a longer one is read past
        // unbuffered and its request answered with the error (the limit read once a turn).
        slot.connection.setMaxArgumentLength(Int(context.configuration.limits.maxQueryLength))
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
        if completion.fromPool { poolReads -= 1 }
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
        var inlineRuns = 0
        while !queue.isEmpty {
            if inlineRuns >= Self.inlineCommandsPerTurn {
                // The turn is used up: the rest waits for the next one (serveBacklog).
                if slot.deferred.isEmpty {
                    if backlog.isEmpty { wakeUp.signal() }  // a leader asleep in epoll must come back for it
                    backlog.append(token)
                }
                slot.deferred.append(contentsOf: queue)
                return
            }
            switch queue.removeFirst() {
            case .closeAfterFlush:
                continue
            case .closeOutputLimitExceeded(let bytes):
                context.statistics.outputLimitDisconnections.add(1, ordering: .relaxed)
                configuration.log("closing client id=\(slot.connection.session.id) addr=\(slot.connection.session.peerAddress): "
                                  + "\(bytes) bytes of unsent replies exceed the output limit of "
                                  + "\(configuration.clientOutputLimit) bytes")
            case .execute(let request):
                if slot.connection.session.isAuthenticated, let reply = loopCommand(request, token: token, slot: slot) {
                    inlineRuns += 1
                    queue.append(contentsOf: reply)
                    continue
                }
                let spec = table.spec(named: request[0])
                var session = slot.connection.session
                if let spec, spec.flags.contains(.fast) {
                    inlineRuns += 1
                    let (reply, outcome) = table.execute(request, session: &session, context: context)
                    queue.append(contentsOf: slot.connection.completed(reply, outcome: outcome, session: session))
                    continue
                }
                // A cheap read is answered here: waking a worker and being woken back costs
                // more than the query (see GraphCommands.quickBudget). A client pipelining
                // many gets a bounded share of this thread per turn; the rest go to its worker.
                var quickTried = false
                if let spec, spec.quickHandler != nil, quickRuns < Self.quickRunsPerTurn {
                    quickRuns += 1
                    quickTried = true
                    if let (reply, outcome) = table.executeQuickly(request, spec: spec, session: &session, context: context) {
                        inlineRuns += 1
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
                runningCommands += 1
                let read = CommandJob(connection: token, request: request, session: session, countedAsQuery: counted)
                // A read that was not quick runs on the CPU-sized pool, first come first
                // served, so sixteen clients' traversals do not time-slice each other (which
                // multiplies the slowest one's latency); a write query takes its graph's write
                // lane, and any other command its connection's queue.
                let reads = if let spec, spec.quickHandler != nil, session.isAuthenticated {
                    GraphCommands.onlyReads(request, spec: spec, context: context)
                } else {
                    false
                }
                // The only read running: this loop thread runs it (see the file's header). So
                // does a write when no other command runs at all — one client writing one request
                // at a time, the common case: its fsync then blocks this thread (the follower
                // leads meanwhile), and the request and reply cross no thread, which saves the
                // two wake-ups of a hand-off (docs/durability.md, "Where a write's time goes").
                // Writes that arrive together still go to their connections' queues, where they
                // share one group-commit fsync.
                let loneWrite = !reads && isQuery && session.isAuthenticated && runningCommands == 1
                if (reads || loneWrite) && mayRunInline() {
                    inlineIsWrite.store(loneWrite, ordering: .relaxed)
                    inlineRunning = true
                    pendingInline = read
                    continue
                }
                // A read presumed quick that could not run at once (a write held or awaited the
                // graph's lock) takes the quick lane, not the pool's queue behind long traversals.
                if reads && quickTried && GraphCommands.presumedQuick(request, context: context) {
                    dispatch(read, on: quickLane)
                    continue
                }
                if reads { poolReads += 1 }
                if !reads && isQuery && session.isAuthenticated {
                    dispatch(read, on: writeLane(for: request), defersDurability: true)
                } else {
                    dispatch(read, on: reads ? readPool : slot.commands)
                }
            }
        }
    }

    /// Runs a command only the loop can run for the connection at `token` — a transaction's
    /// queueing and EXEC (TransactionCommands), CLIENT KILL, Pub/Sub — and returns its reply's
    /// actions; nil for any other command (the table runs it). An EXEC that holds a query goes
    /// to the connection's worker (no actions until it completes).
    private func loopCommand(_ request: [[UInt8]], token: UInt64, slot: Slot) -> [Connection.Action]? {
        var session = slot.connection.session
        let name = TransactionCommands.name(of: request)
        if session.transaction != nil && !TransactionCommands.immediate.contains(name) {
            let reply = TransactionCommands.queue(request, table: table, session: &session)
            return slot.connection.completed(reply, outcome: .keepOpen, session: session)
        }
        var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
        switch name {
        case "MULTI":
            guard request.count == 1 else { return nil }
            if session.transaction != nil {
                encoder.error(TransactionCommands.nestedMessage)
            } else {
                session.transaction = []
                encoder.simpleString("OK")
            }
            return slot.connection.completed(encoder.bytes, outcome: .keepOpen, session: session)
        case "DISCARD":
            guard request.count == 1 else { return nil }
            if session.transaction == nil {
                encoder.error(TransactionCommands.discardWithoutMultiMessage)
            } else {
                session.transaction = nil
                session.transactionFailed = false
                encoder.simpleString("OK")
            }
            return slot.connection.completed(encoder.bytes, outcome: .keepOpen, session: session)
        case "EXEC":
            guard request.count == 1, let queued = session.transaction else { return nil }
            guard !session.transactionFailed, queued.allSatisfy({ TransactionCommands.runsOnLoop($0, table: table) }) else {
                if !session.transactionFailed {
                    runningCommands += 1
                    dispatch(CommandJob(connection: token, request: request, session: session, countedAsQuery: false),
                             on: slot.commands)
                    return []
                }
                session.transaction = nil
                session.transactionFailed = false
                encoder.error(TransactionCommands.abortMessage)
                return slot.connection.completed(encoder.bytes, outcome: .keepOpen, session: session)
            }
            session.transaction = nil
            var closes = false
            let held = pubSubRegistry.subscriptions(of: token)
            encoder.arrayHeader(queued.count)
            for queuedRequest in queued {
                switch TransactionCommands.name(of: queuedRequest) {
                case "CLIENT KILL":
                    let (reply, closesCaller) = clientKill(queuedRequest, token: token, session: session)
                    encoder.appendRaw(reply)
                    closes = closes || closesCaller
                case let other where TransactionCommands.loopOnly.contains(other):
                    if let (reply, resets) = pubSubReply(queuedRequest, token: token, session: session) {
                        encoder.appendRaw(reply)
                        if resets { session = resetSession(session) }
                    }
                default:
                    _ = table.execute(queuedRequest, session: &session, context: context, into: &encoder)
                }
            }
            let changed = feedChanges(held: held, token: token, slot: slot)
            var actions = slot.connection.completed(encoder.bytes, outcome: closes ? .close : .keepOpen, session: session)
            if let changed { actions += apply(changed, refilling: token) }
            return actions
        case "CLIENT KILL":
            let (reply, closesCaller) = clientKill(request, token: token, session: session)
            return slot.connection.completed(reply, outcome: closesCaller ? .close : .keepOpen)
        default:
            return pubSub(request, token: token, slot: slot)
        }
    }

    /// CLIENT KILL (ClientKillFilter): closes the matching connections but the caller's, and
    /// says whether the caller is to close after its reply. A follower's connection is of
    /// TYPE replica, never normal: Sentinel's `CLIENT KILL TYPE normal` spares replication.
    private func clientKill(_ request: [[UInt8]], token: UInt64, session: ClientSession) -> (reply: [UInt8], closesCaller: Bool) {
        var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
        let filter: ClientKillFilter
        switch ClientKillFilter.parse(Array(request.dropFirst(2))) {
        case .success(let parsed): filter = parsed
        case .failure(let error):
            encoder.error(error.message)
            return (encoder.bytes, false)
        }
        var killed = 0
        var closesCaller = false
        for (otherToken, other) in slots {
            let otherSession = other.connection.session
            let kind: ClientKind = context.replication.isFollower(otherSession.id)
                ? .replica : (pubSubRegistry.count(of: otherToken) > 0 ? .pubsub : .normal)
            guard filter.matches(id: otherSession.id, address: otherSession.peerAddress, kind: kind,
                                 isCaller: otherToken == token) else { continue }
            killed += 1
            if otherToken == token {
                closesCaller = true
                continue
            }
            other.connection.peerClosed()
            settle(token: otherToken, slot: other)
        }
        if filter.oldForm {
            if killed == 0 { encoder.error("ERR No such client") } else { encoder.simpleString("OK") }
        } else {
            encoder.integer(Int64(killed))
        }
        return (encoder.bytes, closesCaller)
    }

    /// Runs a Pub/Sub command (or refuses a command in RESP2's subscribed mode) for the
    /// connection at `token`: its reply's actions, after the frames it publishes are queued on
    /// their subscribers' connections. Nil for any other command.
    private func pubSub(_ request: [[UInt8]], token: UInt64, slot: Slot) -> [Connection.Action]? {
        let session = slot.connection.session
        if request.count == 2, request[0].count == 6, String(decoding: request[0], as: UTF8.self).uppercased() == "CLIENT",
           String(decoding: request[1], as: UTF8.self).uppercased() == "LIST" {
            return slot.connection.completed(clientList(session), outcome: .keepOpen)
        }
        let held = pubSubRegistry.subscriptions(of: token)
        guard let (reply, resets) = pubSubReply(request, token: token, session: session) else { return nil }
        let changed = feedChanges(held: held, token: token, slot: slot)
        var actions = slot.connection.completed(reply, outcome: .keepOpen, session: resets ? resetSession(session) : nil)
        // The feed's first frames (a reset, a replay, a position) follow the acknowledgements.
        if let changed { actions += apply(changed, refilling: token) }
        return actions
    }

    /// `pubSub`'s work: the reply bytes and whether the session resets (RESET); the frames
    /// it publishes are queued on their subscribers' connections.
    private func pubSubReply(_ request: [[UInt8]], token: UInt64, session: ClientSession) -> (reply: [UInt8], resets: Bool)? {
        guard let outcome = PubSubCommands.run(request, connection: token, session: session, registry: &pubSubRegistry,
                                               protocolFor: { [slots] in slots[$0]?.connection.session.protocolVersion ?? .resp2 })
        else { return nil }
        for (target, frame) in outcome.deliveries {
            guard let other = slots[target] else { continue }
            let actions = other.connection.push(frame)
            if target == token { continue }  // written with the reply, by the caller's settle
            if !actions.isEmpty { perform(actions, token: target, slot: other) }
            settle(token: target, slot: other)
        }
        return (outcome.reply, outcome.resetsSession)
    }

    /// A new connection's session with `session`'s identity (RESET).
    private func resetSession(_ session: ClientSession) -> ClientSession {
        ClientSession(id: session.id, peerAddress: session.peerAddress, isAuthenticated: context.password == nil)
    }

    // MARK: Change feed

    /// After a Pub/Sub command: the feed subscriptions it made or ended for `token` (compared
    /// with what it `held` before); nil when it touched none.
    private func feedChanges(held: PubSubRegistry.Subscriptions, token: UInt64, slot: Slot) -> FeedOutcome? {
        let now = pubSubRegistry.subscriptions(of: token)
        var outcome: FeedOutcome?
        let feed = context.changeFeed
        for (before, after, pattern) in [(held.channels, now.channels, false), (held.patterns, now.patterns, true)] {
            for name in before where !after.contains(name) {
                if let (graph, stalled) = feedSubscriptions.unsubscribe(token, name: name, pattern: pattern) {
                    feed.listen(graph, -1, stalled: stalled ? -1 : 0)
                    slot.feedSubscriptions -= 1
                    context.statistics.feedSubscriptions.subtract(1, ordering: .relaxed)
                }
            }
            for name in after where !before.contains(name) {
                guard let channel = FeedChannel(name, pattern: pattern) else { continue }
                feed.listen(channel.graph, 1)
                let position = feed.position(of: channel.graph)
                let made = feedSubscriptions.subscribe(token, name: name, channel: channel, position: position,
                                                       connections: feedConnections)
                slot.feedSubscriptions += 1
                context.statistics.feedSubscriptions.add(1, ordering: .relaxed)
                if outcome == nil { outcome = FeedOutcome() }
                outcome!.append(made)
            }
        }
        return outcome ?? (held.count == now.count && held.channels == now.channels ? nil : FeedOutcome())
    }

    /// How the feed sees connections: their protocol and unsent output (under `state`).
    private var feedConnections: FeedSubscriptions.Connections {
        FeedSubscriptions.Connections(
            protocolVersion: { [slots] in slots[$0]?.connection.session.protocolVersion ?? .resp2 },
            unsent: { [slots] in slots[$0]?.connection.unsentOutput ?? 0 })
    }

    /// Queues a feed outcome's frames and starts its log reads. The connection `refilling` (whose
    /// reply the caller completes) gets its refill at once and is settled by the caller; every
    /// other connection touched is settled here. Returns `refilling`'s actions.
    @discardableResult
    private func apply(_ outcome: FeedOutcome, refilling: UInt64? = nil) -> [Connection.Action] {
        var touched: [UInt64] = []
        var actions: [Connection.Action] = []
        for (graph, delta) in outcome.stalls { context.changeFeed.listen(graph, 0, stalled: delta) }
        for (target, frame) in outcome.frames {
            guard let slot = slots[target] else { continue }
            let result = slot.connection.push(frame)
            if target == refilling { actions += result } else if !result.isEmpty { perform(result, token: target, slot: slot) }
            if touched.last != target { touched.append(target) }
        }
        for target in outcome.closing {
            guard let slot = slots[target] else { continue }
            context.statistics.feedClosedPastRetention.add(1, ordering: .relaxed)
            if target == refilling { actions += slot.connection.stop() } else { perform(slot.connection.stop(), token: target, slot: slot) }
            if !touched.contains(target) { touched.append(target) }
        }
        for (subscription, after) in outcome.logReads { readLog(for: subscription, after: after) }
        touched += outcome.refills  // settle refills them as their output allows
        if let refilling, let slot = slots[refilling], slot.feedSubscriptions > 0 {
            let more = feedSubscriptions.refill(refilling, ring: ringReader, connections: feedConnections)
            if !more.isEmpty { actions += apply(more, refilling: refilling) }
        }
        for target in Set(touched) where target != refilling {
            if let slot = slots[target] { settle(token: target, slot: slot) }
        }
        updateFeedStatistics()
        return actions
    }

    private var ringReader: (String, Int, UInt64, Int) -> FeedRead {
        let feed = context.changeFeed
        return { graph, generation, after, limit in feed.ringCommits(graph, generation: generation, after: after, limit: limit) }
    }

    /// The feed's sink: new commits of `graph`, from its store's notifier thread.
    private func feedDelivered(_ graph: String, generation: Int, commits: [DerivedCommit], through: ChangeToken) {
        state.withLock { _ in
            let outcome = feedSubscriptions.deliver(graph, generation: generation, commits: commits, through: through,
                                                    connections: feedConnections)
            if !outcome.isEmpty { apply(outcome) }
            wakeLoopIfNeeded()
        }
    }

    /// After feed work on another thread: a connection whose output drained may have started its
    /// next command and left it for a loop thread (`pendingInline`) or its next turn (`backlog`);
    /// the leader may be asleep in epoll, so wake it.
    private func wakeLoopIfNeeded() {
        if pendingInline != nil || !backlog.isEmpty { wakeUp.signal() }
    }

    /// Reads commits after `after` for a subscription behind past the ring, on a worker; queues
    /// them (or the end of the subscriber) when done.
    private func readLog(for subscription: FeedSubscription, after: UInt64) {
        let feed = context.changeFeed
        feedLogReads.async { [weak self] in
            guard let self else { return }
            let generation = state.withLock { _ in subscription.generation }
            let read = feed.commits(subscription.channel.graph, generation: generation, after: after,
                                    limit: FeedSubscriptions.refillBatch)
            state.withLock { _ in
                let outcome = feedSubscriptions.logRead(subscription, after: after, read, connections: feedConnections)
                apply(outcome)
                // Go on refilling while the socket takes it.
                if let slot = slots[subscription.connection] { settle(token: subscription.connection, slot: slot) }
                wakeLoopIfNeeded()
            }
        }
    }

    /// Refills `token`'s subscriptions that are behind once its output has drained (from
    /// `settle`); true when it queued something to write.
    private func refillFeed(token: UInt64, slot: Slot) -> Bool {
        guard slot.feedSubscriptions > 0, slot.connection.unsentOutput < FeedSubscriptions.refillWater,
              !slot.connection.isClosing else { return false }
        let outcome = feedSubscriptions.refill(token, ring: ringReader, connections: feedConnections)
        guard !outcome.isEmpty else { return false }
        let actions = apply(outcome, refilling: token)
        if !actions.isEmpty { perform(actions, token: token, slot: slot) }
        return slot.connection.hasPendingOutput
    }

    private func updateFeedStatistics() {
        context.statistics.feedSubscriptionsBehind.store(feedSubscriptions.behindCount, ordering: .relaxed)
    }

    /// `CLIENT LIST`: one line per connection, Redis's fields with the feed's `sub-lag`.
    private func clientList(_ session: ClientSession) -> [UInt8] {
        var text = ""
        for token in slots.keys.sorted() {
            guard let slot = slots[token] else { continue }
            let s = slot.connection.session
            let held = pubSubRegistry.subscriptions(of: token)
            text += "id=\(s.id) addr=\(s.peerAddress) name=\(s.name) db=\(s.database) sub=\(held.channels.count) "
                + "psub=\(held.patterns.count) sub-lag=\(feedSubscriptions.lag(of: token)) omem=\(slot.connection.unsentOutput) "
                + "resp=\(s.protocolVersion.rawValue) lib-name=\(s.libraryName) lib-ver=\(s.libraryVersion)\n"
        }
        var encoder = RESPEncoder(protocolVersion: session.protocolVersion)
        encoder.bulkString(text)
        return encoder.bytes
    }

    /// How long the leader may wait for events: not at all while connections wait for their
    /// next turn (`backlog`), 50 ms while stopping, else until something happens.
    private var waitTimeout: Int32 { backlog.isEmpty ? (stopping ? 50 : -1) : 0 }

    /// Gives each connection that used up its last turn its next one (`inlineCommandsPerTurn`).
    private func serveBacklog() {
        guard !backlog.isEmpty else { return }
        let tokens = backlog
        backlog = []
        for token in tokens {
            guard let slot = slots[token] else { continue }
            let actions = slot.deferred
            slot.deferred = []
            perform(actions, token: token, slot: slot)
            settle(token: token, slot: slot)
        }
    }

    /// Whether a read may run on a loop thread: no other read is running or waiting on the
    /// pool (a busy server keeps its reads first come, first served there, so that a loop
    /// thread's read does not time-slice theirs). Whether another thread can lead meanwhile is
    /// the leader's question (`handOverLeadership`): a thread that has just run a read and
    /// runs its connection's next one leads nothing.
    private func mayRunInline() -> Bool {
        !inlineRunning && pendingInline == nil && poolReads == 0 && !stopping
    }

    /// Writes what can be written, closes a finished connection, updates epoll interest.
    private func settle(token: UInt64, slot: Slot) {
        defer { count(slot, token: token) }
        var refills = 0
        while true {
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
            // A subscriber behind is refilled as its socket drains (FeedSubscriptions); a few
            // rounds a turn, then the rest waits for its next turn.
            guard slot.feedSubscriptions > 0, !slot.connection.hasPendingOutput || slot.connection.unsentOutput < FeedSubscriptions.refillWater
            else { break }
            if refills == 8 {
                if feedSubscriptions.lag(of: token) > 0, slot.deferred.isEmpty, !backlog.contains(token) {
                    if backlog.isEmpty { wakeUp.signal() }
                    backlog.append(token)
                }
                break
            }
            refills += 1
            guard refillFeed(token: token, slot: slot) else { break }
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

    /// Counts a connection's buffers against the server's memory ceiling; past it, the
    /// connections holding the most are closed until the count is under it again (Redis's
    /// client eviction under maxmemory-clients), so buffered input can never grow the server
    /// without bound, however many clients send half a request each.
    private func count(_ slot: Slot, token: UInt64) {
        guard let ceiling = memoryCeiling else { return }
        let now = slots[token] == nil ? 0 : slot.connection.bufferedBytes
        ceiling.add(now - slot.countedBytes)
        slot.countedBytes = now
        guard ceiling.isExceeded else { return }
        for (victim, other) in slots.sorted(by: { $0.value.countedBytes > $1.value.countedBytes }) {
            guard ceiling.isExceeded, other.countedBytes > 0 else { break }
            context.statistics.memoryCeilingDisconnections.add(1, ordering: .relaxed)
            configuration.log("closing client id=\(other.connection.session.id) addr=\(other.connection.session.peerAddress): "
                              + "its \(other.countedBytes) buffered bytes put the server past its memory ceiling of "
                              + "\(ceiling.limit) bytes")
            other.connection.peerClosed()
            closeConnection(victim)
        }
    }

    private func closeConnection(_ token: UInt64) {
        guard let slot = slots.removeValue(forKey: token) else { return }
        pubSubRegistry.removeAll(of: token)
        context.replication.followerLeft(connection: slot.connection.session.id)
        for (graph, stalled) in feedSubscriptions.removeAll(of: token) {
            context.changeFeed.listen(graph, -1, stalled: stalled ? -1 : 0)
            context.statistics.feedSubscriptions.subtract(1, ordering: .relaxed)
        }
        memoryCeiling?.add(-slot.countedBytes)
        slot.countedBytes = 0
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

/// CLOCK_MONOTONIC in nanoseconds: the busy poll's clock, an integer so that it can sit in an atomic.
private func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
