// ProtocolLimits.swift — the caps the RESP decoder enforces on untrusted input.
// Every length a client announces is checked against one of these before any memory is
// reserved for it, so a hostile or broken client cannot make the server allocate without bound.

/// The bounds on one request, as named constants with Redis's defaults where Redis has one.
/// A value type so that later issues can tighten them per connection (e.g. before AUTH).
struct ProtocolLimits: Sendable, Equatable {
    /// Longest inline request line (Redis's PROTO_INLINE_MAX_SIZE); also the longest
    /// `*<count>` / `$<length>` line.
    static let defaultMaxInlineLength = 64 * 1024
    /// Largest bulk string (Redis's default proto-max-bulk-len, 512 MiB).
    static let defaultMaxBulkLength = 512 * 1024 * 1024
    /// Most arguments in one multibulk request. Redis accepts up to INT_MAX; graphd's
    /// commands take at most a handful, so a million is generous and still bounded.
    static let defaultMaxArgumentCount = 1024 * 1024

    var maxInlineLength = ProtocolLimits.defaultMaxInlineLength
    var maxBulkLength = ProtocolLimits.defaultMaxBulkLength
    var maxArgumentCount = ProtocolLimits.defaultMaxArgumentCount

    init() {}
}
