// PosixFile.swift — the production FileSystem: POSIX calls on file descriptors.
// Writes and reads loop until complete (short writes, EINTR); every failure becomes a StoreError
// naming the file and errno, which is what the server sends back and the operator reads.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A file opened for reading and writing at explicit offsets.
/// Not Sendable: one file is used under the lock of the store that owns it; the only
/// concurrent use is `sync` (fdatasync) racing a `write`, which POSIX allows.
protocol LogFile: AnyObject {
    var path: String { get }
    func size() throws(StoreError) -> Int
    func read(at offset: Int, count: Int) throws(StoreError) -> [UInt8]
    func write(_ bytes: [UInt8], at offset: Int) throws(StoreError)
    /// Writes whole blocks (offset, length and memory aligned to `LogTail.blockSize`), past the
    /// page cache where the file system allows (direct I/O); `sync` still makes them durable.
    func writeBlocks(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(StoreError)
    /// Makes written data durable (fdatasync).
    func sync() throws(StoreError)
    func truncate(to size: Int) throws(StoreError)
    func close()
}

extension LogFile {
    /// Through the page cache, for files that have no direct path (test doubles inject their
    /// faults into `write`, so the block writes of a log tail meet them too).
    func writeBlocks(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(StoreError) {
        try write([UInt8](bytes), at: offset)
    }
}

/// A POSIX file descriptor, closed by `close()` or when the object goes away.
final class PosixFile: LogFile, @unchecked Sendable {
    // @unchecked: `fd` changes only in close(); callers never close a file another thread uses
    // (GroupCommit closes the log only when no fsync is running).
    let path: String
    private var fd: Int32
    /// A second descriptor on the file opened with O_DIRECT for `writeBlocks`, opened at the
    /// first block write; -1 where the file system refuses direct I/O (tmpfs), -2 before.
    private var directFD: Int32 = -2

    /// Opens an existing file read-write.
    init(openExisting path: String) throws(StoreError) {
        self.path = path
        fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 { throw StoreError.system("cannot open", path) }
    }

    /// Creates a file (or truncates an existing one), read-write.
    init(creating path: String) throws(StoreError) {
        self.path = path
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw StoreError.system("cannot create", path) }
    }

    deinit { close() }

    func size() throws(StoreError) -> Int {
        var info = stat()
        if fstat(fd, &info) != 0 { throw StoreError.system("cannot stat", path) }
        return Int(info.st_size)
    }

    func read(at offset: Int, count: Int) throws(StoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError.system("cannot read", path)
            }
            if n == 0 { break }  // end of file
            done += n
        }
        bytes.removeLast(count - done)
        return bytes
    }

    func write(_ bytes: [UInt8], at offset: Int) throws(StoreError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError.system("cannot write", path)
            }
            done += n
        }
    }

    func writeBlocks(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(StoreError) {
        if directFD == -2 {
            directFD = Glibc.open(path, O_RDWR | O_CLOEXEC | Self.directFlag)
            if directFD < 0 { directFD = -1 }
        }
        var done = 0
        while directFD >= 0 && done < bytes.count {
            let n = pwrite(directFD, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL && done == 0 {
                    // The file system took the open but not the write: go through the cache.
                    _ = Glibc.close(directFD)
                    directFD = -1
                    break
                }
                throw StoreError.system("cannot write", path)
            }
            done += n
        }
        if done < bytes.count {
            try write([UInt8](UnsafeRawBufferPointer(rebasing: bytes[done...])), at: offset + done)
        }
    }

    /// O_DIRECT, which Swift's Glibc module does not export (it is a GNU extension).
    private static let directFlag: Int32 = {
        #if arch(arm64) || arch(arm)
        return 0o200000
        #else
        return 0o40000
        #endif
    }()

    func sync() throws(StoreError) {
        #if canImport(Glibc)
        let result = fdatasync(fd)
        #else
        let result = fsync(fd)
        #endif
        if result != 0 { throw StoreError.system("cannot fsync", path) }
    }

    func truncate(to size: Int) throws(StoreError) {
        if ftruncate(fd, off_t(size)) != 0 { throw StoreError.system("cannot truncate", path) }
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
        if directFD >= 0 { _ = Glibc.close(directFD) }
        directFD = -1
    }
}

/// The real file system.
struct PosixFileSystem: FileSystem {
    func open(_ path: String) throws(StoreError) -> LogFile { try PosixFile(openExisting: path) }

    func create(_ path: String) throws(StoreError) -> LogFile { try PosixFile(creating: path) }

    func rename(_ source: String, to destination: String) throws(StoreError) {
        if Glibc.rename(source, destination) != 0 { throw StoreError.system("cannot rename \(source) to", destination) }
    }

    func exchange(_ first: String, _ second: String) throws(StoreError) {
        // renameat2 is in glibc ≥ 2.28 but not in Swift's Glibc module map: look it up.
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "renameat2") else {
            throw StoreError(.io, "cannot swap \(first) and \(second): this C library has no renameat2", path: second)
        }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let exchangeFlag: UInt32 = 2  // RENAME_EXCHANGE
        if renameat2(AT_FDCWD, first, AT_FDCWD, second, exchangeFlag) != 0 {
            throw StoreError.system("cannot swap \(first) and", second)
        }
    }

    func removeFile(_ path: String) throws(StoreError) {
        if unlink(path) != 0 && errno != ENOENT { throw StoreError.system("cannot remove", path) }
    }

    func removeTree(_ path: String) throws(StoreError) {
        guard fileExists(path) else { return }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            throw StoreError(.io, "cannot remove \(path): \(error.localizedDescription)", path: path)
        }
    }

    func syncDirectory(_ path: String) throws(StoreError) {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw StoreError.system("cannot open directory", path) }
        defer { _ = Glibc.close(fd) }
        if fsync(fd) != 0 { throw StoreError.system("cannot fsync directory", path) }
    }

    func contentsOfDirectory(_ path: String) throws(StoreError) -> [String] {
        do { return try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw StoreError(.io, "cannot list \(path): \(error.localizedDescription)", path: path)
        }
    }

    func createDirectory(_ path: String) throws(StoreError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw StoreError(.io, "cannot create directory \(path): \(error.localizedDescription)", path: path)
        }
    }

    func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}

extension StoreError {
    /// An I/O error from the last system call, e.g. "cannot write /d/x.glog: No space left on device".
    static func system(_ what: String, _ path: String) -> StoreError {
        let code = errno
        return StoreError(.io, "\(what) \(path): \(String(cString: strerror(code))) (errno \(code))", path: path)
    }
}
