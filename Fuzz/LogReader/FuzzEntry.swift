// FuzzEntry.swift — libFuzzer target for the log reader: the input, after a valid segment
// header, becomes graph `g`'s only log segment, and the data directory opens (replays) it.
// Recovery must either load a graph or fail with a StoreError naming the problem; a crash,
// a hang or unbounded memory is a bug. Uses the public DataDirectory API, so it follows
// the durability code as it changes.

import Glibc
@testable import GraphStore

/// One scratch data directory per fuzzing process (Fuzz/Support/ScratchGraphDirectory.swift).
private let root = makeScratchDirectory("graphd-fuzz-log")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = AppendLog.header(segment: 1) + Array(UnsafeBufferPointer(start: data, count: size))
    guard placeOnlyFile(bytes, named: AppendLog.segmentFileName(1), inGraphOf: root) else { return 0 }
    do {
        let directory = try DataDirectory(path: root)
        if let store = try directory.graph(named: "g") {
            _ = store.read { ($0.nodeCount, $0.relationshipCount) }
        }
    } catch {
        precondition(!error.description.isEmpty, "a recovery error must say what was wrong")
    }
    return 0
}
