// KeyDecoder.swift — turns the bytes a terminal sends in raw mode into editing keys:
// UTF-8 characters, control keys and the ESC [ … sequences of arrows, Home, End and Delete.
// A pure state machine fed one byte at a time, so it is tested without a terminal.

/// A key the line editor acts on.
enum Key: Equatable, Sendable {
    case character(Character)
    case enter
    case backspace
    case delete
    case left, right, up, down
    case home, end
    /// Ctrl-C.
    case interrupt
    /// Ctrl-D.
    case endOfFile
    /// Ctrl-K: delete to the end of the line.
    case killToEnd
    /// Ctrl-U: delete to the start of the line.
    case killToStart
    /// Ctrl-W: delete the word before the cursor.
    case deleteWord
    /// Ctrl-L.
    case clearScreen
    /// A key or sequence the editor ignores.
    case ignored
}

/// Decodes raw terminal input into `Key`s.
struct KeyDecoder {
    private enum State {
        case ground
        case escape
        /// After `ESC [` or `ESC O`, collecting parameter bytes.
        case sequence(introducer: UInt8, parameters: [UInt8])
        /// Inside a multi-byte UTF-8 character.
        case utf8(bytes: [UInt8], remaining: Int)
    }

    private var state = State.ground

    /// Feeds one byte; returns a key when the byte completes one.
    mutating func feed(_ byte: UInt8) -> Key? {
        switch state {
        case .ground:
            return ground(byte)
        case .escape:
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") {
                state = .sequence(introducer: byte, parameters: [])
                return nil
            }
            // ESC then a key (Alt-key): ignore the ESC, keep the key.
            state = .ground
            return ground(byte)
        case .sequence(let introducer, var parameters):
            // Parameter bytes are digits and ';'; anything in 0x40...0x7E ends the sequence.
            if (0x30...0x3F).contains(byte) {
                parameters.append(byte)
                state = .sequence(introducer: introducer, parameters: parameters)
                return nil
            }
            state = .ground
            return Self.finalKey(byte, parameters: parameters)
        case .utf8(var bytes, let remaining):
            guard byte & 0xC0 == 0x80 else {
                state = .ground
                return ground(byte)
            }
            bytes.append(byte)
            if remaining == 1 {
                state = .ground
                let text = String(decoding: bytes, as: UTF8.self)
                return text.first.map(Key.character) ?? .ignored
            }
            state = .utf8(bytes: bytes, remaining: remaining - 1)
            return nil
        }
    }

    /// Decodes a whole buffer (tests, pasted text).
    mutating func keys(_ bytes: [UInt8]) -> [Key] {
        bytes.compactMap { feed($0) }
    }

    private mutating func ground(_ byte: UInt8) -> Key? {
        switch byte {
        case 0x1B: state = .escape; return nil
        case 13, 10: return .enter
        case 127, 8: return .backspace
        case 1: return .home
        case 2: return .left
        case 3: return .interrupt
        case 4: return .endOfFile
        case 5: return .end
        case 6: return .right
        case 9: return .character(" ")
        case 11: return .killToEnd
        case 12: return .clearScreen
        case 14: return .down
        case 16: return .up
        case 21: return .killToStart
        case 23: return .deleteWord
        case 0..<32: return .ignored
        case 0x80...0xBF, 0xF8...0xFF: return .ignored  // a stray continuation or invalid lead byte
        case 0xC0...0xDF: state = .utf8(bytes: [byte], remaining: 1); return nil
        case 0xE0...0xEF: state = .utf8(bytes: [byte], remaining: 2); return nil
        case 0xF0...0xF7: state = .utf8(bytes: [byte], remaining: 3); return nil
        default: return .character(Character(Unicode.Scalar(byte)))
        }
    }

    private static func finalKey(_ byte: UInt8, parameters: [UInt8]) -> Key {
        switch byte {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch String(decoding: parameters, as: UTF8.self) {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return .ignored
            }
        default: return .ignored
        }
    }
}
