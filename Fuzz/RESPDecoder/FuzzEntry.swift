// FuzzEntry.swift — libFuzzer target for graphd's RESP request decoder: any bytes, fed
// whole and then split at a byte the input chooses, must decode to the same requests or
// the same protocol error, never crash, hang or allocate beyond the limits.
// Built by Fuzz/run.sh together with Sources/graphd/Protocol/*.swift.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRESPDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var limits = ProtocolLimits()
    // Small caps so the fuzzer reaches every limit check quickly.
    limits.maxBulkLength = 4096
    limits.maxArgumentCount = 64
    limits.maxInlineLength = 1024
    let whole = decodeAll([bytes[...]], limits: limits)
    let split = size > 0 ? Int(bytes[0]) % (size + 1) : 0
    let pieces = decodeAll([bytes[..<split], bytes[split...]], limits: limits)
    precondition(whole == pieces, "split at \(split) changed the decoding")
    return 0
}

/// Decodes the concatenation of `chunks`, delivered one chunk at a time.
private func decodeAll(_ chunks: [ArraySlice<UInt8>], limits: ProtocolLimits) -> [String] {
    var decoder = RESPDecoder(limits: limits)
    var buffer: [UInt8] = []
    var index = 0
    var out: [String] = []
    for chunk in chunks {
        buffer.append(contentsOf: chunk)
        while true {
            do {
                guard let request = try decoder.decodeNext(buffer, index: &index) else { break }
                precondition(!request.isEmpty && request.count <= limits.maxArgumentCount)
                for argument in request { precondition(argument.count <= max(limits.maxBulkLength, limits.maxInlineLength)) }
                out.append(request.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\u{1}"))
            } catch {
                out.append("error: \(error.message)")
                return out
            }
        }
    }
    return out
}
