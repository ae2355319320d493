// NodeBitSet.swift — a set of node ids as a bit per id, used for label membership.
// One bit per node per label keeps membership tests O(1) and scans ascending for free.

/// A set of node ids stored as bits in 64-bit words; ascending iteration is a word scan.
struct NodeBitSet: Sendable, Equatable {
    private var words: [UInt64] = []
    private(set) var count = 0

    func contains(_ node: NodeID) -> Bool {
        let w = node.index >> 6
        return w < words.count && words[w] & (1 << UInt64(node.index & 63)) != 0
    }

    mutating func insert(_ node: NodeID) {
        let w = node.index >> 6
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: w - words.count + 1)) }
        let bit: UInt64 = 1 << UInt64(node.index & 63)
        if words[w] & bit == 0 { words[w] |= bit; count += 1 }
    }

    mutating func remove(_ node: NodeID) {
        let w = node.index >> 6
        guard w < words.count else { return }
        let bit: UInt64 = 1 << UInt64(node.index & 63)
        if words[w] & bit != 0 { words[w] &= ~bit; count -= 1 }
    }

    /// - Complexity: O(ids / 64 + count).
    var members: [NodeID] {
        var result: [NodeID] = []
        result.reserveCapacity(count)
        for (w, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let b = bits.trailingZeroBitCount
                result.append(NodeID(w << 6 | b))
                bits &= bits - 1
            }
        }
        return result
    }
}
