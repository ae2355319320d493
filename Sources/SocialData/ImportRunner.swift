// ImportRunner.swift — runs an ImportPlan into an ImportTarget (a GraphBuilder, or a Graph in
// one transaction): node files first (so every relationship end exists), then relationship
// files, then edge lists, each read in one pass over the file's bytes. Property-less
// relationships go to the target in bulk. A bad row is reported with its file and line and
// skipped up to the plan's limit; past it the import throws, and the caller discards the
// builder or rolls the transaction back, so the graph on disk is untouched.

import Glibc
import GraphStore

/// Reads import files into a graph builder.
public struct ImportRunner {
    public let plan: ImportPlan
    /// How often (in rows) the progress callback runs.
    static let progressInterval = 1 << 16

    public init(plan: ImportPlan) { self.plan = plan }

    /// Reads every input into `builder`. Throws the first bad row when the plan allows none,
    /// or the one past the limit; a file that cannot be read; a header it does not understand;
    /// or, as an ImportError naming no line, what the target refused.
    public func run<Target: ImportTarget>(into builder: inout Target,
                                          progress: ((ImportProgress) -> Void)? = nil) throws(ImportError) -> ImportSummary {
        var state = State(plan: plan, progress: progress)
        for input in plan.nodeFiles { try state.readNodes(input, builder: &builder) }
        for input in plan.relationshipFiles { try state.readRelationships(input, builder: &builder) }
        for input in plan.edgeLists { try state.readEdgeList(input, builder: &builder) }
        for (label, key) in state.indexes {
            try State.target(plan.paths.first ?? "") { () throws(GraphError) in try builder.importIndex(label: label, key: key, unique: true) }
        }
        return state.summary
    }

    /// The whole file's bytes.
    public static func readFile(_ path: String) throws(ImportError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImportError(file: path, line: nil, reason: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ImportError(file: path, line: nil, reason: "cannot stat: \(String(cString: strerror(errno)))") }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw ImportError(file: path, line: nil, reason: "is a directory") }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, size - offset) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw ImportError(file: path, line: nil, reason: "cannot read: \(String(cString: strerror(errno)))") }
            if n == 0 { bytes.removeLast(size - offset); break }
            offset += n
        }
        return bytes
    }
}

extension ImportRunner {
    /// What the import has built so far: id maps, interned names, counters.
    struct State {
        let plan: ImportPlan
        let progress: ((ImportProgress) -> Void)?
        var maps: [String: ImportIDMap] = [:]
        var summary = ImportSummary()
        var indexes: [(LabelID, PropertyKeyID)] = []
        private var bytesTotal = 0
        private var bytesBefore = 0

        init(plan: ImportPlan, progress: ((ImportProgress) -> Void)?) {
            self.plan = plan
            self.progress = progress
            if progress != nil {
                for path in plan.paths {
                    var info = stat()
                    if stat(path, &info) == 0 { bytesTotal += Int(info.st_size) }
                }
            }
        }

        /// Counts a bad row; throws it when past the plan's limit.
        mutating func bad(_ error: ImportError) throws(ImportError) {
            summary.badRowCount += 1
            if summary.badRowCount > plan.maximumBadRows {
                if plan.maximumBadRows == 0 { throw error }
                throw ImportError(file: error.file, line: error.line,
                                  reason: error.reason + " (more than \(plan.maximumBadRows) bad rows: stopping)")
            }
            if summary.badRows.count < plan.reportedBadRows { summary.badRows.append(error) }
        }

        mutating func report(_ file: String, position: Int) {
            guard let progress else { return }
            progress(ImportProgress(file: file, rowsRead: summary.rowsRead, bytesRead: bytesBefore + position, bytesTotal: bytesTotal))
        }

        mutating func finishFile(_ file: String, size: Int) {
            bytesBefore += size
            summary.bytesRead += size
            report(file, position: 0)
        }

        mutating func addIndex(_ label: LabelID, _ key: PropertyKeyID) {
            if !indexes.contains(where: { $0.0 == label && $0.1 == key }) { indexes.append((label, key)) }
        }

        // MARK: node files

        /// Runs a write on the target; a GraphError becomes an ImportError about `file`.
        static func target<R>(_ file: String, line: Int? = nil, _ body: () throws(GraphError) -> R) throws(ImportError) -> R {
            do throws(GraphError) {
                return try body()
            } catch {
                throw ImportError(file: file, line: line, reason: "\(error)")
            }
        }

