// Canonical.swift — the canonical form of an answer, by which graphd, the reference and the
// peers are compared: one line of text per answer, identical for equal answers in any engine,
// and its FNV-1a digest, which the timed loops check without building the text.
//
// The forms (fields in a row joined by ':', rows by ';'; integers in decimal, flags 1 or 0):
// - ids (friends, mutual friends): the ids ascending, joined by ','
// - ranked (connections): `id:mutual`
// - labels (relationships): `id:kind:mutual:` then the request-sent and request-received flags
//   side by side (`…:10`)
// - audience: `id:kind:mutual`
// - feed: `event:attending:hostKind:hostMutual`
// - lookup: `name|username`, rows joined by a newline
//
// Why a digest: turning a 14,000-row audience into text allocates and writes about 200 KB
// between two timed calls, which leaves the next call's caches cold (the C floor checks nothing
// in its loop). The digest is computed over the very bytes the text would hold, so a digest
// match is a text match (up to a 64-bit collision); the text is built only to report a
// mismatch, and for the reference's answers.

/// The canonical bytes of one answer, streamed into an FNV-1a 64-bit digest and, when asked,
/// kept as text.
struct CanonicalWriter {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    private(set) var digest = CanonicalWriter.offsetBasis
    private var bytes: [UInt8]?
    /// Whether the next row opens the answer (no separator before it).
    private var atStart = true

    /// A writer that only digests (`keepingText` false) or also keeps the text.
    init(keepingText: Bool = false) { bytes = keepingText ? [] : nil }

    /// The text written so far ("" for a digest-only writer).
    var text: String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "" }

    @inline(__always) mutating func byte(_ b: UInt8) {
        digest = (digest ^ UInt64(b)) &* Self.prime
        if bytes != nil { bytes!.append(b) }
    }

    /// `separator` unless this is the answer's first row.
    @inline(__always) mutating func row(_ separator: UInt8) {
        if atStart { atStart = false } else { byte(separator) }
    }

    mutating func string(_ s: String) { for b in s.utf8 { byte(b) } }

    mutating func flag(_ f: Bool) { byte(f ? UInt8(ascii: "1") : UInt8(ascii: "0")) }

    /// `v` in decimal, as `String(v)` writes it, without allocating.
    mutating func integer(_ v: Int) {
        if v < 0 { byte(UInt8(ascii: "-")) }
        var m = v.magnitude
        var divisor: UInt = 1
        while m / divisor >= 10 { divisor &*= 10 }
        while divisor > 0 {
            byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m / divisor))
            m %= divisor
            divisor /= 10
        }
    }
}

/// The canonical forms, each written into a `CanonicalWriter` (see the top of this file).
enum Canonical {
    static func ids<C: Collection<Int>>(_ ids: C, into w: inout CanonicalWriter) {
        // Answers come sorted as a rule: sorting them here only when they are not allocates nothing.
        guard zip(ids, ids.dropFirst()).allSatisfy({ $0 <= $1 }) else { return Self.ids(ids.sorted(), into: &w) }
        for id in ids { w.row(UInt8(ascii: ",")); w.integer(id) }
    }

    static func ranked(_ rows: some Sequence<(Int, Int)>, into w: inout CanonicalWriter) {
        for (id, mutual) in rows { w.row(UInt8(ascii: ";")); w.integer(id); w.byte(UInt8(ascii: ":")); w.integer(mutual) }
    }

    static func labels(_ rows: some Sequence<(Int, String, Int, Bool, Bool)>, into w: inout CanonicalWriter) {
        for (id, kind, mutual, sent, received) in rows {
            w.row(UInt8(ascii: ";"))
            w.integer(id); w.byte(UInt8(ascii: ":")); w.string(kind); w.byte(UInt8(ascii: ":"))
            w.integer(mutual); w.byte(UInt8(ascii: ":")); w.flag(sent); w.flag(received)
        }
    }

    static func audience(_ rows: some Sequence<(Int, String, Int)>, into w: inout CanonicalWriter) {
        for (id, kind, mutual) in rows {
            w.row(UInt8(ascii: ";"))
            w.integer(id); w.byte(UInt8(ascii: ":")); w.string(kind); w.byte(UInt8(ascii: ":")); w.integer(mutual)
        }
    }

    static func feed(_ rows: some Sequence<(Int, Bool, String, Int)>, into w: inout CanonicalWriter) {
        for (event, attending, hostKind, hostMutual) in rows {
            w.row(UInt8(ascii: ";"))
            w.integer(event); w.byte(UInt8(ascii: ":")); w.flag(attending); w.byte(UInt8(ascii: ":"))
            w.string(hostKind); w.byte(UInt8(ascii: ":")); w.integer(hostMutual)
        }
    }

    static func lookup(_ rows: some Sequence<(String, String)>, into w: inout CanonicalWriter) {
        for (name, username) in rows { w.row(UInt8(ascii: "\n")); w.string(name); w.byte(UInt8(ascii: "|")); w.string(username) }
    }

    /// The text `write` produces.
    static func text(_ write: (inout CanonicalWriter) -> Void) -> String {
        var w = CanonicalWriter(keepingText: true)
        write(&w)
        return w.text
    }

    /// The digest of `write`'s bytes.
    static func digest(_ write: (inout CanonicalWriter) -> Void) -> UInt64 {
        var w = CanonicalWriter()
        write(&w)
        return w.digest
    }

    /// A digest in 16 lowercase hex digits (the result file's and the peer scripts' form).
    static func hex(_ digest: UInt64) -> String {
        let hex = String(digest, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
