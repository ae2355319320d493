// ReplicationError.swift — why a replication step failed: the link, the handshake, the
// stream's contents, or the files. One message a case, said to the operator in INFO and logs.

import Glibc

/// A replication failure; `description` is the one-line message.
enum ReplicationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary cannot be reached or the connection broke.
    case link(String)
    /// The primary refused the handshake or is not a graphd (wrong password, a Redis, itself).
    case handshake(String)
    /// A record or snapshot failed its checks (checksum, continuity, decoding, apply).
    case stream(String)
    /// A file could not be read or written.
    case system(String)

    var description: String {
        switch self {
        case .link(let message): "link: \(message)"
        case .handshake(let message): "handshake: \(message)"
        case .stream(let message): "stream: \(message)"
        case .system(let message): message
        }
    }

    /// A system call's failure: `what` and the reason errno gives, read now.
    static func systemCall(_ what: String) -> ReplicationError {
        .system("\(what): \(String(cString: strerror(errno)))")
    }
}
