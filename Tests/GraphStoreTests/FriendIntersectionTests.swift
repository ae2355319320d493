// FriendIntersectionTests.swift — the search of a sorted run begun at a guess from its ids'
// spread (InterpolatedRun), against a set, on runs spread evenly and crowded.

import GraphTestSupport
import Testing
@testable import GraphStore

struct FriendIntersectionTests {
    /// Every id in and around a run is found exactly when the run holds it: runs shorter than
    /// the window, of its length and longer; spread evenly (the guess lands in the window),
    /// crowded at one end with a few far ids (it does not, and the full search answers), all
    /// one id repeated, and with repeats throughout.
    @Test func interpolatedSearchFindsExactlyTheRunsIDs() {
        var random = SeededGenerator(seed: 7_341)
        func next(_ bound: Int) -> Int { random.next(bound) }
        let window = InterpolatedRun.window
        var runs: [[UInt32]] = [[], [5], [7, 7, 7], Array(repeating: 42, count: 200)]
        for count in [window - 1, window, window + 1, 200, 5_000] {
            runs.append((0..<count).map { _ in UInt32(next(1_000_000)) })                  // even
            runs.append((0..<count).map { _ in UInt32(next(count / 2 + 1)) })              // dense, repeats
            runs.append((0..<count).map { i in                                              // crowded
                i % 20 == 0 ? UInt32(next(4_000_000_000)) : UInt32(1_000 + next(count))
            })
        }
        runs.append([0, 1, 2] + (0..<300).map { _ in UInt32.max - UInt32(next(50)) })     // both ends
        for var run in runs {
            run.sort()
            let members = Set(run)
            let found = run.withUnsafeBufferPointer { buffer -> [(UInt32, Bool)] in
                let searched = InterpolatedRun(buffer.baseAddress ?? NeighborRuns.empty, buffer.count)
                var probes: [UInt32] = [0, 1, UInt32.max, UInt32.max - 1]
                for id in run { probes += [id, id &- 1, id &+ 1] }
                probes += (0..<500).map { _ in UInt32(truncatingIfNeeded: next(Int(UInt32.max))) }
                return probes.map { id in (id, searched.contains(id)) }
            }
            for (id, isFound) in found where isFound != members.contains(id) {
                Issue.record("run of \(run.count) from \(run.first ?? 0) to \(run.last ?? 0): \(id) found \(isFound)")
            }
        }
    }
}
