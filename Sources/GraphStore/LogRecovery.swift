// LogRecovery.swift — opens a graph's log segments and replays them into a Graph.
// Implements the RECOVERY rules written at the top of AppendLog.swift: a damaged last record
// is cut off with a message; damage followed by valid data, or an unknown version, refuses.

/// The outcome of opening a graph directory's log.
struct RecoveredLog {
    var graph: Graph
    var log: AppendLog
    /// One line per repair made, for the operator.
    var messages: [String]
}

enum LogRecovery {
    /// Opens (creating if needed) the log in `directory` and replays it.
    static func open(directory: String, graphName: String) throws(StoreError) -> RecoveredLog {
        let segments = try segmentNumbers(in: directory)
        if segments.isEmpty {
            let path = directory + "/" + AppendLog.segmentFileName(1)
            try PosixFile.createDurably(path, contents: AppendLog.header(segment: 1))
            let file = try PosixFile(openExisting: path)
            return RecoveredLog(graph: Graph(), log: AppendLog(file: file, end: AppendLog.headerLength, nextSequence: 1), messages: [])
        }
        var graph = Graph()
        var messages: [String] = []
        var sequence: UInt64 = 0
        // Older segments must be whole; only the newest may end in a torn record.
        for number in segments.dropLast() {
            let file = try PosixFile(openExisting: directory + "/" + AppendLog.segmentFileName(number))
            defer { file.close() }
            _ = try replay(file, segment: number, isLast: false, graphName: graphName,
                           into: &graph, sequence: &sequence, messages: &messages)
        }
        let newest = segments[segments.count - 1]
        let file = try PosixFile(openExisting: directory + "/" + AppendLog.segmentFileName(newest))
        let end = try replay(file, segment: newest, isLast: true, graphName: graphName,
                             into: &graph, sequence: &sequence, messages: &messages)
        return RecoveredLog(graph: graph, log: AppendLog(file: file, end: end, nextSequence: sequence + 1), messages: messages)
    }

    /// The segment numbers present in `directory`, ascending.
    static func segmentNumbers(in directory: String) throws(StoreError) -> [UInt64] {
        try FileSystem.contentsOfDirectory(directory).compactMap { name -> UInt64? in
            guard name.hasPrefix("log-"), name.hasSuffix(".glog") else { return nil }
            return UInt64(name.dropFirst(4).dropLast(5))
        }.sorted()
    }

    /// Replays one segment; returns the offset just past its last good record.
    static func replay(_ file: LogFile, segment: UInt64, isLast: Bool, graphName: String,
                       into graph: inout Graph, sequence: inout UInt64, messages: inout [String]) throws(StoreError) -> Int {
        let path = file.path
        let bytes = try file.read(at: 0, count: try file.size())
        try checkHeader(bytes, path: path, segment: segment)
        var offset = AppendLog.headerLength
        while offset < bytes.count {
            if let (payload, next) = validRecord(in: bytes, at: offset),
               let (recordSequence, mutations) = try? MutationCodec.decode(payload) {
                guard recordSequence == sequence + 1 else {
                    throw StoreError(.corruptLog,
                        "graph '\(graphName)': record at offset \(offset) of \(path) has sequence number \(recordSequence), "
                        + "expected \(sequence + 1): the log is out of order; restore the graph from a backup",
                        path: path, offset: offset)
                }
                try apply(mutations, to: &graph, path: path, offset: offset, graphName: graphName)
                sequence = recordSequence
                offset = next
                continue
            }
            // An invalid record: a torn tail only if nothing valid follows it.
            if let later = firstValidRecord(in: bytes, after: offset) {
                throw StoreError(.corruptLog,
                    "graph '\(graphName)': corrupt record at offset \(offset) of \(path), followed by a valid record at offset \(later); "
                    + "refusing to open so that nothing is lost. To proceed, restore the file from a backup, or keep a copy "
                    + "and truncate it to \(offset) bytes (losing every record from offset \(offset) on)",
                    path: path, offset: offset)
            }
            guard isLast else {
                throw StoreError(.corruptLog,
                    "graph '\(graphName)': corrupt record at offset \(offset) at the end of \(path), which is not the newest "
                    + "log segment; refusing to open. Restore the graph from a backup", path: path, offset: offset)
            }
            let dropped = bytes.count - offset
            try file.truncate(to: offset)
            try file.sync()
            messages.append("graphd: \(graphName): torn record at offset \(offset) of \(path) cut off (\(dropped) bytes dropped)")
            return offset
        }
        return offset
    }

    static func checkHeader(_ bytes: [UInt8], path: String, segment: UInt64) throws(StoreError) {
        let n = AppendLog.headerLength
        guard bytes.count >= n, Array(bytes[0..<8]) == AppendLog.magic else {
            throw StoreError(.corruptLog, "\(path) is not a graphd log (bad header at offset 0); move it out of the graph directory",
                             path: path, offset: 0)
        }
        let version = bytes.littleEndian(UInt32.self, at: 8)
        guard version == AppendLog.formatVersion else {
            throw StoreError(.unsupportedVersion,
                "\(path) has log format version \(version) (at offset 8), this graphd reads version \(AppendLog.formatVersion); "
                + "use a graphd release that reads version \(version)", path: path, offset: 8)
        }
        guard CRC32C.checksum(bytes[0..<28]) == bytes.littleEndian(UInt32.self, at: 28),
              bytes.littleEndian(UInt32.self, at: 12) == UInt32(n),
              bytes.littleEndian(UInt64.self, at: 16) == segment else {
            throw StoreError(.corruptLog, "\(path) has a damaged header (offset 0); restore the graph from a backup",
                             path: path, offset: 0)
        }
    }

    /// The payload and end offset of a well-framed record with a matching checksum at `offset`.
    static func validRecord(in bytes: [UInt8], at offset: Int) -> (ArraySlice<UInt8>, Int)? {
        guard bytes.count - offset >= AppendLog.recordHeaderLength else { return nil }
        let length = Int(bytes.littleEndian(UInt32.self, at: offset))
        let start = offset + AppendLog.recordHeaderLength
        guard length >= 1, length <= AppendLog.maximumPayload, length <= bytes.count - start else { return nil }
        var crc = CRC32C()
        crc.update(bytes[offset..<offset + 4])
        crc.update(bytes[start..<start + length])
        guard crc.value == bytes.littleEndian(UInt32.self, at: offset + 4) else { return nil }
        return (bytes[start..<start + length], start + length)
    }

    /// The offset of the first valid, decodable record starting after `offset`, if any.
    static func firstValidRecord(in bytes: [UInt8], after offset: Int) -> Int? {
        var candidate = offset + 1
        while candidate + AppendLog.recordHeaderLength <= bytes.count {
            if let (payload, _) = validRecord(in: bytes, at: candidate), (try? MutationCodec.decode(payload)) != nil {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    static func apply(_ mutations: [Mutation], to graph: inout Graph, path: String, offset: Int,
                      graphName: String) throws(StoreError) {
        graph.beginTransaction()
        for mutation in mutations {
            do {
                try graph.apply(mutation)
            } catch {
                graph.rollbackTransaction()
                throw StoreError(.replayFailed,
                    "graph '\(graphName)': record at offset \(offset) of \(path) does not apply to the graph (\(error.message)); "
                    + "the log is inconsistent; restore the graph from a backup", path: path, offset: offset)
            }
        }
        _ = graph.commitTransaction()
    }
}
