// ScratchGraphDirectory.swift — shared by the fuzz targets that read files (log-reader,
// snapshot-reader): a scratch data directory per fuzzing process, whose graph `g` holds exactly
// one file, the current input, before the target opens the directory.

import Glibc

/// A new directory `/tmp/<prefix>-XXXXXX`; fuzzing cannot go on without one.
func makeScratchDirectory(_ prefix: String) -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed: cannot fuzz without a scratch directory") }
    return String(cString: made)
}

/// Makes `<root>/graphs/g` hold exactly one file, `name`, with `bytes`; false if it cannot.
func placeOnlyFile(_ bytes: [UInt8], named name: String, inGraphOf root: String) -> Bool {
    let graphDirectory = root + "/graphs/g"
    _ = mkdir(root + "/graphs", 0o755)
    _ = mkdir(graphDirectory, 0o755)
    if let directory = opendir(graphDirectory) {
        while let entry = readdir(directory) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if file != "." && file != ".." { _ = unlink(graphDirectory + "/" + file) }
        }
        closedir(directory)
    }
    let fd = open(graphDirectory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return false }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    return true
}
