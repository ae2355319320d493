// DemoCommand.swift — `graphd demo`: generates a seeded fake social graph with SocialData's
// generator (users with names and usernames, clustered friendships with hubs, pending friend
// requests, follows, events with hosts, invitations and RSVPs), builds it in bulk, installs it
// as graph `demo` (replacing an older one atomically) and prints queries to try on it.

import Glibc
import GraphQuery
import GraphStore
import SocialData

/// The `graphd demo` subcommand.
enum DemoCommand {
    static func run(_ options: DemoOptions) -> Int32 {
        let clock = ContinuousClock()
        let started = clock.now
        let directory: DataDirectory
        do throws(StoreError) {
            directory = try DataDirectory(path: options.dataDirectory)
            try DataDirectory.validate(options.graph)
        } catch {
            let hint = error.kind == .locked ? " (stop the server first, or run the demo on another --data directory)" : ""
            GraphdMain.printError("graphd demo: \(error.description)\(hint)")
            return 1
        }
        let data = SocialGraphGenerator(parameters: parameters(for: options)).generate()
        // The demo graph is built in bulk and replaces the old one whole (installGraph: a new
        // snapshot and an empty log, switched atomically), so a crash or an error leaves either
        // the old demo graph or the new one.
        do {
            var builder = GraphBuilder()
            _ = try data.load(into: &builder)
            let graph = try (consume builder).build()
            let store = try directory.installGraph(named: options.graph, graph: graph, replacing: true)
            defer { store.close() }
            // The people search (social.searchPeople) runs on a full-text index of the names.
            _ = try QueryEngine().execute("CREATE FULLTEXT INDEX FOR (u:User) ON (u.name)", on: store)
        } catch {
            GraphdMain.printError("graphd demo: cannot create graph '\(options.graph)': \(error)")
            return 1
        }
        let milliseconds = REPLSession.milliseconds(clock.now - started)
        print(summary(data, options: options, milliseconds: milliseconds))
        return 0
    }

    /// The small preset scaled to `options.users`, capped so that tiny graphs stay sensible.
    static func parameters(for options: DemoOptions) -> SocialGraphParameters {
        let users = options.users
        var parameters = SocialGraphParameters(
            users: users,
            averageDegree: min(40, Double(max(1, users / 5))),
            maximumDegree: min(1_000, users - 1),
            events: max(1, users / 10),
            invitesPerEvent: min(20, max(1, users / 5)))
        parameters.communitySizes = min(20, users)...min(1_000, max(20, users))
        parameters.seed = options.seed
        return parameters
    }

    /// Users the example queries name, picked from the data so that each query has answers:
    /// a user with friends, the non-friend sharing most friends with them, and a user with
    /// friend requests waiting.
    struct ExampleUsers: Equatable {
        var user: Int
        var suggested: Int
        var requested: Int
        /// What the user might type to find the suggested person: the first letters of their last name.
        var typed: String
    }

    static func exampleUsers(_ data: SocialDataset) -> ExampleUsers {
        let (offsets, neighbours) = data.friendAdjacency()
        let friendsOf = { (u: Int) in neighbours[offsets[u]..<offsets[u + 1]] }
        let user = (0..<data.userCount).first { !friendsOf($0).isEmpty } ?? 0
        var mutual = [Int](repeating: 0, count: data.userCount)
        for friend in friendsOf(user) {
            for candidate in friendsOf(Int(friend)) { mutual[Int(candidate)] += 1 }
        }
        mutual[user] = 0
        for friend in friendsOf(user) { mutual[Int(friend)] = 0 }
        let suggested = mutual.indices.max { mutual[$0] < mutual[$1] } ?? user
        let requested = data.requestTo.first.map(Int.init) ?? user
        let lastName = data.names[suggested].split(separator: " ").last.map(String.init) ?? data.names[suggested]
        return ExampleUsers(user: user, suggested: suggested, requested: requested, typed: String(lastName.prefix(3)).lowercased())
    }

    /// Queries worth trying on the demo schema (docs/social.md), with a title each.
    static func queries(_ users: ExampleUsers) -> [(title: String, query: String)] {
        let u = users.user, s = users.suggested, r = users.requested
        return [
            ("User \(u)'s friends",
             "MATCH (u:User {id: \(u)})-[:FRIEND]-(f:User) RETURN f.name, f.username ORDER BY f.name LIMIT 10;"),
            ("People user \(u) may know, by mutual friends",
             "MATCH (u:User {id: \(u)})-[:FRIEND]-(m)-[:FRIEND]-(s:User) WHERE s <> u AND NOT (u)-[:FRIEND]-(s) RETURN s.id, s.name, count(DISTINCT m) AS mutual ORDER BY mutual DESC LIMIT 5;"),
            ("Mutual friends of users \(u) and \(s)",
             "MATCH (:User {id: \(u)})-[:FRIEND]-(m:User)-[:FRIEND]-(:User {id: \(s)}) RETURN DISTINCT m.name;"),
            ("Who has the most friends",
             "MATCH (u:User)-[:FRIEND]-(f) RETURN u.name, count(f) AS friends ORDER BY friends DESC LIMIT 5;"),
            ("Events and their hosts",
             "MATCH (h:User)-[:HOSTS]->(e:Event) RETURN e.title, h.name ORDER BY e.title LIMIT 5;"),
            ("Who is invited to event 0, and who said yes",
             "MATCH (u:User)-[:INVITED]->(e:Event {id: 0}) OPTIONAL MATCH (u)-[a:ATTENDING]->(e) RETURN u.name, a IS NOT NULL AS going LIMIT 10;"),
            ("Most followed users",
             "MATCH (u:User)<-[:FOLLOWS]-(f) RETURN u.name, count(f) AS followers ORDER BY followers DESC LIMIT 5;"),
            ("Friend requests waiting for user \(r)",
             "MATCH (a:User)-[:FRIEND_REQUEST]->(:User {id: \(r)}) RETURN a.name;"),
            ("User \(u) types '\(users.typed)' in the search box: people by name, friends first, typos forgiven",
             "CALL social.searchPeople(\(u), '\(users.typed)', {limit: 5}) YIELD user, relation, mutual, typos RETURN user.name, relation, mutual, typos;"),
        ]
    }

    static func summary(_ data: SocialDataset, options: DemoOptions, milliseconds: Double) -> String {
        func n(_ x: Int) -> String { ImportProgressBar.grouped(x) }
        var text = "Created graph '\(options.graph)' in \(options.dataDirectory) (seed \(options.seed)) in "
            + "\(ResultFormatter.formatMilliseconds(milliseconds)): \(n(data.userCount)) users, \(n(data.friendshipCount)) friendships, "
            + "\(n(data.requestFrom.count)) pending friend requests, \(n(data.followFrom.count)) follows, "
            + "\(n(data.eventCount)) events with \(n(data.invitedUser.count)) invitations and \(n(data.attendingUser.count)) RSVPs.\n\n"
        text += "Explore it:  graphd repl --data \(options.dataDirectory) --graph \(options.graph)\n"
        text += "or serve it: graphd serve --data \(options.dataDirectory)   (then GRAPH.QUERY \(options.graph) \"…\")\n\n"
        text += "Queries to try:\n"
        for (title, query) in queries(exampleUsers(data)) { text += "  // \(title)\n  \(query)\n" }
        return text
    }
}