        mutating func readNodes<Target: ImportTarget>(_ input: ImportPlan.Input, builder: inout Target) throws(ImportError) {
            let file = input.path
            var reader = ImportCSVReader(bytes: try ImportRunner.readFile(file), delimiter: plan.delimiter)
            var fields: [ImportField] = []
            guard try reader.next(into: &fields, file: file) else {
                throw ImportError(file: file, line: nil, reason: "the file is empty (a node file starts with a header line)")
            }
            let header = try ImportHeader(fields: fields.map(reader.string), nodes: true, file: file, line: reader.recordLine)
            let label = builder.importLabel(input.name)
            var keys: [PropertyKeyID?] = []
            var group = ""
            for column in header.columns {
                switch column {
                case .id(let property, let idGroup):
                    group = idGroup
                    let key = property.map { builder.importPropertyKey($0) }
                    if let key { addIndex(label, key) }
                    keys.append(key)
                case .property(let name, _, _): keys.append(builder.importPropertyKey(name))
                default: keys.append(nil)
                }
            }
            var map = maps.removeValue(forKey: group) ?? ImportIDMap()
            defer { maps[group] = map }
            var created = 0
            var properties: [(key: PropertyKeyID, value: Value)] = []
            var labels: [LabelID] = []
            rows: while try reader.next(into: &fields, file: file) {
                summary.rowsRead += 1
                if summary.rowsRead % ImportRunner.progressInterval == 0 { report(file, position: reader.position) }
                let line = reader.recordLine
                guard fields.count == header.columns.count else {
                    try bad(ImportError(file: file, line: line, reason: "expected \(header.columns.count) fields, found \(fields.count)"))
                    continue
                }
                properties.removeAll(keepingCapacity: true)
                labels.removeAll(keepingCapacity: true)
                labels.append(label)
                var integerID: Int64? = nil
                var stringID: String? = nil
                for (index, column) in header.columns.enumerated() {
                    let field = fields[index]
                    switch column {
                    case .id:
                        if let n = reader.integer(field) {
                            integerID = n
                            if let key = keys[index] { properties.append((key, .integer(n))) }
                        } else {
                            let text = reader.string(field)
                            guard !text.isEmpty else {
                                try bad(ImportError(file: file, line: line, reason: "the id is empty"))
                                continue rows
                            }
                            stringID = text
                            if let key = keys[index] { properties.append((key, .string(text))) }
                        }
                    case .labels:
                        for name in reader.string(field).split(separator: ";") where !name.isEmpty {
                            let extra = builder.importLabel(String(name))
                            if !labels.contains(extra) { labels.append(extra) }
                        }
                    case .property(let name, let type, let isList):
                        if field.isEmpty { continue }
                        do throws(ImportError) {
                            properties.append((keys[index]!, try Self.value(field, reader: reader, type: type, isList: isList,
                                                                            column: name, file: file, line: line)))
                        } catch {
                            try bad(error)
                            continue rows
                        }
                    case .ignore, .startID, .endID, .type:
                        continue
                    }
                }
                if let n = integerID, map.node(forInteger: n) != nil {
                    try bad(ImportError(file: file, line: line, reason: "duplicate id \(n)"))
                    continue
                }
                if let s = stringID, map.node(forString: s) != nil {
                    try bad(ImportError(file: file, line: line, reason: "duplicate id '\(s)'"))
                    continue
                }
                let node = try Self.target(file, line: line) { () throws(GraphError) in try builder.importNode(labels: labels, properties: properties) }
                if let n = integerID { _ = map.insert(integer: n, node: node) }
                if let s = stringID { _ = map.insert(string: s, node: node) }
                created += 1
            }
            summary.addNodes(created, label: input.name)
            finishFile(file, size: reader.bytes.count)
        }

        // MARK: relationship files

