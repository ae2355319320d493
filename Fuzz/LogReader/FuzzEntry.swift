// FuzzEntry.swift — libFuzzer target for the log reader: the input, after a valid segment
// header, becomes graph `g`'s only log segment, and the data directory opens (replays) it.
// Recovery must either load a graph or fail with a StoreError naming the problem; a crash,
// a hang or unbounded memory is a bug. Uses the public DataDirectory API, so it follows
// the durability code as it changes.

import Glibc
@testable import GraphStore

/// One scratch data directory per fuzzing process, emptied between inputs.
private let root: String = {
    var template = Array("/tmp/graphd-fuzz-log-XXXXXX".utf8CString)
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let graphDirectory = root + "/graphs/g"
    _ = mkdir(root + "/graphs", 0o755)
    _ = mkdir(graphDirectory, 0o755)
    removeFiles(in: graphDirectory)
    let bytes = AppendLog.header(segment: 1) + Array(UnsafeBufferPointer(start: data, count: size))
    let path = graphDirectory + "/" + AppendLog.segmentFileName(1)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return 0 }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
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
