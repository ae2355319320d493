// ReplicationConfigFile.swift — `<data>/replication.conf`, where CONFIG REWRITE persists the
// replication role and knobs (Sentinel sends it right after SLAVEOF, so that a restart keeps
// the role it was given). Redis's config-file syntax, one directive a line:
//   replicaof <host> <port>
//   replica-priority <n>
//   min-replicas-to-write <n>
//   min-replicas-max-lag <seconds>
// No `replicaof` line means primary. Written to a temporary file, fsync'ed and renamed.

import Foundation
import Glibc

/// What replication.conf holds.
struct ReplicationConfigFile: Sendable, Equatable {
    var role: ReplicationRole = .primary
    var settings = ReplicationSettings()

    static let fileName = "replication.conf"

    /// A malformed line, reported with its number.
    struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        var line: Int
        var text: String
        var description: String { "replication.conf line \(line): cannot read '\(text)'" }
    }

    /// The file's text.
    var text: String {
        var lines = ["# Written by graphd's CONFIG REWRITE; read at start when --replica-of is not given."]
        if case .replica(let address) = role { lines.append("replicaof \(address.host) \(address.port)") }
        lines.append("replica-priority \(settings.replicaPriority)")
        lines.append("min-replicas-to-write \(settings.minReplicasToWrite)")
        lines.append("min-replicas-max-lag \(settings.minReplicasMaxLag)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses the file's text.
    static func parse(_ text: String) throws(ParseError) -> ReplicationConfigFile {
        var file = ReplicationConfigFile()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let words = line.split(separator: " ").map(String.init)
            let bad = ParseError(line: index + 1, text: line)
            switch (words[0].lowercased(), words.count) {
            case ("replicaof", 3), ("slaveof", 3):
                guard let port = Int(words[2]), (1...65535).contains(port) else { throw bad }
                file.role = .replica(of: ReplicationAddress(host: words[1], port: port))
            case ("replica-priority", 2), ("slave-priority", 2):
                guard let value = Int(words[1]), value >= 0 else { throw bad }
                file.settings.replicaPriority = value
            case ("min-replicas-to-write", 2), ("min-slaves-to-write", 2):
                guard let value = Int(words[1]), value >= 0 else { throw bad }
                file.settings.minReplicasToWrite = value
            case ("min-replicas-max-lag", 2), ("min-slaves-max-lag", 2):
                guard let value = Int(words[1]), value >= 0 else { throw bad }
                file.settings.minReplicasMaxLag = value
            default:
                throw bad
            }
        }
        return file
    }

    /// The file in `dataDirectory`, or nil when there is none.
    static func load(dataDirectory: String) throws(ParseError) -> ReplicationConfigFile? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/" + fileName, encoding: .utf8) else { return nil }
        return try parse(text)
    }

    /// The marker a replica leaves in its data directory (`following`): a server that finds it
    /// when it starts as a primary was a replica, and its graphs' histories must fork.
    static let followingMarker = "following"

    static func markFollowing(_ primary: ReplicationAddress, dataDirectory: String) {
        let path = dataDirectory + "/" + followingMarker
        _ = FileManager.default.createFile(atPath: path, contents: Data("\(primary.host) \(primary.port)\n".utf8))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { _ = fsync(fd); close(fd) }
    }

    static func wasFollowing(dataDirectory: String) -> Bool {
        FileManager.default.fileExists(atPath: dataDirectory + "/" + followingMarker)
    }

    static func clearFollowing(dataDirectory: String) {
        unlink(dataDirectory + "/" + followingMarker)
    }

    /// Writes the file durably: temporary file, fsync, rename, fsync of the directory.
    func save(dataDirectory: String) throws(ReplicationError) {
        let path = dataDirectory + "/" + Self.fileName
        let temporary = path + ".tmp"
        let bytes = Array(text.utf8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .systemCall("cannot create \(temporary)") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced else {
            unlink(temporary)
            throw .systemCall("cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else { throw .systemCall("cannot rename \(temporary) to \(path)") }
        let directory = open(dataDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}
