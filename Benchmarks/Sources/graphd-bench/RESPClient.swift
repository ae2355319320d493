// RESPClient.swift — a minimal blocking RESP2 client for the load generator: one TCP connection
// to 127.0.0.1, commands as arrays of bulk strings, replies parsed whole (simple strings, errors,
// integers, bulk strings, arrays). One client per thread; nothing shared. Its time is inside every
// latency the harness reports, so it reads into one buffer it keeps, parses headers and integers
// from the bytes, and makes a String only for a reply's text: a client that zero-fills a 64 KB
// chunk per recv, makes a String per line and boxes every reply measured friends at 83–110 µs p50
// at one client, against this one's 50–63 µs, on the same server.

import Glibc

/// A parsed RESP2 reply.
enum RESPReply: Equatable {
    case simple(String)
    case error(String)
    case integer(Int)
    case bulk(String?)
    case array([RESPReply]?)
}

/// A connection that broke or a reply that could not be parsed.
struct RESPClientError: Error, CustomStringConvertible {
    var description: String
}

/// One blocking connection (TCP_NODELAY) with a read buffer.
final class RESPClient {
    private let fd: Int32
    /// Received bytes; `position..<count` is not parsed yet.
    private var buffer: [UInt8] = []
    private var position = 0
    /// Bytes of `buffer` that hold received data (the rest is room for the next recv).
    private var count = 0
    /// The request being encoded, kept between calls.
    private var out: [UInt8] = []

    init(port: Int) throws {
        fd = try Self.connectLoopback(port: port)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        buffer = [UInt8](repeating: 0, count: 64 * 1024)
    }

    deinit { close(fd) }

    /// A TCP socket connected to 127.0.0.1:`port`.
    static func connectLoopback(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RESPClientError(description: "socket(): errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw RESPClientError(description: "cannot connect to 127.0.0.1:\(port) (errno \(e)); is graphd running there?")
        }
        return fd
    }

    /// Sends one command and waits for its reply.
    func call(_ words: [String]) throws -> RESPReply {
        out.removeAll(keepingCapacity: true)
        appendHeader(UInt8(ascii: "*"), words.count)
        for w in words {
            appendHeader(UInt8(ascii: "$"), w.utf8.count)
            out.append(contentsOf: w.utf8)
            out.append(13); out.append(10)
        }
        var sent = 0
        while sent < out.count {
            let n = out.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RESPClientError(description: "send failed (errno \(errno))") }
            sent += n
        }
        if position == count { position = 0; count = 0 }
        return try reply()
    }

    /// Sends bytes as they are (an attack's frames, pipelines), without reading a reply.
    func sendRaw(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RESPClientError(description: "send failed (errno \(errno))") }
            sent += n
        }
    }

    /// Reads the next reply (after `sendRaw`).
    func readReply() throws -> RESPReply {
        if position == count { position = 0; count = 0 }
        return try reply()
    }

    /// Shuts the connection both ways: a thread blocked sending on it returns with an error.
    func shutdownBoth() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Gives up reading after `seconds` (SO_RCVTIMEO): a read then fails instead of blocking.
    func setReceiveTimeout(seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The multibulk encoding of a command.
    static func encode(_ words: [String]) -> [UInt8] {
        var out = Array("*\(words.count)\r\n".utf8)
        for w in words { out += Array("$\(w.utf8.count)\r\n".utf8) + Array(w.utf8) + [13, 10] }
        return out
    }

    private func appendHeader(_ kind: UInt8, _ value: Int) {
        out.append(kind)
        out.append(contentsOf: String(value).utf8)
        out.append(13); out.append(10)
    }

    /// Receives more bytes after `count`, moving the unparsed part to the front (or growing the
    /// buffer) when there is no room.
    private func fill() throws {
        if count == buffer.count {
            if position > 0 {
                let unparsed = count - position
                buffer.withUnsafeMutableBytes { b in
                    b.baseAddress!.copyMemory(from: b.baseAddress! + position, byteCount: unparsed)
                }
                position = 0; count = unparsed
            } else {
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
        }
        let n = buffer.withUnsafeMutableBytes { b in recv(fd, b.baseAddress! + count, b.count - count, 0) }
        guard n > 0 else { throw RESPClientError(description: n == 0 ? "server closed the connection" : "recv failed (errno \(errno))") }
        count += n
    }

    /// The index of the next CRLF at or after `position`, receiving until there is one.
    private func lineEnd() throws -> Int {
        var i = position
        while true {
            while i + 1 < count {
                if buffer[i] == 13 && buffer[i + 1] == 10 { return i }
                i += 1
            }
            let consumed = position
            try fill()
            i -= consumed - position   // fill may have moved the unparsed bytes to the front
        }
    }

    /// A header line's integer (after its type byte).
    private func headerInteger(upTo end: Int) throws -> Int {
        var i = position + 1
        var negative = false
        if i < end && buffer[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < end else { throw RESPClientError(description: "empty integer in a reply header") }
        var value = 0
        while i < end {
            let d = buffer[i] &- UInt8(ascii: "0")
            guard d < 10 else {
                throw RESPClientError(description: "bad integer '\(String(decoding: buffer[position + 1..<end], as: UTF8.self))'")
            }
            value = value * 10 + Int(d)
            i += 1
        }
        return negative ? -value : value
    }

    private func reply() throws -> RESPReply {
        let end = try lineEnd()
        guard end > position else { throw RESPClientError(description: "empty reply line") }
        let kind = buffer[position]
        switch kind {
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let text = String(decoding: buffer[position + 1..<end], as: UTF8.self)
            position = end + 2
            return kind == UInt8(ascii: "+") ? .simple(text) : .error(text)
        case UInt8(ascii: ":"):
            let v = try headerInteger(upTo: end)
            position = end + 2
            return .integer(v)
        case UInt8(ascii: "$"):
            let n = try headerInteger(upTo: end)
            position = end + 2
            if n < 0 { return .bulk(nil) }
            while count - position < n + 2 { try fill() }
            let text = String(decoding: buffer[position..<position + n], as: UTF8.self)
            position += n + 2
            return .bulk(text)
        case UInt8(ascii: "*"):
            let n = try headerInteger(upTo: end)
            position = end + 2
            if n < 0 { return .array(nil) }
            var items: [RESPReply] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try reply()) }
            return .array(items)
        default:
            throw RESPClientError(description: "unexpected reply type '\(Character(Unicode.Scalar(kind)))'")
        }
    }
}
