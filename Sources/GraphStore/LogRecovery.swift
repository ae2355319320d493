// LogRecovery.swift — opens a graph directory: loads the newest snapshot, replays the log
// segments after it, and applies the recovery rules. Formats: AppendLog.swift (segments and
// records) and SnapshotFormat.swift (snapshots); the rules are in docs/durability.md.
//
// RULES. (1) A torn or checksum-failing record at the very end of the newest segment, with no
// valid record after it, is what a crash mid-append leaves: it is cut off and reported with the
// file, the offset and the number of bytes dropped. (2) Damage anywhere else — a bad record
// followed by valid ones, a bad record at the end of an older segment, a sequence gap, a record
// that does not apply, a damaged segment header, a damaged snapshot — refuses to open, naming
// the file and offset; `--repair` then cuts the log at the last good record (keeping a copy of
// every byte it cuts, `<file>.cut-<time>`) or sets a damaged snapshot aside and falls back to
// an older snapshot or the log it replaced. (3) An unknown format version always refuses:
// that file is not damaged, it needs another graphd.

#if canImport(Glibc)
import Glibc
#endif

/// The outcome of opening a graph directory.
struct RecoveredLog {
    var graph: Graph
    var log: AppendLog
    /// One line per repair made, for the operator.
    var messages: [String]
    /// Size of the snapshot the graph was loaded from (0: none).
    var snapshotLength: Int
    /// The history the log's sequence numbers belong to (GraphHistory.swift).
    var history = GraphHistory.fresh()
    /// The commit times of the records replayed (and the snapshot's last one).
    var commitTimes = CommitTimeIndex()
    /// Whether --repair cut records from the log (their sequence numbers will be reused).
    var cutRecords = false
    /// The segment format version of the newest segment, the one appends would go to.
    var lastSegmentVersion = AppendLog.formatVersion
}

/// How to open: whether to repair damage and whether to delete leftovers of interrupted work.
struct RecoveryMode {
    /// --repair: cut damaged logs and set damaged snapshots aside instead of refusing.
    var repair = false
    /// Delete `*.tmp` files and files a newer snapshot covers (not while a compaction may run).
    var cleanUp = true
    /// The fsync policy the graph is opened under (whether commits are published before they
    /// are durable decides what an unclean stop means for its history).
    var fsync = FsyncPolicy.always
    /// Ids in the files whose slots would need more memory than this are damage (IDSlotLimit).
    var slotMemoryLimit = IDSlotLimit.physicalMemory
    /// Which segments the loaded snapshot covers that are kept for reading commits back.
    var retention = ChangeRetention.none
}

enum LogRecovery {
    /// Opens (creating if needed) the graph stored in `directory` and replays it; appends will
    /// go to a segment of the current format, and the graph's history file says it is open.
    static func open(directory: String, graphName: String, fileSystem: FileSystem,
                     mode: RecoveryMode = RecoveryMode()) throws(StoreError) -> RecoveredLog {
        var recovered = try replayDirectory(directory: directory, graphName: graphName, fileSystem: fileSystem, mode: mode)
        if recovered.lastSegmentVersion != AppendLog.formatVersion {
            // Records of the current format never go after older ones in one segment.
            try recovered.log.file.sync()
            let previous = try recovered.log.startNextSegment()
            previous.close()
            recovered.lastSegmentVersion = AppendLog.formatVersion
        }
        let historyFile = HistoryFile(directory: directory, fileSystem: fileSystem)
        let last = recovered.log.lastSequence
        if let (history, openUnder) = historyFile.read() {
            recovered.history = history
            // Commits published before they were durable may be lost past a crash; --repair
            // cut commits out: either way new commits are about to reuse sequence numbers.
            if recovered.cutRecords || (openUnder != nil && openUnder != .always) {
                recovered.history.fork(sharing: last)
            }
        }
        try historyFile.write(recovered.history, openUnder: mode.fsync)
        return recovered
    }

