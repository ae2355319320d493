// ChildProcess.swift — spawns and reaps a child process with posix_spawn and waitpid.
// Foundation's Process reaps children through a run loop and was seen to hang
// waitUntilExit() under Swift Testing's concurrent tests, leaving zombies; this does not.

import Glibc

/// A spawned child whose stdout and stderr go to one file.
final class ChildProcess {
    let pid: pid_t
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`, output appended to `outputPath`.
    init(executable: String, arguments: [String], outputPath: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let result = argv.withUnsafeBufferPointer { buffer in
            posix_spawn(&pid, executable, &actions, nil, UnsafeMutablePointer(mutating: buffer.baseAddress!), environ)
        }
        guard result == 0 else { throw TestClientError(description: "posix_spawn \(executable) failed: \(result)") }
        self.pid = pid
    }

    /// True while the child has not exited (reaps it if it has).
    var isRunning: Bool {
        if exitStatus != nil { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid { exitStatus = status; return false }
        return r == 0
    }

    /// Sends `signal`, unless the child is already reaped.
    func send(_ signal: Int32) {
        if exitStatus == nil { kill(pid, signal) }
    }

    /// Waits for exit; returns the exit code (128 + signal number when killed).
    @discardableResult
    func wait() -> Int32 {
        if exitStatus == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exitStatus = status
        }
        let status = exitStatus!
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
