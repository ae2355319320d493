// ConnectionTests.swift — the connection state machine without sockets: pipelined
// requests run one at a time and are answered in order, QUIT and protocol errors close
// after the earlier replies, a vanished peer drops its replies, output backs up bounded.

import Testing
@testable import graphd

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
private func text(_ b: some Sequence<UInt8>) -> String { String(decoding: Array(b), as: UTF8.self) }

/// Plays the event loop: runs each `.execute` with a fake command that echoes its
/// arguments as a simple string (QUIT closes), until the connection is idle.
private struct Driver {
    var connection = Connection()
    var executed: [String] = []
    var closeRequested = false

    mutating func feed(_ input: [UInt8]) {
        run(connection.received(input))
    }

    mutating func run(_ actions: [Connection.Action]) {
        var queue = actions
        while !queue.isEmpty {
            switch queue.removeFirst() {
            case .closeAfterFlush, .closeOutputLimitExceeded:
                closeRequested = true
            case .execute(let request):
                let line = request.map { text($0) }.joined(separator: " ")
                executed.append(line)
                let outcome: CommandOutcome = line.uppercased() == "QUIT" ? .close : .keepOpen
                queue.append(contentsOf: connection.completed(bytes("+\(line)\r\n"), outcome: outcome))
            }
        }
    }

    /// Takes everything written so far, as the socket would.
    mutating func drain() -> String {
        let out = text(connection.pendingOutput)
        run(connection.wrote(connection.pendingOutput.count))
        return out
    }
}

@Suite("Connection state machine")
struct ConnectionTests {
    @Test("Pipelined requests run one at a time and are answered in order")
    func pipeliningOrder() {
        var connection = Connection()
        let actions = connection.received(bytes("ECHO a\r\n*2\r\n$4\r\nECHO\r\n$1\r\nb\r\nECHO c\r\n"))
        #expect(actions == [.execute([bytes("ECHO"), bytes("a")])])
        #expect(connection.isExecuting)
        // Nothing else starts while the first runs.
        #expect(connection.received(bytes("ECHO d\r\n")) == [])
        #expect(connection.completed(bytes("+a\r\n"), outcome: .keepOpen) == [.execute([bytes("ECHO"), bytes("b")])])
        #expect(connection.completed(bytes("+b\r\n"), outcome: .keepOpen) == [.execute([bytes("ECHO"), bytes("c")])])
        #expect(connection.completed(bytes("+c\r\n"), outcome: .keepOpen) == [.execute([bytes("ECHO"), bytes("d")])])
        #expect(connection.completed(bytes("+d\r\n"), outcome: .keepOpen) == [])
        #expect(text(connection.pendingOutput) == "+a\r\n+b\r\n+c\r\n+d\r\n")
    }

