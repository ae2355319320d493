// ImportEdgeList.swift — reads a SNAP-style edge list: one relationship per line `a b`
// (spaces, tabs or a comma between two integer ids; further columns ignored), lines
// starting with '#' or '%' skipped, and a first line that is not numeric taken as a header.
// Each distinct id becomes one node with the plan's label and its id as an integer property.

import GraphStore

extension ImportRunner.State {
    mutating func readEdgeList<Target: ImportTarget>(_ input: ImportPlan.Input, builder: inout Target) throws(ImportError) {
        let file = input.path
        let bytes = try ImportRunner.readFile(file)
        let type = builder.importRelationshipType(input.name)
        let label = builder.importLabel(plan.edgeListLabel)
        let idKey = builder.importPropertyKey(plan.edgeListIDProperty)
        addIndex(label, idKey)
        var map = maps.removeValue(forKey: "") ?? ImportIDMap()
        defer { maps[""] = map }
        var from: [NodeID] = [], to: [NodeID] = []
        // A rough capacity from the size: SNAP lines are ~10-20 bytes.
        from.reserveCapacity(bytes.count / 12)
        to.reserveCapacity(bytes.count / 12)
        var nodesCreated = 0
        var sawData = false
        var lineNumber = 0
        var position = 0
        let count = bytes.count
        while position < count {
            lineNumber += 1
            var lineEnd = position
            while lineEnd < count && bytes[lineEnd] != 10 { lineEnd += 1 }
            let next = lineEnd + 1
            var end = lineEnd
            if end > position && bytes[end - 1] == 13 { end -= 1 }
            defer { position = next }
            var p = position
            while p < end && (bytes[p] == 32 || bytes[p] == 9) { p += 1 }
            if p == end || bytes[p] == UInt8(ascii: "#") || bytes[p] == UInt8(ascii: "%") { continue }
            // Up to two tokens separated by blanks or a comma (no allocation per line).
            var tokenStarts = (0, 0), tokenEnds = (0, 0), tokenCount = 0
            while p < end && tokenCount < 2 {
                let start = p
                while p < end && bytes[p] != 32 && bytes[p] != 9 && bytes[p] != UInt8(ascii: ",") { p += 1 }
                if p > start {
                    if tokenCount == 0 { tokenStarts.0 = start; tokenEnds.0 = p } else { tokenStarts.1 = start; tokenEnds.1 = p }
                    tokenCount += 1
                }
                while p < end && (bytes[p] == 32 || bytes[p] == 9 || bytes[p] == UInt8(ascii: ",")) { p += 1 }
            }
            summary.rowsRead += 1
            if summary.rowsRead % ImportRunner.progressInterval == 0 { report(file, position: position) }
            guard tokenCount == 2,
                  let a = ImportNumber.integer(bytes, tokenStarts.0, tokenEnds.0),
                  let b = ImportNumber.integer(bytes, tokenStarts.1, tokenEnds.1) else {
                if !sawData {
                    // A header such as `source,target`: skipped, once, before any data.
                    sawData = true
                    summary.rowsRead -= 1
                    continue
                }
                let text = String(decoding: bytes[position..<end].prefix(60), as: UTF8.self)
                try bad(ImportError(file: file, line: lineNumber, reason: "expected two integer ids, found '\(text)'"))
                continue
            }
            sawData = true
            from.append(try node(for: a, map: &map, label: label, idKey: idKey, builder: &builder, created: &nodesCreated, file: file))
            to.append(try node(for: b, map: &map, label: label, idKey: idKey, builder: &builder, created: &nodesCreated, file: file))
        }
        try Self.target(file) { () throws(GraphError) in try builder.importRelationships(type: type, from: from, to: to) }
        summary.addNodes(nodesCreated, label: plan.edgeListLabel)
        summary.addRelationships(from.count, type: input.name)
        finishFile(file, size: count)
    }

    private func node<Target: ImportTarget>(for id: Int64, map: inout ImportIDMap, label: LabelID, idKey: PropertyKeyID,
                                            builder: inout Target, created: inout Int, file: String) throws(ImportError) -> NodeID {
        if let existing = map.node(forInteger: id) { return existing }
        let node = try Self.target(file) { () throws(GraphError) in try builder.importNode(labels: [label], properties: [(idKey, .integer(id))]) }
        _ = map.insert(integer: id, node: node)
        created += 1
        return node
    }
}
