// SocialPipelineTests.swift — the planner's recognition of docs/social.md's plain
// invitable-audience, relationship-label and invitation-feed pipelines on their plans
// (Planner/SocialPipelines.swift, Planner/PlanShape.swift): recognised through renamed
// variables, keyword case, layout, literal ids and the phrasings the Normalizer makes one, they
// run on the kernel and return exactly the rows of the general plan, on data built to make the two differ
// (several hosts, two events with one id, two users with one id, FRIEND self-loops, a pair
// stored twice, a host that is not a user), and for odd parameter values the same error.

import Testing
@testable import GraphQuery
import GraphStore

@Suite struct SocialPipelineTests {
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

    /// The same query with `c = c` (true for every row) in its WHERE: no pipeline matches, so
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

    /// What the planner made of a query's pipeline: the kernel columns its call yields, the
    /// items of the clause after it that read a kernel column instead of their expression,
    /// whether that clause still sorts, and whether the call takes the first MATCH's rows at
    /// once (the form whose rows come in the dropped ORDER BY's order). Nil without a pipeline.
    struct PipelinePlan {
        var columns: Set<String> = []
        var columnItems: Set<String> = []
        var sorts = false
        var collected = false
    }

    static func pipelinePlan(_ text: String) throws -> PipelinePlan? {
        let query = SocialPipelines.rewrite(Normalizer.normalize(try Binder.bind(try Parser.parse(text))))
        let clauses = query.clauses.map(\.clause)
        guard let k = clauses.firstIndex(where: { if case .call(let c) = $0 { c.rule?.hasSuffix("pipeline") == true } else { false } }),
              case .call(let call) = clauses[k],
              let signature = ProcedureRegistry.standard.procedure(named: call.name)?.signature else { return nil }
        var plan = PipelinePlan()
        let names = signature.outputs.map(\.name)
        plan.columns = Set(call.outputs.map { names[$0.column] })
        let pipeline = try #require(SocialPipelines.pipelines.first { $0.rule == call.rule })
        let hidden = Set(call.outputs.filter { pipeline.columns.contains(names[$0.column]) }.map(\.slot))
        if k + 1 < clauses.count, case .projection(let next) = clauses[k + 1] {
            plan.columnItems = Set(next.items.filter { if case .slot(let s) = $0.expression { hidden.contains(s) } else { false } }.map(\.name))
            plan.sorts = !next.orderBy.isEmpty
        }
        if k > 0, case .projection(let before) = clauses[k - 1] { plan.collected = before.isAggregating }
        return plan
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
        // The documented label is the kernel's column, not evaluated per row, renamed or not;
        // `isFriend` itself still comes for the ORDER BY and anything else that reads it.
        for text in [Self.plainAudience, renamed] {
            let plan = try #require(try Self.pipelinePlan(text))
            #expect(plan.columnItems == ["relation"] && plan.columns.contains("isFriend") && !plan.sorts, "\(text)")
        }
        // An item aliased to `mutual` makes the ORDER BY sort by it: kept.
        let aliased = Self.plainAudience.replacingOccurrences(of: "RETURN c.id,", with: "RETURN c.id, 0 - c.id AS mutual,")
            .replacingOccurrences(of: "AS relation, mutual", with: "AS relation")
        #expect(try #require(try Self.pipelinePlan(aliased)).sorts)
        for event in [100, 101] {
            #expect(try rows(engine, store, aliased, event) == (try rows(engine, store, Self.general(aliased), event)))
        }
        let wordy = Self.plainAudience.replacingOccurrences(of: "ELSE 'CONNECTION' END", with: "ELSE 'OTHER' END")
        #expect(try #require(try Self.pipelinePlan(wordy)).columnItems.isEmpty)
        #expect(try rows(engine, store, wordy, 100) == (try rows(engine, store, Self.general(wordy), 100)))
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

    @Test func theAudiencesSizeIsCountedWithoutItsRowsAndAgreesWithThem() throws {
        let (store, engine) = try Self.store()
        let plainCount = Self.plainAudience.replacingOccurrences(
            of: "RETURN c.id, CASE WHEN isFriend THEN 'FRIEND' ELSE 'CONNECTION' END AS relation, mutual\nORDER BY isFriend DESC, mutual DESC, id(c)",
            with: "RETURN count(c) AS n")
        #expect(plainCount != Self.plainAudience)
        #expect(try runsOnTheKernel(engine, store, plainCount))
        let hopsOne = plainCount.replacingOccurrences(of: """
            UNWIND friends AS f
            OPTIONAL MATCH (f)-[:FRIEND]-(x)
            WITH e, h, friends, collect(DISTINCT x) + friends AS reach
            UNWIND reach AS c
            """, with: "UNWIND friends AS c")
        #expect(hopsOne != plainCount)
        var nonZero = 0
        for text in [plainCount, hopsOne] {
            for event in [100, 101, 102, 999] {
                let counted = try rows(engine, store, text, event)
                let general = try rows(engine, store, Self.general(text), event)
                #expect(counted == general, "event \(event): \(text)")
                if counted != [[.integer(0)]] { nonZero += 1 }
            }
        }
        #expect(nonZero >= 4, "the data must give audiences")
        // The procedure's count is the number of its rows, for each option.
        for event in ["100", "101", "102", "999", "null"] {
            for options in ["{}", "{hops: 1}", "{hops: 2, limit: 3}", "{limit: 0}", "{hops: 1, limit: 100}"] {
                let call = "CALL social.invitableAudience(\(event), \(options)) YIELD user, relation, mutual"
                let listed = try rows(engine, store, "\(call) RETURN user", 0).count
                #expect(try rows(engine, store, "\(call) RETURN count(user)", 0) == [[.integer(Int64(listed))]], "\(call)")
                #expect(try rows(engine, store, "\(call) RETURN count(*), count(mutual)", 0) == [[.integer(Int64(listed)), .integer(Int64(listed))]])
            }
        }
        // The event as a node; and a bad option is the same error counted or not.
        let byNode = "MATCH (e:Event {id: 101}) CALL social.invitableAudience(e, {}) YIELD user"
        let listed = try rows(engine, store, "\(byNode) RETURN user", 0).count
        #expect(listed > 0)
        #expect(try rows(engine, store, "\(byNode) RETURN count(user)", 0) == [[.integer(Int64(listed))]])
        for bad in ["{hops: 3}", "{limit: -1}", "{size: 1}", "'x'"] {
            var messages: [String] = []
            for tail in ["RETURN user", "RETURN count(user)"] {
                do {
                    _ = try rows(engine, store, "CALL social.invitableAudience(100, \(bad)) YIELD user \(tail)", 0)
                    Issue.record("expected an error for \(bad)")
                } catch let error as QueryError {
                    messages.append(error.message)
                }
            }
            #expect(messages.count == 2 && messages[0] == messages[1], "\(bad): \(messages)")
        }
    }

    /// The relationship-label query exactly as docs/social.md gives it, with `RETURN x.id`.
    static let plainLabels = """
        MATCH (v:User {id: $viewer})
        UNWIND range(0, size($users) - 1) AS i
        MATCH (x:User {id: $users[i]})
        OPTIONAL MATCH (v)-[:FRIEND]-(m)-[:FRIEND]-(x) WHERE v <> x
        WITH i, v, x, count(DISTINCT m) AS mutual
        RETURN x.id AS user,
               CASE WHEN x = v THEN 'SELF' WHEN (v)-[:FRIEND]-(x) THEN 'FRIEND'
                    WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END AS relation,
               mutual,
               x <> v AND (v)-[:FRIEND_REQUEST]->(x) AS requestSent,
               x <> v AND (x)-[:FRIEND_REQUEST]->(v) AS requestReceived,
               x <> v AND (v)-[:BLOCKED]->(x) AS blockedByViewer,
               x <> v AND (x)-[:BLOCKED]->(v) AS blocksViewer
        ORDER BY i
        """

    /// The rows, or the error's message.
    func outcome(_ engine: QueryEngine, _ store: GraphStore, _ text: String, _ parameters: [String: Value]) -> Result<[[ResultValue]], QueryError> {
        Result { () throws(QueryError) in try engine.execute(text, on: store, parameters: parameters).rows }
    }

    @Test func thePlainRelationshipLabelsRunOnTheKernelWithTheGeneralPlansRows() throws {
        let (store, engine) = try Self.store()
        // Users 39 twice (two nodes share the id), 2 with a FRIEND self-loop, 0 and 1 a pair
        // stored both ways, requests and a block; elements that are null, a float, a string, a
        // list, repeated, the viewer itself and nobody.
        let renamed = Self.plainLabels.replacingOccurrences(of: "(v", with: "(me").replacingOccurrences(of: "v)", with: "me)")
            .replacingOccurrences(of: " v ", with: " me ").replacingOccurrences(of: "v,", with: "me,")
            .replacingOccurrences(of: "x = v", with: "x = me").replacingOccurrences(of: "x <> v", with: "x <> me")
            .replacingOccurrences(of: "MATCH", with: "match").replacingOccurrences(of: "\n", with: " ")
        let wider = Self.plainLabels.replacingOccurrences(of: "RETURN x.id AS user,", with: "RETURN v.id AS viewer, i, x, x.id AS user,")
            .replacingOccurrences(of: "ORDER BY i", with: "ORDER BY mutual DESC, i SKIP 1 LIMIT 4")
        let filtered = Self.plainLabels.replacingOccurrences(of: "AS mutual\n", with: "AS mutual WHERE mutual > 0 OR x = v\n")
        let literal = Self.plainLabels.replacingOccurrences(of: "$viewer", with: "1")
        #expect(renamed.contains("(me:User") && !renamed.contains("(v)"))
        let viewers: [Value] = [.integer(0), .integer(1), .integer(2), .integer(39), .integer(999), .null, .string("0")]
        let lists: [Value] = [
            .list([1, 2, 3, 0, 39, 999, 5, 7].map { .integer($0) }),
            .list([.integer(2), .integer(2), .null, .double(1), .string("3"), .list([.integer(1)]), .integer(0)]),
            .list([]), .null, .string("ab"), .integer(5),
        ]
        var compared = 0, nonEmpty = 0, errors = 0
        for text in [Self.plainLabels, renamed, wider, filtered, literal] {
            let general = text.replacingOccurrences(of: "WHERE v <> x", with: "WHERE v <> x AND m = m")
                .replacingOccurrences(of: "WHERE me <> x", with: "WHERE me <> x AND m = m")
            #expect(general != text)
            #expect(try engine.explain(text, on: store).contains { $0.contains("ProcedureCall social.relationships") }, "\(text)")
            #expect(!(try engine.explain(general, on: store)).contains { $0.contains("ProcedureCall") }, "\(general)")
            for viewer in viewers {
                for users in lists {
                    let p = ["viewer": viewer, "users": users]
                    let recognised = outcome(engine, store, text, p), expected = outcome(engine, store, general, p)
                    switch (recognised, expected) {
                    case (.success(let a), .success(let b)):
                        #expect(a == b, "viewer \(viewer), users \(users): \(text)")
                        if !a.isEmpty { nonEmpty += 1 }
                    case (.failure(let a), .failure(let b)):
                        #expect(a.message == b.message)
                        errors += 1
                    default:
                        Issue.record("viewer \(viewer), users \(users): \(recognised) vs \(expected)")
                    }
                    compared += 1
                }
            }
        }
        #expect(compared == 210 && nonEmpty >= 40 && errors >= 40, "\(compared) \(nonEmpty) \(errors)")
        // With unique ids and a plain list, the procedure's own rows.
        let (plainStore, plainEngine) = try SocialProcedureTests.socialStore()
        let p: [String: Value] = ["viewer": .integer(0), "users": .list([7, 0, 1, 3, 17, 2].map { .integer($0) })]
        let procedure = try plainEngine.execute("""
            CALL social.relationships($viewer, $users) YIELD user, relation, mutual, requestSent, requestReceived, blockedByViewer, blocksViewer
            RETURN user.id, relation, mutual, requestSent, requestReceived, blockedByViewer, blocksViewer
            """, on: plainStore, parameters: p).rows
        #expect(procedure.count == 6)
        #expect(try plainEngine.execute(Self.plainLabels, on: plainStore, parameters: p).rows == procedure)
    }

    @Test func theRelationshipLabelColumnsComeFromTheKernelWhereTheyMeanTheSame() throws {
        let (store, engine) = try Self.store()
        func rewritten(_ text: String) throws -> PipelinePlan? { try Self.pipelinePlan(text) }
        let flags: Set<String> = ["requestSent", "requestReceived", "blockedByViewer", "blocksViewer"]
        // The documented RETURN: every label and flag is yielded, none evaluated per row.
        let documented = try #require(try rewritten(Self.plainLabels))
        #expect(documented.columnItems == flags.union(["relation"]))
        // Its ORDER BY i is the kernel's order: dropped, the viewers collected into one call
        // whose rows come by i. Any other order keeps the sort and a call per viewer.
        #expect(!documented.sorts && documented.collected)
        let byMutual = try #require(try rewritten(Self.plainLabels.replacingOccurrences(of: "ORDER BY i", with: "ORDER BY mutual, i")))
        #expect(byMutual.sorts && !byMutual.collected)
        // An item aliased to `i` makes `ORDER BY i` sort by the item: kept, with a call per viewer.
        let aliased = Self.plainLabels.replacingOccurrences(of: "RETURN x.id AS user,", with: "RETURN x.id AS user, 0 - x.id AS i,")
        let aliasedPlan = try #require(try rewritten(aliased))
        #expect(aliasedPlan.sorts && !aliasedPlan.collected)
        for viewer in [0, 1, 39] {
            let p: [String: Value] = ["viewer": .integer(Int64(viewer)), "users": .list([1, 2, 3, 0, 39, 5, 7].map { .integer($0) })]
            let general = aliased.replacingOccurrences(of: "WHERE v <> x", with: "WHERE v <> x AND m = m")
            #expect(try engine.execute(aliased, on: store, parameters: p).rows == (try engine.execute(general, on: store, parameters: p).rows))
        }
        // exists(…) spellings, other aliases and order, DISTINCT, one column left as written.
        let spelled = Self.plainLabels
            .replacingOccurrences(of: "(v)-[:FRIEND]-(x) THEN", with: "exists((v)-[:FRIEND]-(x)) THEN")
            .replacingOccurrences(of: "AND (x)-[:FRIEND_REQUEST]->(v)", with: "AND EXISTS((x)-[:FRIEND_REQUEST]->(v))")
            .replacingOccurrences(of: "AS relation", with: "AS label")
            .replacingOccurrences(of: "x <> v AND (v)-[:BLOCKED]->(x) AS blockedByViewer,", with: "x <> v AND (v)-[:BLOCKED]->(x) OR false AS blockedByViewer,")
        let distinct = Self.plainLabels.replacingOccurrences(of: "RETURN x.id", with: "RETURN DISTINCT i, x.id")
        #expect(try #require(try rewritten(spelled)).columnItems == ["label", "requestSent", "requestReceived", "blocksViewer"])
        #expect(try #require(try rewritten(distinct)).columnItems.contains("blocksViewer"))
        let inside = Self.plainLabels.replacingOccurrences(of: "x <> v AND (v)-[:FRIEND_REQUEST]->(x) AS requestSent",
                                                           with: "[x <> v AND (v)-[:FRIEND_REQUEST]->(x)] AS requestSent")
        let negated = Self.plainLabels.replacingOccurrences(of: "x <> v AND (v)-[:FRIEND_REQUEST]->(x) AS requestSent",
                                                            with: "NOT x <> v AND (v)-[:FRIEND_REQUEST]->(x) AS requestSent")
        let unaliased = Self.plainLabels.replacingOccurrences(of: "(v)-[:FRIEND_REQUEST]->(x) AS requestSent", with: "(v)-[:FRIEND_REQUEST]->(x)")
        let rebound = Self.plainLabels.replacingOccurrences(of: "x <> v AND (v)-[:FRIEND_REQUEST]->(x) AS requestSent",
                                                            with: "[x IN [v] | x <> v AND (v)-[:FRIEND_REQUEST]->(x)] AS requestSent")
        let through = Self.plainLabels.replacingOccurrences(of: "RETURN x.id AS user,", with: "WITH i, x, x.id AS user,")
            .replacingOccurrences(of: "ORDER BY i", with: "RETURN user, relation, mutual, requestSent ORDER BY i")
        let union = """
            RETURN 1 AS user, 2 AS relation UNION MATCH (x:User), (v:User) WITH x, v, 0 AS mutual
            RETURN x.id AS user, CASE WHEN x = v THEN 'SELF' WHEN (v)-[:FRIEND]-(x) THEN 'FRIEND' WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END AS relation
            """
        let unionLabels = Self.plainLabels.replacingOccurrences(of: "ORDER BY i", with: "")
            .replacingOccurrences(of: "x <> v AND (x)-[:BLOCKED]->(v) AS blocksViewer", with: "x <> v AND (x)-[:BLOCKED]->(v) AS blocksViewer UNION ALL MATCH (x:User) WITH x, x AS v, 0 AS mutual RETURN x.id AS user, CASE WHEN x = v THEN 'SELF' WHEN (v)-[:FRIEND]-(x) THEN 'FRIEND' WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END AS relation, mutual, x <> v AND (v)-[:FRIEND_REQUEST]->(x) AS requestSent, x <> v AND (x)-[:FRIEND_REQUEST]->(v) AS requestReceived, x <> v AND (v)-[:BLOCKED]->(x) AS blockedByViewer, x <> v AND (x)-[:BLOCKED]->(v) AS blocksViewer")
        // Not the same expression (inside a list, under NOT, in a comprehension): evaluated as
        // written. Unaliased, in a WITH, or before a UNION, it means the column all the same.
        for text in [inside, negated, rebound] {
            #expect(try #require(try rewritten(text), "\(text)").columnItems == flags.union(["relation"]).subtracting(["requestSent"]))
        }
        for text in [unaliased, through, unionLabels] {
            #expect(try #require(try rewritten(text), "\(text)").columnItems.count == 5, "\(text)")
        }
        #expect(try rewritten(union) == nil)
        // Every variant gives the general plan's rows (the general plan: a WHERE the pipeline
        // does not know), on data with requests, a block, self-loops and shared ids.
        var compared = 0, flagged = 0
        for text in [Self.plainLabels, spelled, distinct, inside, negated, unaliased, rebound, through, unionLabels] {
            let general = text.replacingOccurrences(of: "WHERE v <> x", with: "WHERE v <> x AND m = m")
            #expect(general != text)
            #expect(try engine.explain(text, on: store).contains { $0.contains("ProcedureCall social.relationships") }, "\(text)")
            for viewer in [0, 1, 2, 39] {
                let p: [String: Value] = ["viewer": .integer(Int64(viewer)), "users": .list([1, 2, 3, 0, 39, 999, 5, 7, 4].map { .integer($0) })]
                let recognised = try engine.execute(text, on: store, parameters: p).rows
                #expect(recognised == (try engine.execute(general, on: store, parameters: p).rows), "viewer \(viewer): \(text)")
                flagged += recognised.filter { $0.contains(.bool(true)) }.count
                compared += 1
            }
        }
        #expect(compared == 36 && flagged >= 9, "\(compared) \(flagged)")
        // The procedure's new column: each row's index in the list, elements naming nobody skipped.
        let positions = try engine.execute("CALL social.relationships(0, [999, 1, null, 2]) YIELD user, position RETURN user.id, position",
                                           on: store).rows
        #expect(positions == [[.integer(1), .integer(1)], [.integer(2), .integer(3)]])
        let viewers = try engine.execute("CALL social.relationships(0, [999, 1, 2]) YIELD viewer, user RETURN viewer.id, user.id",
                                         on: store).rows
        #expect(viewers == [[.integer(0), .integer(1)], [.integer(0), .integer(2)]])
    }

    /// The invitation feed exactly as docs/social.md gives it, with `event.id` for the node.
    static let plainFeed = """
        MATCH (u:User {id: $user})-[r:INVITED|ATTENDING]->(event:Event)
        WITH u, event, max(CASE type(r) WHEN 'ATTENDING' THEN 1 ELSE 0 END) = 1 AS attending
        OPTIONAL MATCH (h:User)-[:HOSTS]->(event)
        OPTIONAL MATCH (u)-[:FRIEND]-(m)-[:FRIEND]-(h) WHERE u <> h
        WITH u, event, attending, h, count(DISTINCT m) AS mutual
        RETURN event.id, event.starts_at AS startsAt, attending, h.id AS host,
               CASE WHEN h IS NULL THEN null WHEN h = u THEN 'SELF' WHEN (u)-[:FRIEND]-(h) THEN 'FRIEND'
                    WHEN mutual > 0 THEN 'CONNECTION' ELSE 'NONE' END AS hostRelation,
               CASE WHEN h IS NULL THEN null ELSE mutual END AS hostMutual
        ORDER BY event.starts_at, id(event)
        """

    @Test func thePlainInvitationFeedRunsOnTheKernelWithTheGeneralPlansRows() throws {
        let (store, engine) = try Self.store()
        // More feed awkwardness: user 2 (a FRIEND self-loop) invited twice to event 100 (three
        // hosts, one not a user) and attending 102 (no host) and a node that is no event; both
        // users 39 invited to both events 101 and attending 100; user 0 invited to the event it
        // hosts; user 4 attending both events 101, invited to event 100 and hosting it twice.
        _ = try engine.execute("""
            MATCH (a:User {id: 2}), (b:User {id: 39}), (z:User {id: 0}), (four:User {id: 4}),
                  (e:Event {id: 100}), (f:Event {id: 102}), (g:Event {id: 101})
            CREATE (a)-[:INVITED]->(e), (a)-[:INVITED]->(e), (a)-[:ATTENDING]->(f), (a)-[:INVITED]->(:Bot {id: 3}),
                   (b)-[:INVITED]->(g), (b)-[:ATTENDING]->(e), (z)-[:INVITED]->(e), (four)-[:ATTENDING]->(g), (four)-[:HOSTS]->(e)
            """, on: store)
        _ = try engine.execute("MATCH (four:User {id: 4}), (g:Event {id: 100}) CREATE (four)-[:INVITED]->(g)", on: store)
        let renamed = """
            match (me:User {id: $user})-[rel:INVITED|ATTENDING]->(ev:Event) with me, ev, MAX(case type(rel) when 'ATTENDING' then 1 else 0 end) = 1 as going
            optional match (host:User)-[:HOSTS]->(ev) optional match (me)-[:FRIEND]-(pal)-[:FRIEND]-(host) where me <> host
            with me, ev, going, host, count(distinct pal) as shared
            RETURN ev.id, ev.starts_at AS startsAt, going, host.id AS host,
                   CASE WHEN host IS NULL THEN null WHEN host = me THEN 'SELF' WHEN (me)-[:FRIEND]-(host) THEN 'FRIEND'
                        WHEN shared > 0 THEN 'CONNECTION' ELSE 'NONE' END AS hostRelation,
                   CASE WHEN host IS NULL THEN null ELSE shared END AS hostMutual
            ORDER BY ev.starts_at, id(ev)
            """
        // Without ORDER BY the rows come in the plan's own order, which the kernel must keep.
        let unordered = Self.plainFeed.replacingOccurrences(of: "ORDER BY event.starts_at, id(event)", with: "")
        let literal = Self.plainFeed.replacingOccurrences(of: "$user", with: "2")
        var compared = 0, nonEmpty = 0
        for text in [Self.plainFeed, renamed, unordered, literal] {
            let general = text.replacingOccurrences(of: "WHERE u <> h", with: "WHERE u <> h AND m = m")
                .replacingOccurrences(of: "where me <> host", with: "where me <> host AND pal = pal")
            #expect(general != text)
            #expect(try engine.explain(text, on: store).contains { $0.contains("ProcedureCall social.invitations") }, "\(text)")
            #expect(!(try engine.explain(general, on: store)).contains { $0.contains("ProcedureCall") }, "\(general)")
            for user in [Value.integer(0), .integer(1), .integer(2), .integer(3), .integer(4), .integer(9), .integer(39), .integer(999), .null, .string("2")] {
                let p = ["user": user]
                let recognised = try engine.execute(text, on: store, parameters: p).rows
                #expect(recognised == (try engine.execute(general, on: store, parameters: p).rows), "user \(user): \(text)")
                if recognised.count > 1 { nonEmpty += 1 }
                compared += 1
            }
        }
        #expect(compared == 40 && nonEmpty >= 16, "\(compared) \(nonEmpty)")
        // The documented ORDER BY is the collected call's order, and the host's label its column;
        // without the ORDER BY, a call per user in the plan's order.
        let documented = try #require(try Self.pipelinePlan(Self.plainFeed))
        #expect(documented.collected && !documented.sorts && documented.columnItems == ["hostRelation"])
        let plainOrder = try #require(try Self.pipelinePlan(unordered))
        #expect(!plainOrder.collected && !plainOrder.sorts)
        // With one host per event and unique ids, the procedure's own rows.
        let (plainStore, plainEngine) = try SocialProcedureTests.socialStore()
        for user in [1, 3, 9] {
            let p: [String: Value] = ["user": .integer(Int64(user))]
            let procedure = try plainEngine.execute("""
                CALL social.invitations($user, {}) YIELD event, startsAt, attending, host, hostRelation, hostMutual
                RETURN event.id, startsAt, attending, host.id, hostRelation, hostMutual
                """, on: plainStore, parameters: p).rows
            #expect(!procedure.isEmpty)
            #expect(try plainEngine.execute(Self.plainFeed, on: plainStore, parameters: p).rows == procedure)
        }
    }

    /// The pipelines are recognised on the plan, so phrasings that normalise to the documented
    /// ones run on the kernel too, with the general plan's rows.
    @Test func otherPhrasingsOfThePipelinesRunOnTheKernel() throws {
        let (store, engine) = try Self.store()
        let audiences = [
            // A name used for two variables, a negative literal id, the id in a WHERE, one
            // MATCH with two patterns, the conjuncts and operands in another order, a pattern
            // written from its other end, exists(…).
            Self.plainAudience.replacingOccurrences(of: "AS reach", with: "AS x").replacingOccurrences(of: "UNWIND reach", with: "UNWIND x"),
            Self.plainAudience.replacingOccurrences(of: "$event", with: "-1"),
            Self.plainAudience.replacingOccurrences(of: "(e:Event {id: $event})\nMATCH (h)-[:FRIEND]-(f)",
                                                    with: "(e:Event)\nMATCH (h)-[:FRIEND]-(f) WHERE e.id = $event"),
            Self.plainAudience.replacingOccurrences(of: "(e:Event {id: $event})\nMATCH (h)", with: "(e:Event {id: $event}), (h)"),
            Self.plainAudience.replacingOccurrences(
                of: "c <> h AND NOT (c)-[:INVITED]->(e) AND NOT (c)-[:ATTENDING]->(e) AND NOT (h)-[:BLOCKED]-(c)",
                with: "NOT (h)-[:BLOCKED]-(c) AND NOT exists((e)<-[:ATTENDING]-(c)) AND h <> c AND NOT (e)<-[:INVITED]-(c)"),
            Self.plainAudience.replacingOccurrences(of: "WITH c, c IN friends AS isFriend, size([m IN friends WHERE (m)-[:FRIEND]-(c)]) AS mutual",
                                                    with: "WITH size([m IN friends WHERE (c)-[:FRIEND]-(m)]) AS mutual, c IN friends AS isFriend, c"),
        ]
        var nonEmpty = 0
        for text in audiences {
            #expect(try runsOnTheKernel(engine, store, text), "\(text)")
            for event in [100, 101, 102, -1] {
                let recognised = try rows(engine, store, text, event)
                #expect(recognised == (try rows(engine, store, Self.general(text), event)), "event \(event): \(text)")
                if !recognised.isEmpty { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty >= 8)
        // Relationship labels with a named relationship nothing reads, and the feed with its
        // user pinned in a WHERE.
        let named = Self.plainLabels.replacingOccurrences(of: "(v)-[:FRIEND]-(m)", with: "(v)-[r:FRIEND]-(m)")
        #expect(try engine.explain(named, on: store).contains { $0.contains("ProcedureCall social.relationships") })
        let p: [String: Value] = ["viewer": .integer(1), "users": .list([1, 2, 3, 0, 39, 5, 7].map { .integer($0) })]
        #expect(try engine.execute(named, on: store, parameters: p).rows
                == (try engine.execute(named.replacingOccurrences(of: "WHERE v <> x", with: "WHERE v <> x AND m = m"), on: store, parameters: p).rows))
        let pinned = Self.plainFeed.replacingOccurrences(of: "(u:User {id: $user})-[r:INVITED|ATTENDING]->(event:Event)",
                                                         with: "(event:Event)<-[r:INVITED|ATTENDING]-(u:User) WHERE u.id = $user")
        #expect(pinned != Self.plainFeed)
        #expect(try engine.explain(pinned, on: store).contains { $0.contains("ProcedureCall social.invitations") })
        for user in [1, 2, 3] {
            let q: [String: Value] = ["user": .integer(Int64(user))]
            #expect(try engine.execute(pinned, on: store, parameters: q).rows
                    == (try engine.execute(pinned.replacingOccurrences(of: "WHERE u <> h", with: "WHERE u <> h AND m = m"), on: store, parameters: q).rows))
        }
    }

    @Test func nearMissesRunTheGeneralPlan() throws {
        let (store, engine) = try Self.store()
        for text in [
            // Another label, another relationship type, a different condition, a different
            // grouping, an OR for an AND.
            Self.plainAudience.replacingOccurrences(of: "(h:User)", with: "(h:Person)"),
            Self.plainAudience.replacingOccurrences(of: ":INVITED", with: ":invited"),
            Self.plainAudience.replacingOccurrences(of: "NOT (h)-[:BLOCKED]-(c)", with: "NOT (h)-[:BLOCKED]->(c)"),
            Self.plainAudience.replacingOccurrences(of: "WITH e, h, collect(DISTINCT f)", with: "WITH e, h, collect(f)"),
            Self.plainAudience.replacingOccurrences(of: "c <> h AND NOT", with: "c <> h OR NOT"),
        ] {
            #expect(!(try runsOnTheKernel(engine, store, text)), "\(text)")
        }
        for text in [
            // Another label, grouping without i, an ORDER BY on the grouping WITH, a directed
            // FRIEND.
            Self.plainLabels.replacingOccurrences(of: "(x:User", with: "(x:Person"),
            Self.plainLabels.replacingOccurrences(of: "WITH i, v, x,", with: "WITH v, x,").replacingOccurrences(of: "ORDER BY i", with: ""),
            Self.plainLabels.replacingOccurrences(of: "AS mutual\n", with: "AS mutual ORDER BY mutual\n"),
            Self.plainLabels.replacingOccurrences(of: "(m)-[:FRIEND]-(x)", with: "(m)-[:FRIEND]->(x)"),
        ] {
            #expect(!(try engine.explain(text, on: store)).contains { $0.contains("ProcedureCall social.relationships") }, "\(text)")
        }
        // A query that does not bind is the original's error, not the replacement's.
        let broken = Self.plainAudience.replacingOccurrences(of: "RETURN c.id,", with: "RETURN h.id,")
        #expect(throws: QueryError.self) { try engine.explain(broken, on: store) }
    }
}
