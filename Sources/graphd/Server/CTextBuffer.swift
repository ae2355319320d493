// CTextBuffer.swift — text that a libc call (inet_ntop, strftime, vsnprintf) wrote into a
// [CChar] buffer, NUL-terminated, read back as a String.

extension String {
    /// The buffer's bytes up to its first NUL (all of them if there is none), as UTF-8.
    init(nulTerminated buffer: [CChar]) {
        self = buffer.withUnsafeBufferPointer { chars in
            let end = chars.firstIndex(of: 0) ?? chars.endIndex
            return String(decoding: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: chars[..<end])), as: UTF8.self)
        }
    }
}
