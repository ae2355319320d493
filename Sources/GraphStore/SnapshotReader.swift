// SnapshotReader.swift — reads and checks a snapshot file (format in SnapshotFormat.swift) and
// rebuilds the graph it holds, with the same ids. Every byte is checked before it is believed:
// header checksum and version, each section's checksum, the decoded contents, the end section.

/// A snapshot as loaded: the graph and the log position it covers.
struct LoadedSnapshot {
    var graph: Graph
    var number: UInt64
    var lastSequence: UInt64
    /// The commit time of the last record it includes (ms since 1970 UTC; 0: unknown).
    var lastCommitTime: UInt64
    /// The file's size in bytes (the basis of the automatic-compaction ratio).
    var fileLength: Int
}

/// Loads `snapshot-<N>.gsnap` files.
struct SnapshotReader {
    let fileSystem: FileSystem
    /// Ids whose slots would need more memory than this are damage, not a graph (see IDSlotLimit).
    var slotMemoryLimit = IDSlotLimit.physicalMemory

    /// Reads and verifies the snapshot at `path`, expected to be number `number`.
    /// Throws StoreError(.corruptSnapshot) naming the file and the offset of the first bad
    /// byte range, or (.unsupportedVersion) for another format version.
    func read(path: String, number: UInt64) throws(StoreError) -> LoadedSnapshot {
        let file = try fileSystem.open(path)
        defer { file.close() }
        return try read(bytes: try file.read(at: 0, count: try file.size()), path: path, number: number)
    }

    /// As `read(path:number:)`, for a snapshot's bytes already in memory (a replica's copy,
    /// named `path` in messages).
    func read(bytes: [UInt8], path: String, number: UInt64) throws(StoreError) -> LoadedSnapshot {
        let h = SnapshotFormat.headerLength
        func corrupt(_ offset: Int, _ what: String) -> StoreError {
            StoreError(.corruptSnapshot, "snapshot \(path) is damaged at offset \(offset): \(what)", path: path, offset: offset)
        }
        guard bytes.count >= h, Array(bytes[0..<8]) == SnapshotFormat.magic else {
            throw corrupt(0, bytes.count < 8 ? "the file is only \(bytes.count) bytes long" : "it does not start with GRAPHDSN")
        }
        let version = bytes.littleEndian(UInt32.self, at: 8)
        guard SnapshotFormat.readableVersions.contains(version) else {
            throw StoreError(.unsupportedVersion,
                "\(path) has snapshot format version \(version) (at offset 8), this graphd reads versions "
                + "\(SnapshotFormat.readableVersions.lowerBound) to \(SnapshotFormat.readableVersions.upperBound); "
                + "use a graphd release that reads version \(version)", path: path, offset: 8)
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

        var builder = SnapshotGraphLoader(slotMemoryLimit: slotMemoryLimit)
        var versions = ChangeVersions()
        var sawClock = false, lastCommitTime: UInt64 = 0
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
                case .fullTextIndexes: try builder.fullTextIndexes(&reader)
                case .changeClock:
                    guard !sawClock else { throw SnapshotLoadError(message: "a second change clock section") }
                    sawClock = true
                    try decodingVersions { () throws(CodecError) in
                        versions.raiseFloor(to: try reader.varint())
                        lastCommitTime = try reader.varint()
                    }
                case .changeVersions:
                    try decodingVersions { () throws(CodecError) in try versions.readColumn(&reader, nodeLimit: slotMemoryLimit / 8) }
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
        var graph: Graph
        do throws(SnapshotLoadError) {
            graph = try builder.graph()
        } catch {
            throw corrupt(bytes.count, "its contents do not make a graph (\(error.message))")
        }
        // Without a change clock (an older snapshot) nothing is known of what changed when.
        if !sawClock { versions.raiseFloor(to: lastSequence) }
        graph.versions = versions
        return LoadedSnapshot(graph: graph, number: number, lastSequence: lastSequence, lastCommitTime: lastCommitTime,
                              fileLength: bytes.count)
    }
}

/// Runs the decoding of a change section, turning codec errors into load errors.
private func decodingVersions(_ body: () throws(CodecError) -> Void) throws(SnapshotLoadError) {
    do { try body() } catch { throw SnapshotLoadError(message: error.message) }
}

/// Why a section's contents do not make a graph.
struct SnapshotLoadError: Error {
    var message: String
}

/// Rebuilds the graph with the ids the snapshot recorded, through GraphBuilder: the sections
/// are decoded into the builder, which builds adjacency and indexes in bulk at the end (a
/// transaction per section would sort every insert into place and keep undo for all of it).
private struct SnapshotGraphLoader {
    private var builder: GraphBuilder
    private var previousNode: Int64 = -1
    private var previousRelationship: Int64 = -1
    private var stage = 0
    private var sawNames = false
    /// Ids beyond these would make more empty slots than `slotMemoryLimit` bytes can hold.
    private let nodeIDLimit: Int64
    private let relationshipIDLimit: Int64

