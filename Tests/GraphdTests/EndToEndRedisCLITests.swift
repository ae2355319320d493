// EndToEndRedisCLITests.swift — the README's redis-cli session, run for real: the commands
// are read out of README.md and their output must match what the README shows (up to the
// execution time). Skipped when redis-cli is not installed (.ci/run installs it).

import Foundation
import Testing
@testable import graphd
import GraphTestSupport

/// `redis-cli` on PATH, if any.
private func redisCLIPath() -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/redis-cli"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// The `$ redis-cli …` commands of README.md's redis-cli example with the output shown
/// under each.
private func readmeSession() throws -> [(command: String, output: [String])] {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    var session: [(command: String, output: [String])] = []
    var inBlock = false
    var current: Int? = nil   // the command whose output the next lines are
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("```") { inBlock.toggle(); current = nil; continue }
        guard inBlock else { continue }
        if line.hasPrefix("$ redis-cli "), line.contains(" SUBSCRIBE ") {
            current = nil   // it runs until interrupted: readmeSubscribe runs it beside the session
        } else if line.hasPrefix("$ redis-cli ") {
            session.append((String(line.dropFirst(2)), []))
            current = session.count - 1
        } else if line.hasPrefix("$ ") {
            current = nil
        } else if let current, !line.isEmpty {
            session[current].output.append(String(line))
        }
    }
    return session
}

/// The README's `redis-cli … SUBSCRIBE` example with the output it shows.
private func readmeSubscription() throws -> (command: String, output: [String])? {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")
    var found: (command: String, output: [String])?
    var inBlock = false
    for line in try String(contentsOf: readme, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("```") {
            inBlock.toggle()
            if found != nil && !inBlock { return found }
            continue
        }
        if inBlock, line.hasPrefix("$ redis-cli "), line.contains(" SUBSCRIBE ") { found = (String(line.dropFirst(2)), []) }
        else if inBlock, found != nil, !line.isEmpty { found!.output.append(String(line)) }
    }
    return found
}

/// Execution times differ from run to run.
private func normalized(_ line: String) -> String {
    line.replacingOccurrences(of: #"execution time: [0-9.]+ milliseconds"#, with: "execution time: T milliseconds",
                              options: .regularExpression)
}

@Suite("End to end: redis-cli")
struct EndToEndRedisCLITests {
    @Test("The README's redis-cli commands print what the README shows",
          .enabled(if: redisCLIPath() != nil, "redis-cli is not installed"))
    func readmeSessionMatches() throws {
        let session = try readmeSession()
        #expect(session.count >= 2, "README.md should show at least two redis-cli commands")
        let directory = try TemporaryDirectory("graphd-cli")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data")
        defer { server.kill9() }

        for (command, expected) in session {
            // The README's commands are shell lines with plain double quotes, which split
            // the same way under Redis's rules.
            guard var arguments = InlineSplitter.split(Array(command.utf8))?.map({ String(decoding: $0, as: UTF8.self) }) else {
                Issue.record("cannot split \(command)")
                continue
            }
            arguments.removeFirst()   // redis-cli
            if let p = arguments.firstIndex(of: "-p"), p + 1 < arguments.count { arguments[p + 1] = String(server.port) }
            let outputPath = directory.path + "/redis-cli.out"
            try? FileManager.default.removeItem(atPath: outputPath)
            let process = try ChildProcess(executable: redisCLIPath()!, arguments: ["--no-raw"] + arguments,
                                           outputPath: outputPath)
            #expect(process.wait() == 0)
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            let lines = output.split(separator: "\n").map { normalized(String($0)) }
            #expect(lines == expected.map(normalized), "\(command)")
        }
    }

