// FriendMerge.swift — the friends of one node as one sorted sequence. FRIEND is stored once per
// pair and matched either way, so a node's friends are its outgoing and incoming FRIEND lists,
// both sorted by neighbour id: a merge yields them in ascending order, duplicates and self dropped.
// This is the innermost loop of every 2-hop kernel, so it reads the neighbour ids by pointer.

/// Iterates a node's friends in ascending neighbour id: the merge of its outgoing and incoming
/// FRIEND neighbour ids. A pair stored twice (both directions, or two parallel edges) yields
/// once; a self-loop never yields. No allocation.
struct FriendMerge {
    /// Held so that the buffers behind `a` and `b` stay alive (and unchanged: the graph is an
    /// immutable value for the length of a read) while the merge runs.
    let outgoing: AdjacencyList
    let incoming: AdjacencyList
    let a: UnsafePointer<UInt32>
    let b: UnsafePointer<UInt32>
    let na: Int
    let nb: Int
    let owner: UInt32
    var i = 0
    var j = 0
    /// The neighbour last yielded (or the owner, so that a self-loop at the start is skipped).
    var previous: UInt32

    @inline(__always) init(_ graph: Graph, _ node: NodeID, _ friend: RelationshipTypeID?) {
        outgoing = graph.socialAdjacency(of: node, friend, .outgoing)
        incoming = graph.socialAdjacency(of: node, friend, .incoming)
        a = outgoing.neighborIDs.withUnsafeBufferPointer { $0.baseAddress } ?? NeighborRuns.empty
        b = incoming.neighborIDs.withUnsafeBufferPointer { $0.baseAddress } ?? NeighborRuns.empty
        na = outgoing.count
        nb = incoming.count
        owner = node.rawValue
        previous = node.rawValue
    }

    /// Upper bound of the number of friends (exact when every pair is stored once).
    var capacityHint: Int { na + nb }

    /// The next friend with where it was found: a position in the outgoing list, or else in
    /// the incoming one (for a caller that wants the FRIEND relationship too), or nil.
    @inline(__always) mutating func nextStep() -> (id: UInt32, outgoing: Bool, position: Int)? {
        while true {
            let n: UInt32, fromA: Bool, position: Int
            if i < na && (j >= nb || a[i] <= b[j]) {
                n = a[i]; fromA = true; position = i; i &+= 1
            } else if j < nb {
                n = b[j]; fromA = false; position = j; j &+= 1
            } else {
                return nil
            }
            if n != previous && n != owner {
                previous = n
                return (n, fromA, position)
            }
        }
    }

    /// The next friend's raw node id, or nil.
    @inline(__always) mutating func nextID() -> UInt32? {
        while true {
            let n: UInt32
            if i < na {
                if j < nb {
                    let x = a[i], y = b[j]
                    let takeA = x <= y
                    n = takeA ? x : y
                    i &+= takeA ? 1 : 0
                    j &+= takeA ? 0 : 1
                } else {
                    n = a[i]; i &+= 1
                }
            } else if j < nb {
                n = b[j]; j &+= 1
            } else {
                return nil
            }
            if n != previous && n != owner {
                previous = n
                return n
            }
        }
    }

    /// Whether `id` is one of the friends (or the owner, on a self-loop), for ids asked in
    /// ascending order: each search of the two lists starts where the last one stopped, so the
    /// searches of a short list's friends narrow as they go. A probed merge is not walked: the
    /// probes move the walk's positions.
    @inline(__always) mutating func containsAscending(_ id: UInt32) -> Bool {
        i &+= (a + i).lowerBound(of: id, count: na &- i)
        if i < na && a[i] == id { return true }
        j &+= (b + j).lowerBound(of: id, count: nb &- j)
        return j < nb && b[j] == id
    }

    /// Calls `body` with every remaining friend id, ascending: the branch-light loop of the
    /// 2-hop kernels (the merge step picks a side with a conditional move, not a jump).
    @inline(__always) mutating func forEachID(_ body: (UInt32) -> Void) {
        let rest = NeighborRuns(outgoing: a + i, outgoingCount: na - i, incoming: b + j, incomingCount: nb - j)
        previous = rest.forEachFriend(of: owner, after: previous, body)
        i = na
        j = nb
    }
}

extension NeighborRuns {
    /// Calls `body` with the merge of the two runs, ascending, skipping `owner` (a self-loop) and
    /// repeats (`previous` is the id seen last before, skipped too): a node's friends, when the
    /// runs are its FRIEND lists. Returns the id seen last (FriendMerge's `previous`).
    @inline(__always) func forEachFriend(of owner: UInt32, after previous: UInt32, _ body: (UInt32) -> Void) -> UInt32 {
        let a = outgoing, na = outgoingCount, b = incoming, nb = incomingCount
        var prev = previous
        // Lists that do not interleave (always the case when each pair is stored from the lower
        // id to the higher, as imports do) are walked one after the other: no merge at all.
        if na > 0 && nb > 0 {
            if b[nb - 1] < a[0] {
                Self.walk(b, nb, &prev, owner, body)
                Self.walk(a, na, &prev, owner, body)
                return prev
            }
            if a[na - 1] < b[0] {
                Self.walk(a, na, &prev, owner, body)
                Self.walk(b, nb, &prev, owner, body)
                return prev
            }
        }
        var i = 0, j = 0
        while i < na && j < nb {
            let x = a[i], y = b[j]
            let takeA = x <= y
            let n = takeA ? x : y
            i &+= takeA ? 1 : 0
            j &+= takeA ? 0 : 1
            if n != prev { prev = n; if n != owner { body(n) } }
        }
        Self.walk(a + i, na - i, &prev, owner, body)
        Self.walk(b + j, nb - j, &prev, owner, body)
        return prev
    }

    /// Every entry of one sorted run, adjacent duplicates and the owner skipped.
    @inline(__always) private static func walk(_ p: UnsafePointer<UInt32>, _ n: Int, _ prev: inout UInt32, _ me: UInt32,
                                               _ body: (UInt32) -> Void) {
        var k = 0
        while k < n {
            let x = p[k]; k &+= 1
            if x != prev { prev = x; if x != me { body(x) } }
        }
    }
}
