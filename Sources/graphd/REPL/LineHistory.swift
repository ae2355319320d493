// LineHistory.swift — the REPL's input history: the lines entered, oldest first, kept across
// runs in a file (one entry per line, newlines inside an entry escaped) that is appended to
// as each line is entered, so a crash loses nothing.

import Glibc

/// Entered lines, in order, optionally backed by a file.
struct LineHistory {
    /// Most entries kept in memory and loaded from the file.
    static let capacity = 1000

    private(set) var entries: [String] = []
    let path: String?

    /// Loads `path` when given (a missing or unreadable file is an empty history).
    init(path: String?) {
        self.path = path
        guard let path, let bytes = Self.contents(of: path) else { return }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        entries = lines.suffix(Self.capacity).map { Self.unescape(String(decoding: $0, as: UTF8.self)) }
    }

    /// Adds `line` (not blank, not a repeat of the last entry) and appends it to the file.
    mutating func add(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace), entries.last != line else { return }
        entries.append(line)
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }  // history is a convenience: an unwritable file is not an error
        defer { close(fd) }
        let bytes = Array((Self.escape(line) + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    static func escape(_ line: String) -> String {
        line.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    static func unescape(_ text: String) -> String {
        var out = ""
        var escaped = false
        for c in text {
            if escaped {
                out.append(c == "n" ? "\n" : c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    private static func contents(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            result.append(contentsOf: buffer[0..<n])
        }
        return result
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        out += rest
        return out
    }
}