    init(slotMemoryLimit: Int) {
        builder = GraphBuilder(slotMemoryLimit: slotMemoryLimit)
        nodeIDLimit = Int64(IDSlotLimit.slots(for: slotMemoryLimit, bytesPerSlot: IDSlotLimit.nodeSlotBytes))
        relationshipIDLimit = Int64(IDSlotLimit.slots(for: slotMemoryLimit, bytesPerSlot: IDSlotLimit.relationshipSlotBytes))
    }

    private mutating func enter(_ next: Int, _ what: String) throws(SnapshotLoadError) {
        guard next >= stage else { throw SnapshotLoadError(message: "\(what) section out of order") }
        stage = next
    }

    /// Runs a section's decoding, turning codec errors into load errors.
    private mutating func decoding(_ body: (inout SnapshotGraphLoader) throws -> Void) throws(SnapshotLoadError) {
        do {
            try body(&self)
        } catch let error as SnapshotLoadError {
            throw error
        } catch let error as CodecError {
            throw SnapshotLoadError(message: error.message)
        } catch {
            throw SnapshotLoadError(message: "\(error)")
        }
    }

    mutating func names(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(1, "names")
        guard !sawNames else { throw SnapshotLoadError(message: "a second names section") }
        sawNames = true
        try decoding { loader in
            for list in 0..<3 {
                let count = try r.count()
                for position in 0..<count {
                    let name = try r.string()
                    let id: Int
                    switch list {
                    case 0: id = loader.builder.label(name).index
                    case 1: id = loader.builder.relationshipType(name).index
                    default: id = loader.builder.propertyKey(name).index
                    }
                    guard id == position else { throw SnapshotLoadError(message: "name '\(name)' appears twice") }
                }
            }
        }
    }

    mutating func nodes(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(2, "nodes")
        try decoding { loader in
            let count = try r.count()
            var labels: [LabelID] = []
            for _ in 0..<count {
                let id = try Self.nextID(after: loader.previousNode, delta: try r.varint())
                guard id < loader.nodeIDLimit, let raw = UInt32(exactly: id) else {
                    throw SnapshotLoadError(message: IDSlotLimit.refusal(entity: "node", id: id, limit: loader.nodeIDLimit,
                                                                         bytesPerSlot: IDSlotLimit.nodeSlotBytes))
                }
                let labelCount = try r.count()
                labels.removeAll(keepingCapacity: true)
                for _ in 0..<labelCount { labels.append(LabelID(rawValue: try r.id())) }
                let properties = try r.properties()
                _ = loader.builder.addNode(id: NodeID(rawValue: raw), labels: labels,
                                           properties: properties.isEmpty ? [] : properties.tuples)
                loader.previousNode = id
            }
            // Once per section, not per node: the builder keeps its first problem, and ids it
            // could not hold were refused above, before it saw them.
            try loader.checkBuilder()
        }
    }

