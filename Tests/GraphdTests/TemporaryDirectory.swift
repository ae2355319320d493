// TemporaryDirectory.swift — a fresh directory under the system temp dir for one test,
// removed when the test is done with it.

import Foundation

/// A unique temporary directory; `remove()` deletes it with its contents.
struct TemporaryDirectory: Sendable {
    let path: String

    init(_ prefix: String = "graphd-test") throws {
        path = NSTemporaryDirectory() + "/\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
