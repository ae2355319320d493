// GraphHistory.swift — which line of commits a graph's sequence numbers belong to, and its file.
// A change token is only meaningful with the history it came from: when a log is cut back (a
// repair, a failed fsync, a power loss under --fsync everysec) new commits reuse the sequence
// numbers of lost ones, and a copied graph numbers its own commits. Each such event starts a new
// history and remembers the old one with the last sequence the two share, so older tokens
// stay valid up to that point and are never matched against commits they did not see.
//
// FILE `<data>/graphs/<name>/history`, UTF-8 text written durably (AppendLog's write-then-rename),
// one field per line:
//   graphd-history 1
//   id <16 lowercase hex digits>
//   state open <fsync policy> | state closed
//   ancestor <16 hex digits> <last shared sequence>     (newest first, at most `ancestorLimit`)
// `state` says whether the process that wrote it was still running: a graph found `open` under a
// policy that publishes commits before they are durable may have lost published commits, so it
// starts a new history. A missing or unreadable file starts a new history too: that costs
// clients a revalidation, never a wrong "unchanged".

/// The history a graph's sequence numbers belong to, with the histories it continues.
public struct GraphHistory: Sendable, Equatable {
    /// A history this one continues: its sequence numbers up to `lastSequence` are shared.
    public struct Ancestor: Sendable, Equatable {
        public var id: String
        public var lastSequence: UInt64
    }

    /// How many ancestors are remembered; a token from an older one counts as changed.
    static let ancestorLimit = 8

    /// 16 lowercase hex digits, random.
    public private(set) var id: String
    /// Newest first.
    public private(set) var ancestors: [Ancestor]

    init(id: String, ancestors: [Ancestor] = []) {
        self.id = id
        self.ancestors = ancestors
    }

    /// A history with a new random id and no ancestors (a new or copied graph).
    public static func fresh() -> GraphHistory { GraphHistory(id: randomID()) }

    /// Starts a new history that shares this one's commits up to `sequence`.
    public mutating func fork(sharing sequence: UInt64) {
        ancestors.insert(Ancestor(id: id, lastSequence: sequence), at: 0)
        if ancestors.count > Self.ancestorLimit { ancestors.removeLast(ancestors.count - Self.ancestorLimit) }
        id = Self.randomID()
    }

    /// Whether commit `sequence` of history `history` is commit `sequence` of this one, given that
    /// this one has reached `last`.
    public func contains(_ history: String, _ sequence: UInt64, last: UInt64) -> Bool {
        if history == id { return sequence <= last }
        guard let ancestor = ancestors.first(where: { $0.id == history }) else { return false }
        return sequence <= ancestor.lastSequence && sequence <= last
    }

    static func randomID() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Reads and writes a graph's `history` file (format above).
struct HistoryFile {
    static let name = "history"
    let directory: String
    let fileSystem: FileSystem

    var path: String { directory + "/" + Self.name }

    /// What the file says: the history and whether its writer was still running, with the
    /// fsync policy it ran under; nil when the file is missing or unreadable.
    func read() -> (history: GraphHistory, openUnder: FsyncPolicy?)? {
        guard fileSystem.fileExists(path), let file = try? fileSystem.open(path) else { return nil }
        defer { file.close() }
        guard let size = try? file.size(), size < 1 << 16, let bytes = try? file.read(at: 0, count: size) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        guard lines.first == ["graphd-history", "1"] else { return nil }
        var id: String?, openUnder: FsyncPolicy?, ancestors: [GraphHistory.Ancestor] = []
        for fields in lines.dropFirst() {
            switch fields.first {
            case "id" where fields.count == 2 && Self.isID(fields[1]): id = fields[1]
            case "state" where fields == ["state", "closed"]: openUnder = nil
            case "state" where fields.count == 3 && fields[1] == "open":
                guard let policy = FsyncPolicy(rawValue: fields[2]) else { return nil }
                openUnder = policy
            case "ancestor" where fields.count == 3 && Self.isID(fields[1]):
                guard let sequence = UInt64(fields[2]) else { return nil }
                ancestors.append(GraphHistory.Ancestor(id: fields[1], lastSequence: sequence))
            default: return nil
            }
        }
        guard let id else { return nil }
        return (GraphHistory(id: id, ancestors: ancestors), openUnder)
    }

    /// Replaces the file durably. `openUnder`: the policy of the running process, nil at close.
    func write(_ history: GraphHistory, openUnder: FsyncPolicy?) throws(StoreError) {
        var text = "graphd-history 1\nid \(history.id)\n"
        text += openUnder.map { "state open \($0.rawValue)\n" } ?? "state closed\n"
        for ancestor in history.ancestors { text += "ancestor \(ancestor.id) \(ancestor.lastSequence)\n" }
        try fileSystem.createDurably(path, contents: Array(text.utf8))
    }

    private static func isID(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
