// Epoll.swift — a thin wrapper over Linux epoll for the event loop.
// Swift's Glibc module does not import <sys/epoll.h>, and this package takes no C shim
// target, so the three calls are looked up with dlsym and called through C function
// pointers; `struct epoll_event` is laid out by hand (packed on x86_64, as the kernel
// ABI defines it there).

import Glibc

/// Errors from the system calls the server makes, with the call's name and errno.
struct SystemCallError: Error, CustomStringConvertible, Sendable {
    var call: String
    var errno: Int32
    var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
}

/// An epoll instance, closed when released. Interest is registered with a 64-bit token
/// that comes back in events.
final class Epoll {
    /// Readiness bits, as in <sys/epoll.h>.
    struct Events: OptionSet, Sendable {
        let rawValue: UInt32
        static let input = Events(rawValue: 0x001)      // EPOLLIN
        static let output = Events(rawValue: 0x004)     // EPOLLOUT
        static let error = Events(rawValue: 0x008)      // EPOLLERR
        static let hangup = Events(rawValue: 0x010)     // EPOLLHUP
        static let readHangup = Events(rawValue: 0x2000) // EPOLLRDHUP
        /// Reported once, then disarmed until modified again (EPOLLONESHOT).
        static let oneShot = Events(rawValue: 1 << 30)
    }

    private typealias CreateFunction = @convention(c) (Int32) -> Int32
    private typealias ControlFunction = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias WaitFunction = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

    #if arch(x86_64)
    /// `struct epoll_event` is `__attribute__((packed))` on x86_64: events at 0, data at 4.
    private static let eventSize = 12
    private static let dataOffset = 4
    #else
    private static let eventSize = 16
    private static let dataOffset = 8
    #endif

    /// The epoll instance's own descriptor: readable while it has events, so that it can be
    /// watched from another epoll.
    let descriptor: Int32
    private let control: ControlFunction
    private let waitFunction: WaitFunction
    private var eventBuffer: UnsafeMutableRawBufferPointer
    private let capacity = 256

    init() throws(SystemCallError) {
        guard let handle = dlopen(nil, RTLD_NOW),
              let create = dlsym(handle, "epoll_create1"),
              let control = dlsym(handle, "epoll_ctl"),
              let wait = dlsym(handle, "epoll_wait") else {
            throw SystemCallError(call: "dlsym(epoll_*)", errno: ENOSYS)
        }
        let createFunction = unsafeBitCast(create, to: CreateFunction.self)
        self.control = unsafeBitCast(control, to: ControlFunction.self)
        self.waitFunction = unsafeBitCast(wait, to: WaitFunction.self)
        let fd = createFunction(Int32(O_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError(call: "epoll_create1", errno: Glibc.errno) }
        self.descriptor = fd
        eventBuffer = .allocate(byteCount: Self.eventSize * capacity, alignment: 8)
    }

    deinit {
        close(descriptor)
        eventBuffer.deallocate()
    }

    func add(_ descriptor: Int32, events: Events, token: UInt64) throws(SystemCallError) {
        try control(operation: 1, descriptor, events, token)   // EPOLL_CTL_ADD
    }

    func modify(_ descriptor: Int32, events: Events, token: UInt64) throws(SystemCallError) {
        try control(operation: 3, descriptor, events, token)   // EPOLL_CTL_MOD
    }

    func remove(_ descriptor: Int32) {
        // Closing the descriptor removes it too; an error here changes nothing.
        _ = try? control(operation: 2, descriptor, [], 0)     // EPOLL_CTL_DEL
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and returns the ready tokens.
    func wait(timeoutMilliseconds: Int32) throws(SystemCallError) -> [(token: UInt64, events: Events)] {
        let count = waitFunction(descriptor, eventBuffer.baseAddress, Int32(capacity), timeoutMilliseconds)
        if count < 0 {
            if Glibc.errno == EINTR { return [] }
            throw SystemCallError(call: "epoll_wait", errno: Glibc.errno)
        }
        var ready: [(token: UInt64, events: Events)] = []
        ready.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            let base = i * Self.eventSize
            let events = eventBuffer.loadUnaligned(fromByteOffset: base, as: UInt32.self)
            let token = eventBuffer.loadUnaligned(fromByteOffset: base + Self.dataOffset, as: UInt64.self)
            ready.append((token, Events(rawValue: events)))
        }
        return ready
    }

    private func control(operation: Int32, _ descriptor: Int32, _ events: Events, _ token: UInt64) throws(SystemCallError) {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        let result = event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: events.rawValue, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: token, toByteOffset: Self.dataOffset, as: UInt64.self)
            return control(self.descriptor, operation, descriptor, raw.baseAddress)
        }
        guard result == 0 else { throw SystemCallError(call: "epoll_ctl", errno: Glibc.errno) }
    }
}