    mutating func relationships(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(3, "relationships")
        try decoding { loader in
            let count = try r.count()
            for _ in 0..<count {
                let id = try Self.nextID(after: loader.previousRelationship, delta: try r.varint())
                guard id < loader.relationshipIDLimit, let raw = UInt32(exactly: id) else {
                    throw SnapshotLoadError(message: IDSlotLimit.refusal(entity: "relationship", id: id, limit: loader.relationshipIDLimit,
                                                                         bytesPerSlot: IDSlotLimit.relationshipSlotBytes))
                }
                let type = RelationshipTypeID(rawValue: try r.id())
                let start = NodeID(rawValue: try r.id()), end = NodeID(rawValue: try r.id())
                let properties = try r.properties()
                loader.builder.addRelationship(id: RelationshipID(rawValue: raw), type: type, from: start, to: end,
                                               properties: properties.isEmpty ? [] : properties.tuples)
                loader.previousRelationship = id
            }
            try loader.checkBuilder()
        }
    }

    mutating func indexes(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(4, "indexes")
        try decoding { loader in
            let count = try r.count()
            for _ in 0..<count {
                let label = LabelID(rawValue: try r.id()), key = PropertyKeyID(rawValue: try r.id())
                let unique = try r.u8()
                guard unique <= 1 else { throw SnapshotLoadError(message: "bad unique flag \(unique)") }
                guard label.index < loader.builder.labelCount, key.index < loader.builder.propertyKeyCount else {
                    throw SnapshotLoadError(message: "an index on unknown label id \(label.rawValue) or key id \(key.rawValue)")
                }
                guard !loader.builder.indexes.contains(where: { $0.label == label && $0.key == key }) else {
                    throw SnapshotLoadError(message: "a second index on label id \(label.rawValue), key id \(key.rawValue)")
                }
                loader.builder.addIndex(label: label, key: key, unique: unique == 1)
            }
        }
    }

    /// The full-text section (after the indexes, before the end): definitions only.
    mutating func fullTextIndexes(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(4, "full-text indexes")
        stage = 5
        try decoding { loader in
            let count = try r.count()
            for _ in 0..<count {
                let descriptor = try r.fullTextDescriptor()
                try loader.builder.checkFullText(descriptor)
                loader.builder.addFullTextIndex(descriptor)
            }
        }
    }

    /// The end section: the counts it records must be what the sections held.
    mutating func end(_ r: inout ByteReader) throws(SnapshotLoadError) {
        try enter(5, "end")
        let nodes: UInt64, relationships: UInt64
        do {
            nodes = try r.varint()
            relationships = try r.varint()
        } catch {
            throw SnapshotLoadError(message: error.message)
        }
        guard nodes == UInt64(builder.nodeCount), relationships == UInt64(builder.relationshipCount) else {
            throw SnapshotLoadError(message: "the end section counts \(nodes) nodes and \(relationships) relationships, "
                                    + "the sections hold \(builder.nodeCount) and \(builder.relationshipCount)")
        }
    }

    /// `previous + 1 + delta`, ids being stored as gaps; a gap past Int64 is damage, not a trap.
    private static func nextID(after previous: Int64, delta: UInt64) throws(SnapshotLoadError) -> Int64 {
        guard let gap = Int64(exactly: delta) else { throw SnapshotLoadError(message: "an id gap of \(delta) is out of range") }
        let (id, overflow) = (previous + 1).addingReportingOverflow(gap)
        guard !overflow else { throw SnapshotLoadError(message: "an id gap of \(delta) is out of range") }
        return id
    }

    /// The first problem an `add…` call noted (a duplicate id, an unknown name id), as a load error.
    private func checkBuilder() throws(SnapshotLoadError) {
        if let error = builder.firstProblem { throw SnapshotLoadError(message: error.message) }
    }

    /// Builds the graph (endpoints and unique constraints are checked here). The builder is
    /// moved out first so that its relationship records are freed as soon as the graph is built.
    mutating func graph() throws(SnapshotLoadError) -> Graph {
        var taken = GraphBuilder(slotMemoryLimit: 0)
        swap(&taken, &builder)
        do {
            return try (consume taken).build()
        } catch {
            throw SnapshotLoadError(message: error.message)
        }
    }
}
