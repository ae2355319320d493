// ProtocolLimits.swift — the caps the RESP decoder enforces on untrusted input.
// Every length a client announces is checked against one of these before any memory is
// reserved for it, so a hostile or broken client cannot make the server allocate without bound.

/// The bounds on one request, as named constants with Redis's defaults where Redis has one.
/// A value type, so that they can be tightened per connection (as they are before AUTH).
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
    /// Longest argument kept (MAX_QUERY_LENGTH, as no command takes a longer one); a longer
    /// bulk, up to `maxBulkLength`, is read past without being buffered and its request
    /// answered with an error (RESPDecoder.Frame.oversized). nil: every bulk is kept.
    var maxArgumentLength: Int? = nil
    /// True for a client that has not authenticated yet while a password is required: the
    /// decoder then names its count and length errors "unauthenticated …", as Redis does.
    var isUnauthenticated = false

    init() {}

    /// Redis's hard caps before AUTH (networking.c): at most 10 arguments of at most
    /// 16 KiB each, and the inline line no longer than that either, so an anonymous peer
    /// can make the server hold only a few kilobytes.
    static let unauthenticated: ProtocolLimits = {
        var limits = ProtocolLimits()
        limits.maxArgumentCount = 10
        limits.maxBulkLength = 16 * 1024
        limits.maxInlineLength = 16 * 1024
        limits.isUnauthenticated = true
        return limits
    }()
}
