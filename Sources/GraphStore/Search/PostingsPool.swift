// PostingsPool.swift — every term's postings (ascending entity ids) in one contiguous pool,
// each slot a span of it: an array per term cost 40 bytes a term beyond its ids (reference and
// header), as much again as the ids of the rare words most of a names dictionary holds.

/// Sorted id lists by slot in one pool. A list at the pool's end grows in place; one that must
/// grow elsewhere moves to the end and leaves its old room unused, as a removal leaves the room
/// of the id it took out. The pool is compacted when unused room passes half of it, so writes
/// keep it within twice its ids and each id is copied a bounded number of times on average.
struct PostingsPool: Sendable {
    /// Per slot: start << 32 | count, into `ids`; an empty list is 0 (a start kept for it could
    /// lie past the pool's end once the pool shrinks).
    private var spans: [UInt64] = []
    private var ids: [UInt32] = []
    /// Elements of `ids` no span covers.
    private var unused = 0

    init() {}

    /// A pool made by a bulk build: `grouped` holds each slot's ids ascending and without
    /// repeats, slot after slot, `ends[s]` one past slot s's last.
    init(grouped: [UInt32], ends: [Int]) {
        ids = grouped
        spans.reserveCapacity(ends.count)
        var start = 0
        for end in ends {
            spans.append(end == start ? 0 : UInt64(start) << 32 | UInt64(end - start))
            start = end
        }
        unused = ids.count - start
        if unused > 0 { compact() }
    }

    var slotCount: Int { spans.count }

    /// Approximate heap bytes.
    var byteCount: Int { spans.capacity * 8 + ids.capacity * 4 }

    /// A new slot with no ids; its index is the previous `slotCount`.
    mutating func appendSlot() { spans.append(0) }

    @inline(__always) private func range(_ slot: Int) -> Range<Int> {
        let start = Int(spans[slot] >> 32)
        return start..<start + Int(spans[slot] & 0xFFFF_FFFF)
    }

    /// The ids of `slot`, ascending (a view into the pool).
    @inline(__always) subscript(slot: Int) -> ArraySlice<UInt32> { ids[range(slot)] }

    @inline(__always) func count(_ slot: Int) -> Int { Int(spans[slot] & 0xFFFF_FFFF) }

    @inline(__always) func isEmpty(_ slot: Int) -> Bool { spans[slot] & 0xFFFF_FFFF == 0 }

    /// Where `id` is or would go in `slot`'s list, and whether it is there.
    private func position(of id: UInt32, in r: Range<Int>) -> (Int, Bool) {
        var low = r.lowerBound, high = r.upperBound
        while low < high { let mid = (low + high) >> 1; if ids[mid] < id { low = mid + 1 } else { high = mid } }
        return (low, low < r.upperBound && ids[low] == id)
    }

    /// Adds `id` to `slot` (false: it was there).
    @discardableResult
    mutating func insert(_ id: UInt32, slot: Int) -> Bool {
        var r = range(slot)
        if r.isEmpty || ids[r.upperBound - 1] < id {
            if r.upperBound != ids.count { r = moveToEnd(slot, r) }
            ids.append(id)
        } else {
            let (at, found) = position(of: id, in: r)
            if found { return false }
            if r.upperBound != ids.count {
                let offset = at - r.lowerBound
                r = moveToEnd(slot, r)
                ids.insert(id, at: r.lowerBound + offset)
            } else {
                ids.insert(id, at: at)
            }
        }
        spans[slot] = UInt64(r.lowerBound) << 32 | UInt64(r.count + 1)
        return true
    }

    /// Removes `id` from `slot` (false: it was not there).
    @discardableResult
    mutating func remove(_ id: UInt32, slot: Int) -> Bool {
        let r = range(slot)
        let (at, found) = position(of: id, in: r)
        guard found else { return false }
        if r.upperBound == ids.count {
            ids.remove(at: at)
        } else {
            ids.withUnsafeMutableBufferPointer { b in
                for i in at..<r.upperBound - 1 { b[i] = b[i + 1] }
            }
            unused += 1
        }
        spans[slot] = r.count == 1 ? 0 : UInt64(r.lowerBound) << 32 | UInt64(r.count - 1)
        compactIfSparse()
        return true
    }

    /// Copies `slot`'s list to the pool's end (its old room becomes unused); its new range.
    private mutating func moveToEnd(_ slot: Int, _ r: Range<Int>) -> Range<Int> {
        let start = ids.count
        ids.reserveCapacity(ids.count + r.count + 1)
        for i in r { ids.append(ids[i]) }
        unused += r.count
        spans[slot] = UInt64(start) << 32 | UInt64(r.count)
        return start..<start + r.count
    }

    private mutating func compactIfSparse() {
        if unused > 4096 && unused * 2 > ids.count { compact() }
    }

    /// Lays the lists out again slot after slot, without unused room.
    private mutating func compact() {
        var packed: [UInt32] = []
        packed.reserveCapacity(ids.count - unused)
        for slot in spans.indices {
            let r = range(slot)
            spans[slot] = r.isEmpty ? 0 : UInt64(packed.count) << 32 | UInt64(r.count)
            packed.append(contentsOf: ids[r])
        }
        ids = packed
        unused = 0
    }

    /// Gives back the room beyond the ids (after a build's appends).
    mutating func trimCapacity() {
        compact()
        spans = Array(spans[...])
    }
}

extension PostingsPool: Equatable {
    /// Equal lists slot by slot, wherever in the pool they lie.
    static func == (a: PostingsPool, b: PostingsPool) -> Bool {
        guard a.spans.count == b.spans.count else { return false }
        for slot in a.spans.indices where a[slot] != b[slot] { return false }
        return true
    }
}
