// IDBitSet.swift — a set of dense ids as a bit per id: label membership (nodes) and which
// relationship slots are live. One bit per id keeps membership tests O(1) and scans ascending
// for free.

/// An id that is a dense index: what IDBitSet stores.
protocol DenseID {
    var index: Int { get }
    init(_ value: Int)
}

extension NodeID: DenseID {}
extension RelationshipID: DenseID {}

/// A set of ids stored as bits in 64-bit words; ascending iteration is a word scan.
struct IDBitSet<ID: DenseID>: Sendable, Equatable {
    private var words: [UInt64] = []
    private(set) var count = 0

    func contains(_ id: ID) -> Bool {
        let w = id.index >> 6
        return w < words.count && words[w] & (1 << UInt64(id.index & 63)) != 0
    }

    mutating func insert(_ id: ID) {
        let w = id.index >> 6
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: w - words.count + 1)) }
        let bit: UInt64 = 1 << UInt64(id.index & 63)
        if words[w] & bit == 0 { words[w] |= bit; count += 1 }
    }

    mutating func remove(_ id: ID) {
        let w = id.index >> 6
        guard w < words.count else { return }
        let bit: UInt64 = 1 << UInt64(id.index & 63)
        if words[w] & bit != 0 { words[w] &= ~bit; count -= 1 }
    }

    /// Drops the words beyond the one holding id `slots - 1` (all their bits clear): after the
    /// highest slots were given back (a rolled-back create).
    mutating func truncate(toSlots slots: Int) {
        let keep = (slots + 63) >> 6
        if words.count > keep { words.removeLast(words.count - keep) }
    }

    /// Calls `body` with each member (ascending) that none of `others` holds.
    /// - Complexity: O(ids / 64 × (others + 1) + those members).
    func forEachMember(notIn others: [IDBitSet], _ body: (ID) -> Void) {
        for (w, word) in words.enumerated() where word != 0 {
            var bits = word
            for other in others where w < other.words.count { bits &= ~other.words[w] }
            while bits != 0 {
                body(ID(w << 6 | bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
    }

    /// - Complexity: O(ids / 64 + count).
    var members: [ID] {
        var result: [ID] = []
        result.reserveCapacity(count)
        for (w, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let b = bits.trailingZeroBitCount
                result.append(ID(w << 6 | b))
                bits &= bits - 1
            }
        }
        return result
    }
}

/// Label membership: one set per label.
typealias NodeBitSet = IDBitSet<NodeID>
