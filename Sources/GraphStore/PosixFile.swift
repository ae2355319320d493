// PosixFile.swift — the few file operations the log needs, behind a protocol.
// Writes and reads loop until complete (short writes, EINTR); errors become StoreErrors naming
// the file. The protocol lets tests inject short writes, EIO, ENOSPC and failing fsyncs.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for reading and writing at explicit offsets.
protocol LogFile: AnyObject {
    var path: String { get }
    func size() throws(StoreError) -> Int
    func read(at offset: Int, count: Int) throws(StoreError) -> [UInt8]
    func write(_ bytes: [UInt8], at offset: Int) throws(StoreError)
    /// Makes written data durable (fdatasync).
    func sync() throws(StoreError)
    func truncate(to size: Int) throws(StoreError)
    func close()
}

/// A POSIX file descriptor. Not shared between threads without outside locking.
final class PosixFile: LogFile {
    let path: String
    private var fd: Int32

    /// Opens an existing file read-write.
    init(openExisting path: String) throws(StoreError) {
        self.path = path
        fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 { throw StoreError.system("cannot open", path) }
    }

    /// Creates (or replaces) a file with `contents`, durably: write a temporary file, fsync it,
    /// rename it into place and fsync the directory, so the file is either absent or complete.
    static func createDurably(_ path: String, contents: [UInt8]) throws(StoreError) {
        let temporary = path + ".tmp"
        let fd = Glibc.open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw StoreError.system("cannot create", temporary) }
        let file = PosixFile(path: temporary, fd: fd)
        defer { file.close() }
        try file.write(contents, at: 0)
        try file.sync()
        if rename(temporary, path) != 0 { throw StoreError.system("cannot rename \(temporary) to", path) }
        try syncDirectory(of: path)
    }

    static func syncDirectory(of path: String) throws(StoreError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let dir = directory.isEmpty ? "." : directory
        let fd = Glibc.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw StoreError.system("cannot open directory", dir) }
        defer { _ = Glibc.close(fd) }
        if fsync(fd) != 0 { throw StoreError.system("cannot fsync directory", dir) }
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
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
    }
}

extension StoreError {
    /// An I/O error from the last system call, e.g. "cannot write /d/x.glog: No space left on device".
    static func system(_ what: String, _ path: String) -> StoreError {
        let code = errno
        return StoreError(.io, "\(what) \(path): \(String(cString: strerror(code))) (errno \(code))", path: path)
    }
}
