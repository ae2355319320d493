// LoadCSVTests.swift — LOAD CSV reads files only from the configured import directory: rows as
// lists or, WITH HEADERS, maps; quoting; and refusals for paths outside it or when disabled.

import Testing
@testable import GraphQuery
import GraphStore
import GraphTestSupport

@Suite("LOAD CSV")
struct LoadCSVTests {
    @Test("rows load with and without headers, quoted fields included, and feed CREATE")
    func loads() throws {
        try withTemporaryDirectory { directory in
            try writeFileBytes(directory + "/users.csv", Array("id,name,city\n1,Ann,\"Oslo, NO\"\n2,\"Bo \"\"B\"\"\",\n".utf8))
            let engine = QueryEngine(configuration: QueryConfiguration(importDirectory: directory))
            let store = GraphStore.inMemory()
            let lists = try engine.execute("LOAD CSV FROM 'file:///users.csv' AS row RETURN row", on: store)
            #expect(lists.rows.map { $0.map(render) } == [["['id', 'name', 'city']"], ["['1', 'Ann', 'Oslo, NO']"], ["['2', 'Bo \"B\"', '']"]])
            let created = try engine.execute("""
                LOAD CSV WITH HEADERS FROM 'file:///users.csv' AS row
                CREATE (:User {id: toInteger(row.id), name: row.name, city: row.city})
                """, on: store)
            #expect(created.statistics.nodesCreated == 2)
            let back = try engine.execute("MATCH (u:User) RETURN u.id, u.name, u.city ORDER BY u.id", on: store)
            #expect(back.rows.map { $0.map(render) } == [["1", "'Ann'", "'Oslo, NO'"], ["2", "'Bo \"B\"'", "null"]])
            let semicolons = try engine.execute("LOAD CSV FROM 'file:///users.csv' AS row FIELDTERMINATOR ';' RETURN count(*)", on: store)
            #expect(semicolons.rows == [[.integer(3)]])
        }
    }

    @Test("nothing outside the import directory can be read", arguments: [
        "file:///../secret.csv", "file:///sub/../../secret.csv", "http://example.com/x.csv", "/etc/passwd",
    ])
    func refusesOutside(url: String) throws {
        try withTemporaryDirectory { directory in
            try writeFileBytes(directory + "/secret.csv", Array("a\n1\n".utf8))
            let inside = directory + "/import"
            try writeFileBytes(directory + "/placeholder", [])
            try FileManagerShim.makeDirectory(inside)
            let engine = QueryEngine(configuration: QueryConfiguration(importDirectory: inside))
            #expect(throws: QueryError.self) {
                try engine.execute("LOAD CSV FROM '\(url)' AS row RETURN row", on: .inMemory())
            }
        }
    }

    @Test("LOAD CSV is disabled without an import directory")
    func disabled() {
        do {
            _ = try QueryEngine().execute("LOAD CSV FROM 'file:///x.csv' AS row RETURN row", on: .inMemory())
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "LOAD CSV is disabled: no import directory is configured")
        }
    }
}

import Foundation

/// Creates directories for the tests above.
enum FileManagerShim {
    static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}
