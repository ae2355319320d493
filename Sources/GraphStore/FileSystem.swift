// FileSystem.swift — directory operations for the data directory, with StoreErrors.
// A thin layer over FileManager so callers get typed errors that name the path.

import Foundation

/// Directory listing, creation and removal.
enum FileSystem {
    static func contentsOfDirectory(_ path: String) throws(StoreError) -> [String] {
        do { return try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw StoreError(.io, "cannot list \(path): \(error.localizedDescription)", path: path)
        }
    }

    static func createDirectory(_ path: String) throws(StoreError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw StoreError(.io, "cannot create directory \(path): \(error.localizedDescription)", path: path)
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func removeItem(_ path: String) throws(StoreError) {
        do { try FileManager.default.removeItem(atPath: path) } catch {
            throw StoreError(.io, "cannot remove \(path): \(error.localizedDescription)", path: path)
        }
    }
}
