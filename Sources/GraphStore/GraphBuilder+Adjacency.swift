// GraphBuilder+Adjacency.swift — makes every node's adjacency lists in bulk, for GraphBuilder.
// Three counting-sort passes per relationship type (by end, then by start, then by end again)
// leave each list sorted by (neighbour, relationship) without a comparison sort, so the cost is
// O(nodes + relationships) per type whatever the degrees (hubs included).

/// The bulk adjacency construction behind `GraphBuilder.build()`.
enum AdjacencyBuild {
    /// Fills `outgoing` and `incoming` of every node of `graph` from its relationship records.
    /// - Precondition: the nodes have no adjacency yet and every live relationship's ends are
    ///   live nodes (GraphBuilder checks that first).
    static func run(_ graph: inout Graph) {
        let nodeCount = graph.nodes.count
        let typeCount = graph.typeTable.count
        precondition(graph.relationships.count < Int(UInt32.max), "too many relationships for 32-bit positions")
        var perType = [Int](repeating: 0, count: typeCount)
        graph.relationships.withUnsafeBufferPointer { records in
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

        for t in 0..<typeCount where perType[t] > 0 {
            let type = RelationshipTypeID(t)
            // Segment k of a table holds the entries of node k: [table[k], table[k + 1]).
            endStart.initialize(repeating: 0, count: nodeCount + 1)
            startStart.initialize(repeating: 0, count: nodeCount + 1)
            graph.relationships.withUnsafeBufferPointer { records in
                for r in records where r.type == type {
                    endStart[r.end.index + 1] &+= 1
                    startStart[r.start.index + 1] &+= 1
                }
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
            cursor.update(from: startStart, count: nodeCount)
            for e in 0..<nodeCount {
                for j in Int(endStart[e])..<Int(endStart[e + 1]) {
                    let x = a[j]
                    let s = Int(x >> 32)
                    let p = Int(cursor[s])
                    b[p] = UInt64(e) << 32 | (x & low)
                    cursor[s] = UInt32(p + 1)
                }
            }
            for s in 0..<nodeCount where startStart[s + 1] > startStart[s] {
                graph.nodes[s].outgoing.append(TypedAdjacency(type: type, entries: list(b, Int(startStart[s]), Int(startStart[s + 1]))))
            }
            // Pass 3, by end node, walking start nodes ascending: a = start << 32 | id, sorted
            // by (start, id) within each end node's segment.
            cursor.update(from: endStart, count: nodeCount)
            for s in 0..<nodeCount {
                for j in Int(startStart[s])..<Int(startStart[s + 1]) {
                    let x = b[j]
                    let e = Int(x >> 32)
                    let p = Int(cursor[e])
                    a[p] = UInt64(s) << 32 | (x & low)
                    cursor[e] = UInt32(p + 1)
                }
            }
            for e in 0..<nodeCount where endStart[e + 1] > endStart[e] {
                graph.nodes[e].incoming.append(TypedAdjacency(type: type, entries: list(a, Int(endStart[e]), Int(endStart[e + 1]))))
            }
        }
    }

    /// A list holding exactly `base[lo..<hi]`, allocated at exactly that capacity (a
    /// transaction-built list grows by doubling and may carry up to half unused).
    @inline(__always)
    private static func list(_ base: UnsafeMutablePointer<UInt64>, _ lo: Int, _ hi: Int) -> ContiguousArray<UInt64> {
        ContiguousArray(unsafeUninitializedCapacity: hi - lo) { buffer, count in
            buffer.baseAddress!.initialize(from: base + lo, count: hi - lo)  // hi > lo: never empty
            count = hi - lo
        }
    }
}
