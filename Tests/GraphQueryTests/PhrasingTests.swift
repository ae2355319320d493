// PhrasingTests.swift — metamorphic tests of the planner: many seeded phrasings of each social
// question (SocialData's PhrasingGenerator), each run with the planner's rewrites and without
// them (every rewrite off: the plan of the query exactly as bound), on SNAP ego-Facebook and on
// a small graph with awkward data (self-loops, parallel relationships both ways, a user id held
// twice, users without an id, FRIEND to nodes that are not users). The rows must agree: a
// rewrite may change how fast an answer comes, never the answer.

import Foundation
import GraphStore
import GraphTestSupport
import SocialData
import Testing
@testable import GraphQuery

@Suite("Phrasings: every rewrite keeps the answer", .serialized)
struct PhrasingTests {
    /// ego-Facebook imported as `(:User {id})-[:FRIEND]->(:User {id})`, ids indexed.
    static let egoFacebook: GraphStore? = {
        var plan = ImportPlan()
        plan.edgeLists = [.init(name: "FRIEND", path: Fixtures.egoFacebook.appendingPathComponent("facebook_combined.txt").path)]
        let store = GraphStore.inMemory()
        guard (try? store.write({ graph in try ImportRunner(plan: plan).run(into: &graph) })) != nil else { return nil }
        _ = try? QueryEngine().execute("CREATE INDEX FOR (u:User) ON (u.id)", on: store)
        return store
    }()

    /// SocialProcedureTests' awkward graph, and more: a user without an id who is a friend of
    /// 3, and an `:Other` node holding id 4 that is a friend of 3 and of 5.
    static func awkwardStore() throws -> GraphStore {
        let (store, engine) = try SocialProcedureTests.awkwardSocialStore()
        _ = try engine.execute("MATCH (a:User {id: 3}) CREATE (:User {name: 'no id'})-[:FRIEND]->(a)", on: store)
        _ = try engine.execute("MATCH (a:User {id: 3}), (b:User {id: 5}) CREATE (a)-[:FRIEND]->(:Other {id: 4})-[:FRIEND]->(b)", on: store)
        return store
    }

    /// The rows of `text`, in order if `ordered`, else sorted by their text (a multiset).
    static func rows(_ engine: QueryEngine, _ store: GraphStore, _ text: String, _ parameters: [String: Value],
                     ordered: Bool, timeout: Duration = .seconds(20)) throws -> [String] {
        // A bound, so that a phrasing the general executor is slow at fails instead of hanging.
        let result = try engine.execute(text, on: store, parameters: parameters, timeout: timeout)
        let rows = result.rows.map { $0.map(render).joined(separator: " | ") }
        return ordered ? rows : rows.sorted()
    }

    /// Runs each phrasing with each parameter set through both engines and records every
    /// disagreement (and an error in one but not the other). Returns how many rows the
    /// reference gave in all, so a test can tell that something was compared, and how many
    /// runs were left out because the reference, the plan as bound, takes longer than
    /// `referenceTimeout` (a cross product of all users, say: the phrasings the rewrites are for).
    static func compare(_ phrasings: [Phrasing], parameters: [[String: Value]], on store: GraphStore,
                        referenceTimeout: Duration = .seconds(20)) throws -> (rows: Int, slowReferences: Int) {
        // The rules with the batched executor, and the batched executor alone: each against
        // the plan as bound, run one row at a time.
        let engines = [("rewritten", QueryEngine()), ("batched", QueryEngine(optimize: false, batched: true))]
        let reference = QueryEngine(optimize: false)
        var compared = 0, slow = 0
        for phrasing in phrasings {
            for p in parameters {
                let expected: [String]
                do {
                    expected = try rows(reference, store, phrasing.text, p, ordered: phrasing.isOrdered, timeout: referenceTimeout)
                } catch let error as QueryError where error.kind == .timeout {
                    slow += 1
                    print("phrasing left out, its reference is slow: \(phrasing.text)")
                    continue
                } catch {
                    Issue.record("the reference fails: \(error)\n\(phrasing.text)")
                    continue
                }
                for (name, engine) in engines {
                    let actual: [String]
                    do {
                        actual = try rows(engine, store, phrasing.text, p, ordered: phrasing.isOrdered)
                    } catch {
                        Issue.record("the \(name) plan fails where the reference does not: \(error)\n\(phrasing.text)")
                        continue
                    }
                    if actual != expected {
                        let first = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
                        Issue.record("""
                            \(name) rows differ: \(phrasing.text)
                            parameters \(p.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
                            \(actual.count) rows, expected \(expected.count); first difference at row \(first): \
                            \(first < actual.count ? actual[first] : "none") instead of \(first < expected.count ? expected[first] : "none")
                            """)
                    }
                }
                compared += expected.count
            }
        }
        return (compared, slow)
    }

