// RESPTestClient.swift — a tiny blocking RESP client for the end-to-end tests: connect
// with a deadline, send raw bytes or commands, read one reply at a time. Written here on
// purpose (no client library), so the tests see exactly the bytes on the wire.

import Glibc

/// A decoded reply, as a test wants to look at it.
indirect enum RESPReply: Equatable, CustomStringConvertible {
    case simple(String)
    case error(String)
    case integer(Int64)
    case bulk(String)
    case null
    case array([RESPReply])
    /// RESP3 `#t` / `#f`.
    case boolean(Bool)
    /// RESP3 `%n`: keys and values alternating.
    case map([RESPReply])
    /// RESP3 `,` double, as its text.
    case double(String)
    /// RESP3 `>n` push frame (a Pub/Sub message or acknowledgement).
    case push([RESPReply])

    var description: String {
        switch self {
        case .simple(let s): return "+\(s)"
        case .error(let s): return "-\(s)"
        case .integer(let n): return ":\(n)"
        case .bulk(let s): return "\"\(s)\""
        case .null: return "(nil)"
        case .array(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .boolean(let b): return b ? "#t" : "#f"
        case .map(let items): return "%{" + items.map(\.description).joined(separator: ", ") + "}"
        case .double(let d): return ",\(d)"
        case .push(let items): return ">[" + items.map(\.description).joined(separator: ", ") + "]"
        }
    }

    /// The items of an array reply (empty for anything else).
    var items: [RESPReply] {
        if case .array(let items) = self { return items }
        if case .map(let items) = self { return items }
        return []
    }

    /// The rows of a `*3 [header, rows, stats]` result set.
    var rows: [[RESPReply]] {
        let parts = items
        guard parts.count == 3 else { return [] }
        return parts[1].items.map(\.items)
    }

    /// The statistics lines of a result set (the last element).
    var statistics: [String] {
        items.last?.items.compactMap { if case .bulk(let s) = $0 { return s } else { return nil } } ?? []
    }
}

/// Failures of the test client.
struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking TCP connection to graphd with a receive timeout, so a broken server fails
/// the test instead of hanging it.
final class RESPTestClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects once to 127.0.0.1:`port`; throws if nothing listens.
    /// `receiveBuffer`: SO_RCVBUF, set before connecting (a small one makes a slow reader's backlog
    /// stay on the server instead of in the kernel).
    init(port: Int, timeoutSeconds: Int = 30, receiveBuffer: Int? = nil) throws {
        // The descriptor is made (and on failure closed) before `self` exists: a throw after
        // full initialization would run deinit too, and a second close could hit a descriptor
        // number another test thread has just been given.
        fd = try Self.connectedSocket(port: port, timeoutSeconds: timeoutSeconds, receiveBuffer: receiveBuffer)
    }

    private static func connectedSocket(port: Int, timeoutSeconds: Int, receiveBuffer: Int?) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestClientError(description: "socket failed") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            close(fd)
            throw TestClientError(description: "connect to port \(port) failed: errno \(error)")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    deinit { close(fd) }

    /// Sends raw bytes.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestClientError(description: "send failed: errno \(errno)") }
            offset += n
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Whether reply bytes are waiting to be read right now (no waiting).
    func hasPendingInput() -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// Half-closes: the server sees end of input, the client can still read.
    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// The multibulk encoding of a command.
    static func encode(_ arguments: [String]) -> [UInt8] {
        var out = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            out += Array("$\(argument.utf8.count)\r\n".utf8) + Array(argument.utf8) + [0x0d, 0x0a]
        }
        return out
    }

    /// Sends a command as multibulk and reads its reply.
    func command(_ arguments: String...) throws -> RESPReply {
        try send(Self.encode(arguments))
        return try readReply()
    }

    /// Reads one complete reply.
    func readReply() throws -> RESPReply {
        var index = 0
        while true {
            if let reply = try parse(&index) {
                buffer.removeFirst(index)
                return reply
            }
            index = 0
            guard try fill() else { throw TestClientError(description: "connection closed before a full reply") }
        }
    }

    /// Reads until the server closes the connection; returns everything received.
    /// An ECONNRESET after data counts as closed.
    func readUntilClosed() throws -> String {
        while (try? fill()) == true {}
        let text = String(decoding: buffer, as: UTF8.self)
        buffer.removeAll()
        return text
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { buffer += chunk[0..<n]; return true }
        if n == 0 { return false }
        throw TestClientError(description: "recv failed: errno \(errno) (timeout or reset)")
    }

    /// Parses one reply from `buffer[index...]`, or nil when incomplete.
    private func parse(_ index: inout Int) throws -> RESPReply? {
        guard let lineEnd = findCRLF(from: index) else { return nil }
        let type = buffer[index]
        let line = String(decoding: buffer[(index + 1)..<lineEnd], as: UTF8.self)
        var next = lineEnd + 2
        switch type {
        case UInt8(ascii: "+"): index = next; return .simple(line)
        case UInt8(ascii: "-"): index = next; return .error(line)
        case UInt8(ascii: ":"):
            index = next
            return .integer(Int64(line) ?? 0)
        case UInt8(ascii: "$"):
            guard let length = Int(line) else { throw TestClientError(description: "bad bulk length \(line)") }
            if length < 0 { index = next; return .null }
            guard buffer.count >= next + length + 2 else { return nil }
            let text = String(decoding: buffer[next..<(next + length)], as: UTF8.self)
            index = next + length + 2
            return .bulk(text)
        case UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: ">"):
            guard let count = Int(line) else { throw TestClientError(description: "bad array length \(line)") }
            if count < 0 { index = next; return .null }
            let isMap = type == UInt8(ascii: "%")
            var items: [RESPReply] = []
            for _ in 0..<(isMap ? 2 * count : count) {
                guard let item = try parse(&next) else { return nil }
                items.append(item)
            }
            index = next
            if type == UInt8(ascii: ">") { return .push(items) }
            return isMap ? .map(items) : .array(items)
        case UInt8(ascii: "_"): index = next; return .null
        case UInt8(ascii: "#"): index = next; return .boolean(line == "t")
        case UInt8(ascii: ","): index = next; return .double(line)
        case UInt8(ascii: "="):
            // Verbatim string: `=len\r\ntxt:…`; the text after the 4-byte format prefix.
            guard let length = Int(line), length >= 4 else { throw TestClientError(description: "bad verbatim length \(line)") }
            guard buffer.count >= next + length + 2 else { return nil }
            let text = String(decoding: buffer[(next + 4)..<(next + length)], as: UTF8.self)
            index = next + length + 2
            return .bulk(text)
        default:
            throw TestClientError(description: "unexpected reply type byte \(type)")
        }
    }

    private func findCRLF(from: Int) -> Int? {
        var i = from
        while i + 1 < buffer.count {
            if buffer[i] == 0x0d && buffer[i + 1] == 0x0a { return i }
            i += 1
        }
        return nil
    }
}
