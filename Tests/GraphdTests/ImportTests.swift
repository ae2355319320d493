// ImportTests.swift — bulk import: the CSV reader (quotes, CRLF, line numbers), neo4j-admin
// headers, typed properties and bad-row policies through ImportRunner, and `graphd import`
// end to end: ego-Facebook's counts and answers from its expected.json, and a malformed CSV
// rejected with its line number and nothing imported.

import Foundation
import GraphQuery
import GraphStore
import GraphTestSupport
import SocialData
import Testing
@testable import graphd

@Suite("Import")
struct ImportTests {
    @Test("The CSV reader handles quotes, doubled quotes, CRLF, blank lines and counts lines")
    func csvReader() throws {
        let text = "a,b\r\n1,\"x, \"\"y\"\"\"\r\n\r\n2,\"two\nlines\"\n3,\n"
        var reader = ImportCSVReader(bytes: Array(text.utf8))
        var fields: [ImportField] = []
        var rows: [(Int, [String])] = []
        while try reader.next(into: &fields, file: "t.csv") {
            rows.append((reader.recordLine, fields.map(reader.string)))
        }
        #expect(rows.map(\.0) == [1, 2, 4, 6])
        #expect(rows.map(\.1) == [["a", "b"], ["1", "x, \"y\""], ["2", "two\nlines"], ["3", ""]])
        var open = ImportCSVReader(bytes: Array("a\n\"never closed\n".utf8))
        _ = try open.next(into: &fields, file: "o.csv")
        #expect(throws: ImportError(file: "o.csv", line: 2, reason: "a quoted field is not closed before the end of the file")) {
            _ = try open.next(into: &fields, file: "o.csv")
        }
    }

    @Test("Headers: :ID with groups, :START_ID/:END_ID, typed and list properties, :LABEL, :IGNORE, and the fallbacks")
    func headers() throws {
        let nodes = try ImportHeader(fields: ["uid:ID(User)", "name", "age:int", "score:float", "tags:string[]", ":LABEL", "x:IGNORE"],
                                     nodes: true, file: "u", line: 1)
        #expect(nodes.columns == [.id(property: "uid", group: "User"), .property(name: "name", type: .string, isList: false),
                                  .property(name: "age", type: .integer, isList: false), .property(name: "score", type: .double, isList: false),
                                  .property(name: "tags", type: .string, isList: true), .labels, .ignore])
        #expect(try ImportHeader(fields: ["id", "name"], nodes: true, file: "u", line: 1).columns.first == .id(property: "id", group: ""))
        #expect(try ImportHeader(fields: ["a", "b", "since:int"], nodes: false, file: "f", line: 1).columns
                == [.startID(group: ""), .endID(group: ""), .property(name: "since", type: .integer, isList: false)])
        #expect(throws: ImportError(file: "u", line: 1, reason: "column 2 'age:decimal': unknown type 'decimal' (expected int, long, float, double, boolean, string, date, localtime, time, localdatetime, datetime or duration)")) {
            try ImportHeader(fields: ["id:ID", "age:decimal"], nodes: true, file: "u", line: 1)
        }
    }

    func write(_ path: String, _ text: String) throws { try writeFileBytes(path, Array(text.utf8)) }

    @Test("Typed properties, extra labels and relationship properties land in the graph")
    func typedImport() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/users.csv", "id:ID,name,age:int,score:float,tags:string[],:LABEL\n1,Ann,31,4.5,a;b,Admin\n2,\"Bo, Jr\",,1e2,,\n")
            try write(dir + "/friends.csv", ":START_ID,:END_ID,since:int\n1,2,2019\n")
            var plan = ImportPlan()
            plan.nodeFiles = [.init(name: "User", path: dir + "/users.csv")]
            plan.relationshipFiles = [.init(name: "FRIEND", path: dir + "/friends.csv")]
            let store = GraphStore.inMemory()
            let summary = try store.write { graph in try ImportRunner(plan: plan).run(into: &graph) }
            #expect(summary.nodeCount == 2 && summary.relationshipCount == 1)
            let engine = QueryEngine()
            let result = try engine.execute("MATCH (a:User)-[r:FRIEND]->(b:User) RETURN a.name, a.age, a.score, a.tags, a:Admin, b.name, b.age, b.score, r.since",
                                            on: store)
            #expect(result.rows == [[.string("Ann"), .integer(31), .double(4.5), .list([.string("a"), .string("b")]), .bool(true),
                                     .string("Bo, Jr"), .null, .double(100), .integer(2019)]])
            #expect(store.read { $0.indexes.count } == 1)
        }
    }

    @Test("A bad row stops the import with its file and line, or is skipped up to the limit")
    func badRows() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/users.csv", "id:ID,age:int\n1,30\n2,thirty\n3\n4,40\n")
            var plan = ImportPlan()
            plan.nodeFiles = [.init(name: "User", path: dir + "/users.csv")]
            #expect(throws: ImportError(file: dir + "/users.csv", line: 3, reason: "column 'age': 'thirty' is not an integer")) {
                _ = try Self.runInMemory(plan)
            }
            plan.maximumBadRows = 2
            let summary = try Self.runInMemory(plan)
            #expect(summary.nodeCount == 2 && summary.badRowCount == 2)
            #expect(summary.badRows.map(\.line) == [3, 4])
            #expect(summary.badRows[1].reason == "expected 2 fields, found 1")
            plan.maximumBadRows = 1
            #expect(throws: ImportError(file: dir + "/users.csv", line: 4, reason: "expected 2 fields, found 1 (more than 1 bad rows: stopping)")) {
                _ = try Self.runInMemory(plan)
            }
        }
    }

    @Test("Edge lists: comments, a header, tabs or commas; one node per id, one relationship per line")
    func edgeList() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/e.txt", "# SNAP comment\nsource,target\n1,2\n2\t3\n 3 1 \n\n1 2\n")
            var plan = ImportPlan()
            plan.edgeLists = [.init(name: "FRIEND", path: dir + "/e.txt")]
            let store = GraphStore.inMemory()
            let summary = try store.write { graph in try ImportRunner(plan: plan).run(into: &graph) }
            #expect(summary.nodeCount == 3 && summary.relationshipCount == 4)
            let ids = store.read { graph in
                let label = graph.labelID(named: "User")!, key = graph.propertyKeyID(named: "id")!
                return graph.nodeIDs(withLabel: label).map { graph.property(key, of: $0) }
            }
            #expect(ids == [.integer(1), .integer(2), .integer(3)])
            try write(dir + "/bad.txt", "1 2\n2 x\n")
            plan.edgeLists = [.init(name: "FRIEND", path: dir + "/bad.txt")]
            #expect(throws: ImportError(file: dir + "/bad.txt", line: 2, reason: "expected two integer ids, found '2 x'")) {
                _ = try Self.runInMemory(plan)
            }
        }
    }

    @Test("The progress line shows the bar, rows, rate and time left")
    func progressLine() {
        let line = ImportProgressBar.line(rows: 1_500_000, bytesRead: 50, bytesTotal: 100, seconds: 2)
        #expect(line.hasPrefix("\r[###############...............] 50%"))
        #expect(line.contains("1,500,000 rows  750.0k rows/s  ETA 2s"))
        #expect(ImportProgressBar.compact(2_345_678) == "2.3M")
    }

    /// Runs `plan` into an in-memory graph (one transaction, rolled back on error).
    static func runInMemory(_ plan: ImportPlan) throws -> ImportSummary {
        try GraphStore.inMemory().write { graph in try ImportRunner(plan: plan).run(into: &graph) }
    }

    @Test("graphd import of ego-Facebook gives the counts and answers of its expected.json")
    func egoFacebookImport() throws {
        let source = Fixtures.egoFacebook.path
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: source + "/expected.json"))) as! [String: Any]
        try withTemporaryDirectory { dir in
            let run = try GraphdProcess.runToExit(["import", "--data", dir, "--graph", "fb", "--progress", "off",
                                                   "--edge-list", "FRIEND=" + source + "/facebook_combined.txt", "--node-label", "User"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("Imported 4,039 nodes (User 4,039) and 88,234 relationships (FRIEND 88,234) into graph 'fb'"))
            let directory = try DataDirectory(path: dir)
            let store = try #require(try directory.graph(named: "fb"))
            let engine = QueryEngine()
            func count(_ query: String) throws -> Int64 {
                let result = try engine.execute(query, on: store)
                guard case .integer(let n) = result.rows.first?.first else { return -1 }
                return n
            }
            #expect(try count("MATCH (u:User) RETURN count(u)") == expected["nodes"] as! Int64)
            #expect(try count("MATCH ()-[r:FRIEND]->() RETURN count(r)") == expected["edges"] as! Int64)
            for (id, degree) in expected["degree"] as! [String: Int] {
                #expect(try count("MATCH (u:User {id: \(id)})-[:FRIEND]-(f) RETURN count(f)") == Int64(degree), "degree of \(id)")
            }
            for (pair, mutual) in expected["mutual_friends"] as! [String: Int] {
                let ids = pair.split(separator: ",")
                #expect(try count("MATCH (a:User {id: \(ids[0])})-[:FRIEND]-(m)-[:FRIEND]-(b:User {id: \(ids[1])}) RETURN count(DISTINCT m)")
                        == Int64(mutual), "mutual friends of \(pair)")
            }
            for (pair, direct) in expected["pair_is_direct_friend"] as! [String: Bool] {
                let ids = pair.split(separator: ",")
                #expect(try count("MATCH (a:User {id: \(ids[0])})-[:FRIEND]-(b:User {id: \(ids[1])}) RETURN count(*)") == (direct ? 1 : 0))
            }
            for (id, answers) in expected["two_hop"] as! [String: [String: Int]] {
                let within = try count("MATCH (u:User {id: \(id)})-[:FRIEND]-(m) OPTIONAL MATCH (m)-[:FRIEND]-(f) "
                                       + "WITH u, collect(DISTINCT m) + collect(DISTINCT f) AS near UNWIND near AS x "
                                       + "WITH u, x WHERE x <> u RETURN count(DISTINCT x)")
                #expect(within == Int64(answers["within_2_hops_excl_self"]!), "within 2 hops of \(id)")
            }
        }
    }

    @Test("A malformed CSV is rejected with its line number and the graph stays as it was")
    func malformedCSV() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/users.csv", "id:ID,name\n1,Ann\n2,Bo\n")
            try write(dir + "/friends.csv", ":START_ID,:END_ID\n1,2\n")
            let first = try GraphdProcess.runToExit(["import", "--data", dir + "/data", "--graph", "g",
                                                     "--nodes", "User=" + dir + "/users.csv", "--relationships", "FRIEND=" + dir + "/friends.csv"])
            #expect(first.status == 0, "\(first.stderr)")
            try write(dir + "/bad.csv", "id:ID,name\n5,Di\n6,\"Ed\n7,Flo\n")
            try write(dir + "/bad2.csv", ":START_ID,:END_ID\n1,2\n2,9\n")
            for (flag, file, line) in [("--nodes", "User=" + dir + "/bad.csv", 3), ("--relationships", "FRIEND=" + dir + "/bad2.csv", 3)] {
                let rejected = try GraphdProcess.runToExit(["import", "--data", dir + "/data", "--graph", "h",
                                                            "--nodes", "User=" + dir + "/users.csv", flag, file])
                #expect(rejected.status == 1)
                #expect(rejected.stderr.contains(":\(line): "), "\(rejected.stderr)")
                #expect(rejected.stderr.contains("nothing imported; graph 'h' is unchanged"))
            }
            let exists = try GraphdProcess.runToExit(["import", "--data", dir + "/data", "--graph", "g",
                                                      "--nodes", "User=" + dir + "/users.csv"])
            #expect(exists.status == 1 && exists.stderr.contains("already exists"))
            let directory = try DataDirectory(path: dir + "/data")
            #expect(directory.graphNames() == ["g"])
            let store = try #require(try directory.graph(named: "g"))
            let result = try QueryEngine().execute("MATCH (a)-[:FRIEND]->(b) RETURN a.name, b.name", on: store)
            #expect(result.rows == [[.string("Ann"), .string("Bo")]])
        }
    }
}
