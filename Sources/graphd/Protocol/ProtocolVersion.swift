// ProtocolVersion.swift — which RESP dialect a connection speaks: RESP2 from the start,
// RESP3 after `HELLO 3`, RESP2 again after `HELLO 2`. The encoder reads it to choose
// null, map, boolean and verbatim-string encodings.

/// The RESP version negotiated on one connection.
enum ProtocolVersion: Int, Sendable, Equatable {
    case resp2 = 2
    case resp3 = 3
}
