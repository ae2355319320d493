// LineEditor.swift — reads one line from a terminal in raw mode with editing keys (arrows,
// Home/End, Backspace/Delete, Ctrl-A/E/K/U/W/L) and history on Up/Down, redrawing the line
// in place (scrolled horizontally when longer than the terminal). Ctrl-C and Ctrl-D are
// reported to the caller, which decides what they mean.

import Glibc

/// What one `readLine` ended with.
enum EditorInput: Equatable {
    case line(String)
    /// Ctrl-C: the input was abandoned.
    case interrupted
    /// Ctrl-D on an empty line, or the terminal closed.
    case endOfInput
}

/// The text being edited and the cursor: pure, so editing is tested without a terminal.
struct EditBuffer: Equatable {
    var characters: [Character] = []
    var cursor = 0

    var text: String { String(characters) }

    init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    mutating func insert(_ c: Character) {
        characters.insert(c, at: cursor)
        cursor += 1
    }

    mutating func backspace() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    mutating func deleteWord() {
        var start = cursor
        while start > 0 && characters[start - 1] == " " { start -= 1 }
        while start > 0 && characters[start - 1] != " " { start -= 1 }
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    mutating func killToEnd() { characters.removeSubrange(cursor...) }

    mutating func killToStart() {
        characters.removeSubrange(..<cursor)
        cursor = 0
    }

    mutating func move(by offset: Int) { cursor = min(max(0, cursor + offset), characters.count) }
}

/// The interactive line reader over standard input and output.
final class LineEditor {
    private let input: Int32
    private let output: Int32
    private let rawMode: RawMode
    private var decoder = KeyDecoder()
    var history: LineHistory

    init(history: LineHistory, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
        self.history = history
        self.rawMode = RawMode(fd: input)
    }

    /// Reads one line after showing `prompt`. Raw mode stays on after the line, so keys typed
    /// before the next prompt are not echoed or line-edited by the terminal; the caller calls
    /// `suspend()` before running a statement, so that Ctrl-C raises SIGINT as usual.
    func readLine(prompt: String) -> EditorInput {
        guard rawMode.enable() else { return .endOfInput }
        var buffer = EditBuffer()
        // Up/Down walk history; `historyIndex == entries.count` is the line being typed,
        // kept in `draft` while browsing.
        var historyIndex = history.entries.count
        var draft = EditBuffer()
        refresh(prompt: prompt, buffer: buffer)
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(input, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                Terminal.write("\r\n", to: output)
                return .endOfInput
            }
            guard let key = decoder.feed(byte) else { continue }
            switch key {
            case .character(let c): buffer.insert(c)
            case .enter:
                Terminal.write("\r\n", to: output)
                let line = buffer.text
                history.add(line)
                return .line(line)
            case .backspace: buffer.backspace()
            case .delete: buffer.deleteForward()
            case .left: buffer.move(by: -1)
            case .right: buffer.move(by: 1)
            case .home: buffer.cursor = 0
            case .end: buffer.cursor = buffer.characters.count
            case .up:
                guard historyIndex > 0 else { continue }
                if historyIndex == history.entries.count { draft = buffer }
                historyIndex -= 1
                buffer = EditBuffer(history.entries[historyIndex])
            case .down:
                guard historyIndex < history.entries.count else { continue }
                historyIndex += 1
                buffer = historyIndex == history.entries.count ? draft : EditBuffer(history.entries[historyIndex])
            case .interrupt:
                Terminal.write("^C\r\n", to: output)
                return .interrupted
            case .endOfFile:
                if buffer.characters.isEmpty {
                    Terminal.write("\r\n", to: output)
                    return .endOfInput
                }
                buffer.deleteForward()
            case .killToEnd: buffer.killToEnd()
            case .killToStart: buffer.killToStart()
            case .deleteWord: buffer.deleteWord()
            case .clearScreen: Terminal.write("\u{1B}[H\u{1B}[2J", to: output)
            case .ignored: continue
            }
            refresh(prompt: prompt, buffer: buffer)
        }
    }

    /// Gives the terminal back its normal mode (while a statement runs, and at exit).
    func suspend() { rawMode.disable() }

    /// Redraws the prompt and the visible part of the line, then puts the cursor in place.
    private func refresh(prompt: String, buffer: EditBuffer) {
        let width = max(Terminal.width(), prompt.count + 8)
        let room = width - prompt.count - 1
        // Scroll so the cursor stays visible, as linenoise does.
        var start = 0
        if buffer.cursor > room { start = buffer.cursor - room }
        let end = min(buffer.characters.count, start + room)
        let visible = String(buffer.characters[start..<end])
        var text = "\r" + prompt + visible + "\u{1B}[K"
        let back = end - buffer.cursor
        if back > 0 { text += "\u{1B}[\(back)D" }
        Terminal.write(text, to: output)
    }
}
