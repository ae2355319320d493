// PubSubFrames.swift — the frames of Redis Pub/Sub, byte for byte: subscribe and unsubscribe
// acknowledgements, `message` and `pmessage` deliveries, and PING's `pong` in subscribed mode.
// RESP2 sends them as arrays (`*3`), RESP3 as push frames (`>3`), as Redis's pubsub.c does.

/// Encodes Pub/Sub frames for one protocol version.
struct PubSubFrames {
    let protocolVersion: ProtocolVersion

    /// `subscribe`/`psubscribe`/`unsubscribe`/`punsubscribe` of `name` (null for an
    /// unsubscribe from nothing), with the connection's subscription count after it.
    func acknowledgement(_ kind: String, _ name: [UInt8]?, count: Int) -> [UInt8] {
        var encoder = RESPEncoder(protocolVersion: protocolVersion)
        encoder.pushHeader(3)
        encoder.bulkString(kind)
        if let name { encoder.bulkString(name) } else { encoder.null() }
        encoder.integer(Int64(count))
        return encoder.bytes
    }

    /// A message published on `channel`, for a subscriber of the channel itself.
    func message(channel: [UInt8], payload: [UInt8]) -> [UInt8] {
        var encoder = RESPEncoder(protocolVersion: protocolVersion)
        encoder.pushHeader(3)
        encoder.bulkString("message")
        encoder.bulkString(channel)
        encoder.bulkString(payload)
        return encoder.bytes
    }

    /// A message published on `channel`, for a subscriber of `pattern`.
    func patternMessage(pattern: [UInt8], channel: [UInt8], payload: [UInt8]) -> [UInt8] {
        var encoder = RESPEncoder(protocolVersion: protocolVersion)
        encoder.pushHeader(4)
        encoder.bulkString("pmessage")
        encoder.bulkString(pattern)
        encoder.bulkString(channel)
        encoder.bulkString(payload)
        return encoder.bytes
    }

    /// PING on a RESP2 connection in subscribed mode: `["pong", message or ""]`.
    func pong(_ message: [UInt8]?) -> [UInt8] {
        var encoder = RESPEncoder(protocolVersion: protocolVersion)
        encoder.arrayHeader(2)
        encoder.bulkString("pong")
        encoder.bulkString(message ?? [])
        return encoder.bytes
    }
}
