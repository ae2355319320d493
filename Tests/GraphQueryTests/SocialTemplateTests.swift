// SocialTemplateTests.swift — the planner's token-for-token recognition of docs/social.md's
// plain invitable-audience query (Planner/SocialTemplates.swift): recognised through renamed
// variables, keyword case, layout and a literal event id, it runs on the kernel and returns
// exactly the rows of the general plan, on data built to make the two differ (several hosts,
// two events with one id, FRIEND self-loops, a pair stored twice, a host that is not a user).

import Testing
@testable import GraphQuery
import GraphStore

@Suite struct SocialTemplateTests {
    /// The audience query exactly as docs/social.md gives it, with `RETURN c.id` for the node.
    static let plainAudience = """
        MATCH (h:User)-[:HOSTS]->(e:Event {id: $event})
        MATCH (h)-[:FRIEND]-(f)
        WITH e, h, collect(DISTINCT f) AS friends
        UNWIND friends AS f
        OPTIONAL MATCH (f)-[:FRIEND]-(x)
        WITH e, h, friends, collect(DISTINCT x) + friends AS reach
        UNWIND reach AS c
        WITH DISTINCT e, h, friends, c
        WHERE c <> h AND NOT (c)-[:INVITED]->(e) AND NOT (c)-[:ATTENDING]->(e) AND NOT (h)-[:BLOCKED]-(c)
        WITH c, c IN friends AS isFriend, size([m IN friends WHERE (m)-[:FRIEND]-(c)]) AS mutual
        RETURN c.id, CASE WHEN isFriend THEN 'FRIEND' ELSE 'CONNECTION' END AS relation, mutual
        ORDER BY isFriend DESC, mutual DESC, id(c)
        """

    /// The same query with `c = c` (true for every row) in its WHERE: no template matches, so
    /// it runs the general plan — the reference.
    static func general(_ text: String) -> String {
        text.replacingOccurrences(of: "WHERE c <> h AND", with: "WHERE c <> h AND c = c AND")
    }

    /// The awkward social store plus audience awkwardness: event 100 gets a second host (4) and
    /// a host that is not a user, a second event with id 101 (hosted by 7), host 5 a FRIEND
    /// self-loop (user 2 already has one), and event 102 no host.
    static func store() throws -> (GraphStore, QueryEngine) {
        let (store, engine) = try SocialProcedureTests.awkwardSocialStore()
        _ = try engine.execute("""
            MATCH (e:Event {id: 100}), (four:User {id: 4}), (five:User {id: 5}), (seven:User {id: 7})
            CREATE (four)-[:HOSTS]->(e), (:Bot {id: 1})-[:HOSTS]->(e), (five)-[:FRIEND]->(five),
                   (seven)-[:HOSTS]->(:Event {id: 101, starts_at: 5}), (:Event {id: 102})
            """, on: store)
        return (store, engine)
    }

    func rows(_ engine: QueryEngine, _ store: GraphStore, _ text: String, _ event: Int) throws -> [[ResultValue]] {
        try engine.execute(text, on: store, parameters: ["event": .integer(Int64(event))]).rows
    }

    func runsOnTheKernel(_ engine: QueryEngine, _ store: GraphStore, _ text: String) throws -> Bool {
        try engine.explain(text, on: store).contains { $0.contains("ProcedureCall social.invitableAudience") }
    }

