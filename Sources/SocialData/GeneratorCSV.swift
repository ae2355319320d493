// GeneratorCSV.swift — a SocialDataset as CSV files in Benchmarks/anchors/gen_social.py's layout, and
// back, so graphd and its peers load the very same data (including data gen_social.py wrote):
//   users.csv        id,name,username
//   friendships.csv  a,b                      (each undirected pair once, a < b)
//   events.csv       id,host,title,starts_at  (starts_at as 2026-03-04T05:15:00, UTC)
//   invited.csv      event,user
// plus files gen_social.py does not write (peers ignore them; absent means empty when reading):
//   attending.csv    event,user               (RSVPs: a subset of the invitations)
//   requests.csv     from,to                  (pending friend requests)
//   follows.csv      follower,followed

import Foundation
import GraphStore

/// A CSV file of the data set layout that could not be read, with the file and line.
public struct SocialCSVError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
}

extension SocialDataset {
    /// Writes the CSV files (and nothing else) into `directory`, creating it if needed.
    public func writeCSV(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var out = CSVBuffer()
        out.text("id,name,username\n")
        for u in 0..<userCount {
            out.int(u); out.byte(44); out.text(names[u]); out.byte(44); out.text(usernames[u]); out.byte(10)
        }
        try out.write(to: directory + "/users.csv")
        try writePairs(header: "a,b", friendA, friendB, to: directory + "/friendships.csv")
        out = CSVBuffer()
        out.text("id,host,title,starts_at\n")
        for e in 0..<eventCount {
            out.int(e); out.byte(44); out.int(Int(eventHost[e])); out.byte(44); out.text(eventTitles[e]); out.byte(44)
            out.text(CivilTime.iso8601(minutes: eventStartMinutes[e])); out.byte(10)
        }
        try out.write(to: directory + "/events.csv")
        try writePairs(header: "event,user", invitedEvent, invitedUser, to: directory + "/invited.csv")
        try writePairs(header: "event,user", attendingEvent, attendingUser, to: directory + "/attending.csv")
        try writePairs(header: "from,to", requestFrom, requestTo, to: directory + "/requests.csv")
        try writePairs(header: "follower,followed", followFrom, followTo, to: directory + "/follows.csv")
    }

    private func writePairs(header: String, _ a: [UInt32], _ b: [UInt32], to path: String) throws {
        var out = CSVBuffer()
        out.text(header); out.byte(10)
        for i in 0..<a.count {
            out.int(Int(a[i])); out.byte(44); out.int(Int(b[i])); out.byte(10)
        }
        try out.write(to: path)
    }

    /// Reads a directory written by `writeCSV` or by gen_social.py. Friendships are normalised
    /// (a < b, sorted, duplicates and self loops dropped), so any edge order loads.
    public init(csvDirectory directory: String) throws {
        let users = try CSVTable(path: directory + "/users.csv", columns: 3)
        var names = [String](), usernames = [String]()
        names.reserveCapacity(users.rows.count); usernames.reserveCapacity(users.rows.count)
        for (i, row) in users.rows.enumerated() {
            guard try users.integer(row[0], row: i) == i else {
                throw SocialCSVError(file: users.path, line: i + 2, message: "user ids must be 0, 1, 2, … in order")
            }
            names.append(String(decoding: row[1], as: UTF8.self))
            usernames.append(String(decoding: row[2], as: UTF8.self))
        }
        self.init(userCount: names.count, names: names, usernames: usernames)
        (friendA, friendB) = try CSVTable.pairs(path: directory + "/friendships.csv", limit: userCount, required: true)
        normaliseFriendships()
        let events = try CSVTable(path: directory + "/events.csv", columns: 4)
        for (i, row) in events.rows.enumerated() {
            guard try events.integer(row[0], row: i) == i else {
                throw SocialCSVError(file: events.path, line: i + 2, message: "event ids must be 0, 1, 2, … in order")
            }
            let host = try events.integer(row[1], row: i)
            guard host >= 0 && host < userCount else {
                throw SocialCSVError(file: events.path, line: i + 2, message: "host \(host) is not a user")
            }
            eventHost.append(UInt32(host))
            eventTitles.append(String(decoding: row[2], as: UTF8.self))
            guard let minutes = CivilTime.minutes(iso8601: String(decoding: row[3], as: UTF8.self)) else {
                throw SocialCSVError(file: events.path, line: i + 2, message: "starts_at is not YYYY-MM-DDTHH:MM[:SS]")
            }
            eventStartMinutes.append(minutes)
        }
        (invitedEvent, invitedUser) = try CSVTable.pairs(path: directory + "/invited.csv", limit: max(userCount, eventCount),
                                                         required: true)
        (attendingEvent, attendingUser) = try CSVTable.pairs(path: directory + "/attending.csv", limit: max(userCount, eventCount))
        (requestFrom, requestTo) = try CSVTable.pairs(path: directory + "/requests.csv", limit: userCount)
        (followFrom, followTo) = try CSVTable.pairs(path: directory + "/follows.csv", limit: userCount)
    }

