// GraphChangesCommand.swift — GRAPH.CHANGES, the change feed's pull form, for backends that
// process events and persist their position (XREAD's shape, the feed's tokens):
//   GRAPH.CHANGES <graph> SINCE <token> [FOR user:<id>] [TYPES <type> …] [COUNT <n>] [BLOCK <ms>]
//   → [next-token, [payload, …]]
// The payloads are the ones Pub/Sub carries. Whole commits only: a page ends after the commit that
// reached COUNT, and next-token is the last commit examined (the one to pass as SINCE next time),
// so commits with nothing for the filter are not examined again. With nothing to answer and BLOCK,
// it waits (0: without end) for the next commit. A token from another history, from the future or
// older than the retained log gets `-RESET …` naming the current token: revalidate, then go on from it.

import Dispatch
import GraphStore

/// The GRAPH.CHANGES handler.
enum GraphChangesCommand {
    /// Default and largest COUNT.
    static let defaultCount = 1000
    /// Commits examined at most per call (a filter that matches rarely still answers in bounded time).
    static let scanLimit = 10_000

    struct Request: Equatable {
        var graph: String
        var since: ChangeToken
        var user: String?
        var types: Set<String> = []
        var count = GraphChangesCommand.defaultCount
        var block: Int?
    }

    static let handler: CommandHandler = { invocation, context, reply in
        let request: Request
        switch parse(invocation.arguments) {
        case .success(let parsed): request = parsed
        case .failure(let message):
            reply.error(message.text)
            return .keepOpen
        }
        let store: GraphStore
        do throws(StoreError) {
            guard let found = try context.dataDirectory.graph(named: request.graph) else {
                reply.error(GraphCommands.emptyKeyMessage)
                return .keepOpen
            }
            store = found
        } catch {
            reply.error(GraphCommands.storeErrorMessage(error))
            return .keepOpen
        }
        let feed = context.changeFeed
        let position = feed.position(of: request.graph)
        guard case .sequence = store.baseline(for: request.since) else {
            reply.error("RESET token \(request.since) is not in this graph's history (another history, or the future); "
                        + "current \(store.token())")
            return .keepOpen
        }
        let deadline: DispatchTime? = request.block.map { $0 == 0 ? .distantFuture : .now() + .milliseconds($0) }
        var after = request.since.sequence
        var history = request.since.history
        var payloads: [[UInt8]] = []
        var examined = 0
        reading: while true {
            switch feed.commits(request.graph, generation: position.generation, after: after, limit: 256) {
            case .gone(let oldest):
                reply.error("RESET token \(request.since) is older than the retained changes (oldest retained "
                            + "\(ChangeToken(history: store.history.id, sequence: oldest > 0 ? oldest - 1 : 0))); current \(store.token())")
                return .keepOpen
            case .needsLog:
                break reading
            case .commits(let commits):
                if commits.isEmpty {
                    if payloads.isEmpty, let deadline, feed.wait(request.graph, after: after, until: deadline) { continue reading }
                    break reading
                }
                for commit in commits {
                    payloads += events(of: commit, for: request)
                    after = commit.sequence
                    history = commit.history
                    examined += 1
                    if payloads.count >= request.count || examined >= scanLimit { break reading }
                }
            }
        }
        reply.arrayHeader(2)
        reply.bulkString(ChangeToken(history: history, sequence: after).description)
        reply.arrayHeader(payloads.count)
        for payload in payloads { reply.bulkString(payload) }
        return .keepOpen
    }

    /// The payloads of `commit` the request asks for.
    static func events(of commit: DerivedCommit, for request: Request) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for event in commit.social where request.types.isEmpty || request.types.contains(event.type.rawValue) {
            if let user = request.user, event.to.appID?.description != user { continue }
            out.append(ChangePayload.encode(event, of: commit))
        }
        guard request.user == nil else { return out }
        for change in commit.changes where request.types.isEmpty || request.types.contains(change.type) {
            out.append(ChangePayload.encode(change, of: commit))
        }
        return out
    }

    /// A message for the client.
    struct Message: Error, Equatable { var text: String }

    static let keywords: Set<String> = ["SINCE", "FOR", "TYPES", "COUNT", "BLOCK"]

    static func parse(_ arguments: [[UInt8]]) -> Result<Request, Message> {
        let texts = arguments.map { String(decoding: $0, as: UTF8.self) }
        let syntax = Message(text: "ERR syntax: GRAPH.CHANGES <graph> SINCE <token> [FOR user:<id>] [TYPES <type> …] [COUNT <n>] [BLOCK <ms>]")
        guard texts.count >= 3, texts[1].uppercased() == "SINCE" else { return .failure(syntax) }
        guard let since = ChangeToken(texts[2]) else {
            return .failure(Message(text: "ERR invalid token '\(texts[2])': a token is <history>-<sequence>, as the feed gives them"))
        }
        var request = Request(graph: texts[0], since: since)
        var i = 3
        while i < texts.count {
            let keyword = texts[i].uppercased()
            switch keyword {
            case "FOR":
                guard i + 1 < texts.count, texts[i + 1].hasPrefix("user:"), texts[i + 1].count > 5 else { return .failure(syntax) }
                request.user = String(texts[i + 1].dropFirst(5))
                i += 2
            case "TYPES":
                i += 1
                let start = i
                while i < texts.count, !keywords.contains(texts[i].uppercased()) {
                    request.types.insert(texts[i])
                    i += 1
                }
                if i == start { return .failure(syntax) }
            case "COUNT":
                guard i + 1 < texts.count, let n = Int(texts[i + 1]), n > 0 else {
                    return .failure(Message(text: "ERR COUNT takes a positive integer"))
                }
                request.count = min(n, defaultCount)
                i += 2
            case "BLOCK":
                guard i + 1 < texts.count, let ms = Int(texts[i + 1]), ms >= 0, ms <= 86_400_000 else {
                    return .failure(Message(text: "ERR BLOCK takes milliseconds, 0 (no end) to 86400000"))
                }
                request.block = ms
                i += 2
            default:
                return .failure(syntax)
            }
        }
        return .success(request)
    }
}
