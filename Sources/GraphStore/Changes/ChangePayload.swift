// ChangePayload.swift — the change feed's JSON payloads, one UTF-8 object per message, the same
// in Pub/Sub messages (RESP2 and RESP3) and in GRAPH.CHANGES replies (docs/protocol.md):
//   {"token":"<history>-<seq>","type":"friend-accepted","to":42,"user":17,"at":"2026-11-28T16:05:01.123Z"}
// An entity is named by its app id (a JSON number or string) or, without one, {"node":<node id>}.

/// Encodes change events, positions and resets as JSON.
public enum ChangePayload {
    /// A social event of `commit`.
    public static func encode(_ event: SocialEvent, of commit: DerivedCommit) -> [UInt8] {
        var json = JSONWriter()
        json.open(token: commit.token, type: event.type.rawValue)
        json.key("to"); json.ref(event.to)
        if let user = event.user { json.key("user"); json.ref(user) }
        if let e = event.event { json.key("event"); json.ref(e) }
        json.close(at: commit.commitTime)
        return json.bytes
    }

    /// A node or relationship change of `commit`.
    public static func encode(_ change: EntityChange, of commit: DerivedCommit) -> [UInt8] {
        var json = JSONWriter()
        json.open(token: commit.token, type: change.type)
        switch change.entity {
        case .node(let node, let labels):
            json.key("node"); json.number(Int64(node.node))
            if let id = node.appID { json.key("id"); json.appID(id) }
            json.key("labels"); json.strings(labels)
        case .relationship(let id, let type, let start, let end):
            json.key("relationship"); json.number(Int64(id))
            json.key("relType"); json.string(type)
            json.key("start"); json.ref(start)
            json.key("end"); json.ref(end)
        }
        if !change.changed.isEmpty { json.key("changed"); json.strings(change.changed) }
        json.close(at: commit.commitTime)
        return json.bytes
    }

    /// `{"type":"position","token":…}`: every retained event after a subscriber's token has been
    /// sent; live events follow.
    public static func position(_ token: ChangeToken) -> [UInt8] { marker("position", token) }

    /// `{"type":"reset","token":…}`: the subscriber's token cannot be honoured (another history,
    /// the future, older than what is retained); revalidate, then go on from `token`.
    public static func reset(_ token: ChangeToken) -> [UInt8] { marker("reset", token) }

    private static func marker(_ type: String, _ token: ChangeToken) -> [UInt8] {
        var json = JSONWriter()
        json.bytes += Array("{\"type\":".utf8)
        json.string(type)
        json.bytes += Array(",\"token\":".utf8)
        json.string(token.description)
        json.bytes.append(UInt8(ascii: "}"))
        return json.bytes
    }

    /// ISO-8601 UTC with milliseconds: `2026-11-28T16:05:01.123Z`.
    public static func iso8601(milliseconds: UInt64) -> String {
        let seconds = Int64(milliseconds / 1000), millis = Int(milliseconds % 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilCalendar.civil(days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let millisText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(year)-\(two(Int(month)))-\(two(Int(day)))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):"
            + "\(two(secondOfDay % 60)).\(millisText)Z"
    }
}

/// Appends JSON to a byte buffer: just what the payloads need.
private struct JSONWriter {
    var bytes: [UInt8] = []
    private var first = true

    init() { bytes.reserveCapacity(128) }

    mutating func open(token: ChangeToken, type: String) {
        bytes.append(UInt8(ascii: "{"))
        key("token"); string(token.description)
        key("type"); string(type)
    }

    mutating func close(at milliseconds: UInt64) {
        key("at"); string(ChangePayload.iso8601(milliseconds: milliseconds))
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func number(_ value: Int64) { bytes += Array(String(value).utf8) }

    mutating func appID(_ id: AppID) {
        switch id {
        case .integer(let value): number(value)
        case .string(let text): string(text)
        }
    }

    mutating func ref(_ entity: EntityRef) {
        if let id = entity.appID { appID(id); return }
        bytes += Array("{\"node\":".utf8)
        number(Int64(entity.node))
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func strings(_ items: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            string(item)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [92, 34]
            case UInt8(ascii: "\\"): bytes += [92, 92]
            case 0x0A: bytes += [92, UInt8(ascii: "n")]
            case 0x0D: bytes += [92, UInt8(ascii: "r")]
            case 0x09: bytes += [92, UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
