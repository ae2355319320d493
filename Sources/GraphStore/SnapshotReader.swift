// SnapshotReader.swift — reads and checks a snapshot file (format in SnapshotFormat.swift) and
// rebuilds the graph it holds, with the same ids. Every byte is checked before it is believed:
// header checksum and version, each section's checksum, the decoded contents, the end section.

/// A snapshot as loaded: the graph and the log position it covers.
struct LoadedSnapshot {
    var graph: Graph
    var number: UInt64
    var lastSequence: UInt64
    /// The file's size in bytes (the basis of the automatic-compaction ratio).
    var fileLength: Int
}

/// Loads `snapshot-<N>.gsnap` files.
struct SnapshotReader {
    let fileSystem: FileSystem

    /// Reads and verifies the snapshot at `path`, expected to be number `number`.
    /// Throws StoreError(.corruptSnapshot) naming the file and the offset of the first bad
    /// byte range, or (.unsupportedVersion) for another format version.
    func read(path: String, number: UInt64) throws(StoreError) -> LoadedSnapshot {
        let file = try fileSystem.open(path)
        defer { file.close() }
        let bytes = try file.read(at: 0, count: try file.size())
        let h = SnapshotFormat.headerLength
        func corrupt(_ offset: Int, _ what: String) -> StoreError {
            StoreError(.corruptSnapshot, "snapshot \(path) is damaged at offset \(offset): \(what)", path: path, offset: offset)
        }
        guard bytes.count >= h, Array(bytes[0..<8]) == SnapshotFormat.magic else {
            throw corrupt(0, bytes.count < 8 ? "the file is only \(bytes.count) bytes long" : "it does not start with GRAPHDSN")
        }
        let version = bytes.littleEndian(UInt32.self, at: 8)
        guard version == SnapshotFormat.formatVersion else {
            throw StoreError(.unsupportedVersion,
                "\(path) has snapshot format version \(version) (at offset 8), this graphd reads version "
                + "\(SnapshotFormat.formatVersion); use a graphd release that reads version \(version)", path: path, offset: 8)
        }
        guard CRC32C.checksum(bytes[0..<44]) == bytes.littleEndian(UInt32.self, at: 44) else {
            throw corrupt(0, "the header checksum does not match")
        }
        guard bytes.littleEndian(UInt32.self, at: 12) == UInt32(h), bytes.littleEndian(UInt64.self, at: 16) == number else {
            throw corrupt(12, "the header does not describe snapshot \(number)")
        }
        let lastSequence = bytes.littleEndian(UInt64.self, at: 24)
        let declaredLength = bytes.littleEndian(UInt64.self, at: 32)
        guard declaredLength == UInt64(bytes.count) else {
            throw corrupt(min(bytes.count, Int(clamping: declaredLength)),
                          "the header says \(declaredLength) bytes, the file has \(bytes.count) (cut short or appended to)")
        }

        var builder = SnapshotGraphLoader()
        var offset = h
        var sawEnd = false
        while offset < bytes.count {
            guard !sawEnd else { throw corrupt(offset, "bytes after the end section") }
            guard bytes.count - offset >= SnapshotFormat.sectionHeaderLength else { throw corrupt(offset, "a cut-off section header") }
            let kindByte = bytes[offset]
            guard let kind = SnapshotFormat.SectionKind(rawValue: kindByte) else {
                throw corrupt(offset, "unknown section kind \(kindByte)")
            }
            let checksum = bytes.littleEndian(UInt32.self, at: offset + 4)
            let length = bytes.littleEndian(UInt64.self, at: offset + 8)
            let start = offset + SnapshotFormat.sectionHeaderLength
            guard length <= UInt64(bytes.count - start) else { throw corrupt(offset, "a section runs past the end of the file") }
            let payload = bytes[start..<start + Int(length)]
            guard CRC32C.checksum(payload) == checksum else { throw corrupt(offset, "the \(kind) section's checksum does not match") }
            do throws(SnapshotLoadError) {
                var reader = ByteReader(bytes: payload)
                switch kind {
                case .names: try builder.names(&reader)
                case .nodes: try builder.nodes(&reader)
                case .relationships: try builder.relationships(&reader)
                case .indexes: try builder.indexes(&reader)
                case .end:
                    try builder.end(&reader)
                    sawEnd = true
                }
                guard reader.isAtEnd else { throw SnapshotLoadError(message: "\(reader.remaining) stray bytes in the section") }
            } catch {
                throw corrupt(offset, "the \(kind) section does not decode (\(error.message))")
            }
            offset = start + Int(length)
        }
        guard sawEnd else { throw corrupt(offset, "the end section is missing (the file was cut short)") }
        return LoadedSnapshot(graph: builder.graph, number: number, lastSequence: lastSequence, fileLength: bytes.count)
    }
}

