// LogTail.swift — the end of the newest log segment, held in memory under `--fsync always` and
// written to the file by the group-commit leader in whole blocks, bypassing the page cache.
//
// Why: writers copy their record into the tail under the store's write lock (no system call
// there at all), and the leader that makes them durable writes every record since the last sync
// with one call, so a group of writers costs one write and one sync (PostgreSQL's WAL buffers
// work the same way). The write bypasses the page cache, so the fdatasync after it has no dirty
// pages to find and write back (docs/durability.md has the figures).
//
// LAYOUT. The tail holds the file's bytes from `base` (a multiple of `blockSize`) to the log's
// end. A write takes the bytes up to the end a leader syncs to, pads them with zeros to a whole
// block and writes them at `base`, so the partial last block is written again, with the same
// leading bytes, by the next sync. Zeros after the last record are what a preallocated segment
// holds anyway (AppendLog.swift, PREALLOCATION), so recovery reads them as the end of the log.
// Blocks wholly before the synced end are dropped once they have been handed to a write.
//
// DRAINING. When the disk is full the log cannot preallocate room, and a record must be written
// before it is acknowledged as applied (so that ENOSPC refuses that write instead of failing a
// sync). `drain` then writes what the tail holds through the page cache and the segment goes
// on without a tail (AppendLog); the next fdatasync covers both.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The unwritten end of one log segment, shared by the appending writer (under the store's write
/// lock) and the group-commit leader. Thread-safe: every field is guarded by `mutex`.
final class LogTail: @unchecked Sendable {
    /// Offsets and lengths of block writes are multiples of this, and their memory is aligned to
    /// it: direct I/O needs the device's logical block size, at most 4 KiB on the devices Linux
    /// supports for it.
    static let blockSize = 4096

    /// Whole blocks for one write, at `offset` in the file.
    struct Blocks {
        var offset: Int
        var bytes: UnsafeRawBufferPointer
    }

    private let mutex = PosixMutex()
    /// Signalled when a leader's write ends (`drain` waits for it).
    private let idle = PosixCondition()
    /// The file's bytes [base, base + count).
    private var buffer: AlignedBytes
    private var base: Int
    private var count = 0
    /// The end of the bytes handed to a write so far.
    private var handedThrough: Int
    /// The leader's copy of what it writes; used by one leader at a time (`writing`).
    private var staging: AlignedBytes
    private var writing = false
    /// Set once `drain` wrote the tail through the page cache: appends no longer come here.
    private(set) var isDrained = false

    /// A tail for a segment whose records end at `end`, where `file` holds them.
    init(file: LogFile, end: Int) throws(StoreError) {
        base = end - end % Self.blockSize
        handedThrough = end
        buffer = AlignedBytes(capacity: 4 * Self.blockSize)
        staging = AlignedBytes(capacity: 4 * Self.blockSize)
        if end > base {
            let prefix = try file.read(at: base, count: end - base)
            guard prefix.count == end - base else {
                throw StoreError(.io, "the log ends at offset \(end) but the file is shorter", path: file.path)
            }
            append(prefix)
        }
    }

    deinit {
        buffer.release()
        staging.release()
    }

    /// Adds a framed record (or, at init, the start of the partial last block) after the rest.
    func append(_ bytes: [UInt8]) {
        mutex.withLock {
            buffer.reserve(count + bytes.count, keeping: count)
            bytes.withUnsafeBytes { buffer.pointer.advanced(by: count).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            count += bytes.count
        }
    }

    /// The end of what has been appended (the log's end).
    var end: Int { mutex.withLock { base + count } }

    /// For the group-commit leader: the blocks holding everything up to `end` (an offset the
    /// tail reaches) that no write has been handed yet; nil when there is nothing new or the tail
    /// was drained. The bytes stay valid until `endWrite`, which the caller must call.
    func beginWrite(through end: Int) -> Blocks? {
        mutex.withLock { () -> Blocks? in
            precondition(!writing, "one group-commit leader writes at a time")
            guard !isDrained, end > handedThrough else { return nil }
            precondition(end <= base + count, "a sync past the log's end")
            let length = end - base
            let padded = (length + Self.blockSize - 1) / Self.blockSize * Self.blockSize
            staging.reserve(padded, keeping: 0)
            staging.pointer.copyMemory(from: buffer.pointer, byteCount: length)
            staging.pointer.advanced(by: length).initializeMemory(as: UInt8.self, repeating: 0, count: padded - length)
            let blocks = Blocks(offset: base, bytes: UnsafeRawBufferPointer(start: staging.pointer, count: padded))
            // Keep the partial last block: the next write starts with it.
            let dropped = length - length % Self.blockSize
            if dropped > 0 {
                memmove(buffer.pointer, buffer.pointer.advanced(by: dropped), count - dropped)
                base += dropped
                count -= dropped
            }
            handedThrough = end
            writing = true
            return blocks
        }
    }

    /// The leader's write handed out by `beginWrite` is over (whether or not it succeeded: a
    /// failure fails the whole log, which is then reloaded from its files).
    func endWrite() {
        mutex.withLock {
            writing = false
            idle.broadcast()
        }
    }

    /// Writes what no leader has been handed through `file`'s page cache and stops taking
    /// appends (see DRAINING). Waits for a leader's write in progress, which may cover the same
    /// blocks. On failure nothing changes: the tail keeps its records for the next leader.
    func drain(into file: LogFile) throws(StoreError) {
        mutex.lock()
        defer { mutex.unlock() }
        while writing { idle.wait(mutex) }
        guard !isDrained else { return }
        if base + count > handedThrough {
            // From the start of the block: the bytes before `handedThrough` in it are on disk
            // already, and writing them again keeps the page the kernel caches whole.
            let bytes = [UInt8](UnsafeRawBufferPointer(start: buffer.pointer, count: count))
            try file.write(bytes, at: base)
        }
        isDrained = true
    }
}

/// Heap memory aligned to `LogTail.blockSize`, as direct I/O wants it.
private struct AlignedBytes {
    private(set) var pointer: UnsafeMutableRawPointer
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        pointer = Self.allocate(capacity)
    }

    /// Makes room for `needed` bytes, keeping the first `keeping`.
    mutating func reserve(_ needed: Int, keeping: Int) {
        guard needed > capacity else { return }
        var grown = capacity
        while grown < needed { grown *= 2 }
        let larger = Self.allocate(grown)
        larger.copyMemory(from: pointer, byteCount: keeping)
        free(pointer)
        pointer = larger
        capacity = grown
    }

    func release() { free(pointer) }

    private static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, LogTail.blockSize, bytes) == 0, let memory else {
            fatalError("out of memory for \(bytes) bytes of log tail")
        }
        return memory
    }
}

