// ImportInstallTests.swift — `graphd import` builds with GraphBuilder and installs the graph as a
// snapshot with an empty log (not one giant logged transaction): the files on disk show it, the
// graph reopens with every node, relationship and index, and GraphBuilder as an ImportTarget
// gives the same graph as the transactional target.

import Foundation
import GraphQuery
import GraphStore
import GraphTestSupport
import SocialData
import Testing

@Suite("Import installs a snapshot")
struct ImportInstallTests {
    private func write(_ path: String, _ text: String) throws { try writeFileBytes(path, Array(text.utf8)) }

    @Test("graphd import leaves a snapshot and an empty log, and the graph reopens whole")
    func importWritesASnapshot() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/users.csv", "id:ID,name\n1,Ann\n2,Bo\n3,Cy\n")
            try write(dir + "/friends.csv", ":START_ID,:END_ID,since:int\n1,2,2020\n2,3,2021\n3,1,2022\n")
            let run = try GraphdProcess.runToExit(["import", "--data", dir + "/data", "--graph", "g", "--progress", "off",
                                                   "--nodes", "User=" + dir + "/users.csv",
                                                   "--relationships", "FRIEND=" + dir + "/friends.csv"])
            #expect(run.status == 0, "\(run.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/data/graphs/g").sorted()
            #expect(files.contains { $0.hasPrefix("snapshot-") }, "\(files)")
            let logs = files.filter { $0.hasPrefix("log-") }
            #expect(logs.count == 1)
            // The log holds its header only: the data is in the snapshot.
            let logSize = try FileManager.default.attributesOfItem(atPath: dir + "/data/graphs/g/" + logs[0])[.size] as! Int
            #expect(logSize < 64, "log is \(logSize) bytes")

            let directory = try DataDirectory(path: dir + "/data")
            let store = try #require(try directory.graph(named: "g"))
            let result = try QueryEngine().execute("MATCH (a:User)-[r:FRIEND]->(b) RETURN a.name, r.since, b.name ORDER BY r.since", on: store)
            #expect(result.rows == [[.string("Ann"), .integer(2020), .string("Bo")],
                                    [.string("Bo"), .integer(2021), .string("Cy")],
                                    [.string("Cy"), .integer(2022), .string("Ann")]])
            #expect(store.read { $0.indexes.count } == 1)
            // The installed graph takes writes that are logged as usual.
            _ = try QueryEngine().execute("CREATE (:User {id: 4, name: 'Di'})", on: store)
            #expect(store.read { $0.nodeCount } == 4)
        }
    }

    @Test("GraphBuilder and a Graph transaction, as import targets, give the same graph")
    func builderTargetMatchesTransactionTarget() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/users.csv", "id:ID,name,age:int,:LABEL\n10,Ann,30,Admin\n20,Bo,,\n30,Cy,41,\n")
            try write(dir + "/friends.csv", ":START_ID,:END_ID\n10,20\n20,30\n30,10\n10,10\n")
            try write(dir + "/follows.csv", ":START_ID,:END_ID,weight:float\n20,10,0.5\n")
            var plan = ImportPlan()
            plan.nodeFiles = [ImportPlan.Input(name: "User", path: dir + "/users.csv")]
            plan.relationshipFiles = [ImportPlan.Input(name: "FRIEND", path: dir + "/friends.csv"),
                                      ImportPlan.Input(name: "FOLLOWS", path: dir + "/follows.csv")]
            let runner = ImportRunner(plan: plan)
            var builder = GraphBuilder()
            let builderSummary = try runner.run(into: &builder)
            let built = try builder.build()
            var graph = Graph()
            graph.beginTransaction()
            let graphSummary = try runner.run(into: &graph)
            _ = graph.commitTransaction()
            #expect(builderSummary.nodeCount == graphSummary.nodeCount)
            #expect(builderSummary.relationshipCount == graphSummary.relationshipCount)
            #expect(built.labelNames == graph.labelNames && built.relationshipTypeNames == graph.relationshipTypeNames)
            #expect(built.propertyKeyNames == graph.propertyKeyNames && built.indexes == graph.indexes)
            #expect(built.nodeIDs() == graph.nodeIDs() && built.relationshipIDs() == graph.relationshipIDs())
            for node in graph.nodeIDs() {
                #expect(built.labels(of: node) == graph.labels(of: node))
                #expect(built.properties(of: node).map { "\($0.key.rawValue)=\($0.value)" }
                        == graph.properties(of: node).map { "\($0.key.rawValue)=\($0.value)" })
                for type in graph.relationshipTypeNames.indices.map(RelationshipTypeID.init) {
                    for direction in [Direction.outgoing, .incoming] {
                        #expect(built.steps(of: node, type: type, direction: direction)
                                == graph.steps(of: node, type: type, direction: direction))
                    }
                }
            }
            for rel in graph.relationshipIDs() {
                #expect(built.properties(of: rel).map { "\($0.key.rawValue)=\($0.value)" }
                        == graph.properties(of: rel).map { "\($0.key.rawValue)=\($0.value)" })
            }
        }
    }
}
