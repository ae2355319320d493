// LogReader.swift — reads committed records back out of a graph's log segments by sequence.
// Subscribers catching up, GRAPH.CHANGES and replicas ask for "the records after N": the
// segments hold them in order (AppendLog.swift), each segment starting where the one before
// ended, so the segment to start in is the last whose first record is at most N + 1. Reading
// goes on beside the writer: a record it finds incomplete is past the end the caller asked for.

/// Where in the log the record after some sequence starts: a reading position to resume at.
struct LogCursor: Sendable, Equatable {
    /// The last sequence read; the next record is `sequence + 1`.
    var sequence: UInt64
    var segment: UInt64
    var offset: Int
}

/// Reads records of one graph's log directory (segment format: AppendLog.swift).
struct LogReader {
    /// How much of a segment is read at a time, at most.
    static let chunk = 4 << 20
    /// The first read of a call: a replica or subscriber that keeps up wants a record or two,
    /// and a segment is preallocated, so a first read of `chunk` would copy megabytes of zeros
    /// (on every pull of a replica). Each further read doubles, up to `chunk`.
    static let firstChunk = 64 << 10

    let directory: String
    let fileSystem: FileSystem

    /// What the first record of a segment is, if it has one.
    struct SegmentStart: Sendable, Equatable {
        var sequence: UInt64
        var commitTime: UInt64
    }

    /// The segments present, ascending.
    func segments() throws(StoreError) -> [UInt64] {
        try fileSystem.contentsOfDirectory(directory).compactMap(LogRecovery.segmentNumber(inFileName:)).sorted()
    }

    /// The sequence and commit time of a segment's first record; nil for a segment without
    /// records (or one that cannot be read, which the caller then cannot start in).
    func start(of segment: UInt64) -> SegmentStart? {
        guard let file = try? fileSystem.open(directory + "/" + AppendLog.segmentFileName(segment)) else { return nil }
        defer { file.close() }
        guard let size = try? file.size(), size > AppendLog.headerLength,
              let head = try? file.read(at: 0, count: AppendLog.headerLength),
              let version = Self.version(of: head, segment: segment) else { return nil }
        let first = (try? file.read(at: AppendLog.headerLength, count: min(size - AppendLog.headerLength, 64 << 10))) ?? []
        guard first.count >= AppendLog.recordHeaderLength else { return nil }
        let length = Int(first.littleEndian(UInt32.self, at: 0))
        var bytes = first
        if length + AppendLog.recordHeaderLength > first.count {
            guard length <= AppendLog.maximumPayload, let whole = try? file.read(at: AppendLog.headerLength,
                                                                            count: AppendLog.recordHeaderLength + length) else { return nil }
            bytes = whole
        }
        guard let (payload, _) = LogRecovery.validRecord(in: bytes, at: 0),
              let record = try? MutationCodec.decode(payload, version: version) else { return nil }
        return SegmentStart(sequence: record.sequence, commitTime: record.commitTime)
    }

    /// The position of the record after `sequence`, or nil when no segment holds it any more
    /// (or it is not written yet). `starts` caches segment starts between calls.
    func cursor(after sequence: UInt64, starts: inout [UInt64: SegmentStart]) throws(StoreError) -> LogCursor? {
        let numbers = try segments()
        // The last segment whose first record is at most sequence + 1.
        var chosen: UInt64?
        for number in numbers.reversed() {
            let start: SegmentStart?
            if let cached = starts[number] { start = cached } else {
                start = self.start(of: number)
                if let start { starts[number] = start }
            }
            guard let start else { continue }  // empty (the newest), or unreadable
            if start.sequence <= sequence + 1 { chosen = number; break }
        }
        guard let chosen else { return nil }
        return LogCursor(sequence: sequence, segment: chosen, offset: -1)
    }

    /// Records after `cursor.sequence` up to `through`, at most `limit`, ascending; the cursor
    /// after the last one returned. Nil when the records are no longer (or not yet) in the log.
    func read(from cursor: LogCursor, through: UInt64, limit: Int) throws(StoreError) -> ([LogRecord], LogCursor)? {
        var records: [LogRecord] = []
        var position = cursor
        var chunk = Self.firstChunk
        guard position.sequence < through, limit > 0 else { return ([], cursor) }
        let numbers = try segments()
        while records.count < limit, position.sequence < through {
            guard numbers.contains(position.segment) else { return records.isEmpty ? nil : (records, position) }
            let file = try fileSystem.open(directory + "/" + AppendLog.segmentFileName(position.segment))
            defer { file.close() }
            let size = try file.size()
            let head = try file.read(at: 0, count: min(size, AppendLog.headerLength))
            guard let version = Self.version(of: head, segment: position.segment) else {
                throw StoreError(.corruptLog, "log segment \(file.path) has a damaged header", path: file.path, offset: 0)
            }
            if position.offset < 0 { position.offset = AppendLog.headerLength }
            var reachedEnd = false
            while records.count < limit, position.sequence < through, !reachedEnd {
                let count = min(chunk, size - position.offset)
                chunk = min(chunk * 2, Self.chunk)
                guard count >= AppendLog.recordHeaderLength else { reachedEnd = true; break }
                var bytes = try file.read(at: position.offset, count: count)
                var at = 0
                var progressed = false
                while records.count < limit, position.sequence < through {
                    guard bytes.count - at >= AppendLog.recordHeaderLength else { break }
                    let length = Int(bytes.littleEndian(UInt32.self, at: at))
                    if length == 0 { reachedEnd = true; break }  // the preallocated zeros: the segment's end
                    let recordBytes = AppendLog.recordHeaderLength + length
                    if at + recordBytes > bytes.count {
                        // Cut by the chunk: read this record whole, or it is past the end.
                        guard at == 0, length <= AppendLog.maximumPayload, position.offset + recordBytes <= size else {
                            if at == 0 { reachedEnd = true }
                            break
                        }
                        bytes = try file.read(at: position.offset, count: recordBytes)
                    }
                    guard let (payload, next) = LogRecovery.validRecord(in: bytes, at: at),
                          let record = try? MutationCodec.decode(payload, version: version) else {
                        reachedEnd = true  // a record being written (or the torn tail of a crash)
                        break
                    }
                    if record.sequence > position.sequence + 1 {
                        throw StoreError(.corruptLog, "log segment \(file.path) holds record \(record.sequence) where "
                                         + "\(position.sequence + 1) was expected", path: file.path, offset: position.offset)
                    }
                    if record.sequence == position.sequence + 1 {
                        records.append(record)
                        position.sequence = record.sequence
                    }
                    position.offset += next - at
                    at = next
                    progressed = true
                    if at >= bytes.count { break }
                }
                if !progressed { reachedEnd = true }
            }
            guard position.sequence < through, records.count < limit else { break }
            // This segment is done: go on in the next one, if the log has moved on to it.
            guard let next = numbers.first(where: { $0 > position.segment }) else { break }
            position.segment = next
            position.offset = -1
        }
        return (records, position)
    }

    /// The format version of a segment whose header is `head`, nil when it is not a good header.
    static func version(of head: [UInt8], segment: UInt64) -> UInt32? {
        guard head.count >= AppendLog.headerLength, Array(head[0..<8]) == AppendLog.magic,
              CRC32C.checksum(head[0..<28]) == head.littleEndian(UInt32.self, at: 28),
              head.littleEndian(UInt64.self, at: 16) == segment else { return nil }
        let version = head.littleEndian(UInt32.self, at: 8)
        return AppendLog.readableVersions.contains(version) ? version : nil
    }
}
