// PostingsPool.swift — every term's postings (ascending entity ids) in one contiguous pool,
// each slot a span of it: an array per term costs 40 bytes a term beyond its ids (reference and
// header), as much again as the ids of the rare words most of a names dictionary holds.

/// Sorted id lists by slot in one pool, each in a room of the pool at least its length. A list
/// grows within its room, or in place at the pool's end; a full list elsewhere moves to the end
/// with room for as many ids again (as an array grows), leaving its old room unused. The pool is
/// compacted (every room its list's length) when unused room passes half of it, so writes keep
/// it within twice its ids, and each id is copied a bounded number of times on average.
struct PostingsPool: Sendable {
    /// Per slot: start << 32 | count, into `ids`.
    private var spans: [UInt64] = []
    /// Per slot: the room its list may fill from its start.
    private var rooms: [UInt32] = []
    private var ids: [UInt32] = []
    /// Elements of `ids` no list holds.
    private var unused = 0

    init() {}

    /// A pool made by a bulk build: `grouped` holds each slot's ids ascending and without
    /// repeats, slot after slot, `ends[s]` one past slot s's last.
    init(grouped: [UInt32], ends: [Int]) {
        ids = grouped
        spans.reserveCapacity(ends.count)
        rooms.reserveCapacity(ends.count)
        var start = 0
        for end in ends {
            spans.append(UInt64(start) << 32 | UInt64(end - start))
            rooms.append(UInt32(end - start))
            start = end
        }
        unused = ids.count - start
        if unused > 0 { compact() }
    }

    var slotCount: Int { spans.count }

    /// Approximate heap bytes.
    var byteCount: Int { spans.capacity * 8 + rooms.capacity * 4 + ids.capacity * 4 }

    /// A new slot with no ids; its index is the previous `slotCount`.
    mutating func appendSlot() {
        spans.append(UInt64(ids.count) << 32)
        rooms.append(0)
    }

    @inline(__always) private func range(_ slot: Int) -> Range<Int> {
        let start = Int(spans[slot] >> 32)
        return start..<start + Int(spans[slot] & 0xFFFF_FFFF)
    }

    /// The ids of `slot`, ascending (a view into the pool).
    @inline(__always) subscript(slot: Int) -> ArraySlice<UInt32> { ids[range(slot)] }

    @inline(__always) func count(_ slot: Int) -> Int { Int(spans[slot] & 0xFFFF_FFFF) }

    @inline(__always) func isEmpty(_ slot: Int) -> Bool { spans[slot] & 0xFFFF_FFFF == 0 }

    /// Where `id` is or would go in the list at `r`, and whether it is there.
    private func position(of id: UInt32, in r: Range<Int>) -> (Int, Bool) {
        var low = r.lowerBound, high = r.upperBound
        while low < high { let mid = (low + high) >> 1; if ids[mid] < id { low = mid + 1 } else { high = mid } }
        return (low, low < r.upperBound && ids[low] == id)
    }

    /// Adds `id` to `slot` (false: it was there).
    @discardableResult
    mutating func insert(_ id: UInt32, slot: Int) -> Bool {
        var r = range(slot)
        let (found, offset): (Bool, Int)
        if r.isEmpty || ids[r.upperBound - 1] < id {
            (found, offset) = (false, r.count)
        } else {
            let (at, there) = position(of: id, in: r)
            (found, offset) = (there, at - r.lowerBound)
        }
        if found { return false }
        let room = Int(rooms[slot])
        if r.count == room {
            if r.lowerBound + room == ids.count {
                ids.append(0)   // the last room grows in place
                rooms[slot] += 1
                unused += 1
            } else {
                r = moveToEnd(slot, r, room: max(4, 2 * room))
            }
        }
        ids.withUnsafeMutableBufferPointer { b in
            var i = r.upperBound
            while i > r.lowerBound + offset { b[i] = b[i - 1]; i -= 1 }
            b[r.lowerBound + offset] = id
        }
        spans[slot] = UInt64(r.lowerBound) << 32 | UInt64(r.count + 1)
        unused -= 1
        return true
    }

    /// Removes `id` from `slot` (false: it was not there).
    @discardableResult
    mutating func remove(_ id: UInt32, slot: Int) -> Bool {
        let r = range(slot)
        let (at, found) = position(of: id, in: r)
        guard found else { return false }
        ids.withUnsafeMutableBufferPointer { b in
            for i in at..<r.upperBound - 1 { b[i] = b[i + 1] }
        }
        spans[slot] = UInt64(r.lowerBound) << 32 | UInt64(r.count - 1)
        unused += 1
        if isSparse { compact() }
        return true
    }

    /// Whether unused room is over half the pool (and worth a pass over it).
    private var isSparse: Bool { unused > 4096 && unused * 2 > ids.count }

    /// Copies `slot`'s list to a room of `room` ids at the pool's end (its old room becomes
    /// unused); its new range.
    private mutating func moveToEnd(_ slot: Int, _ r: Range<Int>, room: Int) -> Range<Int> {
        if isSparse {
            compact()
            return moveToEnd(slot, range(slot), room: room)
        }
        let start = ids.count
        for i in r { ids.append(ids[i]) }   // one by one: the pool grows geometrically
        ids.append(contentsOf: repeatElement(0, count: room - r.count))
        unused += room   // the old list's ids, and the new room's beyond them
        spans[slot] = UInt64(start) << 32 | UInt64(r.count)
        rooms[slot] = UInt32(room)
        return start..<start + r.count
    }

    /// Lays the lists out again slot after slot, each room its list's length.
    private mutating func compact() {
        var packed: [UInt32] = []
        packed.reserveCapacity(ids.count - unused)
        for slot in spans.indices {
            let r = range(slot)
            spans[slot] = UInt64(packed.count) << 32 | UInt64(r.count)
            rooms[slot] = UInt32(r.count)
            packed.append(contentsOf: ids[r])
        }
        ids = packed
        unused = 0
    }

    /// Gives back the room beyond the ids (after a build's appends).
    mutating func trimCapacity() {
        compact()
        spans = Array(spans[...])
        rooms = Array(rooms[...])
    }
}

extension PostingsPool {
    /// Whether every list is ascending within its room, no two rooms overlap, and `unused`
    /// counts exactly the ids no list holds (tests).
    var isConsistent: Bool {
        var rooms: [(Int, Int)] = []
        var held = 0
        for slot in spans.indices {
            let r = range(slot)
            guard r.count <= Int(self.rooms[slot]), r.lowerBound + Int(self.rooms[slot]) <= ids.count else { return false }
            guard zip(ids[r], ids[r].dropFirst()).allSatisfy({ $0 < $1 }) else { return false }
            if self.rooms[slot] > 0 { rooms.append((r.lowerBound, r.lowerBound + Int(self.rooms[slot]))) }
            held += r.count
        }
        rooms.sort { $0.0 < $1.0 }
        for (a, b) in zip(rooms, rooms.dropFirst()) where a.1 > b.0 { return false }
        return unused == ids.count - held
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
