// Connection.swift — one client connection as a pure state machine: bytes in, actions
// out, no sockets. It holds the decoder state, the requests waiting their turn and the
// output buffer; the event loop (EventLoop.swift) does the I/O and runs the commands.
// Testable byte by byte without a network (swift-nio's state-machine pattern).

/// The state of one client connection.
///
/// Ordering: a connection has at most one command executing; pipelined requests wait in
/// `pending` and their replies are appended to `output` in request order.
/// Framing errors: the requests before the bad frame are answered first, then the error,
/// then the connection closes (Redis's behaviour).
/// Backpressure: decoding pauses while many requests are pending, and the next command
/// waits while a lot of output is unsent, so a client that writes without reading holds
/// a bounded amount of memory.
struct Connection: Sendable {
    /// What the event loop must do next.
    enum Action: Sendable, Equatable {
        /// Run this request (name first) and call `completed` with its reply.
        case execute([[UInt8]])
        /// Close the socket once `output` has been written out.
        case closeAfterFlush
        /// Close now, unsent output dropped: a reply pushed the unsent output past
        /// `outputLimit` bytes (the count it reached). The event loop logs it.
        case closeOutputLimitExceeded(Int)
    }

    /// Requests decoded ahead of execution at most; more bytes stay undecoded.
    static let maxPendingRequests = 256
    /// Stop reading from the socket while this much input is waiting undecoded.
    static let maxBufferedInput = 1024 * 1024
    /// Do not start the next command while this much output is unsent.
    static let outputHighWater = 4 * 1024 * 1024
    /// An emptied buffer keeps its memory up to this size: thousands of idle connections
    /// that once sent a 64 KiB read would otherwise hold 64 KiB each.
    static let keptBufferCapacity = 16 * 1024
    /// Default hard cap on unsent output: a client whose replies pile up past it (one
    /// huge reply, or many while it does not read) is disconnected.
    static let defaultOutputLimit = 256 * 1024 * 1024

    private enum Pending: Sendable {
        case request([[UInt8]])
        /// A request with an argument longer than any command takes, read past unbuffered.
        case oversized(command: [UInt8], argument: Int, length: Int, limit: Int)
        case protocolError(RESPProtocolError)
    }

    private var decoder: RESPDecoder
    private var input: [UInt8] = []
    private var inputIndex = 0
    private var pending: [Pending] = []
    private var pendingHead = 0
    /// True while a command is running on a worker.
    private(set) var isExecuting = false
    /// True once no further input will be read (end of input, protocol error, QUIT, stop).
    private(set) var isInputClosed = false
    /// True after a framing error: nothing after the bad frame is decoded.
    private var framingFailed = false
    /// True once the connection must close after flushing `output`.
    private(set) var isClosing = false
    /// True once the peer is gone: replies of a still-running command are dropped.
    private var discardsOutput = false
    /// Reply bytes not yet written to the socket: `output[outputIndex...]`.
    private var output: [UInt8] = []
    private var outputIndex = 0
    /// The limits for an authenticated client (the decoder uses the unauthenticated ones
    /// until the session says otherwise).
    private var limits: ProtocolLimits
    private let outputLimit: Int
    /// The client's protocol version, authentication and names, kept between commands.
    private(set) var session: ClientSession

    init(limits: ProtocolLimits = ProtocolLimits(), session: ClientSession = ClientSession(),
         outputLimit: Int = Connection.defaultOutputLimit) {
        self.limits = limits
        self.session = session
        self.outputLimit = outputLimit
        decoder = RESPDecoder(limits: session.isAuthenticated ? limits : .unauthenticated)
    }

    /// Requests decoded ahead while this client may run them. Before authentication only
    /// one: the next request must be framed under the limits that hold after the current
    /// one (AUTH) has run, as Redis frames one command at a time.
    private var pendingCap: Int { session.isAuthenticated ? Self.maxPendingRequests : (isExecuting ? 0 : 1) }

    // MARK: Queries for the event loop

    /// The bytes waiting to be written.
    var pendingOutput: ArraySlice<UInt8> { output[outputIndex...] }
    var hasPendingOutput: Bool { outputIndex < output.count }
    /// Bytes of replies and pushes not yet written.
    var unsentOutput: Int { output.count - outputIndex }
    /// Bytes received and not yet decoded and dropped, and bytes of replies not yet sent.
    var bufferedBytes: Int { (input.count - inputIndex) + (output.count - outputIndex) }
    /// Whether the event loop should read more from the socket now.
    var wantsInput: Bool {
        !isInputClosed && (input.count - inputIndex) < (session.isAuthenticated ? Self.maxBufferedInput : 64 * 1024)
    }
    /// True when nothing more will happen: the socket can be closed.
    var isFinished: Bool { isClosing && !isExecuting && !hasPendingOutput }

    // MARK: Events

    /// Bytes arrived from the client.
    mutating func received<C: Collection>(_ bytes: C) -> [Action] where C.Element == UInt8 {
        guard !isInputClosed else { return [] }
        input.append(contentsOf: bytes)
        decodeAvailable()
        return advance()
    }

    /// The command started by the last `.execute` finished with `reply`; `session` is the
    /// client's state after it (nil: unchanged).
    mutating func completed(_ reply: [UInt8], outcome: CommandOutcome, session: ClientSession? = nil) -> [Action] {
        precondition(isExecuting, "completed() without a command executing")
        isExecuting = false
        if let session {
            if session.isAuthenticated && !self.session.isAuthenticated { decoder.limits = limits }
            self.session = session
        }
        guard !discardsOutput else { return [] }
        output.append(contentsOf: reply)
        let unsent = output.count - outputIndex
        if unsent > outputLimit {
            peerClosed()
            return [.closeOutputLimitExceeded(unsent)]
        }
        if outcome == .close {
            closeAfterFlush()
            return [.closeAfterFlush]
        }
        decodeAvailable()
        return advance()
    }

