// SnapshotWriter.swift — writes a graph as a snapshot file (format in SnapshotFormat.swift).
// Reads the graph only through its public read API, so it works on a frozen copy while the
// store's writers go on; the file appears under its final name only when it is complete and durable.

/// Serialises a Graph into `snapshot-<N>.gsnap`, durably.
struct SnapshotWriter {
    let fileSystem: FileSystem

    /// Writes `graph` as snapshot `number` (covering the log through `lastSequence`) into
    /// `directory`: temporary file, fsync, rename, fsync of the directory. Returns its size.
    /// On failure the temporary file is removed and no snapshot file was created.
    @discardableResult
    func write(_ graph: Graph, number: UInt64, lastSequence: UInt64, lastCommitTime: UInt64 = 0,
               directory: String) throws(StoreError) -> Int {
        let path = directory + "/" + SnapshotFormat.fileName(number)
        let temporary = path + ".tmp"
        let file = try fileSystem.create(temporary)
        do {
            let length = try writeSections(of: graph, lastCommitTime: lastCommitTime, to: file)
            try file.write(SnapshotFormat.header(number: number, lastSequence: lastSequence, fileLength: length), at: 0)
            try file.sync()
            file.close()
            try fileSystem.rename(temporary, to: path)
            try fileSystem.syncDirectory(directory)
            return length
        } catch {
            file.close()
            try? fileSystem.removeFile(temporary)
            throw error
        }
    }

    /// Writes every section after the (not yet written) header; returns the file length.
    private func writeSections(of graph: Graph, lastCommitTime: UInt64, to file: LogFile) throws(StoreError) -> Int {
        var offset = SnapshotFormat.headerLength
        func emit(_ kind: SnapshotFormat.SectionKind, _ payload: ByteWriter) throws(StoreError) {
            var header: [UInt8] = [kind.rawValue, 0, 0, 0]
            header.appendLittleEndian(CRC32C.checksum(payload.bytes))
            header.appendLittleEndian(UInt64(payload.bytes.count))
            try file.write(header, at: offset)
            try file.write(payload.bytes, at: offset + header.count)
            offset += header.count + payload.bytes.count
        }

        var names = ByteWriter()
        for list in [graph.labelNames, graph.relationshipTypeNames, graph.propertyKeyNames] {
            names.varint(UInt64(list.count))
            for name in list { names.string(name) }
        }
        try emit(.names, names)

        let nodes = graph.nodeIDs()
        var start = 0
        var previous: Int64 = -1
        while start < nodes.count {
            let chunk = nodes[start..<min(nodes.count, start + SnapshotFormat.entitiesPerSection)]
            var w = ByteWriter()
            w.bytes.reserveCapacity(chunk.count * 8)
            w.varint(UInt64(chunk.count))
            for node in chunk {
                w.varint(UInt64(Int64(node.rawValue) - previous - 1))
                previous = Int64(node.rawValue)
                let labels = graph.labels(of: node)
                w.varint(UInt64(labels.count))
                for label in labels { w.id(label.rawValue) }
                w.propertyTuples(graph.properties(of: node))
            }
            try emit(.nodes, w)
            start += chunk.count
        }

        let relationships = graph.relationshipIDs()
        let slots = graph.relationshipSlots()   // type and ends by id, in one pass over the lists
        start = 0
        previous = -1
        while start < relationships.count {
            let chunk = relationships[start..<min(relationships.count, start + SnapshotFormat.entitiesPerSection)]
            var w = ByteWriter()
            w.bytes.reserveCapacity(chunk.count * 10)
            w.varint(UInt64(chunk.count))
            for relationship in chunk {
                w.varint(UInt64(Int64(relationship.rawValue) - previous - 1))
                previous = Int64(relationship.rawValue)
                let slot = slots[relationship.index]
                w.id(slot.type.rawValue)
                w.id(slot.start.rawValue)
                w.id(slot.end.rawValue)
                w.propertyTuples(graph.properties(of: relationship))
            }
            try emit(.relationships, w)
            start += chunk.count
        }

        var indexes = ByteWriter()
        indexes.varint(UInt64(graph.indexes.count))
        for index in graph.indexes {
            indexes.id(index.label.rawValue)
            indexes.id(index.key.rawValue)
            indexes.u8(index.isUnique ? 1 : 0)
        }
        try emit(.indexes, indexes)

        let fullText = graph.fullTextIndexDescriptors
        if !fullText.isEmpty {
            var section = ByteWriter()
            section.varint(UInt64(fullText.count))
            for descriptor in fullText { section.fullTextDescriptor(descriptor) }
            try emit(.fullTextIndexes, section)
        }

        let versions = graph.changeVersions
        var clock = ByteWriter()
        clock.varint(versions.floor)
        clock.varint(lastCommitTime)
        try emit(.changeClock, clock)
        for (column, values) in versions.columns {
            var first = 0
            while first < values.count {
                let count = min(values.count - first, SnapshotFormat.entitiesPerSection)
                var w = ByteWriter()
                w.bytes.reserveCapacity(count * 4 + 16)
                w.varint(UInt64(column))
                w.varint(UInt64(first))
                w.varint(UInt64(count))
                for value in values[first..<first + count] { w.varint(value) }
                try emit(.changeVersions, w)
                first += count
            }
        }

        var end = ByteWriter()
        end.varint(UInt64(nodes.count))
        end.varint(UInt64(relationships.count))
        try emit(.end, end)
        return offset
    }
}

extension ByteWriter {
    /// `properties` as in the log: a count, then (key id, value) pairs.
    mutating func propertyTuples(_ properties: [(key: PropertyKeyID, value: Value)]) {
        varint(UInt64(properties.count))
        for (key, value) in properties {
            id(key.rawValue)
            self.value(value)
        }
    }
}
