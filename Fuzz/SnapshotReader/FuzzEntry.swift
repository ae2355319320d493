// FuzzEntry.swift — libFuzzer target for the snapshot reader. The input is cut into sections
// (a kind byte, a 2-byte little-endian length, that many payload bytes) which are framed with
// correct section checksums under a correct header, so the fuzzer reaches the payload decoders
// instead of stopping at a checksum; an input starting with 0xFF is written as the raw file
// instead, to exercise the header and framing checks. Opening the data directory must load a
// graph or fail with a StoreError that says what was wrong; a crash, a hang or unbounded memory
// is a bug.

import Glibc
@testable import GraphStore

/// One scratch data directory per fuzzing process, emptied between inputs.
private let root: String = {
    var template = Array("/tmp/graphd-fuzz-snapshot-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed: cannot fuzz without a scratch directory") }
    return String(cString: made)
}()

/// Removes the files (not subdirectories) in `path`.
private func removeFiles(in path: String) {
    guard let directory = opendir(path) else { return }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name != "." && name != ".." { _ = unlink(path + "/" + name) }
    }
}

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
    let graphDirectory = root + "/graphs/g"
    _ = mkdir(root + "/graphs", 0o755)
    _ = mkdir(graphDirectory, 0o755)
    removeFiles(in: graphDirectory)
    let bytes = snapshotFile(from: Array(UnsafeBufferPointer(start: data, count: size)))
    let path = graphDirectory + "/" + SnapshotFormat.fileName(1)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return 0 }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
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
