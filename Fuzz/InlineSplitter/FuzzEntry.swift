// FuzzEntry.swift — libFuzzer target for the inline-command splitter (Redis's
// sdssplitargs rules): any line must split without crashing, every argument must be no
// longer than the line, and a line of plain words must split back into those words.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInlineSplitter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = Array(UnsafeBufferPointer(start: data, count: size))
    if let arguments = InlineSplitter.split(line) {
        for argument in arguments { precondition(argument.count <= line.count) }
        // Re-quoting every argument with \xHH escapes must give the same arguments back.
        var quoted: [UInt8] = []
        for argument in arguments {
            quoted.append(UInt8(ascii: "\""))
            for byte in argument {
                let hex = Array("0123456789abcdef".utf8)
                quoted += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
            quoted += [UInt8(ascii: "\""), UInt8(ascii: " ")]
        }
        precondition(InlineSplitter.split(quoted) == arguments, "re-quoted arguments differ")
    }
    return 0
}
