// InlineSplitterTests.swift — Redis's sdssplitargs rules as a table of lines and the
// arguments they split into (or nil for "unbalanced quotes").

import Testing
@testable import graphd

@Suite("Inline splitter")
struct InlineSplitterTests {
    static let cases: [(line: String, expected: [String]?)] = [
        ("PING", ["PING"]),
        ("  PING   hello\tworld  ", ["PING", "hello", "world"]),
        ("", []),
        ("   \t ", []),
        ("ECHO \"hello world\"", ["ECHO", "hello world"]),
        ("ECHO \"a\\nb\\r\\t\\b\\a\"", ["ECHO", "a\nb\r\t\u{8}\u{7}"]),
        ("ECHO \"\\x41\\x6a\"", ["ECHO", "Aj"]),
        ("ECHO \"\\x4g\"", ["ECHO", "x4g"]),
        ("ECHO \"q\\\"uote\\\\\"", ["ECHO", "q\"uote\\"]),
        ("ECHO 'single \"double\" inside'", ["ECHO", "single \"double\" inside"]),
        ("ECHO 'it\\'s'", ["ECHO", "it's"]),
        ("ECHO 'no \\n escape'", ["ECHO", "no \\n escape"]),
        ("ECHO \"\"", ["ECHO", ""]),
        ("ECHO ''", ["ECHO", ""]),
        ("ab\"c d\"", ["abc d"]),
        ("GRAPH.QUERY social \"CREATE (:User {id: 1, name: 'Ann'})\"",
         ["GRAPH.QUERY", "social", "CREATE (:User {id: 1, name: 'Ann'})"]),
        ("ECHO \"unterminated", nil),
        ("ECHO 'unterminated", nil),
        ("ECHO \"closed\"x", nil),
        ("ECHO 'closed'x", nil),
        ("ECHO \"ends with backslash\\", nil),
    ]

    @Test("Lines split as Redis's sdssplitargs splits them", arguments: cases.indices)
    func split(_ i: Int) {
        let (line, expected) = Self.cases[i]
        let result = InlineSplitter.split(Array(line.utf8))
        #expect(result == expected.map { $0.map { Array($0.utf8) } }, "line: \(line)")
    }

    @Test("A NUL byte ends the line")
    func nulEndsLine() {
        #expect(InlineSplitter.split([UInt8(ascii: "a"), 0, UInt8(ascii: "b")]) == [[UInt8(ascii: "a")]])
    }
}
