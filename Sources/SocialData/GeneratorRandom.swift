// GeneratorRandom.swift — the seeded random numbers behind the synthetic social graph.
// xoshiro256** seeded through SplitMix64: fast, good statistically, and the same sequence on every
// platform and Swift version (the standard library's generator is neither seedable nor stable).

/// A deterministic random number generator: the same seed gives the same stream everywhere.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Expands `seed` into the 256-bit state with SplitMix64, as xoshiro's authors recommend.
    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// A double uniform in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// An integer uniform in 0..<bound (bound > 0), without modulo bias.
    public mutating func below(_ bound: Int) -> Int {
        Int(next(upperBound: UInt64(bound)))
    }
}

extension Array {
    /// Fisher–Yates shuffle of `range` in place with a seeded generator (the standard library's
    /// `shuffle(using:)` does not promise a stable algorithm across versions).
    mutating func seededShuffle(_ range: Range<Int>, using random: inout SeededRandom) {
        var i = range.upperBound - 1
        while i > range.lowerBound {
            let j = range.lowerBound + random.below(i - range.lowerBound + 1)
            swapAt(i, j)
            i -= 1
        }
    }
}