/// Why a section's contents do not make a graph.
struct SnapshotLoadError: Error {
    var message: String
}

/// Rebuilds the graph section by section, with the ids the snapshot recorded.
/// Each section is one transaction (bounding the undo memory); indexes come after the nodes,
/// so each is built in one pass.
private struct SnapshotGraphLoader {
    var graph = Graph()
    private var previousNode: Int64 = -1
    private var previousRelationship: Int64 = -1
    private var stage = 0

    private mutating func enter(_ next: Int, _ what: String) throws(SnapshotLoadError) {
        guard next >= stage else { throw SnapshotLoadError(message: "\(what) section out of order") }
        stage = next
    }

    private mutating func transaction(_ body: (inout Graph) throws -> Void) throws(SnapshotLoadError) {
        graph.beginTransaction()
        do {
            try body(&graph)
        } catch {
            graph.rollbackTransaction()
            if let error = error as? CodecError { throw SnapshotLoadError(message: error.message) }
            if let error = error as? GraphError { throw SnapshotLoadError(message: error.message) }
            throw SnapshotLoadError(message: "\(error)")
        }
        _ = graph.commitTransaction()
    }

    mutating func names(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(1, "names")
        guard stage == 1, graph.labelNames.isEmpty else { throw SnapshotLoadError(message: "a second names section") }
        try transaction { g in
            for list in 0..<3 {
                let count = try r.count()
                for position in 0..<count {
                    let name = try r.string()
                    let id: Int
                    switch list {
                    case 0: id = g.internLabel(name).index
                    case 1: id = g.internRelationshipType(name).index
                    default: id = g.internPropertyKey(name).index
                    }
                    guard id == position else { throw SnapshotLoadError(message: "name '\(name)' appears twice") }
                }
            }
        }
    }

    mutating func nodes(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(2, "nodes")
        var previous = previousNode
        try transaction { g in
            let count = try r.count()
            for _ in 0..<count {
                let id = previous + 1 + Int64(try r.varint())
                guard let raw = UInt32(exactly: id) else { throw SnapshotLoadError(message: "node id \(id) out of range") }
                let labelCount = try r.count()
                var labels: [LabelID] = []
                labels.reserveCapacity(labelCount)
                for _ in 0..<labelCount { labels.append(LabelID(rawValue: try r.id())) }
                let properties = try r.properties()
                _ = try g.createNode(id: NodeID(rawValue: raw), labels: labels, properties: properties)
                previous = id
            }
        }
        previousNode = previous
    }

    mutating func relationships(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(3, "relationships")
        var previous = previousRelationship
        try transaction { g in
            let count = try r.count()
            for _ in 0..<count {
                let id = previous + 1 + Int64(try r.varint())
                guard let raw = UInt32(exactly: id) else { throw SnapshotLoadError(message: "relationship id \(id) out of range") }
                let type = RelationshipTypeID(rawValue: try r.id())
                let start = NodeID(rawValue: try r.id()), end = NodeID(rawValue: try r.id())
                let properties = try r.properties()
                _ = try g.createRelationship(id: RelationshipID(rawValue: raw), type: type, from: start, to: end, properties: properties)
                previous = id
            }
        }
        previousRelationship = previous
    }

    mutating func indexes(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(4, "indexes")
        try transaction { g in
            let count = try r.count()
            for _ in 0..<count {
                let label = LabelID(rawValue: try r.id()), key = PropertyKeyID(rawValue: try r.id())
                let unique = try r.u8()
                guard unique <= 1 else { throw SnapshotLoadError(message: "bad unique flag \(unique)") }
                try g.createIndex(label: label, key: key, unique: unique == 1)
            }
        }
    }

    mutating func end(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(5, "end")
        let nodes: UInt64, relationships: UInt64
        do {
            nodes = try r.varint()
            relationships = try r.varint()
        } catch {
            throw SnapshotLoadError(message: error.message)
        }
        guard nodes == UInt64(graph.nodeCount), relationships == UInt64(graph.relationshipCount) else {
            throw SnapshotLoadError(message: "the end section counts \(nodes) nodes and \(relationships) relationships, "
                                    + "the sections hold \(graph.nodeCount) and \(graph.relationshipCount)")
        }
    }
}
