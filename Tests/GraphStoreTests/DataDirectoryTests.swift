// DataDirectoryTests.swift — graph names, creating, listing and deleting graphs, and the lock.

import Testing
import Foundation
@testable import GraphStore
import GraphTestSupport

@Suite struct DataDirectoryTests {
    @Test(arguments: ["", "a/b", "..", "x..y", ".", String(repeating: "n", count: 201), "nul\u{0}"])
    func invalidNamesAreRefused(name: String) throws {
        try withTemporaryDirectory { data in
            let directory = try DataDirectory(path: data)
            #expect(throws: StoreError.self) { _ = try directory.createGraph(named: name) }
            #expect(throws: StoreError.self) { _ = try directory.graph(named: name) }
            #expect(throws: StoreError.self) { _ = try directory.deleteGraph(named: name) }
        }
    }

    @Test("Each refused name is told what is wrong with it", arguments: [
        ("", "it is empty"), ("a/b", "it contains '/'"), ("a..", "it contains '..'"), ("..b", "it contains '..'"),
        (".", "it is '.'"), ("é\u{0}", "it contains a NUL byte"), (String(repeating: "é", count: 101), "longer than 200 bytes"),
    ])
    func refusalsNameTheProblem(name: String, problem: String) {
        #expect(DataDirectory.validationProblem(name)?.contains(problem) == true)
    }

    @Test("Dots, non-ASCII and 200 bytes are fine in a name", arguments: [".a", "a.", "a.b.c", "…", "é", "Zoë", String(repeating: "é", count: 100)])
    func namesNearTheRulesPass(name: String) {
        #expect(DataDirectory.validationProblem(name) == nil)
    }

    @Test func validNamesAreAccepted() throws {
        try withTemporaryDirectory { data in
            let directory = try DataDirectory(path: data + "/nested/dir")  // created when missing
            for name in ["social", "a.b", "Zoë", "g-1_x", String(repeating: "n", count: 200)] {
                _ = try directory.createGraph(named: name)
            }
            #expect(directory.graphNames() == ["Zoë", "a.b", "g-1_x", String(repeating: "n", count: 200), "social"].sorted())
        }
    }

    @Test func createOpenAndDeleteGraphs() throws {
        try withTemporaryDirectory { data in
            let directory = try DataDirectory(path: data)
            #expect(try directory.graph(named: "social") == nil)
            let store = try directory.createGraph(named: "social")
            #expect(try directory.createGraph(named: "social") === store)
            #expect(try directory.graph(named: "social") === store)
            try store.write { g in _ = try g.createNode(labels: [g.internLabel("User")], properties: []) }
            _ = try directory.createGraph(named: "other")
            #expect(directory.graphNames() == ["other", "social"])
            #expect(try directory.deleteGraph(named: "social"))
            #expect(try directory.deleteGraph(named: "social") == false)
            #expect(directory.graphNames() == ["other"])
            #expect(!FileManager.default.fileExists(atPath: data + "/graphs/social"))
            #expect(store.isClosed)
            #expect(throws: StoreError.self) { try store.write { g in _ = try g.createNode(labels: [], properties: []) } }
            // A new graph of the same name starts empty.
            #expect(try directory.createGraph(named: "social").read { $0.nodeCount } == 0)
        }
    }

    @Test func aSecondOpenOfTheSameDirectoryFailsNamingTheHolder() throws {
        try withTemporaryDirectory { data in
            let first = try DataDirectory(path: data)
            do throws(StoreError) {
                _ = try DataDirectory(path: data)
                Issue.record("a second DataDirectory took the lock")
            } catch {
                #expect(error.kind == .locked)
                #expect(error.message.contains("pid \(getpid())"))
                #expect(error.message.contains(data))
            }
            #expect(String(decoding: try fileBytes(data + "/LOCK"), as: UTF8.self) == "\(getpid())\n")
            _ = first.graphNames()  // keep `first` alive until here
        }
        // Released when the holder goes away.
        try withTemporaryDirectory { data in
            do { _ = try DataDirectory(path: data) }
            _ = try DataDirectory(path: data)
        }
    }
}
