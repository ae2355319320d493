// GeneratorEdgeList.swift — a SocialDataset from a real SNAP edge list (e.g. ego-Facebook's
// facebook_combined.txt), so the benchmark harness measures real data as well as generated:
//   one friendship per line, `u v` (blanks or a comma between two non-negative integer ids;
//   further columns ignored); lines starting with '#' or '%', and blank lines, skipped.
// Ids that run 0..<n (SNAP's usual numbering) are the users' ids as they are; other ids are
// numbered densely in ascending order. Self-loops and repeated pairs are dropped (a friendship is
// an undirected pair, once). Users get generated names; there are no events, requests or follows.

extension SocialDataset {
    /// Reads the edge list at `path`; throws SocialCSVError naming the line of any malformed one.
    public init(edgeList path: String) throws {
        let bytes: [UInt8]
        do { bytes = try ImportRunner.readFile(path) } catch {
            throw SocialCSVError(file: path, line: 0, message: error.reason)
        }
        var left: [UInt64] = [], right: [UInt64] = []
        left.reserveCapacity(bytes.count / 12)
        right.reserveCapacity(bytes.count / 12)
        var line = 0, position = 0
        while position < bytes.count {
            line += 1
            var end = position
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            defer { position = end + 1 }
            var p = position
            func skipBlanks() {
                while p < end && (bytes[p] == UInt8(ascii: " ") || bytes[p] == UInt8(ascii: "\t") || bytes[p] == UInt8(ascii: "\r")) { p += 1 }
            }
            func number() -> UInt64? {
                let start = p
                var value: UInt64 = 0
                while p < end, bytes[p] >= UInt8(ascii: "0"), bytes[p] <= UInt8(ascii: "9") {
                    let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[p] - UInt8(ascii: "0")))
                    if o1 || o2 || sum > UInt64(UInt32.max) { return nil }
                    value = sum
                    p += 1
                }
                return p > start ? value : nil
            }
            skipBlanks()
            if p == end || bytes[p] == UInt8(ascii: "#") || bytes[p] == UInt8(ascii: "%") { continue }
            guard let a = number() else {
                throw SocialCSVError(file: path, line: line, message: "expected two node ids (0 … 4294967295), as `u v`")
            }
            skipBlanks()
            if p < end && bytes[p] == UInt8(ascii: ",") { p += 1; skipBlanks() }
            guard let b = number() else {
                throw SocialCSVError(file: path, line: line, message: "expected a second node id after \(a)")
            }
            left.append(a)
            right.append(b)
        }
        // Dense ids: kept when they already run 0..<n, else numbered in ascending order.
        var ids = Array(Set(left + right)).sorted()
        let dense = ids.last.map { Int($0) == ids.count - 1 } ?? true
        var index: [UInt64: UInt32] = [:]
        if !dense {
            index.reserveCapacity(ids.count)
            for (i, id) in ids.enumerated() { index[id] = UInt32(i) }
        }
        let userCount = ids.count
        ids = []
        let names = (0..<userCount).map { "User \($0)" }
        let usernames = (0..<userCount).map { "user\($0)" }
        self.init(userCount: userCount, names: names, usernames: usernames)
        friendA.reserveCapacity(left.count)
        friendB.reserveCapacity(left.count)
        for i in left.indices where left[i] != right[i] {
            let a = dense ? UInt32(left[i]) : index[left[i]]!
            let b = dense ? UInt32(right[i]) : index[right[i]]!
            friendA.append(min(a, b))
            friendB.append(max(a, b))
        }
        normaliseFriendships()
    }
}
