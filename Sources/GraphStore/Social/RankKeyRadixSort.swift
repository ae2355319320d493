// RankKeyRadixSort.swift — sorting a whole ranking (every friend of a friend of a hub, tens of
// thousands of packed (count, inverted id) keys) in linear time: an LSD radix sort on 11-bit
// digits that skips the digits every key shares, so a typical ranking takes four passes.

extension Array where Element == UInt64 {
    /// Sorts ascending. `spare` is reused working space (grown to `count`, contents undefined).
    /// Short arrays use the standard library's sort, which wins below a few thousand keys.
    mutating func radixSortAscending(spare: inout [UInt64]) {
        let n = count
        if n < 2_048 { sort(); return }
        if spare.count < n { spare = [UInt64](repeating: 0, count: n) }
        let digitBits = 11, buckets = 1 << digitBits, mask = UInt64(buckets - 1)
        let passes = (64 + digitBits - 1) / digitBits
        var histograms = [Int](repeating: 0, count: passes * buckets)
        withUnsafeBufferPointer { keys in
            for key in keys {
                for p in 0..<passes { histograms[p * buckets + Int((key >> UInt64(p * digitBits)) & mask)] += 1 }
            }
        }
        var inSelf = true
        for p in 0..<passes {
            let shift = UInt64(p * digitBits)
            let base = p * buckets
            // A digit every key shares does not reorder anything: skip its pass.
            if histograms[base + Int((self[0] >> shift) & mask)] == n { continue }
            var offset = 0
            for b in 0..<buckets {
                let c = histograms[base + b]
                histograms[base + b] = offset
                offset += c
            }
            if inSelf {
                Self.scatter(from: self, to: &spare, n: n, shift: shift, mask: mask, offsets: &histograms, base: base)
            } else {
                Self.scatter(from: spare, to: &self, n: n, shift: shift, mask: mask, offsets: &histograms, base: base)
            }
            inSelf.toggle()
        }
        if !inSelf {
            for i in 0..<n { self[i] = spare[i] }
        }
    }

    private static func scatter(from source: [UInt64], to target: inout [UInt64], n: Int, shift: UInt64, mask: UInt64,
                                offsets: inout [Int], base: Int) {
        source.withUnsafeBufferPointer { src in
            target.withUnsafeMutableBufferPointer { dst in
                offsets.withUnsafeMutableBufferPointer { off in
                    for i in 0..<n {
                        let key = src[i]
                        let b = base + Int((key >> shift) & mask)
                        dst[off[b]] = key
                        off[b] += 1
                    }
                }
            }
        }
    }
}
