// Terminal.swift — the little the REPL needs from a terminal, through termios and ioctl:
// whether a descriptor is one, its width, raw mode for the line editor (restored on every
// way out), and unbuffered writes.

import Glibc

/// A terminal on standard input and output.
enum Terminal {
    /// True when `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The width of standard output in columns: the terminal's, else $COLUMNS, else 80.
    static func width() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessEnvironment.value("COLUMNS").flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// Writes all of `text` to `fd`, retrying short writes.
    static func write(_ text: String, to fd: Int32 = STDOUT_FILENO) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
        bytes.removeAll()
    }
}

/// Raw mode on a terminal for as long as the value lives: no echo, no line buffering, no
/// signals from Ctrl-C (it arrives as a byte the editor handles), output processing kept so
/// that "\n" still moves to the start of the next line.
final class RawMode {
    private let fd: Int32
    private var original = termios()
    private(set) var isActive = false

    init(fd: Int32) { self.fd = fd }

    /// Enters raw mode; false when `fd` is not a terminal.
    @discardableResult
    func enable() -> Bool {
        guard !isActive, tcgetattr(fd, &original) == 0 else { return isActive }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSADRAIN, &raw) == 0 else { return false }
        isActive = true
        return true
    }

    /// Restores the terminal as it was.
    func disable() {
        guard isActive else { return }
        var saved = original
        _ = tcsetattr(fd, TCSADRAIN, &saved)
        isActive = false
    }

    deinit { disable() }
}