    /// Loads the newest good snapshot and replays the segments after it.
    private static func replayDirectory(directory: String, graphName: String, fileSystem: FileSystem,
                                        mode: RecoveryMode) throws(StoreError) -> RecoveredLog {
        var messages: [String] = []
        let names = try fileSystem.contentsOfDirectory(directory)
        if mode.cleanUp {
            for name in names where name.hasSuffix(".tmp") { try fileSystem.removeFile(directory + "/" + name) }
        }
        var segments = names.compactMap(segmentNumber(inFileName:)).sorted()
        let snapshots = names.compactMap(SnapshotFormat.number(inFileName:)).sorted()

        // The newest snapshot that loads; damaged ones refuse, or with --repair are set aside.
        var loaded: LoadedSnapshot?
        let reader = SnapshotReader(fileSystem: fileSystem, slotMemoryLimit: mode.slotMemoryLimit)
        for (position, number) in snapshots.enumerated().reversed() {
            let path = directory + "/" + SnapshotFormat.fileName(number)
            do {
                loaded = try reader.read(path: path, number: number)
                break
            } catch where error.kind == .corruptSnapshot {
                let older = position > 0 ? snapshots[position - 1] : nil
                let fallback = fallbackDescription(olderSnapshot: older, segments: segments, below: number)
                guard mode.repair, let fallback else {
                    throw StoreError(.corruptSnapshot, "graph '\(graphName)': \(error.message); refusing to open so that nothing is lost. "
                        + (fallback.map { "Start graphd with --repair to set the snapshot aside (renamed to \(path).damaged) and load \($0) instead, or restore the graph directory from a backup" }
                           ?? "The log it replaced was already removed, so --repair cannot rebuild it: restore the graph directory from a backup"),
                        path: error.path, offset: error.offset)
                }
                try fileSystem.rename(path, to: path + ".damaged")
                try fileSystem.syncDirectory(directory)
                messages.append("graphd: \(graphName): --repair set the damaged snapshot \(path) aside (\(path).damaged: \(error.message)) and loads \(fallback) instead")
            }
        }
        let base = loaded?.number ?? 1

        // Finish an interrupted compaction: what the loaded snapshot covers is no longer needed
        // to recover, and the segments past retention are not needed to read commits back.
        if mode.cleanUp {
            var removed = false
            let reader = LogReader(directory: directory, fileSystem: fileSystem)
            let covered = segments.filter { $0 < base }
            let expired = mode.retention.segmentsToDelete(
                covered: covered, now: AppendLog.wallClockMilliseconds(),
                sizeOf: { (try? fileSystem.open(directory + "/" + AppendLog.segmentFileName($0)))
                            .map { file in defer { file.close() }; return (try? file.size()) ?? 0 } ?? 0 },
                startOf: { reader.start(of: $0) })
            for number in expired {
                try fileSystem.removeFile(directory + "/" + AppendLog.segmentFileName(number)); removed = true
            }
            for number in snapshots where number < base {
                try fileSystem.removeFile(directory + "/" + SnapshotFormat.fileName(number)); removed = true
            }
            if removed { try fileSystem.syncDirectory(directory) }
        }
        segments = segments.filter { $0 >= base }
        for (position, number) in segments.enumerated() where number != base + UInt64(position) {
            let missing = AppendLog.segmentFileName(base + UInt64(position))
            throw StoreError(.corruptLog,
                "graph '\(graphName)': log segment \(directory)/\(missing) is missing (the graph continues in "
                + "\(AppendLog.segmentFileName(number))); refusing to open with a gap in the log. Restore the missing file from a backup",
                path: directory + "/" + missing, offset: 0)
        }

        var graph = loaded?.graph ?? Graph()
        graph.slotMemoryLimit = mode.slotMemoryLimit
        var sequence = loaded?.lastSequence ?? 0
        var times = CommitTimeIndex()
        times.note(sequence: sequence, time: loaded?.lastCommitTime ?? 0)
        func recovered(_ log: AppendLog, version: UInt32 = AppendLog.formatVersion, cut: Bool = false) -> RecoveredLog {
            RecoveredLog(graph: graph, log: log, messages: messages, snapshotLength: loaded?.fileLength ?? 0,
                         commitTimes: times, cutRecords: cut, lastSegmentVersion: version)
        }
        if segments.isEmpty {
            let path = directory + "/" + AppendLog.segmentFileName(base)
            try fileSystem.createDurably(path, contents: AppendLog.header(segment: base))
            let file = try fileSystem.open(path)
            let log = AppendLog(directory: directory, fileSystem: fileSystem, file: file, segment: base,
                                end: AppendLog.headerLength, lastSequence: sequence, lastCommitTime: times.lastTime,
                                snapshotNumber: base)
            return recovered(log)
        }

        var finished: [UInt64: Int] = [:]
        var index = 0
        while index < segments.count {
            let number = segments[index]
            let isLast = index == segments.count - 1
            let path = directory + "/" + AppendLog.segmentFileName(number)
            let file = try fileSystem.open(path)
            let (outcome, version) = try replay(file, segment: number, graphName: graphName, into: &graph, sequence: &sequence,
                                                times: &times)
            switch outcome {
            case .clean(let end):
                if isLast {
                    let log = AppendLog(directory: directory, fileSystem: fileSystem, file: file, segment: number, end: end,
                                        lastSequence: sequence, lastCommitTime: times.lastTime, finishedSegmentBytes: finished,
                                        snapshotNumber: base, allocated: try file.size())
                    return recovered(log, version: version)
                }
                finished[number] = end
                file.close()
            case .damaged(let offset, _, _, let isTornTail) where isTornTail && isLast:
                let dropped = try file.size() - offset
                try file.truncate(to: offset)
                try file.sync()
                messages.append("graphd: \(graphName): torn record at offset \(offset) of \(path) cut off (\(dropped) bytes dropped)")
                let log = AppendLog(directory: directory, fileSystem: fileSystem, file: file, segment: number, end: offset,
                                    lastSequence: sequence, lastCommitTime: times.lastTime, finishedSegmentBytes: finished,
                                    snapshotNumber: base)
                return recovered(log, version: version)
            case .damaged(let offset, let reason, let detail, _):
                let later = segments[(index + 1)...].map { AppendLog.segmentFileName($0) }
                guard mode.repair else {
                    file.close()
                    let laterText = later.isEmpty ? "" : " and the later segment(s) \(later.joined(separator: ", "))"
                    throw StoreError(.corruptLog,
                        "graph '\(graphName)': \(reason) at offset \(offset) of \(path)\(detail); refusing to open so that nothing is lost. "
                        + "To proceed, restore the graph directory from a backup, or start graphd with --repair to truncate the "
                        + "log at offset \(offset) (the last good record) and keep a copy of the cut bytes\(laterText) beside it",
                        path: path, offset: offset)
                }
                try cut(file, at: offset, later: later, directory: directory, graphName: graphName, reason: reason + detail,
                        fileSystem: fileSystem, messages: &messages)
                let log = AppendLog(directory: directory, fileSystem: fileSystem, file: file, segment: number, end: offset,
                                    lastSequence: sequence, lastCommitTime: times.lastTime, finishedSegmentBytes: finished,
                                    snapshotNumber: base)
                return recovered(log, version: version, cut: true)
            }
            index += 1
        }
        preconditionFailure("the loop returns at the last segment")  // segments is not empty here
    }