    /// Bytes the server sends unasked (a Pub/Sub message), after whatever is queued already.
    /// A subscriber that lets them pile up past the output limit is disconnected, as Redis
    /// disconnects one past its pubsub output-buffer limit.
    mutating func push(_ bytes: [UInt8]) -> [Action] {
        guard !discardsOutput, !isClosing else { return [] }
        output.append(contentsOf: bytes)
        let unsent = output.count - outputIndex
        if unsent > outputLimit {
            peerClosed()
            return [.closeOutputLimitExceeded(unsent)]
        }
        return []
    }

    /// `count` bytes of `pendingOutput` were written to the socket.
    mutating func wrote(_ count: Int) -> [Action] {
        outputIndex += count
        if outputIndex == output.count {
            output.removeAll(keepingCapacity: output.capacity <= Self.keptBufferCapacity)
            outputIndex = 0
        } else if outputIndex > 64 * 1024 && outputIndex * 2 > output.count {
            output.removeFirst(outputIndex)
            outputIndex = 0
        }
        return advance()
    }

    /// The client finished sending (read returned 0): the requests already received are
    /// still answered, then the connection closes. A client that half-closes after
    /// writing (`nc -N`, `printf … | nc`) gets its replies, as with Redis.
    mutating func inputEnded() -> [Action] {
        guard !isInputClosed else { return [] }
        isInputClosed = true
        return advance()
    }

    /// The socket failed or the peer is gone for good: nothing more is read or answered.
    mutating func peerClosed() {
        isInputClosed = true
        isClosing = true
        discardsOutput = true
        output.removeAll()
        outputIndex = 0
        dropPending()
    }

    /// The server is stopping: let a running command finish and flush, run nothing new.
    mutating func stop() -> [Action] {
        guard !isClosing else { return [] }
        closeAfterFlush()
        return [.closeAfterFlush]
    }

    /// MAX_QUERY_LENGTH changed (GRAPH.CONFIG SET): arguments longer than `length` are read
    /// past from the next frame on.
    mutating func setMaxArgumentLength(_ length: Int) {
        guard limits.maxArgumentLength != length else { return }
        limits.maxArgumentLength = length
        if session.isAuthenticated { decoder.limits.maxArgumentLength = length }
    }

    /// The reply to a request with an oversized argument: the query's own error for a query
    /// command's text (GraphCommands.prepare gives it for a text that was buffered).
    static func oversizedMessage(command: [UInt8], argument: Int, length: Int, limit: Int) -> String {
        let name = String(decoding: command, as: UTF8.self).lowercased()
        if argument == 2, ["graph.query", "graph.ro_query", "graph.explain", "graph.profile"].contains(name) {
            return "ERR query is \(length) bytes, longer than MAX_QUERY_LENGTH (\(limit) bytes)"
        }
        return "ERR argument \(argument) is \(length) bytes, longer than MAX_QUERY_LENGTH (\(limit) bytes), "
            + "the longest argument any command takes"
    }

    // MARK: Internals

    private mutating func closeAfterFlush() {
        isInputClosed = true
        isClosing = true
        dropPending()
    }

    private mutating func dropPending() {
        pending.removeAll()
        pendingHead = 0
        input.removeAll()
        inputIndex = 0
    }

    /// Decodes buffered input into `pending`, up to the pending cap or a framing error.
    private mutating func decodeAvailable() {
        decoding: while !framingFailed && !isClosing && pending.count - pendingHead < pendingCap {
            do {
                switch try decoder.decodeNextFrame(input, index: &inputIndex) {
                case .request(let request)?: pending.append(.request(request))
                case .oversized(let request, let argument, let length)?:
                    pending.append(.oversized(command: request[0], argument: argument, length: length,
                                              limit: decoder.limits.maxArgumentLength ?? length))
                case nil:
                    // An oversized bulk's bytes may have been read past: drop them below.
                    break decoding
                }
            } catch {
                pending.append(.protocolError(error))
                // Nothing after a framing error can be trusted.
                framingFailed = true
                isInputClosed = true
                input.removeAll()
                inputIndex = 0
                return
            }
        }
        // Drop consumed input, cheaply: all of it, or a large prefix.
        if inputIndex == input.count {
            input.removeAll(keepingCapacity: input.capacity <= Self.keptBufferCapacity)
            inputIndex = 0
        } else if inputIndex > 64 * 1024 {
            input.removeFirst(inputIndex)
            inputIndex = 0
        }
    }

    /// Starts the next pending request if nothing runs and the output is not backed up.
    private mutating func advance() -> [Action] {
        guard !isExecuting, !isClosing, output.count - outputIndex < Self.outputHighWater else { return [] }
        guard pendingHead < pending.count else {
            if isInputClosed {
                // Input ended with nothing left to run (a partial frame is dropped).
                isClosing = true
                return [.closeAfterFlush]
            }
            return []
        }
        let next = pending[pendingHead]
        pendingHead += 1
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        }
        switch next {
        case .request(let request):
            isExecuting = true
            return [.execute(request)]
        case .oversized(let command, let argument, let length, let limit):
            var encoder = RESPEncoder()
            encoder.error(Self.oversizedMessage(command: command, argument: argument, length: length, limit: limit))
            output.append(contentsOf: encoder.bytes)
            return advance()
        case .protocolError(let error):
            var encoder = RESPEncoder()
            encoder.error(error.message)
            output.append(contentsOf: encoder.bytes)
            closeAfterFlush()
            return [.closeAfterFlush]
        }
    }
}
