// TemporaryDirectory.swift — a fresh directory under the system temporary directory for one
// test, removed when the test is done with it. Shared by every test target.

import Foundation

/// A unique temporary directory; `remove()` deletes it with its contents.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "graphd-test") throws {
        path = NSTemporaryDirectory() + "/\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with the path of a fresh temporary directory, removed afterwards.
public func withTemporaryDirectory<R>(_ prefix: String = "graphd-test", _ body: (String) throws -> R) throws -> R {
    let directory = try TemporaryDirectory(prefix)
    defer { directory.remove() }
    return try body(directory.path)
}

/// The bytes of the file at `path`.
public func fileBytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Replaces the file at `path` with `bytes`.
public func writeFileBytes(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}