    static func parameters(_ users: [Int64], others: [Int64] = [], k: Int64 = 5) -> [[String: Value]] {
        users.enumerated().map { i, u in
            ["u": .integer(u), "v": .integer(others.isEmpty ? u : others[i % others.count]), "k": .integer(k)]
        }
    }

    @Test("Phrasings of people you may know and of their count", arguments: [PhrasingQuestion.connections, .connectionCount])
    func connections(question: PhrasingQuestion) throws {
        var generator = PhrasingGenerator(seed: 0xC0FFEE &+ UInt64(PhrasingQuestion.allCases.firstIndex(of: question)!))
        let phrasings = generator.phrasings(of: question, count: 120)
        #expect(phrasings.count == 120)
        let awkward = try Self.awkwardStore()
        let small = try Self.compare(phrasings, parameters: Self.parameters([0, 2, 3, 39, 12345]), on: awkward)
        #expect(small.rows > 0 && small.slowReferences == 0)
        let fb = try #require(Self.egoFacebook)
        let real = try Self.compare(Array(phrasings.prefix(30)), parameters: Self.parameters([3980, 698]), on: fb,
                                    referenceTimeout: .seconds(1))
        // On the real graph a reference the general executor is slow at is left out (how many
        // depends on the machine's load): what does finish must agree.
        #expect(real.rows > 0, "\(real.slowReferences) runs left out")
    }

    @Test("Phrasings of mutual friends, friend counts, triangles and the two-hop reach",
          arguments: [PhrasingQuestion.mutualFriends, .friendCount, .triangles, .reach])
    func pairsAndCounts(question: PhrasingQuestion) throws {
        var generator = PhrasingGenerator(seed: 0xBEEF &+ UInt64(PhrasingQuestion.allCases.firstIndex(of: question)!))
        let phrasings = generator.phrasings(of: question, count: 60)
        #expect(phrasings.count >= 30)
        let awkward = try Self.awkwardStore()
        // Pairs include a user with itself, and a user whose id two nodes hold.
        let small = try Self.compare(phrasings, parameters: Self.parameters([0, 2, 3, 39, 1], others: [1, 2, 5, 0, 1]), on: awkward)
        #expect(small.rows > 0 && small.slowReferences == 0)
        let fb = try #require(Self.egoFacebook)
        let real = try Self.compare(Array(phrasings.prefix(20)), parameters: Self.parameters([3980, 698, 0], others: [3437, 686, 1]),
                                    on: fb, referenceTimeout: .seconds(1))
        // On the real graph a reference the general executor is slow at is left out (how many
        // depends on the machine's load): what does finish must agree.
        #expect(real.rows > 0, "\(real.slowReferences) runs left out")
    }

    @Test("Phrasings of the users with the most friends")
    func topDegree() throws {
        var generator = PhrasingGenerator(seed: 0xD0D0)
        let phrasings = generator.phrasings(of: .topDegree, count: 12)
        let awkward = try Self.awkwardStore()
        let small = try Self.compare(phrasings, parameters: Self.parameters([0]), on: awkward)
        #expect(small.rows > 0 && small.slowReferences == 0)
        let fb = try #require(Self.egoFacebook)
        let real = try Self.compare(Array(phrasings.prefix(4)), parameters: Self.parameters([0]), on: fb)
        #expect(real.rows > 0, "\(real.slowReferences) runs left out")
    }

    @Test("The generator gives the same phrasings for a seed, and different ones for another")
    func generatorIsSeeded() {
        var a = PhrasingGenerator(seed: 7), b = PhrasingGenerator(seed: 7), c = PhrasingGenerator(seed: 8)
        let first = a.phrasings(of: .connections, count: 30)
        #expect(first == b.phrasings(of: .connections, count: 30))
        #expect(first != c.phrasings(of: .connections, count: 30))
        #expect(Set(first.map(\.text)).count == 30)
    }
}
