// CTextBufferTests.swift — reading text a libc call wrote into a NUL-terminated [CChar] buffer.

import Glibc
import Testing
@testable import graphd

@Suite("C text buffers")
struct CTextBufferTests {
    @Test func stopsAtTheFirstNUL() {
        let buffer: [CChar] = Array("127.0.0.1".utf8CString) + [CChar(UInt8(ascii: "x")), 0]
        #expect(String(nulTerminated: buffer) == "127.0.0.1")
    }

    @Test func aBufferWithoutNULIsReadWhole() {
        #expect(String(nulTerminated: "ab".utf8.map { CChar(bitPattern: $0) }) == "ab")
        #expect(String(nulTerminated: []) == "")
    }

    @Test func readsWhatLibcWrote() {
        var buffer = [CChar](repeating: 0x41, count: 16)
        var address = in_addr()
        #expect(inet_pton(AF_INET, "10.1.2.3", &address) == 1)
        #expect(inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil)
        #expect(String(nulTerminated: buffer) == "10.1.2.3")
        #expect(NumberFormatting.format("%.2f", 1.5) == "1.50")
    }

    @Test func keepsUTF8() {
        #expect(String(nulTerminated: Array("größe".utf8CString)) == "größe")
    }
}
