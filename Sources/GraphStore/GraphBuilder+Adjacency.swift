// GraphBuilder+Adjacency.swift — makes every node's adjacency lists in bulk, for GraphBuilder.
// Three counting-sort passes per relationship type (by end, then by start, then by end again)
// leave each list sorted by (neighbour, relationship) without a comparison sort, so the cost is
// O(nodes + relationships) per type whatever the degrees (hubs included). A first counting sweep
// sizes every node's single buffer (NodeAdjacency) exactly, so each node gets one allocation.

/// The bulk adjacency construction behind `GraphBuilder.build()`.
enum AdjacencyBuild {
    /// Fills every node's adjacency of `graph` from its relationship records.
    /// - Precondition: the nodes have no adjacency yet and every live relationship's ends are
    ///   live nodes (GraphBuilder checks that first).
    static func run(_ graph: inout Graph, _ relationships: [Graph.RelationshipRecord]) {
        let nodeCount = graph.nodes.count
        let typeCount = graph.typeTable.count
        precondition(relationships.count < Int(UInt32.max), "too many relationships for 32-bit positions")
        var perType = [Int](repeating: 0, count: typeCount)
        relationships.withUnsafeBufferPointer { records in
            for r in records where r.isLive { perType[r.type.index] += 1 }
        }
        let largest = perType.max() ?? 0
        guard largest > 0 else { return }

        // Scratch: two entry buffers (the current order and the next) and three position tables.
        let a = UnsafeMutablePointer<UInt64>.allocate(capacity: largest)
        let b = UnsafeMutablePointer<UInt64>.allocate(capacity: largest)
        let endStart = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCount + 1)
        let startStart = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCount + 1)
        let cursor = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCount + 1)
        defer {
            a.deallocate(); b.deallocate()
            endStart.deallocate(); startStart.deallocate(); cursor.deallocate()
        }
        let low: UInt64 = 0xFFFF_FFFF

        // Sizing sweep: per node, its segments and entries in each direction, so every buffer is
        // allocated once at its exact size. Then `outDescriptor`/`inDescriptor` and
        // `outEntry`/`inEntry` become each node's next write positions in its buffer.
        /// Sets `startStart[k + 1]` / `endStart[k + 1]` to how many relationships of `type` start /
        /// end at node k (index 0 stays 0, ready for the prefix sums).
        func countEnds(of type: RelationshipTypeID) {
            endStart.initialize(repeating: 0, count: nodeCount + 1)
            startStart.initialize(repeating: 0, count: nodeCount + 1)
            relationships.withUnsafeBufferPointer { records in
                for r in records where r.type == type {
                    endStart[r.end.index + 1] &+= 1
                    startStart[r.start.index + 1] &+= 1
                }
            }
        }
        var outSegments = [UInt32](repeating: 0, count: nodeCount), inSegments = outSegments
        var outEntries = outSegments, inEntries = outSegments
        for t in 0..<typeCount where perType[t] > 0 {
            countEnds(of: RelationshipTypeID(t))
            for k in 0..<nodeCount {
                if startStart[k + 1] > 0 { outSegments[k] += 1; outEntries[k] += startStart[k + 1] }
                if endStart[k + 1] > 0 { inSegments[k] += 1; inEntries[k] += endStart[k + 1] }
            }
        }
        var storages = [ContiguousArray<UInt32>](repeating: [], count: nodeCount)
        var outDescriptor = outSegments, inDescriptor = inSegments, outEntry = outEntries, inEntry = inEntries
        for k in 0..<nodeCount {
            let segments = Int(outSegments[k] + inSegments[k])
            guard segments > 0 else { continue }
            // Outgoing entries take two words (neighbour, relationship), incoming ones one.
            let words = 1 + 2 * segments + 2 * Int(outEntries[k]) + Int(inEntries[k])
            storages[k] = ContiguousArray(unsafeUninitializedCapacity: words) { buffer, initialized in
                buffer.initialize(repeating: 0)
                buffer[0] = UInt32(segments)
                initialized = words
            }
            outDescriptor[k] = 1
            inDescriptor[k] = UInt32(1 + 2 * Int(outSegments[k]))
            outEntry[k] = UInt32(1 + 2 * segments)
            inEntry[k] = UInt32(1 + 2 * segments) + 2 * outEntries[k]
        }
        /// One counting-sort pass: `source` holds, in node k's segment of `sourceStart`, entries
        /// `other << 32 | id`; each goes to node `other`'s segment of `targetStart` in `target`
        /// as `k << 32 | id`. Walking k ascending leaves every target segment sorted by (k, id).
        func regroup(_ source: UnsafeMutablePointer<UInt64>, by sourceStart: UnsafeMutablePointer<UInt32>,
                     into target: UnsafeMutablePointer<UInt64>, by targetStart: UnsafeMutablePointer<UInt32>) {
            cursor.update(from: targetStart, count: nodeCount)
            for k in 0..<nodeCount {
                for j in Int(sourceStart[k])..<Int(sourceStart[k + 1]) {
                    let x = source[j]
                    let other = Int(x >> 32)
                    let p = Int(cursor[other])
                    target[p] = UInt64(k) << 32 | (x & low)
                    cursor[other] = UInt32(p + 1)
                }
            }
        }
        /// Appends one segment to node `k`'s buffer: its descriptor and `base[lo..<hi]` (entries
        /// `neighbour << 32 | id`): the neighbours, then for an outgoing segment the ids.
        func put(_ k: Int, _ direction: Direction, _ type: RelationshipTypeID, _ base: UnsafeMutablePointer<UInt64>, _ lo: Int, _ hi: Int) {
            let incoming = direction == .incoming
            let d = Int(incoming ? inDescriptor[k] : outDescriptor[k])
            let e = Int(incoming ? inEntry[k] : outEntry[k])
            let n = hi - lo
            storages[k].withUnsafeMutableBufferPointer { words in
                words[d] = NodeAdjacency.key(type, direction)
                words[d + 1] = UInt32(n)
                for j in 0..<n { words[e + j] = UInt32(truncatingIfNeeded: base[lo + j] >> 32) }
                if !incoming {
                    for j in 0..<n { words[e + n + j] = UInt32(truncatingIfNeeded: base[lo + j]) }
                }
            }
            if incoming { inDescriptor[k] += 2; inEntry[k] += UInt32(n) } else { outDescriptor[k] += 2; outEntry[k] += UInt32(2 * n) }
        }

        for t in 0..<typeCount where perType[t] > 0 {
            let type = RelationshipTypeID(t)
            // Segment k of a table holds the entries of node k: [table[k], table[k + 1]).
            countEnds(of: type)
            relationships.withUnsafeBufferPointer { records in
                for k in 0..<nodeCount {
                    endStart[k + 1] &+= endStart[k]
                    startStart[k + 1] &+= startStart[k]
                }
                // Pass 1, by end node, in ascending relationship id: a = start << 32 | id.
                cursor.update(from: endStart, count: nodeCount)
                for i in 0..<records.count where records[i].type == type {
                    let r = records[i]
                    let p = Int(cursor[r.end.index])
                    a[p] = UInt64(r.start.rawValue) << 32 | UInt64(i)
                    cursor[r.end.index] = UInt32(p + 1)
                }
            }
            // Pass 2, by start node, walking end nodes ascending: b = end << 32 | id, so each
            // start node's segment comes out sorted by (end, id).
            regroup(a, by: endStart, into: b, by: startStart)
            for s in 0..<nodeCount where startStart[s + 1] > startStart[s] {
                put(s, .outgoing, type, b, Int(startStart[s]), Int(startStart[s + 1]))
            }
            // Pass 3, by end node, walking start nodes ascending: a = start << 32 | id, sorted
            // by (start, id) within each end node's segment.
            regroup(b, by: startStart, into: a, by: endStart)
            for e in 0..<nodeCount where endStart[e + 1] > endStart[e] {
                put(e, .incoming, type, a, Int(endStart[e]), Int(endStart[e + 1]))
            }
        }
        for k in 0..<nodeCount where !storages[k].isEmpty {
            graph.nodes[k].adjacency = NodeAdjacency(words: storages[k])
            storages[k] = []
        }
    }
}
