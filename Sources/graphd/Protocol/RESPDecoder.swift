// RESPDecoder.swift — turns the bytes a client sent into requests (arrays of arguments).
// First stage of the server pipeline: socket → RESPDecoder → CommandTable → query engine.
// Follows Redis's processInputBuffer / processMultibulkBuffer / processInlineBuffer
// (src/networking.c): a request starting with `*` is multibulk, anything else inline.

/// A resumable, bounded RESP2 request decoder.
///
/// The contract is swift-nio's `ByteToMessageDecoder`: `decodeNext` either returns one
/// complete request and advances `index` past it, or returns nil ("need more data") and
/// leaves `index` where it was; it never consumes half a frame, but for the bytes of an
/// argument longer than `limits.maxArgumentLength`, which it reads past as they come. Between calls the decoder
/// remembers how far into the current frame it has already parsed, so a large request that
/// arrives one byte at a time is parsed in linear, not quadratic, time.
///
/// Every announced length is checked against `limits` before anything is reserved.
struct RESPDecoder: Sendable {
    /// One decoded request: the command name and its arguments, as raw bytes.
    typealias Request = [[UInt8]]

    var limits: ProtocolLimits

    /// Progress inside a multibulk frame that is not complete yet. Offsets are relative to
    /// the start of the frame, which the caller has not consumed.
    private struct MultibulkProgress: Sendable {
        var expectedCount: Int
        var arguments: [[UInt8]]
        /// Where the next `$<len>` line (or payload) starts, relative to the frame start.
        var cursor: Int
        /// The length of the bulk whose `$<len>` line was parsed but whose payload has not
        /// fully arrived; nil when the next thing to read is a `$` line.
        var pendingBulkLength: Int?
        /// The first argument longer than `maxArgumentLength`: its index and length.
        var oversized: (argument: Int, length: Int)?
        /// Bytes of an oversized bulk (and its CRLF) still to read past.
        var discarding = 0
    }

    /// One decoded frame.
    enum Frame: Sendable, Equatable {
        case request(Request)
        /// A request with an argument longer than `limits.maxArgumentLength`, read past
        /// without being kept (an empty argument stands in its place): it is answered with
        /// an error, and the connection goes on.
        case oversized(Request, argument: Int, length: Int)
    }

    private var multibulk: MultibulkProgress?
    /// For an inline frame: how many bytes from the frame start are known to hold no `\n`.
    private var inlineScanned = 0

    init(limits: ProtocolLimits = ProtocolLimits()) {
        self.limits = limits
    }

    /// Decodes the next request in `buffer[index...]`.
    ///
    /// Empty inline lines and `*0` / `*-1` frames are consumed silently (no reply), as Redis
    /// does; the loop then continues with the following frame.
    /// - Returns: the request, or nil when more bytes are needed.
    /// - Throws: a protocol error; the caller replies with it and closes the connection.
    mutating func decodeNext(_ buffer: [UInt8], index: inout Int) throws(RESPProtocolError) -> Request? {
        switch try decodeNextFrame(buffer, index: &index) {
        case .request(let request)?, .oversized(let request, _, _)?: return request
        case nil: return nil
        }
    }

    /// `decodeNext`, telling an oversized request from a whole one. While an oversized
    /// bulk is read past, `index` advances over what has arrived of the frame (so none of it
    /// stays buffered), though the frame is not complete yet.
    mutating func decodeNextFrame(_ buffer: [UInt8], index: inout Int) throws(RESPProtocolError) -> Frame? {
        while index < buffer.count {
            let outcome: FrameOutcome
            if buffer[index] == UInt8(ascii: "*") || multibulk != nil {
                outcome = try decodeMultibulk(buffer, start: index)
            } else {
                outcome = try decodeInline(buffer, start: index)
            }
            switch outcome {
            case .needMoreData:
                return nil
            case .consumed(let length):
                index += length
                return nil
            case .skipped(let length):
                index += length
            case .request(let request, let length):
                index += length
                return .request(request)
            case .oversized(let request, let argument, let argumentLength, let length):
                index += length
                return .oversized(request, argument: argument, length: argumentLength)
            }
        }
        return nil
    }

    private enum FrameOutcome {
        case needMoreData
        /// A frame that carries no request (`*0`, `*-1`, a blank inline line).
        case skipped(length: Int)
        case request(Request, length: Int)
        /// The first `length` bytes of a frame were read past (an oversized bulk's).
        case consumed(length: Int)
        case oversized(Request, argument: Int, argumentLength: Int, length: Int)
    }

    // MARK: Inline

    private mutating func decodeInline(_ buffer: [UInt8], start: Int) throws(RESPProtocolError) -> FrameOutcome {
        var newline: Int? = nil
        var i = start + inlineScanned
        while i < buffer.count {
            if buffer[i] == 0x0a { newline = i; break }
            i += 1
        }
        guard let newline else {
            inlineScanned = buffer.count - start
            if buffer.count - start > limits.maxInlineLength { throw .tooBigInlineRequest }
            return .needMoreData
        }
        inlineScanned = 0
        // The cap holds whether or not the newline arrived in the same read: otherwise a long
        // line would pass or fail depending on how the bytes were split (found by fuzzing).
        if newline - start > limits.maxInlineLength { throw .tooBigInlineRequest }
        var end = newline
        if end > start && buffer[end - 1] == 0x0d { end -= 1 }
        guard let arguments = InlineSplitter.split(buffer[start..<end]) else { throw .unbalancedQuotes }
        // The argument cap applies to inline requests too (before AUTH it is 10).
        if arguments.count > limits.maxArgumentCount {
            throw limits.isUnauthenticated ? .unauthenticatedMultibulkLength : .tooManyInlineArguments
        }
        let length = newline + 1 - start
        return arguments.isEmpty ? .skipped(length: length) : .request(arguments, length: length)
    }

