// Phrasings.swift — many ordinary Cypher phrasings of each social question, drawn from a seed:
// the metamorphic tests run every one with and without the planner's rewrites (the answers must
// agree), and `graphd-bench phrasings` times them beside the question's procedure. Each
// dimension is one way users write the same thing: where the user is pinned (a map, WHERE, a
// parameter), from which end the pattern is written, one MATCH or several or comma-separated
// patterns, labels the schema implies, how `c <> u` and "not already a friend" are spelled,
// aggregation in WITH or RETURN, DISTINCT or not, and the order and limit.

/// One social question a phrasing asks.
public enum PhrasingQuestion: String, CaseIterable, Sendable {
    /// People you may know: friends of friends, not friends, not the user, ranked by mutual friends.
    case connections
    /// How many friends of friends (not friends, not the user).
    case connectionCount
    /// Mutual friends of two users.
    case mutualFriends
    /// How many friends a user has.
    case friendCount
    /// Triangles through a user: pairs of its friends who are friends.
    case triangles
    /// The users with the most friends.
    case topDegree
    /// How many people are two hops from a user (friends of friends, whoever they are).
    case reach
}

/// A phrasing: its text (parameters `$u`, `$v`, `$k`), and whether its rows come in one
/// defined order (compare lists) or not (compare as multisets).
public struct Phrasing: Sendable, Hashable {
    public var question: PhrasingQuestion
    public var text: String
    public var isOrdered: Bool
}

