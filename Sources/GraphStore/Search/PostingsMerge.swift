// PostingsMerge.swift — the users of several dictionary words as one ascending sequence, so a
// search that wants the lowest ids of a class can stop after the first few instead of
// collecting and sorting every holder of every word (a common first name holds 20,000).

/// Iterates the union of some slots' postings in ascending id, each id once (a min-heap of
/// the lists' heads).
struct PostingsMerge {
    private let lists: [ArraySlice<UInt32>]
    private var cursors: [Int]
    /// id << 32 | list index.
    private var heap: [UInt64] = []
    private var previous: UInt32? = nil

    init(_ trie: TermTrie, slots: some Sequence<Int>) {
        lists = slots.map { trie.postings(slot: $0) }.filter { !$0.isEmpty }
        cursors = lists.map(\.startIndex)
        heap.reserveCapacity(lists.count)
        for (i, list) in lists.enumerated() { heap.append(UInt64(list[list.startIndex]) << 32 | UInt64(i)) }
        heap.heapifyMin()
    }

    /// The next id, or nil at the end.
    mutating func next() -> UInt32? {
        while let top = heap.first {
            let id = UInt32(top >> 32), i = Int(top & 0xFFFF_FFFF)
            cursors[i] += 1
            if cursors[i] < lists[i].endIndex {
                heap[0] = UInt64(lists[i][cursors[i]]) << 32 | UInt64(i)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { heap.siftDownMin(from: 0) }
            if id != previous { previous = id; return id }
        }
        return nil
    }
}
