// RESPClient.swift — a small blocking Redis-protocol client for `graphd repl --connect`:
// connects over TCP (IPv4 or IPv6 via getaddrinfo), sends commands as RESP arrays and reads
// RESP2 replies. One request at a time, or a few sent in one write (`send`); `close()`
// from another thread unblocks a read.

import Glibc
import Synchronization

/// A RESP2 reply.
indirect enum RESPClientReply: Equatable, Sendable {
    case simple(String)
    case error(String)
    case integer(Int64)
    case bulk(String)
    /// A bulk string kept as bytes (`command(bytes:)`: binary payloads such as log records).
    case data([UInt8])
    case null
    case array([RESPClientReply])
}

/// A connection to a RESP server.
final class RESPClient: @unchecked Sendable {
    // @unchecked: `input` and `start` are used only by the one thread running `command`;
    // `close()`, the one call made from another thread, touches only `closed` and the fd.
    private let fd: Int32
    private let closed = Atomic<Bool>(false)
    /// Received bytes; those before `start` are consumed.
    private var input: [UInt8] = []
    private var start = 0

    /// Connects to `host:port`.
    init(host: String, port: Int) throws(REPLError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .other("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = 0
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            let socketFD = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                                  info.pointee.ai_protocol)
            if socketFD >= 0 {
                if connect(socketFD, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                    fd = socketFD
                    return
                }
                lastError = errno
                Glibc.close(socketFD)
            } else {
                lastError = errno
            }
            candidate = info.pointee.ai_next
        }
        throw .other("cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    deinit { close() }

    /// Closes the connection (idempotent); a read blocked in another thread returns.
    func close() {
        if closed.exchange(true, ordering: .acquiringAndReleasing) { return }
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Makes a read that waits longer than `seconds` fail (a peer that stopped answering).
    func setTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends one command and reads its reply.
    func command(_ arguments: [String]) throws(REPLError) -> RESPClientReply {
        try command(bytes: arguments.map { Array($0.utf8) }, binary: false)
    }

    /// Sends one command of raw arguments and reads its reply; with `binary`, bulk strings come
    /// back as `.data` bytes.
    func command(bytes arguments: [[UInt8]], binary: Bool) throws(REPLError) -> RESPClientReply {
        try send([arguments])
        return try readReply(binary: binary)
    }

    /// Sends `commands` in one write, their replies to be read with `reply(binary:)`, in order:
    /// the server sees them together, and the client may do something else before it reads.
    func send(_ commands: [[[UInt8]]]) throws(REPLError) {
        var bytes: [UInt8] = []
        for arguments in commands {
            bytes += Array("*\(arguments.count)\r\n".utf8)
            for argument in arguments {
                bytes += Array("$\(argument.count)\r\n".utf8) + argument + [13, 10]
            }
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw .other("connection lost while sending") }
            offset += n
        }
    }

    /// The next reply to what `send` sent.
    func reply(binary: Bool) throws(REPLError) -> RESPClientReply {
        try readReply(binary: binary)
    }

    private func readReply(binary: Bool) throws(REPLError) -> RESPClientReply {
        let line = try readLine()
        guard let kind = line.first else { throw .other("protocol error: empty reply line") }
        let rest = String(decoding: line.dropFirst(), as: UTF8.self)
        switch kind {
        case UInt8(ascii: "+"): return .simple(rest)
        case UInt8(ascii: "-"): return .error(rest)
        case UInt8(ascii: ":"):
            guard let n = Int64(rest) else { throw .other("protocol error: bad integer '\(rest)'") }
            return .integer(n)
        case UInt8(ascii: "$"):
            guard let length = Int(rest) else { throw .other("protocol error: bad length '\(rest)'") }
            if length < 0 { return .null }
            let bytes = try readBytes(length + 2)
            return binary ? .data(Array(bytes.prefix(length))) : .bulk(String(decoding: bytes.prefix(length), as: UTF8.self))
        case UInt8(ascii: "*"):
            guard let count = Int(rest) else { throw .other("protocol error: bad count '\(rest)'") }
            if count < 0 { return .null }
            var items: [RESPClientReply] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try readReply(binary: binary)) }
            return .array(items)
        default:
            throw .other("protocol error: unexpected reply type '\(Character(Unicode.Scalar(kind)))'")
        }
    }

    private func readLine() throws(REPLError) -> [UInt8] {
        // Relative to `start`, which fill() may move when it compacts the buffer.
        var scanned = 0
        while true {
            while start + scanned + 1 < input.count {
                if input[start + scanned] == 13 && input[start + scanned + 1] == 10 {
                    let line = Array(input[start..<start + scanned])
                    start += scanned + 2
                    return line
                }
                scanned += 1
            }
            try fill()
        }
    }

    private func readBytes(_ count: Int) throws(REPLError) -> [UInt8] {
        while input.count - start < count { try fill() }
        let bytes = Array(input[start..<start + count])
        start += count
        return bytes
    }

    private func fill() throws(REPLError) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if isClosed { throw .other("connection closed") }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw .other("connection closed by the server") }
            if start > 0 && start == input.count {
                input.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 1 << 20 {
                input.removeFirst(start)
                start = 0
            }
            input.append(contentsOf: chunk[0..<n])
            return
        }
    }
}
