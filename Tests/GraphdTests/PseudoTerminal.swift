// PseudoTerminal.swift — runs the real graphd under a pseudo-terminal for REPL tests: the
// child gets a new session whose controlling terminal is the pty (so Ctrl-C raises SIGINT
// when the REPL is not in raw mode), and the test types bytes and reads the screen output
// with deadlines, never with timed sleeps.

import Foundation
import Glibc

/// A child process attached to a pseudo-terminal.
final class PseudoTerminalProcess {
    let pid: pid_t
    let master: Int32
    private(set) var transcript = ""
    private var exitStatus: Int32?

    /// Starts `executable arguments` on a fresh pty of `columns` × 24.
    init(executable: String, arguments: [String], columns: UInt16 = 120, environment: [String: String] = [:]) throws {
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else {
            throw TestClientError(description: "openpty failed: \(errno)")
        }
        // ttyname_r, not ttyname: ttyname returns a static buffer, and tests start terminals on
        // several threads at once. With ttyname, two REPLs could open the same pty (both reading
        // one test's keys, the other test's terminal silent), as a CI run once showed.
        var nameBuffer = [CChar](repeating: 0, count: 256)
        guard ttyname_r(slave, &nameBuffer, nameBuffer.count) == 0 else {
            close(master); close(slave)
            throw TestClientError(description: "ttyname_r failed: \(errno)")
        }
        let slaveName = String(decoding: nameBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (POSIX_SPAWN_SETSID), the pty becomes the controlling terminal.
        posix_spawn_file_actions_addclose(&actions, master)
        posix_spawn_file_actions_addclose(&actions, slave)
        posix_spawn_file_actions_addopen(&actions, 0, slaveName, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 2.26+) is a macro Swift does not import: 0x80 in <spawn.h>.
        let setsid: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(setsid | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var env = [String: String]()
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            pointer += 1
        }
        env["TERM"] = "xterm"
        for (k, v) in environment { env[k] = v }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv { free(p) }; for p in envp { free(p) } }
        var pid: pid_t = 0
        let result = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                posix_spawn(&pid, executable, &actions, &attributes,
                            UnsafeMutablePointer(mutating: a.baseAddress!), UnsafeMutablePointer(mutating: e.baseAddress!))
            }
        }
        close(slave)
        guard result == 0 else {
            close(master)
            throw TestClientError(description: "posix_spawn \(executable) failed: \(result)")
        }
        self.pid = pid
        self.master = master
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
    }

    /// Types `text` (escape sequences and control characters included).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// How much of the transcript earlier reads consumed.
    private var consumed = 0

    /// Reads output until the text after what earlier reads consumed contains `needle`;
    /// consumes through the needle and returns the text up to its end. Throws when the
    /// deadline passes or the child closes the terminal first.
    @discardableResult
    func read(until needle: String, seconds: Int = 60) throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        while true {
            let current = String(transcript.dropFirst(consumed))
            if let range = current.range(of: needle) {
                let text = String(current[..<range.upperBound])
                consumed += text.count
                return text
            }
            if clock.now > deadline {
                throw TestClientError(description: "timed out waiting for \(needle.debugDescription); got \(current.debugDescription)")
            }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 200) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if n <= 0 {
                    throw TestClientError(description: "terminal closed waiting for \(needle.debugDescription); got \(current.debugDescription)")
                }
                transcript += String(decoding: buffer[0..<n], as: UTF8.self)
            }
        }
    }

    /// Waits for exit, draining output; returns the exit code.
    func waitForExit(seconds: Int = 60) throws -> Int32 {
        if let exitStatus { return exitStatus }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        while true {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                exitStatus = code
                return code
            }
            if clock.now > deadline { throw TestClientError(description: "graphd repl did not exit") }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 20) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if n > 0 { transcript += String(decoding: buffer[0..<n], as: UTF8.self) }
            }
        }
    }
}
