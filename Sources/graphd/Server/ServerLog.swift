// ServerLog.swift — graphd's log lines: one line per event on standard error, with the
// process id and a UTC timestamp, in the spirit of Redis's `pid:M date # message`.

import Glibc

/// Writes server log lines.
enum ServerLog {
    /// `graphd[pid] 2026-11-23T00:12:25Z message`, written with one write(2) so lines from
    /// different threads do not interleave.
    static func write(_ message: String) {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        let line = "graphd[\(getpid())] \(String(nulTerminated: buffer)) \(message)\n"
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}
