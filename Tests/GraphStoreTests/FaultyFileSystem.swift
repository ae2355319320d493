// FaultyFileSystem.swift — a FileSystem for fault tests: the real one, except that it fails on
// cue — a short write then ENOSPC, EIO on write, a failing fsync, rename or directory fsync —
// for files whose path contains a given text; and it can hold an fsync until writers arrive.

import Foundation
import Synchronization
@testable import GraphStore

/// The real file system with injectable failures. Thread-safe.
final class FaultyFileSystem: FileSystem, @unchecked Sendable {
    /// One kind of failure.
    enum Fault: Equatable, Sendable {
        /// Writes half of the bytes, then fails with ENOSPC (the disk filled up mid-write).
        case shortWriteThenNoSpace
        /// A write fails with ENOSPC before writing anything.
        case noSpace
        /// A write fails with EIO.
        case writeIOError
        /// fdatasync fails with EIO.
        case syncFails
        /// rename fails with EIO.
        case renameFails
        /// The atomic directory exchange (renameat2) fails with EIO.
        case exchangeFails
        /// fsync of a directory fails with EIO.
        case directorySyncFails
        /// Removing a file fails with EIO.
        case removeFails
    }

    private struct State {
        var faults: [(fault: Fault, pathContains: String)] = []
        var syncHook: (@Sendable (String) -> Void)?
        var writes = 0
        var syncs = 0
    }

    private let inner = PosixFileSystem()
    private let state = Mutex(State())

    /// Turns `fault` on for paths containing `pathContains` ("" matches every path).
    func inject(_ fault: Fault, where pathContains: String = "") {
        state.withLock { $0.faults.append((fault, pathContains)) }
    }

    /// Turns every fault off.
    func heal() { state.withLock { $0.faults = [] } }

    /// Called (outside any lock of ours) before each file fsync, with the path.
    func onSync(_ hook: (@Sendable (String) -> Void)?) { state.withLock { $0.syncHook = hook } }

    /// Number of successful data writes and file fsyncs so far.
    var writeCount: Int { state.withLock { $0.writes } }
    var syncCount: Int { state.withLock { $0.syncs } }

    func active(_ fault: Fault, _ path: String) -> Bool {
        state.withLock { state in
            state.faults.contains { $0.fault == fault && ($0.pathContains.isEmpty || path.contains($0.pathContains)) }
        }
    }

    static func error(_ what: String, _ path: String, _ code: Int32) -> StoreError {
        StoreError(.io, "\(what) \(path): \(String(cString: strerror(code))) (errno \(code))", path: path)
    }

    fileprivate func wrote() { state.withLock { $0.writes += 1 } }

    fileprivate func willSync(_ path: String) {
        let hook = state.withLock { $0.syncHook }
        hook?(path)
        state.withLock { $0.syncs += 1 }
    }

    func open(_ path: String) throws(StoreError) -> LogFile { FaultyFile(try inner.open(path), fileSystem: self) }
    func create(_ path: String) throws(StoreError) -> LogFile { FaultyFile(try inner.create(path), fileSystem: self) }

    func rename(_ source: String, to destination: String) throws(StoreError) {
        if active(.renameFails, destination) { throw Self.error("cannot rename \(source) to", destination, EIO) }
        try inner.rename(source, to: destination)
    }

    func exchange(_ first: String, _ second: String) throws(StoreError) {
        if active(.exchangeFails, second) { throw Self.error("cannot swap \(first) and", second, EIO) }
        try inner.exchange(first, second)
    }

    func removeFile(_ path: String) throws(StoreError) {
        if active(.removeFails, path) { throw Self.error("cannot remove", path, EIO) }
        try inner.removeFile(path)
    }

    func removeTree(_ path: String) throws(StoreError) { try inner.removeTree(path) }

    func syncDirectory(_ path: String) throws(StoreError) {
        if active(.directorySyncFails, path) { throw Self.error("cannot fsync directory", path, EIO) }
        try inner.syncDirectory(path)
    }

    func contentsOfDirectory(_ path: String) throws(StoreError) -> [String] { try inner.contentsOfDirectory(path) }
    func createDirectory(_ path: String) throws(StoreError) { try inner.createDirectory(path) }
    func isDirectory(_ path: String) -> Bool { inner.isDirectory(path) }
    func fileExists(_ path: String) -> Bool { inner.fileExists(path) }
}

/// A file of a FaultyFileSystem.
final class FaultyFile: LogFile {
    let inner: LogFile
    let fileSystem: FaultyFileSystem

    init(_ inner: LogFile, fileSystem: FaultyFileSystem) {
        self.inner = inner
        self.fileSystem = fileSystem
    }

    var path: String { inner.path }
    func size() throws(StoreError) -> Int { try inner.size() }
    func read(at offset: Int, count: Int) throws(StoreError) -> [UInt8] { try inner.read(at: offset, count: count) }

    func write(_ bytes: [UInt8], at offset: Int) throws(StoreError) {
        if fileSystem.active(.shortWriteThenNoSpace, path) {
            try inner.write(Array(bytes.prefix(bytes.count / 2)), at: offset)
            throw FaultyFileSystem.error("cannot write", path, ENOSPC)
        }
        if fileSystem.active(.noSpace, path) { throw FaultyFileSystem.error("cannot write", path, ENOSPC) }
        if fileSystem.active(.writeIOError, path) { throw FaultyFileSystem.error("cannot write", path, EIO) }
        try inner.write(bytes, at: offset)
        fileSystem.wrote()
    }

    func sync() throws(StoreError) {
        fileSystem.willSync(path)
        if fileSystem.active(.syncFails, path) { throw FaultyFileSystem.error("cannot fsync", path, EIO) }
        try inner.sync()
    }

    func truncate(to size: Int) throws(StoreError) { try inner.truncate(to: size) }
    func close() { inner.close() }
}
