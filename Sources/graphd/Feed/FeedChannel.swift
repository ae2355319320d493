// FeedChannel.swift — the change feed's channel names, as SUBSCRIBE and PSUBSCRIBE take them:
//   graphd:<graph>:user:<id>   that user's social events
//   graphd:<graph>:notify      every social event, once per recipient
//   graphd:<graph>:changes     every node and relationship change
// each optionally followed by `@<token>` (replay what came after it) or `@now`. A pattern names
// its graph literally (`graphd:social:user:*`); the rest of it is a glob over the channel names.
// Graph names with `:` cannot be subscribed to this way. Any other name is a plain Pub/Sub channel.

import GraphStore

/// Where a feed subscription starts.
enum FeedResume: Sendable, Equatable {
    /// Live events only (no suffix, or `@now`).
    case now
    /// Retained events after this token, then a position message, then live ones.
    case after(ChangeToken)
    /// A suffix that is no token: answered with a reset.
    case invalid
}

/// A parsed feed channel or pattern.
struct FeedChannel: Sendable, Equatable {
    static let prefix = "graphd:"

    var graph: String
    /// The channel name without the `@…` suffix (a glob for a pattern).
    var channel: [UInt8]
    var isPattern: Bool
    var resume: FeedResume

    /// Parses a SUBSCRIBE (or PSUBSCRIBE: `pattern`) name; nil for anything that is not a feed channel.
    init?(_ name: [UInt8], pattern: Bool) {
        guard name.count > Self.prefix.utf8.count, name.starts(with: Self.prefix.utf8),
              let text = String(validating: name, as: UTF8.self) else { return nil }
        var body = Substring(text)
        resume = .now
        if let at = body.lastIndex(of: "@") {
            let suffix = body[body.index(after: at)...]
            if suffix == "now" {
                resume = .now
            } else if let token = ChangeToken(String(suffix)) {
                resume = .after(token)
            } else {
                resume = .invalid
            }
            body = body[..<at]
        }
        let rest = body.dropFirst(Self.prefix.count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let graph = String(rest[..<colon]), stream = rest[rest.index(after: colon)...]
        guard !graph.isEmpty, !graph.contains(where: { "*?[\\".contains($0) }) else { return nil }
        if !pattern {
            let known = stream == "notify" || stream == "changes" || (stream.hasPrefix("user:") && stream.count > 5)
            guard known else { return nil }
        }
        self.graph = graph
        channel = Array(body.utf8)
        isPattern = pattern
    }

    static func user(_ graph: String, _ id: AppID) -> [UInt8] { Array("graphd:\(graph):user:\(id)".utf8) }
    static func notify(_ graph: String) -> [UInt8] { Array("graphd:\(graph):notify".utf8) }
    static func changes(_ graph: String) -> [UInt8] { Array("graphd:\(graph):changes".utf8) }
}
