// RESPClient.swift — a minimal blocking RESP2 client for the load generator: one TCP connection
// to 127.0.0.1, commands as arrays of bulk strings, replies parsed whole (simple strings, errors,
// integers, bulk strings, arrays). One client per thread; nothing shared.

import Glibc

/// A parsed RESP2 reply.
indirect enum RESPReply: Equatable {
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
    private var buffer: [UInt8] = []
    private var position = 0

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// Sends one command and waits for its reply.
    func call(_ words: [String]) throws -> RESPReply {
        var out: [UInt8] = Array("*\(words.count)\r\n".utf8)
        for w in words {
            out.append(contentsOf: "$\(w.utf8.count)\r\n".utf8)
            out.append(contentsOf: w.utf8)
            out.append(contentsOf: [13, 10])
        }
        var sent = 0
        while sent < out.count {
            let n = out.withUnsafeBytes { send(fd, $0.baseAddress! + sent, out.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RESPClientError(description: "send failed (errno \(errno))") }
            sent += n
        }
        return try reply()
    }

    private func fill() throws {
        if position > 0 && position == buffer.count { buffer.removeAll(keepingCapacity: true); position = 0 }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, 65_536, 0) }
        guard n > 0 else { throw RESPClientError(description: n == 0 ? "server closed the connection" : "recv failed (errno \(errno))") }
        buffer.append(contentsOf: chunk[0..<n])
    }

    private func line() throws -> String {
        while true {
            var i = position
            while i + 1 < buffer.count {
                if buffer[i] == 13 && buffer[i + 1] == 10 {
                    let text = String(decoding: buffer[position..<i], as: UTF8.self)
                    position = i + 2
                    return text
                }
                i += 1
            }
            try fill()
        }
    }

    private func reply() throws -> RESPReply {
        let head = try line()
        guard let kind = head.first else { throw RESPClientError(description: "empty reply line") }
        let rest = String(head.dropFirst())
        switch kind {
        case "+": return .simple(rest)
        case "-": return .error(rest)
        case ":":
            guard let v = Int(rest) else { throw RESPClientError(description: "bad integer '\(rest)'") }
            return .integer(v)
        case "$":
            guard let n = Int(rest) else { throw RESPClientError(description: "bad bulk length '\(rest)'") }
            if n < 0 { return .bulk(nil) }
            while buffer.count - position < n + 2 { try fill() }
            let text = String(decoding: buffer[position..<position + n], as: UTF8.self)
            position += n + 2
            return .bulk(text)
        case "*":
            guard let n = Int(rest) else { throw RESPClientError(description: "bad array length '\(rest)'") }
            if n < 0 { return .array(nil) }
            var items: [RESPReply] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try reply()) }
            return .array(items)
        default:
            throw RESPClientError(description: "unexpected reply type '\(kind)'")
        }
    }
}