/// Draws phrasings from a seed: the same seed, the same phrasings.
public struct PhrasingGenerator: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// SplitMix64: small, fast, and a good spread for picking among a few options.
    private mutating func random() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func pick<T>(_ options: [T]) -> T { options[Int(random() % UInt64(options.count))] }
    private mutating func chance() -> Bool { random() & 1 == 0 }

    /// `count` distinct phrasings of `question` (fewer if the dimensions give fewer).
    public mutating func phrasings(of question: PhrasingQuestion, count: Int, relationship: String = "FRIEND",
                                   label: String = "User") -> [Phrasing] {
        var seen = Set<String>()
        var result: [Phrasing] = []
        var attempts = 0
        while result.count < count && attempts < count * 20 {
            attempts += 1
            let phrasing = draw(question, t: relationship, l: label)
            if seen.insert(phrasing.text).inserted { result.append(phrasing) }
        }
        return result
    }

    // MARK: - The dimensions

    /// The user node with its pin, and a WHERE conjunct if the pin is written there.
    private mutating func pinned(_ name: String, _ parameter: String, l: String) -> (node: String, condition: String?) {
        switch random() % 4 {
        case 0: return ("(\(name):\(l) {id: $\(parameter)})", nil)
        case 1: return ("(\(name):\(l))", "\(name).id = $\(parameter)")
        case 2: return ("(\(name):\(l))", "$\(parameter) = \(name).id")
        default: return ("(\(name) {id: $\(parameter)})", nil)
        }
    }

    /// A node the schema says is a user: labelled or not.
    private mutating func implied(_ name: String, l: String) -> String { chance() ? "(\(name))" : "(\(name):\(l))" }

    /// An undirected relationship of type t, sometimes named.
    private mutating func hop(_ t: String, name: String) -> String { random() % 3 == 0 ? "-[\(name):\(t)]-" : "-[:\(t)]-" }

    /// `a <> b`, spelled one of the ways users write it.
    private mutating func different(_ a: String, _ b: String) -> String {
        pick(["\(a) <> \(b)", "\(b) <> \(a)", "NOT \(a) = \(b)", "NOT (\(b) = \(a))", "id(\(a)) <> id(\(b))"])
    }

    /// "a and b are not friends", spelled one of the ways users write it.
    private mutating func notFriends(_ a: String, _ b: String, t: String) -> String {
        pick(["NOT (\(a))-[:\(t)]-(\(b))", "NOT (\(b))-[:\(t)]-(\(a))", "NOT exists((\(a))-[:\(t)]-(\(b)))",
              "NOT EXISTS { MATCH (\(a))-[:\(t)]-(\(b)) }"])
    }

    /// The MATCH clauses of the path `u - f - c` (u pinned), written in one of the shapes users
    /// write it, with the pin's condition and `extra` conditions in a WHERE.
    private mutating func twoHop(t: String, l: String, extra: [String]) -> String {
        let (u, pin) = pinned("u", "u", l: l)
        let f = implied("f", l: l), c = implied("c", l: l)
        let r1 = hop(t, name: "r1"), r2 = hop(t, name: "r2")
        var conditions = extra
        if let pin { conditions.insert(pin, at: Int(random() % UInt64(conditions.count + 1))) }
        let whereText = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        switch random() % 5 {
        case 0: return "MATCH \(u)\(r1)\(f)\(r2)\(c)\(whereText)"
        case 1: return "MATCH \(c)\(r2)\(f)\(r1)\(u)\(whereText)"
        case 2: return "MATCH \(u)\(r1)\(f), (f)\(r2)\(c)\(whereText)"
        case 3: return "MATCH \(c)\(r2)\(f), \(u)\(r1)(f)\(whereText)"
        default: return "MATCH \(u)\(r1)\(f) MATCH (f)\(r2)\(c)\(whereText)"
        }
    }

    private mutating func draw(_ question: PhrasingQuestion, t: String, l: String) -> Phrasing {
        switch question {
        case .connections:
            if random() % 6 == 0 {
                // The neighbour list collected and unwound, "not a friend" as not in it
                // (FalkorDB's documented form); its paths through distinct friends are the count.
                let (u, pin) = pinned("u", "u", l: l)
                let f = implied("f", l: l), c = implied("c", l: l)
                let whereText = pin.map { " WHERE " + $0 } ?? ""
                return Phrasing(question: question, text: "MATCH \(u)-[:\(t)]-\(f)\(whereText) WITH u, collect(f) AS fs "
                                + "UNWIND fs AS f MATCH (f)-[:\(t)]-\(c) WHERE \(different("c", "u")) AND NOT c IN fs "
                                + "RETURN c.id AS id, count(*) AS m ORDER BY m DESC, id LIMIT $k", isOrdered: true)
            }
            let conditions = [different("c", "u"), notFriends("u", "c", t: t)].shuffled(using: &self)
            let match = twoHop(t: t, l: l, extra: conditions)
            // Paths through distinct friends: on a graph storing each friendship once, each
            // friend is one path, so all three count the same (the metamorphic tests hold every
            // spelling to its own meaning, on graphs where they differ too).
            let count = pick(["count(DISTINCT f)", "count(DISTINCT f)", "count(*)", "count(f)"])
            let order = pick(["ORDER BY m DESC, id(c)", "ORDER BY m DESC, id(c) ASC"])
            // The question is the top k: every phrasing has a LIMIT (all rows is another question,
            // whose cost is the rows' own).
            let limit = pick([" LIMIT $k", " LIMIT 10", " SKIP 2 LIMIT $k"])
            switch random() % 4 {
            case 3:
                // Grouped by the id alone: one row per id value, so ordering by it is total.
                return Phrasing(question: question, text: "\(match) RETURN c.id AS id, \(count) AS m ORDER BY m DESC, id\(limit)", isOrdered: true)
            case 0:
                return Phrasing(question: question, text: "\(match) WITH c, \(count) AS m RETURN c.id AS id, m \(order)\(limit)", isOrdered: true)
            case 1:
                return Phrasing(question: question, text: "\(match) WITH c, \(count) AS m \(order)\(limit) RETURN c.id AS id, m", isOrdered: true)
            default:
                return Phrasing(question: question, text: "\(match) RETURN c, \(count) AS m \(order)\(limit)", isOrdered: true)
            }
        case .connectionCount:
            let conditions = [different("c", "u"), notFriends("u", "c", t: t)].shuffled(using: &self)
            let match = twoHop(t: t, l: l, extra: conditions)
            let tail = pick(["RETURN count(DISTINCT c) AS n", "WITH DISTINCT c RETURN count(*) AS n", "WITH DISTINCT c RETURN count(c) AS n"])
            return Phrasing(question: question, text: "\(match) \(tail)", isOrdered: true)
        case .mutualFriends:
            let (a, pinA) = pinned("a", "u", l: l)
            let (b, pinB) = pinned("b", "v", l: l)
            let m = implied("m", l: l)
            var conditions = [pinA, pinB].compactMap { $0 }
            if chance() { conditions.append(different("a", "b")) }
            conditions.shuffle(using: &self)
            let whereText = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let match: String
            switch random() % 4 {
            case 0: match = "MATCH \(a)-[:\(t)]-\(m)-[:\(t)]-\(b)\(whereText)"
            case 1: match = "MATCH \(b)-[:\(t)]-\(m)-[:\(t)]-\(a)\(whereText)"
            case 2: match = "MATCH \(a)-[:\(t)]-\(m), \(b)-[:\(t)]-(m)\(whereText)"
            default: match = "MATCH \(a), \(b) MATCH (a)-[:\(t)]-\(m)-[:\(t)]-(b)\(whereText)"
            }
            switch random() % 4 {
            case 0: return Phrasing(question: question, text: "\(match) RETURN DISTINCT m.id AS id", isOrdered: false)
            case 1: return Phrasing(question: question, text: "\(match) RETURN count(DISTINCT m) AS n", isOrdered: true)
            case 2: return Phrasing(question: question, text: "\(match) WITH DISTINCT m RETURN m.id AS id", isOrdered: false)
            default: return Phrasing(question: question, text: "\(match) RETURN m.id AS id", isOrdered: false)
            }
        case .friendCount:
            let (u, pin) = pinned("u", "u", l: l)
            let whereText = pin.map { " WHERE " + $0 } ?? ""
            let f = implied("f", l: l)
            switch random() % 5 {
            case 0: return Phrasing(question: question, text: "MATCH \(u)-[:\(t)]-\(f)\(whereText) RETURN count(f) AS n", isOrdered: true)
            case 1: return Phrasing(question: question, text: "MATCH \(u)-[:\(t)]-\(f)\(whereText) RETURN count(*) AS n", isOrdered: true)
            case 2: return Phrasing(question: question, text: "MATCH \(u)-[:\(t)]-\(f)\(whereText) RETURN count(DISTINCT f) AS n", isOrdered: true)
            case 3: return Phrasing(question: question, text: "MATCH \(u)\(whereText) RETURN size([(u)-[:\(t)]-(f) | f]) AS n", isOrdered: false)
            default: return Phrasing(question: question, text: "MATCH \(f)-[:\(t)]-\(u)\(whereText) WITH u, count(f) AS n RETURN n", isOrdered: false)
            }
        case .triangles:
            let (u, pin) = pinned("u", "u", l: l)
            var conditions = [pin].compactMap { $0 }
            if chance() { conditions.append("id(a) < id(b)") }
            let whereText = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let a = implied("a", l: l), b = implied("b", l: l)
            let match: String
            switch random() % 3 {
            case 0: match = "MATCH \(u)-[:\(t)]-\(a)-[:\(t)]-\(b)-[:\(t)]-(u)\(whereText)"
            case 1: match = "MATCH \(u)-[:\(t)]-\(a), (u)-[:\(t)]-\(b), (a)-[:\(t)]-(b)\(whereText)"
            default: match = "MATCH \(u)-[:\(t)]-\(a)-[:\(t)]-\(b) MATCH (b)-[:\(t)]-(u)\(whereText)"
            }
            return Phrasing(question: question, text: "\(match) RETURN count(*) AS n", isOrdered: true)
        case .reach:
            let (u, pin) = pinned("u", "u", l: l)
            let whereText = pin.map { " WHERE " + $0 } ?? ""
            let c = implied("c", l: l)
            let match: String
            switch random() % 4 {
            case 0: match = "MATCH \(u)-[:\(t)*2]-\(c)\(whereText)"
            case 1: match = "MATCH \(u)-[:\(t)]-()-[:\(t)]-\(c)\(whereText)"
            case 2: match = "MATCH \(c)-[:\(t)]-\(implied("f", l: l))-[:\(t)]-\(u)\(whereText)"
            default: match = "MATCH \(u)-[:\(t)]-(f) MATCH (f)-[:\(t)]-\(c)\(whereText)"
            }
            let tail = pick(["RETURN count(DISTINCT c) AS n", "WITH DISTINCT c RETURN count(*) AS n", "WITH DISTINCT c RETURN count(c) AS n"])
            return Phrasing(question: question, text: "\(match) \(tail)", isOrdered: true)
        case .topDegree:
            let u = "(u:\(l))", f = implied("f", l: l)
            // Ranked in WITH, where u is still there to break ties by.
            let rank = pick([" ORDER BY d DESC, id(u) LIMIT 10", " ORDER BY d DESC, id(u) LIMIT $k"]) + " RETURN u.id AS id, d"
            switch random() % 3 {
            case 0: return Phrasing(question: question, text: "MATCH \(u)-[:\(t)]-\(f) WITH u, count(f) AS d\(rank)", isOrdered: true)
            case 1: return Phrasing(question: question, text: "MATCH \(f)-[:\(t)]-\(u) WITH u, count(*) AS d\(rank)", isOrdered: true)
            default:
                return Phrasing(question: question, text: "MATCH \(u) WITH u, size([(u)-[:\(t)]-(x) | x]) AS d WHERE d > 0 WITH u, d\(rank)",
                                isOrdered: true)
            }
        }
    }
}

extension PhrasingGenerator: RandomNumberGenerator {
    /// The generator as the standard library's source of randomness (for `shuffled(using:)`).
    public mutating func next() -> UInt64 { random() }
}