    @Test("An argument longer than MAX_QUERY_LENGTH is read past unbuffered, answered with the error, and the connection goes on")
    func oversizedArgument() {
        var driver = Driver()
        driver.connection.setMaxArgumentLength(1000)
        driver.feed(bytes("ECHO before\r\n*3\r\n$11\r\nGRAPH.QUERY\r\n$1\r\ng\r\n$100000\r\n"))
        var peak = 0
        for _ in 0..<100 {
            driver.feed(Array(repeating: UInt8(ascii: "x"), count: 1000))
            peak = max(peak, driver.connection.bufferedBytes)
        }
        // The query's bytes are never held: at most one chunk, and the replies so far.
        #expect(peak <= 1100)
        driver.feed(bytes("\r\n*2\r\n$4\r\nECHO\r\n$5\r\nafter\r\n"))
        // Another command's long argument gets the general form of the error.
        driver.feed(bytes("*2\r\n$4\r\nECHO\r\n$2000\r\n") + Array(repeating: UInt8(ascii: "y"), count: 2000) + bytes("\r\nECHO end\r\n"))
        #expect(driver.executed == ["ECHO before", "ECHO after", "ECHO end"])
        #expect(driver.drain() == "+ECHO before\r\n-ERR query is 100000 bytes, longer than MAX_QUERY_LENGTH (1000 bytes)\r\n"
                + "+ECHO after\r\n-ERR argument 1 is 2000 bytes, longer than MAX_QUERY_LENGTH (1000 bytes), "
                + "the longest argument any command takes\r\n+ECHO end\r\n")
        #expect(!driver.closeRequested)
    }

    @Test("Requests fed one byte at a time give the same replies")
    func byteAtATime() {
        var driver = Driver()
        for byte in bytes("PING\r\n*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n\r\nECHO \"x y\"\n") { driver.feed([byte]) }
        #expect(driver.executed == ["PING", "ECHO hello", "ECHO x y"])
        #expect(driver.drain() == "+PING\r\n+ECHO hello\r\n+ECHO x y\r\n")
        #expect(!driver.closeRequested)
    }

    @Test("QUIT answers OK, drops what follows and closes after the flush")
    func quit() {
        var driver = Driver()
        driver.feed(bytes("PING\r\nQUIT\r\nPING\r\n"))
        #expect(driver.executed == ["PING", "QUIT"])
        #expect(driver.closeRequested)
        #expect(!driver.connection.isFinished)       // output still unsent
        #expect(driver.drain() == "+PING\r\n+QUIT\r\n")
        #expect(driver.connection.isFinished)
        driver.feed(bytes("PING\r\n"))
        #expect(driver.executed == ["PING", "QUIT"])
    }

    @Test("A protocol error is answered after the earlier replies, then the connection closes")
    func protocolErrorCloses() {
        var driver = Driver()
        driver.feed(bytes("PING\r\n*1\r\nPING\r\nECHO never\r\n"))
        #expect(driver.executed == ["PING"])
        #expect(driver.closeRequested)
        #expect(driver.drain() == "+PING\r\n-ERR Protocol error: expected '$', got 'P'\r\n")
        #expect(driver.connection.isFinished)
        #expect(!driver.connection.wantsInput)
    }

    @Test("Unbalanced quotes and oversized inline requests close the connection")
    func inlineErrorsClose() {
        var quotes = Driver()
        quotes.feed(bytes("ECHO \"open\r\n"))
        #expect(quotes.drain() == "-ERR Protocol error: unbalanced quotes in request\r\n")
        #expect(quotes.connection.isFinished)

        var big = Driver()
        big.feed([UInt8](repeating: UInt8(ascii: "a"), count: 70_000))
        #expect(big.drain() == "-ERR Protocol error: too big inline request\r\n")
        #expect(big.connection.isFinished)
    }

    @Test("When the client stops sending, the requests already received are still answered")
    func inputEndedStillAnswers() {
        var connection = Connection()
        #expect(connection.received(bytes("PING\r\nECHO x\r\n*2\r\n$4\r\nECHO")) == [.execute([bytes("PING")])])
        #expect(connection.inputEnded() == [])
        #expect(!connection.wantsInput)
        #expect(connection.completed(bytes("+PONG\r\n"), outcome: .keepOpen) == [.execute([bytes("ECHO"), bytes("x")])])
        // The partial frame at the end is dropped; the connection then closes.
        #expect(connection.completed(bytes("$1\r\nx\r\n"), outcome: .keepOpen) == [.closeAfterFlush])
        #expect(text(connection.pendingOutput) == "+PONG\r\n$1\r\nx\r\n")
        _ = connection.wrote(connection.pendingOutput.count)
        #expect(connection.isFinished)
    }

    @Test("A peer that goes away mid-command gets no reply and the connection finishes")
    func peerClosedWhileExecuting() {
        var connection = Connection()
        #expect(connection.received(bytes("PING\r\nPING\r\n")).count == 1)
        connection.peerClosed()
        #expect(!connection.isFinished)   // a worker still holds the command
        #expect(connection.completed(bytes("+PONG\r\n"), outcome: .keepOpen) == [])
        #expect(!connection.hasPendingOutput)
        #expect(connection.isFinished)
    }

    @Test("Stopping lets the running command finish and flush, and runs nothing new")
    func stop() {
        var connection = Connection()
        _ = connection.received(bytes("PING\r\nPING\r\n"))
        #expect(connection.stop() == [.closeAfterFlush])
        #expect(connection.completed(bytes("+PONG\r\n"), outcome: .keepOpen) == [])
        #expect(text(connection.pendingOutput) == "+PONG\r\n")
        _ = connection.wrote(7)
        #expect(connection.isFinished)
    }

    @Test("A client that does not read holds back the next command")
    func outputBackpressure() {
        var connection = Connection()
        _ = connection.received(bytes("PING\r\nPING\r\n"))
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: Connection.outputHighWater)
        #expect(connection.completed(big, outcome: .keepOpen) == [])
        #expect(!connection.isExecuting)
        #expect(connection.wrote(big.count) == [.execute([bytes("PING")])])
    }

    @Test("Blank inline lines and empty multibulk frames get no reply")
    func silentFrames() {
        var driver = Driver()
        driver.feed(bytes("\r\n   \r\n*0\r\n*-1\r\nPING\r\n"))
        #expect(driver.executed == ["PING"])
        #expect(driver.drain() == "+PING\r\n")
    }

    @Test("Before authentication the next request is framed only after the current one ran, under the new limits")
    func framingWaitsForAuthentication() {
        var connection = Connection(session: ClientSession(isAuthenticated: false))
        // AUTH, then a 20 KiB ECHO (over the 16 KiB unauthenticated bulk cap) in one read.
        let big = String(repeating: "z", count: 20 * 1024)
        let actions = connection.received(bytes("*2\r\n$4\r\nAUTH\r\n$1\r\np\r\n*2\r\n$4\r\nECHO\r\n$\(big.utf8.count)\r\n\(big)\r\n"))
        #expect(actions == [.execute([bytes("AUTH"), bytes("p")])])
        var authenticated = connection.session
        authenticated.isAuthenticated = true
        #expect(connection.completed(bytes("+OK\r\n"), outcome: .keepOpen, session: authenticated)
                == [.execute([bytes("ECHO"), bytes(big)])])
    }

    @Test("A failed AUTH leaves the caps in place: an oversized bulk closes the connection")
    func capsStayWithoutAuthentication() {
        var connection = Connection(session: ClientSession(isAuthenticated: false))
        let actions = connection.received(bytes("*2\r\n$4\r\nAUTH\r\n$1\r\nx\r\n*2\r\n$4\r\nECHO\r\n$20000\r\n"))
        #expect(actions == [.execute([bytes("AUTH"), bytes("x")])])
        #expect(connection.completed(bytes("-WRONGPASS\r\n"), outcome: .keepOpen, session: connection.session) == [.closeAfterFlush])
        #expect(text(connection.pendingOutput) == "-WRONGPASS\r\n-ERR Protocol error: unauthenticated bulk length\r\n")
    }

    @Test("A reply that pushes unsent output past the limit closes the connection and drops the output")
    func outputLimit() {
        var connection = Connection(outputLimit: 1000)
        _ = connection.received(bytes("PING\r\nPING\r\n"))
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 1001)
        #expect(connection.completed(big, outcome: .keepOpen) == [.closeOutputLimitExceeded(1001)])
        #expect(!connection.hasPendingOutput)
        #expect(connection.isFinished)
    }
}