    /// What --repair would load instead of a damaged snapshot `number`, or nil when the data it
    /// replaced is gone: an older snapshot with every segment from it on, or segments from 1.
    static func fallbackDescription(olderSnapshot: UInt64?, segments: [UInt64], below number: UInt64) -> String? {
        let from = olderSnapshot ?? 1
        let needed = Set(from..<number)
        guard needed.isSubset(of: Set(segments)) else { return nil }
        if let older = olderSnapshot { return "the older \(SnapshotFormat.fileName(older)) and the log after it" }
        return "the whole log from \(AppendLog.segmentFileName(1))"
    }

    /// The segment number of a `log-<N>.glog` file name.
    static func segmentNumber(inFileName name: String) -> UInt64? {
        guard name.hasPrefix("log-"), name.hasSuffix(".glog") else { return nil }
        return UInt64(name.dropFirst(4).dropLast(5))
    }

    /// --repair: keeps a copy of everything from `offset` on (and moves later segments aside
    /// whole), then truncates the segment at the last good record.
    static func cut(_ file: LogFile, at offset: Int, later: [String], directory: String, graphName: String,
                    reason: String, fileSystem: FileSystem, messages: inout [String]) throws(StoreError) {
        let stamp = String(time(nil))
        let size = try file.size()
        let kept = file.path + ".cut-" + stamp
        try fileSystem.createDurably(kept, contents: try file.read(at: offset, count: size - offset))
        try file.truncate(to: offset)
        try file.sync()
        for name in later {
            try fileSystem.rename(directory + "/" + name, to: directory + "/" + name + ".cut-" + stamp)
        }
        try fileSystem.syncDirectory(directory)
        let laterText = later.isEmpty ? "" : "; later segments moved aside: " + later.map { "\($0).cut-\(stamp)" }.joined(separator: ", ")
        messages.append("graphd: \(graphName): --repair cut \(file.path) at offset \(offset) (\(reason)); "
                        + "the \(size - offset) bytes cut are kept in \(kept)\(laterText)")
    }

    /// How replaying one segment ended.
    enum SegmentOutcome {
        /// Every record is good; the offset after the last one.
        case clean(end: Int)
        /// The first bad byte range starts at `offset`; `isTornTail` when nothing valid follows it.
        /// The message reads "<reason> at offset <offset> of <file><detail>".
        case damaged(offset: Int, reason: String, detail: String, isTornTail: Bool)
    }

