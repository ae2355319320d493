// GraphdProcess.swift — starts the REAL graphd binary for end-to-end tests: finds it next
// to the test bundle, picks a free port, waits for it by polling connect() with a
// deadline, and stops it with SIGKILL or SIGTERM.

import Foundation
import Glibc
import GraphTestSupport

/// A running graphd process on a loopback port with a given data directory.
final class GraphdProcess {
    let port: Int
    let dataDirectory: String
    let process: ChildProcess
    let outputPath: String
    /// What earlier start attempts printed (their port was taken). An attempt can get as far as
    /// opening the data directory before it fails to bind, and whatever recovery reports then
    /// (a torn log tail it cut off) is said once, in that attempt's output.
    let earlierAttemptsOutput: String

    /// The `graphd` executable: beside this test binary in the build directory (SwiftPM
    /// puts both there), or `$GRAPHD_BINARY`.
    static func executablePath() throws -> String {
        if let explicit = ProcessInfo.processInfo.environment["GRAPHD_BINARY"] { return explicit }
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var directory = (exe as NSString).deletingLastPathComponent
            // On some layouts the test binary sits inside a bundle directory.
            for _ in 0..<4 {
                candidates.append(directory + "/graphd")
                directory = (directory as NSString).deletingLastPathComponent
            }
        }
        candidates.append(((CommandLine.arguments[0] as NSString).deletingLastPathComponent) + "/graphd")
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw TestClientError(description: "graphd binary not found (looked at \(candidates)); run `swift build` first")
    }

    /// A port nothing listens on right now (bound and released by the kernel's choice).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw TestClientError(description: "could not find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs graphd with `arguments` and waits for it to exit (for command-line tests).
    /// stdout and stderr are captured separately through two files.
    static func runToExit(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = try TemporaryDirectory("graphd-run")
        defer { directory.remove() }
        let outPath = directory.path + "/out", errPath = directory.path + "/err"
        // Run through sh so stdout and stderr land in different files.
        let quoted = ([try executablePath()] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let child = try ChildProcess(executable: "/bin/sh",
                                     arguments: ["-c", quoted.joined(separator: " ") + " >'\(outPath)' 2>'\(errPath)'"],
                                     outputPath: directory.path + "/sh")
        let status = child.wait()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (status, stdout, stderr)
    }

    /// Starts graphd serving `dataDirectory` and returns once it accepts connections.
    /// `port`: that port (a restart where the others expect it), else a free one.
    init(dataDirectory: String, extraArguments: [String] = [], deadline: Duration = .seconds(30), port fixedPort: Int? = nil) throws {
        self.dataDirectory = dataDirectory
        let executable = try Self.executablePath()
        var lastError = "not started"
        var earlier = ""
        // A port picked free can be taken by someone else before graphd binds it: retry.
        for _ in 0..<5 {
            let port = try fixedPort ?? Self.freePort()
            let outputPath = dataDirectory + ".graphd-\(port).out"
            let process = try ChildProcess(executable: executable,
                                           arguments: ["serve", "--port", String(port), "--data", dataDirectory] + extraArguments,
                                           outputPath: outputPath)
            if Self.waitForListening(port: port, process: process, deadline: deadline) {
                self.port = port
                self.process = process
                self.outputPath = outputPath
                self.earlierAttemptsOutput = earlier
                return
            }
            process.send(SIGKILL)
            process.wait()
            lastError = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "(no output)"
            earlier += lastError
            try? FileManager.default.removeItem(atPath: outputPath)
        }
        throw TestClientError(description: "graphd did not start: \(lastError)")
    }

    /// Polls connect() until graphd accepts, it exits, or the deadline passes.
    private static func waitForListening(port: Int, process: ChildProcess, deadline: Duration) -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while clock.now < end {
            if (try? RESPTestClient(port: port)) != nil { return true }
            if !process.isRunning { return false }
            usleep(10_000)   // poll interval, not a timing assumption
        }
        return false
    }

    /// A new client connection.
    func client() throws -> RESPTestClient { try RESPTestClient(port: port) }

    /// What graphd printed so far (stdout and stderr together), failed start attempts first.
    var output: String { earlierAttemptsOutput + ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "") }

    /// kill -9, then reap.
    func kill9() {
        process.send(SIGKILL)
        process.wait()
    }

    /// SIGTERM, then wait; returns the exit status.
    func terminate() -> Int32 {
        process.send(SIGTERM)
        return process.wait()
    }

    deinit {
        kill9()
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}
