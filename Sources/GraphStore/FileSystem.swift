// FileSystem.swift — every file-system operation of the durable store, behind one protocol.
// Production uses PosixFileSystem (PosixFile.swift); the fault tests substitute a layer that
// fails on cue (short writes, EIO, ENOSPC, a failing fsync or rename), so each failure path runs.

/// The operations the log, snapshots and the data directory perform on files and directories.
/// Paths are absolute or relative to the working directory; errors name the path.
protocol FileSystem: Sendable {
    /// Opens an existing file for reading and writing.
    func open(_ path: String) throws(StoreError) -> LogFile
    /// Creates a file (truncating one that exists) for reading and writing.
    func create(_ path: String) throws(StoreError) -> LogFile
    /// rename(2): atomic replacement of `destination`.
    func rename(_ source: String, to destination: String) throws(StoreError)
    /// Atomically swaps two existing directories (renameat2 RENAME_EXCHANGE).
    func exchange(_ first: String, _ second: String) throws(StoreError)
    /// Removes a file; a missing file is not an error.
    func removeFile(_ path: String) throws(StoreError)
    /// Removes a directory and everything in it; a missing one is not an error.
    func removeTree(_ path: String) throws(StoreError)
    /// fsync of a directory, making created, renamed and removed entries durable.
    func syncDirectory(_ path: String) throws(StoreError)
    func contentsOfDirectory(_ path: String) throws(StoreError) -> [String]
    /// Creates a directory and its missing parents.
    func createDirectory(_ path: String) throws(StoreError)
    func isDirectory(_ path: String) -> Bool
    func fileExists(_ path: String) -> Bool
}

extension FileSystem {
    /// Creates (or replaces) `path` with `contents` so that it is either absent or complete:
    /// write `<path>.tmp`, fsync it, rename it into place, fsync the directory.
    func createDurably(_ path: String, contents: [UInt8]) throws(StoreError) {
        let temporary = path + ".tmp"
        let file = try create(temporary)
        do {
            try file.write(contents, at: 0)
            try file.sync()
            file.close()
            try rename(temporary, to: path)
        } catch {
            file.close()
            try? removeFile(temporary)
            throw error
        }
        try syncDirectory(Self.parent(of: path))
    }

    /// The directory part of `path` ("." when there is none).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
