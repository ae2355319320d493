// TraversalScratch.swift — the reusable working memory of one reader's traversals: a counter
// and a visited mark per node, sized to the graph's node capacity once and reused, so a 2-hop
// query allocates nothing proportional to the graph.

/// Per-reader scratch space for the social kernels. A value type used `inout`: one query owns it
/// for its whole run, so two concurrent queries can never share one (give each reader thread or
/// connection its own, or lend them from a `TraversalScratchPool`).
///
/// Counters are zero between queries: each query lists the nodes it touched and zeroes just
/// those (O(touched), not O(nodes)). Marks are epoch stamps: a new query bumps the epoch, which
/// clears every mark at once; the array is wiped only when the 32-bit epoch wraps.
public struct TraversalScratch: Sendable {
    /// Per node: a count (mutual friends, paths). Zero outside a query.
    var counts: [UInt32] = []
    /// Per node: the epoch in which it was last marked.
    var marks: [UInt32] = []
    var epoch: UInt32 = 0
    /// Nodes whose counter is non-zero, in first-touch order: the first `touchedCount` slots.
    /// Sized to the node capacity plus one (a node enters once, when its counter leaves zero),
    /// so the hot loop stores without a capacity check, and may store every node it steps on
    /// into the next slot, counting it only on a first touch: no branch to mispredict.
    var touchedSlots: [UInt32] = []
    var touchedCount = 0
    /// Ranking keys for top-k selection, reused between queries.
    var keys: [UInt64] = []
    /// One bit per node, all zero between queries: the nodes a whole ranking lists, read back in
    /// id order (`rankAllTouched`).
    var touchedBits: [UInt64] = []
    /// Per counter value, how many ranked nodes have it, then where they go; zero between queries.
    var countHistogram: [Int] = []

    /// An empty scratch; it grows to the graph's size on first use.
    public init() {}

    /// A scratch already sized for `nodeCapacity` nodes (avoids the growth on first use).
    public init(nodeCapacity: Int) { grow(to: nodeCapacity) }

    /// Bytes held, for reports: about 12 bytes per node plus the ranking keys.
    public var byteCount: Int {
        (counts.capacity + marks.capacity + touchedSlots.capacity) * 4
            + (keys.capacity + touchedBits.capacity + countHistogram.capacity) * 8
    }

    /// The nodes touched since the last `resetCounts`, in first-touch order.
    var touched: ArraySlice<UInt32> { touchedSlots[0..<touchedCount] }

    mutating func grow(to capacity: Int) {
        if counts.count < capacity {
            counts.append(contentsOf: repeatElement(0, count: capacity - counts.count))
            marks.append(contentsOf: repeatElement(0, count: capacity - marks.count))
            touchedSlots.append(contentsOf: repeatElement(0, count: capacity + 1 - touchedSlots.count))
            let words = (capacity + 63) / 64
            touchedBits.append(contentsOf: repeatElement(0, count: words - touchedBits.count))
        }
    }

    /// Starts a query on `graph`: sizes the arrays (only when the graph grew) and returns a fresh
    /// mark value. `stamps` distinct values are reserved (epoch, epoch+1, …) for queries that need
    /// several kinds of mark.
    mutating func begin(on graph: Graph, stamps: UInt32 = 1) -> UInt32 {
        grow(to: graph.socialNodeCapacity)
        if epoch > UInt32.max - stamps - 1 {
            for i in marks.indices { marks[i] = 0 }
            epoch = 0
        }
        let first = epoch + 1
        epoch += stamps
        return first
    }

    /// Adds one to `node`'s counter, remembering it for `resetCounts`.
    @inline(__always) mutating func increment(_ node: UInt32) {
        noteTouch(node)
        counts[Int(node)] &+= 1
    }

    /// Sets `flags` in `node`'s counter (whose low bits go on counting), remembering it for
    /// `resetCounts`.
    @inline(__always) mutating func setFlags(_ node: UInt32, _ flags: UInt32) {
        noteTouch(node)
        counts[Int(node)] |= flags
    }

    /// Lists `node` as touched if its counter is still zero (so it is listed once).
    @inline(__always) private mutating func noteTouch(_ node: UInt32) {
        if counts[Int(node)] == 0 { touchedSlots[touchedCount] = node; touchedCount += 1 }
    }

    /// Zeroes every counter touched since the last reset.
    mutating func resetCounts() {
        for node in touched { counts[Int(node)] = 0 }
        touchedCount = 0
    }
}

extension Graph {
    /// The number of node slots (live or free): every NodeID is below it.
    var socialNodeCapacity: Int { nodes.count }
}

/// The counters' layout when a kernel flags nodes before counting: the low 30 bits count (mutual
/// friends), the top two say what the node is to the user. Flags are set before the 2-hop walk,
/// so the walk's "counter was zero" test never lists a flagged node twice, and a ranking learns
/// what a node is from the counter it reads anyway: no second array read at random (marks).
enum CounterFlags {
    /// A friend of the user (the audience lists friends apart).
    static let friend: UInt32 = 1 << 31
    /// Never listed: the user itself, and for the audience anyone excluded; for connections,
    /// the user's friends too.
    static let excluded: UInt32 = 1 << 30
    static let count: UInt32 = (1 << 30) - 1
}
