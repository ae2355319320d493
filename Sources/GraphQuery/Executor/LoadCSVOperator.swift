// LoadCSVOperator.swift — LOAD CSV: resolves a `file:///` URL inside the configured import
// directory (nothing outside it, no other schemes), reads the file and splits it into records
// (RFC 4180 quoting: "a,b" and "" for a quote), as lists of strings or, WITH HEADERS, maps.

import Foundation

extension ExecutionContext {
    /// The records of the CSV file `url` names, each a list of strings or (WITH HEADERS) a map
    /// from header to string, where an empty field is null.
    func loadCSV(_ url: RuntimeValue, withHeaders: Bool, terminator: UInt8) throws(QueryError) -> [RuntimeValue] {
        guard case .string(let text) = url else { throw RuntimeValue.typeMismatch(expected: "String", url) }
        let path = try importPath(text)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw QueryError(.runtime, "LOAD CSV: cannot read '\(text)'")
        }
        try watchdog.charge(data.count)
        var records = try CSVReader.records(Array(data), terminator: terminator, watchdog: watchdog)
        guard withHeaders else { return records.map { .list($0.map { .string($0) }) } }
        guard !records.isEmpty else { return [] }
        let headers = records.removeFirst()
        return records.map { fields in
            .map(keys: headers, values: headers.indices.map { i in
                i < fields.count && !fields[i].isEmpty ? .string(fields[i]) : .null
            })
        }
    }

    /// `file:///name.csv` → a path inside the import directory, or an error. The resolved path
    /// (symbolic links followed, `..` removed) must stay inside the directory.
    func importPath(_ url: String) throws(QueryError) -> String {
        guard let directory = importDirectory else {
            throw QueryError(.runtime, "LOAD CSV is disabled: no import directory is configured")
        }
        guard url.hasPrefix("file://") else {
            throw QueryError(.runtime, "LOAD CSV: only file:/// URLs inside the import directory can be read, not '\(url)'")
        }
        let relative = url.dropFirst("file://".count).drop { $0 == "/" }
        let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
        let candidate = URL(fileURLWithPath: root).appendingPathComponent(String(relative))
            .standardizedFileURL.resolvingSymlinksInPath().path
        guard candidate == root || candidate.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw QueryError(.runtime, "LOAD CSV: '\(url)' is outside the import directory")
        }
        return candidate
    }
}

/// A small RFC 4180 reader over bytes.
enum CSVReader {
    static func records(_ bytes: [UInt8], terminator: UInt8, watchdog: Watchdog) throws(QueryError) -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var i = 0
        let quote = UInt8(ascii: "\""), newline = UInt8(ascii: "\n"), carriage = UInt8(ascii: "\r")
        func endField() { fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true) }
        while i < bytes.count {
            let b = bytes[i]
            if inQuotes {
                if b == quote {
                    if i + 1 < bytes.count, bytes[i + 1] == quote { field.append(quote); i += 1 } else { inQuotes = false }
                } else {
                    field.append(b)
                }
            } else if b == quote, field.isEmpty {
                inQuotes = true
            } else if b == terminator {
                endField()
            } else if b == newline || b == carriage {
                if b == carriage, i + 1 < bytes.count, bytes[i + 1] == newline { i += 1 }
                endField()
                if !(fields.count == 1 && fields[0].isEmpty) { records.append(fields) }
                fields.removeAll()
                try watchdog.tick()
            } else {
                field.append(b)
            }
            i += 1
        }
        if inQuotes { throw QueryError(.runtime, "LOAD CSV: a quoted field is not closed at the end of the file") }
        if !field.isEmpty || !fields.isEmpty {
            endField()
            records.append(fields)
        }
        return records
    }
}
