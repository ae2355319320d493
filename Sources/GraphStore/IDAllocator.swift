// IDAllocator.swift — hands out dense entity ids, reusing freed ones, with exact undo.
// Nodes and relationships each have one. Every operation has an inverse so that a rolled-back
// transaction leaves the free list exactly as it was, which keeps later ids deterministic. An
// id freed by a transaction is reused only after it commits: within it, a variable still
// holding the deleted entity must not come to name a new one.
// IDSlotLimit bounds the ids a file may name, so a damaged one cannot make billions of slots.

import Glibc

/// Dense id allocation: a slot count plus a stack of freed ids (reused last-freed first).
struct IDAllocator: Sendable, Equatable {
    /// Number of slots ever made (live + free); valid ids are `0..<capacity`.
    private(set) var capacity = 0
    private(set) var free: [UInt32] = []
    /// Ids freed by the open transaction, in order: free once it commits (`settle`).
    private(set) var held: [UInt32] = []

    /// How an id was obtained, so that `undo` can put everything back.
    enum Allocation: Sendable {
        case reused(position: Int)
        /// A requested id (replay) that the open transaction had freed.
        case reusedHeld(position: Int)
        case appended(previousCapacity: Int, gapCount: Int)
    }

    init() {}

    /// An allocator over `capacity` slots with `free` as its free stack (the last is reused
    /// first): what GraphBuilder makes for a graph built in bulk.
    init(capacity: Int, free: [UInt32]) {
        self.capacity = capacity
        self.free = free
    }

    /// Takes the requested id (replay) or the next free one.
    /// Returns nil when the requested id is live.
    mutating func allocate(_ requested: UInt32? = nil) -> (id: UInt32, allocation: Allocation)? {
        if let id = requested {
            if Int(id) < capacity {
                if let i = held.lastIndex(of: id) {
                    held.remove(at: i)
                    return (id, .reusedHeld(position: i))
                }
                guard let i = free.lastIndex(of: id) else { return nil }
                free.remove(at: i)
                return (id, .reused(position: i))
            }
            let previous = capacity
            // Ids skipped over become free slots; never happens when replaying a log written
            // by this allocator, but keeps `apply` total.
            for gap in stride(from: Int(id) - 1, through: previous, by: -1) { free.append(UInt32(gap)) }
            capacity = Int(id) + 1
            return (id, .appended(previousCapacity: previous, gapCount: Int(id) - previous))
        }
        if let id = free.popLast() { return (id, .reused(position: free.count)) }
        capacity += 1
        return (UInt32(capacity - 1), .appended(previousCapacity: capacity - 1, gapCount: 0))
    }

    mutating func undo(_ allocation: Allocation, of id: UInt32) {
        switch allocation {
        case .reused(let position):
            free.insert(id, at: position)
        case .reusedHeld(let position):
            held.insert(id, at: position)
        case .appended(let previousCapacity, let gapCount):
            free.removeLast(gapCount)
            capacity = previousCapacity
        }
    }

    /// Frees `id` when the open transaction commits.
    mutating func release(_ id: UInt32) { held.append(id) }

    /// Inverse of the latest `release`.
    mutating func unrelease(_ id: UInt32) {
        let last = held.popLast()
        assert(last == id, "undo out of order")
    }

    /// The transaction committed: the ids it freed may be reused.
    mutating func settle() {
        free.append(contentsOf: held)
        held.removeAll()
    }
}

/// The bound on ids read from files (snapshots, log records): an id N makes slots 0...N, so a
/// damaged or hostile file naming node 4,000,000,000 would otherwise allocate billions of empty
/// slots and exhaust memory. Ids whose slots would need more than a memory budget (by default
/// this machine's physical memory) are refused with an error instead.
enum IDSlotLimit {
    /// This machine's physical memory in bytes.
    static var physicalMemory: Int { sysconf(Int32(_SC_PHYS_PAGES)) * sysconf(Int32(_SC_PAGESIZE)) }
    /// What one node slot costs at least: its record and its free-list entry.
    static let nodeSlotBytes = MemoryLayout<Graph.NodeRecord>.stride + MemoryLayout<UInt32>.size
    /// What one relationship slot costs at least while built: its record and its free-list entry.
    static let relationshipSlotBytes = MemoryLayout<Graph.RelationshipRecord>.stride + MemoryLayout<UInt32>.size

    /// How many slots `budget` bytes hold (at most 2^32 - 1: UInt32.max marks a free slot).
    static func slots(for budget: Int, bytesPerSlot: Int) -> Int {
        min(Int(UInt32.max), max(0, budget) / bytesPerSlot)
    }

    /// The error text for an id at or beyond `limit`.
    static func refusal(entity: String, id: Int64, limit: Int64, bytesPerSlot: Int) -> String {
        // In Double: `id + 1` traps for an id of Int64.max, which a damaged snapshot can name.
        let gib = (Double(id) + 1) * Double(bytesPerSlot) / Double(1 << 30)
        return "\(entity) id \(id) is beyond the ids this machine can hold (below \(limit)): its slots alone would take "
            + "\((gib * 10).rounded() / 10) GiB"
    }
}