    @Test func thePlainAudienceRunsOnTheKernelWithTheGeneralPlansRows() throws {
        let (store, engine) = try Self.store()
        let hopsOne = Self.plainAudience.replacingOccurrences(of: """
            UNWIND friends AS f
            OPTIONAL MATCH (f)-[:FRIEND]-(x)
            WITH e, h, friends, collect(DISTINCT x) + friends AS reach
            UNWIND reach AS c
            """, with: "UNWIND friends AS c")
        #expect(hopsOne != Self.plainAudience)
        // Renamed variables, lower-case keywords, one line, a literal id, LIMIT after the order,
        // the node itself and extra columns in RETURN, and a different ORDER BY (kept; a total
        // order, since rows that tie on it come in the plan's own order).
        let renamed = Self.plainAudience
            .replacingOccurrences(of: "friends", with: "pals").replacingOccurrences(of: "isFriend", with: "close")
            .replacingOccurrences(of: "mutual", with: "shared").replacingOccurrences(of: "MATCH", with: "match")
            .replacingOccurrences(of: "\n", with: " ") + " LIMIT 7"
        let wider = Self.plainAudience.replacingOccurrences(of: "RETURN c.id,", with: "RETURN c, c.id * 2 AS twice, isFriend,")
        let reordered = Self.plainAudience.replacingOccurrences(of: "ORDER BY isFriend DESC, mutual DESC, id(c)", with: "ORDER BY c.id DESC, mutual, isFriend SKIP 1")
        var nonEmpty = 0
        for text in [Self.plainAudience, hopsOne, renamed, wider, reordered] {
            #expect(try runsOnTheKernel(engine, store, text), "\(text)")
            #expect(!(try runsOnTheKernel(engine, store, Self.general(text))))
            for event in [100, 101, 102, 999] {
                let recognised = try rows(engine, store, text, event)
                let expected = try rows(engine, store, Self.general(text), event)
                #expect(recognised == expected, "event \(event): \(text)")
                if !recognised.isEmpty { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty >= 10, "the data must give audiences")
        // With one host, no self-loops and one event: the procedure's own rows.
        let procedure = try rows(engine, store, "CALL social.invitableAudience(101, {}) YIELD user, relation, mutual RETURN user.id, relation, mutual", 0)
        let (plainStore, plainEngine) = try SocialProcedureTests.socialStore()
        let single = try rows(plainEngine, plainStore, Self.plainAudience, 101)
        let singleProcedure = try rows(plainEngine, plainStore,
            "CALL social.invitableAudience(101, {}) YIELD user, relation, mutual RETURN user.id, relation, mutual", 0)
        #expect(!single.isEmpty && single == singleProcedure)
        #expect(!procedure.isEmpty)
        // A literal id in place of the parameter, and a column list through WITH: still recognised.
        let literal = Self.plainAudience.replacingOccurrences(of: "$event", with: "100")
            .replacingOccurrences(of: "RETURN c.id,", with: "WITH c.id AS id, isFriend, mutual RETURN id,")
            .replacingOccurrences(of: "id(c)", with: "id")
        #expect(try runsOnTheKernel(engine, store, literal))
        #expect(try rows(engine, store, literal, 0) == (try rows(engine, store, Self.general(literal), 0)))
    }

    @Test func nearMissesRunTheGeneralPlan() throws {
        let (store, engine) = try Self.store()
        for text in [
            // Another label, another relationship type, a name used for two variables, a
            // negative literal id (two tokens), a different condition.
            Self.plainAudience.replacingOccurrences(of: "(h:User)", with: "(h:Person)"),
            Self.plainAudience.replacingOccurrences(of: ":INVITED", with: ":invited"),
            Self.plainAudience.replacingOccurrences(of: "AS reach", with: "AS x").replacingOccurrences(of: "UNWIND reach", with: "UNWIND x"),
            Self.plainAudience.replacingOccurrences(of: "$event", with: "-1"),
            Self.plainAudience.replacingOccurrences(of: "NOT (h)-[:BLOCKED]-(c)", with: "NOT (h)-[:BLOCKED]->(c)"),
        ] {
            #expect(!(try runsOnTheKernel(engine, store, text)), "\(text)")
        }
        // A query that does not bind is the original's error, not the replacement's.
        let broken = Self.plainAudience.replacingOccurrences(of: "RETURN c.id,", with: "RETURN h.id,")
        #expect(throws: QueryError.self) { try engine.explain(broken, on: store) }
    }
}
