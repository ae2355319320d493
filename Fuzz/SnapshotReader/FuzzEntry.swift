// FuzzEntry.swift — libFuzzer target for the snapshot reader. The input is cut into sections
// (a kind byte, a 2-byte little-endian length, that many payload bytes) which are framed with
// correct section checksums under a correct header, so the fuzzer reaches the payload decoders
// instead of stopping at a checksum; an input starting with 0xFF is written as the raw file
// instead, to exercise the header and framing checks. Opening the data directory must load a
// graph or fail with a StoreError that says what was wrong; a crash, a hang or unbounded memory
// is a bug.

import Glibc
@testable import GraphStore

/// One scratch data directory per fuzzing process (Fuzz/Support/ScratchGraphDirectory.swift).
private let root = makeScratchDirectory("graphd-fuzz-snapshot")

/// The input as a snapshot file: framed sections after a valid header, or the raw bytes.
private func snapshotFile(from input: [UInt8]) -> [UInt8] {
    if input.first == 0xFF { return Array(input.dropFirst()) }
    var body: [UInt8] = []
    var i = 0
    while i < input.count {
        let kind = input[i] % 7   // 0 and 6 are invalid kinds: the reader must refuse them
        let length = i + 2 < input.count ? Int(input[i + 1]) | Int(input[i + 2]) << 8 : 0
        let start = min(input.count, i + 3)
        let payload = Array(input[start..<min(input.count, start + length)])
        body += [kind, 0, 0, 0]
        body.appendLittleEndian(CRC32C.checksum(payload))
        body.appendLittleEndian(UInt64(payload.count))
        body += payload
        i = start + payload.count
    }
    let length = SnapshotFormat.headerLength + body.count
    return SnapshotFormat.header(number: 1, lastSequence: 0, fileLength: length) + body
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshotReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = snapshotFile(from: Array(UnsafeBufferPointer(start: data, count: size)))
    guard placeOnlyFile(bytes, named: SnapshotFormat.fileName(1), inGraphOf: root) else { return 0 }
    do {
        // 64 MiB of id slots: ids beyond it are refused (IDSlotLimit) well below libFuzzer's
        // 2 GB malloc limit, which the default (this machine's memory) would not be.
        let directory = try DataDirectory(path: root, options: .init(slotMemoryLimit: 64 << 20))
        if let store = try directory.graph(named: "g") {
            _ = store.read { ($0.nodeCount, $0.relationshipCount) }
        }
    } catch {
        precondition(!error.description.isEmpty, "a recovery error must say what was wrong")
    }
    return 0
}
