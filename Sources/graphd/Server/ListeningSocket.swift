// ListeningSocket.swift — the server's listening TCP socket: address parsing (IPv4 or
// IPv6 literal), SO_REUSEADDR, non-blocking accept. The event loop owns one.

import Glibc

/// A bound, listening, non-blocking TCP socket, closed when released.
final class ListeningSocket {
    let descriptor: Int32
    /// The port actually bound (differs from the requested one when that was 0).
    let port: Int

    /// Binds `address:port` and listens.
    init(address: String, port: Int, backlog: Int32 = 511) throws(SystemCallError) {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if address.contains(":") {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = UInt16(port).bigEndian
            guard inet_pton(AF_INET6, address, &sin6.sin6_addr) == 1 else {
                throw SystemCallError(call: "inet_pton(\(address))", errno: EINVAL)
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: sin6, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(port).bigEndian
            guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else {
                throw SystemCallError(call: "inet_pton(\(address))", errno: EINVAL)
            }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: sin, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        }

        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError(call: "socket", errno: Glibc.errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let error = SystemCallError(call: "bind(\(address):\(port))", errno: Glibc.errno)
            close(fd)
            throw error
        }
        guard listen(fd, backlog) == 0 else {
            let error = SystemCallError(call: "listen", errno: Glibc.errno)
            close(fd)
            throw error
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        let boundPort: UInt16 = withUnsafeBytes(of: &actual) { raw in
            family == AF_INET6 ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port
        }
        self.descriptor = fd
        self.port = Int(UInt16(bigEndian: boundPort))
    }

    deinit { close(descriptor) }

    /// `ip:port` (IPv6 as `[ip]:port`) of a socket address.
    static func describe(_ storage: sockaddr_storage) -> String {
        var storage = storage
        let family = Int32(storage.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafeBytes(of: &storage) { raw -> String in
            if family == AF_INET6 {
                var sin6 = raw.load(as: sockaddr_in6.self)
                inet_ntop(AF_INET6, &sin6.sin6_addr, &text, socklen_t(text.count))
                return "[\(String(nulTerminated: text))]:\(UInt16(bigEndian: sin6.sin6_port))"
            }
            var sin = raw.load(as: sockaddr_in.self)
            inet_ntop(AF_INET, &sin.sin_addr, &text, socklen_t(text.count))
            return "\(String(nulTerminated: text)):\(UInt16(bigEndian: sin.sin_port))"
        }
    }

    /// What one accept attempt gave.
    enum Accepted {
        /// A connection, as a non-blocking socket with the peer's `ip:port`.
        case connection(descriptor: Int32, peer: String)
        /// None waiting (or a transient failure: retried on the next event).
        case none
        /// The process (EMFILE) or system (ENFILE) has no descriptor left.
        case outOfDescriptors
    }

    /// Accepts one pending connection.
    func accept() -> Accepted {
        while true {
            // accept4 is not visible through Swift's Glibc module; set the flags after.
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(descriptor, $0, &length) }
            }
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return .connection(descriptor: fd, peer: Self.describe(storage))
            }
            switch Glibc.errno {
            case EINTR: continue
            case EMFILE, ENFILE: return .outOfDescriptors
            // EAGAIN: nothing waiting; ECONNABORTED and the like: try again on the next event.
            default: return .none
            }
        }
    }
}