    /// Puts friendships in the generator's canonical form: a < b, sorted by (a, b), unique.
    mutating func normaliseFriendships() {
        let n = UInt64(userCount)
        var keys = [UInt64]()
        keys.reserveCapacity(friendA.count)
        for i in 0..<friendA.count where friendA[i] != friendB[i] {
            keys.append(UInt64(min(friendA[i], friendB[i])) * n + UInt64(max(friendA[i], friendB[i])))
        }
        keys.sort()
        var a = [UInt32](), b = [UInt32]()
        a.reserveCapacity(keys.count); b.reserveCapacity(keys.count)
        for (i, k) in keys.enumerated() where i == 0 || k != keys[i - 1] {
            a.append(UInt32(k / n)); b.append(UInt32(k % n))
        }
        friendA = a; friendB = b
    }
}

/// An output buffer of bytes with fast integer formatting (5M lines in well under a second).
struct CSVBuffer {
    var bytes: [UInt8] = []
    mutating func byte(_ b: UInt8) { bytes.append(b) }
    mutating func text(_ s: String) { bytes.append(contentsOf: s.utf8) }
    mutating func int(_ value: Int) {
        if value < 0 { bytes.append(45); int(-value); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value, count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat { d[count] = UInt8(48 + n % 10); n /= 10; count += 1 } while n > 0
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(d[i]) }
        }
    }
    func write(to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// A CSV file of this layout: a header line, then unquoted fields separated by commas.
struct CSVTable {
    let path: String
    /// Fields per row, as byte slices of the file.
    var rows: [[ArraySlice<UInt8>]] = []

    init(path: String, columns: Int) throws {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SocialCSVError(file: path, line: 0, message: "cannot read the file")
        }
        let bytes = [UInt8](data)
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 10 { end += 1 }
            var line = bytes[start..<end]
            if line.last == 13 { line = line.dropLast() }
            lineNumber += 1
            start = end + 1
            if lineNumber == 1 || line.isEmpty { continue }
            let fields = line.split(separator: 44, omittingEmptySubsequences: false)
            guard fields.count == columns else {
                throw SocialCSVError(file: path, line: lineNumber, message: "expected \(columns) fields, found \(fields.count)")
            }
            rows.append(fields)
        }
    }

    func integer(_ field: ArraySlice<UInt8>, row: Int) throws -> Int {
        var value = 0
        guard !field.isEmpty else { throw SocialCSVError(file: path, line: row + 2, message: "empty number") }
        for b in field {
            guard b >= 48 && b <= 57 else {
                throw SocialCSVError(file: path, line: row + 2, message: "'\(String(decoding: field, as: UTF8.self))' is not a non-negative integer")
            }
            value = value * 10 + Int(b - 48)
        }
        return value
    }

    /// A two-column file of non-negative integers below `limit`, parsed without per-row arrays
    /// (friendships.csv has 5M rows on medium). A missing optional file is empty.
    static func pairs(path: String, limit: Int, required: Bool = false) throws -> ([UInt32], [UInt32]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            if required { throw SocialCSVError(file: path, line: 0, message: "cannot read the file") }
            return ([], [])
        }
        var a = [UInt32](), b = [UInt32]()
        a.reserveCapacity(data.count / 12); b.reserveCapacity(data.count / 12)
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            let bytes = raw.bindMemory(to: UInt8.self)
            var i = 0
            while i < bytes.count && bytes[i] != 10 { i += 1 }  // header
            i += 1
            var line = 1
            while i < bytes.count {
                line += 1
                var fields = (0, 0), field = 0, digits = 0
                while i < bytes.count && bytes[i] != 10 {
                    let c = bytes[i]
                    if c >= 48 && c <= 57 {
                        if field == 0 { fields.0 = fields.0 * 10 + Int(c - 48) } else { fields.1 = fields.1 * 10 + Int(c - 48) }
                        digits += 1
                    } else if c == 44 && field == 0 && digits > 0 {
                        field = 1; digits = 0
                    } else if c != 13 {
                        throw SocialCSVError(file: path, line: line, message: "expected two non-negative integers separated by a comma")
                    }
                    i += 1
                }
                i += 1
                if field == 0 && digits == 0 { continue }  // blank line
                guard field == 1 && digits > 0 else {
                    throw SocialCSVError(file: path, line: line, message: "expected two non-negative integers separated by a comma")
                }
                guard fields.0 < limit && fields.1 < limit else {
                    throw SocialCSVError(file: path, line: line, message: "id \(max(fields.0, fields.1)) is out of range (< \(limit))")
                }
                a.append(UInt32(fields.0)); b.append(UInt32(fields.1))
            }
        }
        return (a, b)
    }
}

/// UTC civil time ↔ minutes since the Unix epoch, on the store's calendar (CivilCalendar).
enum CivilTime {
    static func iso8601(minutes: Int64) -> String {
        let days = minutes >= 0 ? minutes / 1440 : (minutes - 1439) / 1440
        let rest = minutes - days * 1440
        let (year, month, day) = CivilCalendar.civil(days)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 60)):\(two(rest % 60)):00"
    }

    static func minutes(iso8601 text: String) -> Int64? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" || $0 == " " })
        guard parts.count >= 5, let y = Int64(parts[0]), let m = Int64(parts[1]), let d = Int64(parts[2]),
              let hh = Int64(parts[3]), let mm = Int64(parts[4]), (1...12).contains(m), (1...31).contains(d) else { return nil }
        return CivilCalendar.epochDay(year: y, month: m, day: d) * 1440 + hh * 60 + mm
    }
}
