// StoreError.swift — the typed error of the durable store: files, the log, snapshots, the data
// directory. Messages name the file and, for damage, the byte offset, and say how to proceed.

/// Why opening, writing or managing a durable graph failed.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category, for callers (the server) that react differently to each.
    public enum Kind: Sendable, Equatable {
        /// A system call failed (open, write, fsync, …); `errno` is in the message.
        case io
        /// A log record is damaged in a way that cannot be a torn tail; refusing to lose data.
        case corruptLog
        /// A snapshot file is damaged (bad checksum, truncated, impossible contents).
        case corruptSnapshot
        /// The file was written by a format version this build does not read.
        case unsupportedVersion
        /// A graph name that cannot be a directory name.
        case invalidGraphName
        /// Another process holds the data directory.
        case locked
        /// The store was closed (its graph was deleted); no more writes.
        case closed
        /// The graph rejected a write (a log replayed into an inconsistent state).
        case replayFailed
        /// A graph of that name exists and the caller asked not to replace it.
        case graphExists
    }

    public var kind: Kind
    public var message: String
    /// The file concerned, when there is one.
    public var path: String?
    /// The byte offset in `path` concerned, for log damage.
    public var offset: Int?

    public init(_ kind: Kind, _ message: String, path: String? = nil, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.offset = offset
    }

    public var description: String { message }
}