    // MARK: Multibulk

    private mutating func decodeMultibulk(_ buffer: [UInt8], start: Int) throws(RESPProtocolError) -> FrameOutcome {
        var progress: MultibulkProgress
        if let existing = multibulk {
            progress = existing
        } else {
            // `*<count>\r\n`
            guard let line = findLine(buffer, from: start + 1) else {
                if buffer.count - start > limits.maxInlineLength { throw .tooBigMultibulkCountString }
                return .needMoreData
            }
            guard let count = parseInteger(buffer, start + 1, line.crIndex), count <= Int(Int32.max) else {
                throw .invalidMultibulkLength
            }
            if count <= 0 { return .skipped(length: line.next - start) }
            guard count <= limits.maxArgumentCount else {
                throw limits.isUnauthenticated ? .unauthenticatedMultibulkLength : .invalidMultibulkLength
            }
            var arguments: [[UInt8]] = []
            // Reserve only what a small request needs: the count is the client's claim.
            arguments.reserveCapacity(min(count, 1024))
            progress = MultibulkProgress(expectedCount: count, arguments: arguments,
                                         cursor: line.next - start, pendingBulkLength: nil)
        }

        while progress.arguments.count < progress.expectedCount {
            if progress.discarding > 0 {
                // Read past what has arrived of the oversized bulk, and hand those bytes back
                // (with the frame's earlier ones, already copied out) so nothing is buffered.
                let available = min(buffer.count - (start + progress.cursor), progress.discarding)
                progress.cursor += available
                progress.discarding -= available
                if progress.discarding > 0 {
                    let consumed = progress.cursor
                    progress.cursor = 0
                    multibulk = progress
                    return consumed > 0 ? .consumed(length: consumed) : .needMoreData
                }
                progress.arguments.append([])
                progress.pendingBulkLength = nil
                continue
            }
            let position = start + progress.cursor
            let bulkLength: Int
            if let pending = progress.pendingBulkLength {
                bulkLength = pending
            } else {
                guard position < buffer.count else { multibulk = progress; return .needMoreData }
                guard let line = findLine(buffer, from: position) else {
                    multibulk = progress
                    if buffer.count - position > limits.maxInlineLength { throw .tooBigBulkCountString }
                    return .needMoreData
                }
                guard buffer[position] == UInt8(ascii: "$") else {
                    throw .expectedDollar(got: buffer[position])
                }
                guard let length = parseInteger(buffer, position + 1, line.crIndex), length >= 0 else {
                    throw .invalidBulkLength
                }
                guard length <= limits.maxBulkLength else {
                    throw limits.isUnauthenticated ? .unauthenticatedBulkLength : .invalidBulkLength
                }
                bulkLength = length
                progress.cursor = line.next - start
                progress.pendingBulkLength = length
                if let longest = limits.maxArgumentLength, length > longest {
                    if progress.oversized == nil { progress.oversized = (progress.arguments.count, length) }
                    progress.discarding = length + 2
                    continue
                }
            }
            let payloadStart = start + progress.cursor
            // The payload and the two bytes after it. Like Redis, those two bytes are
            // skipped unchecked (`$4\r\nPINGxx` is accepted): see docs/protocol.md.
            guard buffer.count - payloadStart >= bulkLength + 2 else {
                multibulk = progress
                return .needMoreData
            }
            progress.arguments.append(Array(buffer[payloadStart..<payloadStart + bulkLength]))
            progress.cursor += bulkLength + 2
            progress.pendingBulkLength = nil
        }
        multibulk = nil
        if let oversized = progress.oversized {
            return .oversized(progress.arguments, argument: oversized.argument, argumentLength: oversized.length,
                              length: progress.cursor)
        }
        return .request(progress.arguments, length: progress.cursor)
    }

    /// Finds a `\r\n`-terminated line starting at `from`, as Redis does: the first `\r`,
    /// which must be followed by one more byte (Redis does not check it is `\n`).
    private func findLine(_ buffer: [UInt8], from: Int) -> (crIndex: Int, next: Int)? {
        var i = from
        while i < buffer.count {
            if buffer[i] == 0x0d {
                return i + 1 < buffer.count ? (i, i + 2) : nil
            }
            i += 1
        }
        return nil
    }

    /// Redis's `string2ll`: an optional `-`, then digits with no leading zero (except "0"),
    /// fitting in 64 bits. Anything else — spaces, `+`, empty — is not a number.
    private func parseInteger(_ buffer: [UInt8], _ from: Int, _ to: Int) -> Int? {
        var i = from
        guard i < to else { return nil }
        var negative = false
        if buffer[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
            guard i < to else { return nil }
        }
        if buffer[i] == UInt8(ascii: "0") {
            return (i + 1 == to && !negative) ? 0 : nil
        }
        var value = 0
        while i < to {
            let d = buffer[i]
            guard d >= UInt8(ascii: "0") && d <= UInt8(ascii: "9") else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int(d - UInt8(ascii: "0")))
            guard !o1 && !o2 else { return nil }
            value = s
            i += 1
        }
        return negative ? -value : value
    }
}