    /// Replays one segment into `graph`, continuing `sequence`, stamping change versions and
    /// noting commit times. Returns how it ended and the segment's format version.
    static func replay(_ file: LogFile, segment: UInt64, graphName: String, into graph: inout Graph,
                       sequence: inout UInt64, times: inout CommitTimeIndex) throws(StoreError) -> (SegmentOutcome, UInt32) {
        let path = file.path
        let bytes = try file.read(at: 0, count: try file.size())
        if let problem = try headerProblem(bytes, path: path, segment: segment) {
            return (.damaged(offset: 0, reason: problem, detail: "", isTornTail: false), AppendLog.formatVersion)
        }
        let version = bytes.littleEndian(UInt32.self, at: 8)
        var offset = AppendLog.headerLength
        while offset < bytes.count {
            guard let (payload, next) = validRecord(in: bytes, at: offset),
                  let record = try? MutationCodec.decode(payload, version: version) else {
                // Zeros to the end: the preallocated rest of the segment (AppendLog.swift).
                if bytes[offset...].allSatisfy({ $0 == 0 }) { return (.clean(end: offset), version) }
                // An invalid record: a torn tail only if nothing valid follows it.
                if let later = firstValidRecord(in: bytes, after: offset, version: version) {
                    return (.damaged(offset: offset, reason: "corrupt record", detail: " (a valid record follows at offset \(later))",
                                     isTornTail: false), version)
                }
                return (.damaged(offset: offset, reason: "incomplete or checksum-failing record", detail: "", isTornTail: true), version)
            }
            guard record.sequence == sequence + 1 else {
                return (.damaged(offset: offset, reason: "record with sequence number \(record.sequence)",
                                 detail: " where \(sequence + 1) was expected (a gap in the log)", isTornTail: false), version)
            }
            if let problem = apply(record.mutations, to: &graph) {
                return (.damaged(offset: offset, reason: "record that does not apply to the graph",
                                 detail: " (\(problem))", isTornTail: false), version)
            }
            graph.versions.stamp(record.mutations, sequence: record.sequence)
            times.note(sequence: record.sequence, time: record.commitTime)
            sequence = record.sequence
            offset = next
        }
        return (.clean(end: offset), version)
    }

    /// Why a segment header is unusable, nil when it is good; throws for another version.
    static func headerProblem(_ bytes: [UInt8], path: String, segment: UInt64) throws(StoreError) -> String? {
        let n = AppendLog.headerLength
        guard bytes.count >= n, Array(bytes[0..<8]) == AppendLog.magic else {
            return "not a graphd log segment (bad header)"
        }
        let version = bytes.littleEndian(UInt32.self, at: 8)
        guard AppendLog.readableVersions.contains(version) else {
            throw StoreError(.unsupportedVersion,
                "\(path) has log format version \(version) (at offset 8), this graphd reads versions "
                + "\(AppendLog.readableVersions.lowerBound) to \(AppendLog.readableVersions.upperBound); "
                + "use a graphd release that reads version \(version)", path: path, offset: 8)
        }
        guard CRC32C.checksum(bytes[0..<28]) == bytes.littleEndian(UInt32.self, at: 28),
              bytes.littleEndian(UInt32.self, at: 12) == UInt32(n),
              bytes.littleEndian(UInt64.self, at: 16) == segment else {
            return "damaged segment header"
        }
        return nil
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
    static func firstValidRecord(in bytes: [UInt8], after offset: Int, version: UInt32) -> Int? {
        var candidate = offset + 1
        while candidate + AppendLog.recordHeaderLength <= bytes.count {
            if let (payload, _) = validRecord(in: bytes, at: candidate), (try? MutationCodec.decode(payload, version: version)) != nil {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    /// Applies one record's mutations as a transaction; returns why it does not fit, or nil.
    static func apply(_ mutations: [Mutation], to graph: inout Graph) -> String? {
        if let problem = applyOpen(mutations, to: &graph) { return problem }
        _ = graph.commitTransaction()
        return nil
    }

    /// Applies a record's mutations in a transaction left open (the caller commits it, e.g. once
    /// the record is in its own log); rolled back, with the reason, when one does not fit.
    static func applyOpen(_ mutations: [Mutation], to graph: inout Graph) -> String? {
        graph.beginTransaction()
        for mutation in mutations {
            do {
                try graph.apply(mutation)
            } catch {
                graph.rollbackTransaction()
                return error.message
            }
        }
        return nil
    }
}
