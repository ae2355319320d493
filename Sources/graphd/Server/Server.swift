// Server.swift — the event loop: one I/O thread that accepts, reads, writes and closes
// sockets with epoll, drives each `Connection` state machine, and hands commands to a
// worker pool. Workers run the command table against the store and post the reply back
// through a completion queue and the wake-up pipe; the I/O thread writes it in order.

import Dispatch
import Glibc
import Synchronization

/// Where and how the server listens.
struct ServerConfiguration: Sendable, Equatable {
    var bindAddress: String = "127.0.0.1"
    var port: Int = 6479
    var limits = ProtocolLimits()
    /// After a stop is requested and no command is running, how long to keep trying to
    /// flush replies to clients that do not read.
    var flushGraceMilliseconds: Int = 2000
}

/// A finished command, posted by a worker for the I/O thread.
private struct Completion: Sendable {
    var connection: UInt64
    var reply: [UInt8]
    var outcome: CommandOutcome
}

/// Replies handed from workers to the I/O thread.
private final class CompletionQueue: Sendable {
    private let items = Mutex<[Completion]>([])
    func push(_ completion: Completion) { items.withLock { $0.append(completion) } }
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
    private let workers = DispatchQueue(label: "graphd.workers", qos: .userInitiated, attributes: .concurrent)
    /// Set by the signal handler (or a test) to stop the loop.
    let stopSignal: StopSignal

    private final class Slot {
        let descriptor: Int32
        var connection: Connection
        var interest: Epoll.Events
        init(descriptor: Int32, connection: Connection, interest: Epoll.Events) {
            self.descriptor = descriptor; self.connection = connection; self.interest = interest
        }
    }

    private static let listenerToken: UInt64 = 0
    private static let wakeUpToken: UInt64 = 1
    private var nextToken: UInt64 = 2
    private var slots: [UInt64: Slot] = [:]
    private var runningCommands = 0
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// The port the server listens on (the real one when configured with 0).
    let port: Int

    /// Binds the listening socket; `run()` starts serving.
    init(configuration: ServerConfiguration, context: ServerContext, table: CommandTable = .standard()) throws(SystemCallError) {
        self.configuration = configuration
        self.context = context
        self.table = table
        epoll = try Epoll()
        wakeUp = try WakeUpPipe()
        stopSignal = StopSignal(wakeUp: wakeUp)
        let listener = try ListeningSocket(address: configuration.bindAddress, port: configuration.port)
        port = listener.port
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
                if slots.isEmpty { return }
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
        while let fd = listener.accept() {
            let token = nextToken
            nextToken += 1
            let slot = Slot(descriptor: fd, connection: Connection(limits: configuration.limits), interest: .input)
            do {
                try epoll.add(fd, events: .input, token: token)
            } catch {
                close(fd)
                continue
            }
            slots[token] = slot
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
        guard let slot = slots[completion.connection] else { return }
        let actions = slot.connection.completed(completion.reply, outcome: completion.outcome)
        perform(actions, token: completion.connection, slot: slot)
        settle(token: completion.connection, slot: slot)
    }

    /// Carries out a connection's actions. Fast commands run right here; the rest go to
    /// a worker, at most one per connection (the state machine guarantees it).
    private func perform(_ actions: [Connection.Action], token: UInt64, slot: Slot) {
        var queue = actions
        while !queue.isEmpty {
            let action = queue.removeFirst()
            guard case .execute(let request) = action else { continue }
            if let spec = table.spec(named: request[0]), spec.flags.contains(.fast) {
                let (reply, outcome) = table.execute(request, context: context)
                queue.append(contentsOf: slot.connection.completed(reply, outcome: outcome))
            } else {
                runningCommands += 1
                let table = self.table, context = self.context
                let completions = self.completions, wakeUp = self.wakeUp
                workers.async {
                    let (reply, outcome) = table.execute(request, context: context)
                    completions.push(Completion(connection: token, reply: reply, outcome: outcome))
                    wakeUp.signal()
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
