// InstallGraphTests.swift — DataDirectory.installGraph (import): the graph becomes a snapshot
// plus a fresh log segment, replacing an old graph in one atomic step; an interrupted install
// leaves the old graph or the new one, never a mix.

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct InstallGraphTests {
    /// A graph of `count` users built outside any store.
    func users(_ range: Range<Int>) throws -> Graph {
        var graph = Graph()
        graph.beginTransaction()
        let user = graph.internLabel("User"), id = graph.internPropertyKey("id")
        for n in range { _ = try graph.createNode(labels: [user], properties: [(id, .integer(Int64(n)))]) }
        _ = graph.commitTransaction()
        return graph
    }

    @Test func anInstalledGraphIsASnapshotAndAnEmptyLog() throws {
        try withTemporaryDirectory { data in
            let graph = try users(0..<50)
            do {
                let directory = try openData(data)
                let store = try directory.installGraph(named: "g", graph: graph, replacing: false)
                #expect(userIDs(store) == Array(0..<50))
                try addUsers(store, [50])  // takes writes at once, into the fresh segment
            }
            #expect(try graphFiles(data, "g") == ["history", "log-00000001.glog", "snapshot-00000001.gsnap"])
            #expect(userIDs(try #require(try openData(data).graph(named: "g"))) == Array(0...50))
        }
    }

    @Test func installingOverAnExistingGraphNeedsReplacing() throws {
        try withTemporaryDirectory { data in
            let directory = try openData(data)
            let old = try directory.createGraph(named: "g")
            try addUsers(old, [1, 2])
            let refused = expectStoreError { _ = try directory.installGraph(named: "g", graph: try users(5..<7), replacing: false) }
            #expect(refused?.kind == .graphExists)
            #expect(userIDs(old) == [1, 2])

            let new = try directory.installGraph(named: "g", graph: try users(5..<7), replacing: true)
            #expect(userIDs(new) == [5, 6])
            #expect(old.isClosed, "writers of the old graph are told it is gone")
            #expect(try directory.graph(named: "g") === new)
            #expect(try graphFiles(data, "g") == ["history", "log-00000001.glog", "snapshot-00000001.gsnap"])
            #expect(directory.graphNames() == ["g"], "no staging directory is left or listed")
        }
    }

    @Test func aFailedInstallLeavesTheOldGraph() throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            do {
                let directory = try openData(data, fileSystem: faults)
                try addUsers(try directory.createGraph(named: "g"), [1, 2])
                faults.inject(.exchangeFails)  // the switch itself fails
                _ = expectStoreError { _ = try directory.installGraph(named: "g", graph: try users(5..<7), replacing: true) }
            }
            // As after a crash before the switch: the staging directory is dropped at open.
            let directory = try openData(data)
            #expect(userIDs(try #require(try directory.graph(named: "g"))) == [1, 2])
            #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/graphs") == ["g"])
        }
    }
}