        mutating func readRelationships<Target: ImportTarget>(_ input: ImportPlan.Input, builder: inout Target) throws(ImportError) {
            let file = input.path
            var reader = ImportCSVReader(bytes: try ImportRunner.readFile(file), delimiter: plan.delimiter)
            var fields: [ImportField] = []
            guard try reader.next(into: &fields, file: file) else {
                throw ImportError(file: file, line: nil, reason: "the file is empty (a relationship file starts with a header line)")
            }
            let header = try ImportHeader(fields: fields.map(reader.string), nodes: false, file: file, line: reader.recordLine)
            let type = builder.importRelationshipType(input.name)
            var keys: [PropertyKeyID?] = []
            var startIndex = 0, endIndex = 1
            var startMap = ImportIDMap(), endMap = ImportIDMap()
            var bulk = true
            for (index, column) in header.columns.enumerated() {
                switch column {
                case .startID(let group): startIndex = index; startMap = maps[group] ?? ImportIDMap()
                case .endID(let group): endIndex = index; endMap = maps[group] ?? ImportIDMap()
                case .property(let name, _, _): keys.append(builder.importPropertyKey(name)); bulk = false; continue
                case .type: bulk = false
                default: break
                }
                keys.append(nil)
            }
            var from: [NodeID] = [], to: [NodeID] = []
            var counts: [RelationshipTypeID: (name: String, count: Int)] = [:]
            var properties: [(key: PropertyKeyID, value: Value)] = []
            let columnCount = header.columns.count
            // Two integer id columns and nothing else: a fast path, falling back row by row.
            let fastPath = bulk && columnCount == 2 && startIndex == 0 && endIndex == 1
            rows: while true {
                if fastPath {
                    while let (a, b) = reader.nextIntegerPair() {
                        summary.rowsRead += 1
                        if summary.rowsRead % ImportRunner.progressInterval == 0 { report(file, position: reader.position) }
                        guard let start = startMap.node(forInteger: a) else {
                            try bad(ImportError(file: file, line: reader.recordLine, reason: "no node with id '\(a)' (start)"))
                            continue
                        }
                        guard let end = endMap.node(forInteger: b) else {
                            try bad(ImportError(file: file, line: reader.recordLine, reason: "no node with id '\(b)' (end)"))
                            continue
                        }
                        from.append(start)
                        to.append(end)
                    }
                }
                guard try reader.next(into: &fields, file: file) else { break }
                summary.rowsRead += 1
                if summary.rowsRead % ImportRunner.progressInterval == 0 { report(file, position: reader.position) }
                guard fields.count == columnCount else {
                    try bad(ImportError(file: file, line: reader.recordLine, reason: "expected \(columnCount) fields, found \(fields.count)"))
                    continue
                }
                guard let start = Self.resolve(fields[startIndex], reader: reader, map: startMap) else {
                    try bad(ImportError(file: file, line: reader.recordLine, reason: "no node with id '\(reader.string(fields[startIndex]))' (start)"))
                    continue
                }
                guard let end = Self.resolve(fields[endIndex], reader: reader, map: endMap) else {
                    try bad(ImportError(file: file, line: reader.recordLine, reason: "no node with id '\(reader.string(fields[endIndex]))' (end)"))
                    continue
                }
                if bulk {
                    from.append(start)
                    to.append(end)
                    continue
                }
                properties.removeAll(keepingCapacity: true)
                var rowType = type
                var rowTypeName = input.name
                for (index, column) in header.columns.enumerated() {
                    let field = fields[index]
                    switch column {
                    case .type:
                        let name = reader.string(field)
                        if !name.isEmpty { rowType = builder.importRelationshipType(name); rowTypeName = name }
                    case .property(let name, let valueType, let isList):
                        if field.isEmpty { continue }
                        do throws(ImportError) {
                            properties.append((keys[index]!, try Self.value(field, reader: reader, type: valueType, isList: isList,
                                                                            column: name, file: file, line: reader.recordLine)))
                        } catch {
                            try bad(error)
                            continue rows
                        }
                    default: continue
                    }
                }
                try Self.target(file, line: reader.recordLine) { () throws(GraphError) in
                    try builder.importRelationship(type: rowType, from: start, to: end, properties: properties)
                }
                counts[rowType, default: (rowTypeName, 0)].count += 1
            }
            if bulk {
                try Self.target(file) { () throws(GraphError) in try builder.importRelationships(type: type, from: from, to: to) }
                summary.addRelationships(from.count, type: input.name)
            } else {
                for (_, entry) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    summary.addRelationships(entry.count, type: entry.name)
                }
            }
            finishFile(file, size: reader.bytes.count)
        }

        static func resolve(_ field: ImportField, reader: ImportCSVReader, map: ImportIDMap) -> NodeID? {
            if let n = reader.integer(field) { return map.node(forInteger: n) }
            return map.node(forString: reader.string(field))
        }

        /// A typed property value; a list is split on ';'.
        static func value(_ field: ImportField, reader: ImportCSVReader, type: ImportValueType, isList: Bool,
                          column: String, file: String, line: Int) throws(ImportError) -> Value {
            if isList {
                var items: [Value] = []
                for part in reader.string(field).split(separator: ";", omittingEmptySubsequences: false) {
                    items.append(try scalar(String(part), type: type, column: column, file: file, line: line))
                }
                return .list(items)
            }
            if type == .integer {
                guard let n = reader.integer(field) else {
                    throw ImportError(file: file, line: line, reason: "column '\(column)': '\(reader.string(field))' is not an integer")
                }
                return .integer(n)
            }
            return try scalar(reader.string(field), type: type, column: column, file: file, line: line)
        }

        static func scalar(_ text: String, type: ImportValueType, column: String, file: String, line: Int) throws(ImportError) -> Value {
            switch type {
            case .string: return .string(text)
            case .integer:
                guard let n = Int64(text.trimmingSpaces()) else {
                    throw ImportError(file: file, line: line, reason: "column '\(column)': '\(text)' is not an integer")
                }
                return .integer(n)
            case .double:
                guard let d = Double(text.trimmingSpaces()) else {
                    throw ImportError(file: file, line: line, reason: "column '\(column)': '\(text)' is not a number")
                }
                return .double(d)
            case .boolean:
                switch text.trimmingSpaces().lowercased() {
                case "true": return .bool(true)
                case "false": return .bool(false)
                default: throw ImportError(file: file, line: line, reason: "column '\(column)': '\(text)' is not true or false")
                }
            case .temporal(let temporalType):
                do {
                    return .temporal(try TemporalParser.parse(text.trimmingSpaces(), as: temporalType))
                } catch {
                    throw ImportError(file: file, line: line, reason: "column '\(column)': '\(text)' is not a \(temporalType.rawValue): \(error.message)")
                }
            }
        }
    }
}