    @Test("redis-cli SUBSCRIBE prints what another client PUBLISHes, as it does against Redis",
          .enabled(if: redisCLIPath() != nil, "redis-cli is not installed"))
    func subscribeWithRedisCLI() throws {
        let directory = try TemporaryDirectory("graphd-cli-sub")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data")
        defer { server.kill9() }
        let outputPath = directory.path + "/subscribe.out"
        let subscriber = try ChildProcess(executable: redisCLIPath()!, arguments: ["-p", String(server.port), "SUBSCRIBE", "news"],
                                          outputPath: outputPath)
        defer { subscriber.send(SIGKILL); _ = subscriber.wait() }
        let client = try server.client()
        // Subscribed once the server counts it (a condition, not a timed wait; bounded).
        var subscribed = false
        for _ in 0..<500 where !subscribed {
            subscribed = try client.command("PUBSUB", "NUMSUB", "news") == .array([.bulk("news"), .integer(1)])
            if !subscribed { usleep(10_000) }
        }
        #expect(subscribed)
        #expect(try client.command("PUBLISH", "news", "hello") == .integer(1))
        let expected = ["subscribe", "news", "1", "message", "news", "hello"]
        var lines: [String] = []
        for _ in 0..<500 where lines != expected {
            lines = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines != expected { usleep(10_000) }
        }
        #expect(lines == expected)
    }

    @Test("The README's redis-cli SUBSCRIBE to a user's channel prints the event the README's write makes",
          .enabled(if: redisCLIPath() != nil, "redis-cli is not installed"))
    func readmeSubscribe() throws {
        guard let (command, expected) = try readmeSubscription() else { Issue.record("no SUBSCRIBE in README.md"); return }
        let directory = try TemporaryDirectory("graphd-cli-feed")
        defer { directory.remove() }
        let server = try GraphdProcess(dataDirectory: directory.path + "/data")
        defer { server.kill9() }
        let client = try server.client()
        let session = try readmeSession()
        // The README's session up to the write the subscriber hears (the graph it starts from).
        guard let write = session.firstIndex(where: { $0.command.contains("SET u.name") }) else { Issue.record("no write"); return }
        for (line, _) in session[..<write] {
            guard let arguments = InlineSplitter.split(Array(line.utf8))?.map({ String(decoding: $0, as: UTF8.self) }) else { continue }
            try client.send(RESPTestClient.encode(Array(arguments.dropFirst(3))))
            _ = try client.readReply()
        }
        var arguments = InlineSplitter.split(Array(command.utf8))!.map { String(decoding: $0, as: UTF8.self) }.dropFirst()
        if let p = arguments.firstIndex(of: "-p") { arguments[p + 1] = String(server.port) }
        let outputPath = directory.path + "/subscribe.out"
        let subscriber = try ChildProcess(executable: redisCLIPath()!, arguments: ["--no-raw"] + arguments, outputPath: outputPath)
        defer { subscriber.send(SIGKILL); _ = subscriber.wait() }
        var subscribed = false
        for _ in 0..<500 where !subscribed {
            subscribed = try client.command("PUBSUB", "NUMSUB", "graphd:social:user:2") == .array([.bulk("graphd:social:user:2"), .integer(1)])
            if !subscribed { usleep(10_000) }
        }
        #expect(subscribed)
        let writeArguments = InlineSplitter.split(Array(session[write].command.utf8))!.map { String(decoding: $0, as: UTF8.self) }
        try client.send(RESPTestClient.encode(Array(writeArguments.dropFirst(3))))
        _ = try client.readReply()
        // Tokens and times differ from run to run.
        func normalizedEvent(_ line: String) -> String {
            line.replacingOccurrences(of: #"token\\":\\"[0-9a-f]+-"#, with: "token\\\":\\\"H-", options: .regularExpression)
                .replacingOccurrences(of: #"at\\":\\"[^\\]+"#, with: "at\\\":\\\"T", options: .regularExpression)
        }
        var lines: [String] = []
        for _ in 0..<500 where lines.count < expected.count {
            lines = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if lines.count < expected.count { usleep(10_000) }
        }
        #expect(lines.map(normalizedEvent) == expected.map(normalizedEvent))
    }
}
